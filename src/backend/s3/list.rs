//! Listings: ListObjectsV2 page by page ([`Client::list_page`]) or whole
//! ([`Client::list`]), and a tree of keys as directories (the
//! [`Listing`] io500's find walks).

use std::io;
use std::time::SystemTime;

use super::answers::{Listed, Page};
use super::client::{Body, Client};
use super::object::file_key;
use super::{parse_target, xml, S3Names};
use crate::backend::listing::{ListPage, ListedFile, Listing};

impl Client {
    /// Every object whose key starts with `prefix` (ListObjectsV2, paged);
    /// with a `delimiter`, also the common prefixes one level down.
    pub fn list(
        &self,
        bucket: &str,
        prefix: &str,
        delimiter: Option<&str>,
        limit: Option<usize>,
    ) -> io::Result<(Vec<Listed>, Vec<String>)> {
        let mut objects = Vec::new();
        let mut prefixes = Vec::new();
        let mut token: Option<String> = None;
        loop {
            let page = self.list_page(bucket, prefix, delimiter, limit, token.as_deref())?;
            objects.extend(page.objects);
            prefixes.extend(page.prefixes);
            let full = limit.is_some_and(|n| objects.len() >= n);
            token = page.next.filter(|_| !full);
            if token.is_none() {
                return Ok((objects, prefixes));
            }
        }
    }

    /// One page of ListObjectsV2 (at most `limit` or 1,000 keys), from
    /// `token` on.
    pub fn list_page(
        &self,
        bucket: &str,
        prefix: &str,
        delimiter: Option<&str>,
        limit: Option<usize>,
        token: Option<&str>,
    ) -> io::Result<Page> {
        let mut q = vec![
            ("list-type", "2".to_string()),
            ("prefix", prefix.to_string()),
        ];
        if let Some(d) = delimiter {
            q.push(("delimiter", d.to_string()));
        }
        if let Some(n) = limit {
            q.push(("max-keys", n.min(1000).to_string()));
        }
        if let Some(t) = token {
            q.push(("continuation-token", t.to_string()));
        }
        let text = Self::text(self.send("GET", bucket, "", &q, &[], Body::Empty)?)?;
        let page = Page::parse(&text);
        // Asked for again, that page would come back forever.
        if page.next.is_some() && page.next.as_deref() == token {
            return Err(io::Error::other(format!(
                "bucket {bucket}: ListObjectsV2 answered the continuation token {} with itself",
                xml::one_line(page.next.unwrap_or_default())
            )));
        }
        Ok(page)
    }
}

/// A tree of S3 keys as directories: pario's keys (`/` between names) or
/// IOR's S3-libs3 keys (`_` between names, each file's name closed by
/// `b`). Directory markers (`DIR/`) are no files; the fragments of a file
/// are one file (its size their sum).
impl Listing for S3Names {
    fn directory(&self, path: &str) -> io::Result<String> {
        let (bucket, prefix) = self.prefix_of(path)?;
        Ok(format!("s3://{bucket}/{prefix}"))
    }

    fn page(&self, dir: &str, token: Option<&str>) -> io::Result<ListPage> {
        let t = parse_target(dir, None)?;
        let delimiter = if self.ior_keys { "_" } else { "/" };
        let page = self
            .client
            .list_page(&t.bucket, &t.key, Some(delimiter), None, token)?;
        let mut files = Vec::with_capacity(page.objects.len());
        for o in page.objects {
            if o.key == t.key || o.key.ends_with('/') {
                continue;
            }
            // A key outside the prefix asked for is the server's mistake.
            let Some(rest) = o.key.strip_prefix(t.key.as_str()) else {
                return Err(io::Error::other(format!(
                    "{dir}: the server listed key {} outside the prefix asked for",
                    xml::one_line(o.key)
                )));
            };
            let (name, continues) = self.piece(rest);
            files.push(ListedFile {
                name: name.to_string(),
                size: o.size,
                modified: o.modified.as_deref().and_then(time_of),
                continues,
            });
        }
        let dirs = page
            .prefixes
            .iter()
            .map(|p| format!("s3://{}/{p}", t.bucket));
        Ok(ListPage {
            files,
            dirs: dirs.collect(),
            next: page.next,
        })
    }

    fn holds_anything(&self, path: &str) -> io::Result<bool> {
        let (bucket, prefix) = self.prefix_of(path)?;
        let first = self
            .client
            .list_page(&bucket, &prefix, None, Some(1), None)?;
        Ok(!first.objects.is_empty() || !self.client.list_uploads(&bucket, &prefix)?.is_empty())
    }

    fn remove_all(&self, path: &str) -> io::Result<u64> {
        let (bucket, prefix) = self.prefix_of(path)?;
        for (key, id) in self.client.list_uploads(&bucket, &prefix)? {
            self.client.abort_upload(&bucket, &key, &id)?;
        }
        let (objects, _) = self.client.list(&bucket, &prefix, None, None)?;
        let keys: Vec<String> = objects.into_iter().map(|o| o.key).collect();
        self.client.delete_many(&bucket, &keys)?;
        Ok(keys.len() as u64)
    }
}

impl S3Names {
    /// The bucket, and the prefix of every key under the directory `path`.
    fn prefix_of(&self, path: &str) -> io::Result<(String, String)> {
        let path = path.trim_end_matches('/');
        if let (true, Some(bucket)) = (self.ior_keys, &self.bucket) {
            let key = file_key(path);
            let stem = key.strip_suffix('b').unwrap_or(&key);
            return Ok((bucket.clone(), format!("{stem}_")));
        }
        let t = parse_target(path, self.bucket.as_deref())?;
        let prefix = match t.key.is_empty() {
            true => String::new(),
            false => format!("{}/", t.key),
        };
        Ok((t.bucket, prefix))
    }

    /// A listed name: the file it belongs to, and whether it is a later
    /// fragment of that file.
    fn piece<'a>(&self, name: &'a str) -> (&'a str, bool) {
        if self.ior_keys {
            // IOR's `KEY-OFFSET-LENGTH`: its keys hold no other `-`.
            return match name.split_once('-') {
                Some((file, _)) => (file.strip_suffix('b').unwrap_or(file), true),
                None => (name.strip_suffix('b').unwrap_or(name), false),
            };
        }
        match name.rsplit_once('~') {
            Some((file, digits))
                if digits.len() == 20 && digits.bytes().all(|b| b.is_ascii_digit()) =>
            {
                (file, digits.bytes().any(|b| b != b'0'))
            }
            _ => (name, false),
        }
    }
}

/// S3's `LastModified` (ISO 8601).
fn time_of(text: &str) -> Option<SystemTime> {
    chrono::DateTime::parse_from_rfc3339(text)
        .ok()
        .map(SystemTime::from)
}

#[cfg(test)]
mod tests {
    use super::time_of;
    use std::time::{Duration, SystemTime};

    #[test]
    fn last_modified_is_read() {
        let t = time_of("2026-11-28T09:34:38.500Z").unwrap();
        let since = t.duration_since(SystemTime::UNIX_EPOCH).unwrap();
        assert_eq!(since, Duration::from_millis(1_795_858_478_500));
        assert!(time_of("yesterday").is_none());
    }
}
