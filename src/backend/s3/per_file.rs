//! `--S3-libs3.bucket-per-file`: every file and every directory is a
//! bucket of its own, as IOR's S3-libs3 maps them, but under names S3
//! accepts. IOR names a file's bucket `PREFIX-KEY` (its key mangling: `/`
//! as `_`) and a directory's `PREFIX-` and the path's letters and digits;
//! S3 refuses `_`, capitals and names over 63 characters, so pario reads
//! `_` as `-` and, when that is not enough, makes the name valid by
//! [`valid_name`]'s rule. A file's data keys in its bucket are IOR's: `0`
//! at offset 0, `OFFSET-LENGTH` elsewhere.
//!
//! A file's bucket is made when the file is created (opened for writing,
//! or created by mdtest) and removed with the file, its objects first; a
//! directory's by mkdir and rmdir. The tools remove only the files and
//! directories their runs created (`run::fs::Created`, mdtest's records),
//! so a bucket that existed before a run is never removed by it.

use std::io;

use super::client::{Answer, Client};
use super::object::{file_key, Naming};
use super::{Layout, S3Names, Status, Target, S3};

/// The buckets of `--S3-libs3.bucket-per-file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PerFile {
    /// IOR's bucket prefix, with its suffix (`ior425`).
    pub prefix: String,
}

impl PerFile {
    /// The bucket of the file `path`.
    pub fn file_bucket(&self, path: &str) -> String {
        valid_name(&format!("{}-{}", self.prefix, file_key(path)))
    }

    /// The bucket of the directory `path`: IOR keeps its letters and
    /// digits only.
    pub fn dir_bucket(&self, path: &str) -> String {
        let kept: String = path
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .map(|c| c.to_ascii_lowercase())
            .collect();
        valid_name(&format!("{}-{kept}", self.prefix))
    }

    /// Where the file `path` is: its bucket, and the key of its first byte.
    pub fn target(&self, path: &str) -> Target {
        Target {
            bucket: self.file_bucket(path),
            key: Naming::IorBucket.key("", 0, 0),
        }
    }
}

/// A valid bucket name for IOR's name `ior`. IOR's name with each `_` read
/// as `-` when that is 3 to 63 lowercase letters, digits and single `-`,
/// starting and ending with a letter or a digit. Otherwise: lower case,
/// every run of other characters as one `-`, none at either end, at most
/// 54 characters, then `-` and 8 hex digits of IOR's whole name (FNV-1a),
/// so that names cut short, or made alike by the first steps, still differ.
pub fn valid_name(ior: &str) -> String {
    let plain = ior.replace('_', "-");
    if is_plain(&plain) {
        return plain;
    }
    let mut name = String::with_capacity(63);
    for c in ior.chars().map(|c| c.to_ascii_lowercase()) {
        if c.is_ascii_lowercase() || c.is_ascii_digit() {
            name.push(c);
        } else if !name.is_empty() && !name.ends_with('-') {
            name.push('-');
        }
    }
    name.truncate(54);
    let name = name.trim_end_matches('-');
    let hash = format!("{:08x}", fnv1a(ior.as_bytes()));
    match name.is_empty() {
        true => hash,
        false => format!("{name}-{hash}"),
    }
}

/// A name that needs no change: S3's rules (and AWS's reserved `xn--`,
/// `-s3alias`), with no doubled `-` (an absolute path's `/` after the
/// prefix's `-`), which would make two of IOR's names one.
fn is_plain(name: &str) -> bool {
    let alnum = |b: Option<u8>| b.is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    (3..=63).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && alnum(name.bytes().next())
        && alnum(name.bytes().last())
        && !name.contains("--")
        && !name.ends_with("-s3alias")
}

/// FNV-1a (64 bits) folded to 32.
fn fnv1a(bytes: &[u8]) -> u32 {
    let mut h = 0xcbf2_9ce4_8422_2325u64;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h ^ (h >> 32)) as u32
}

/// A bucket exists (`false` on 404).
fn bucket_exists(client: &Client, bucket: &str) -> io::Result<bool> {
    match client.head_bucket(bucket) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

fn errno(code: i32, what: String) -> io::Error {
    let e = io::Error::from_raw_os_error(code);
    io::Error::new(e.kind(), format!("{what}: {e}"))
}

impl S3Names {
    /// The size of a file (the end of its last fragment), `None` when its
    /// bucket does not exist.
    pub(super) fn bucket_file_size(&self, pf: &PerFile, path: &str) -> io::Result<Option<u64>> {
        let bucket = pf.file_bucket(path);
        let objects = match self.client.list(&bucket, "", None, None) {
            Ok((objects, _)) => objects,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(e),
        };
        let ends = objects.iter().filter_map(|o| {
            let offset = Naming::IorBucket.offset_of("", &o.key)?;
            Some(offset.saturating_add(o.size))
        });
        Ok(Some(ends.max().unwrap_or(0)))
    }

    pub(super) fn bucket_is_dir(&self, pf: &PerFile, path: &str) -> io::Result<bool> {
        bucket_exists(&self.client, &pf.dir_bucket(path))
    }

    /// mkdir: CreateBucket, an existing one refused (S3 would say yes).
    pub(super) fn bucket_mkdir(&self, pf: &PerFile, path: &str) -> io::Result<()> {
        let bucket = pf.dir_bucket(path);
        if bucket_exists(&self.client, &bucket)? {
            return Err(errno(libc::EEXIST, format!("bucket {bucket}")));
        }
        self.client.create_bucket(&bucket)
    }

    /// rmdir: DeleteBucket; one that holds objects stays (ENOTEMPTY).
    pub(super) fn bucket_rmdir(&self, pf: &PerFile, path: &str) -> io::Result<()> {
        let bucket = pf.dir_bucket(path);
        match self.client.delete_bucket(&bucket) {
            Err(e) if Answer::is(&e, "BucketNotEmpty") => {
                Err(errno(libc::ENOTEMPTY, format!("bucket {bucket}")))
            }
            other => other,
        }
    }
}

impl S3 {
    /// The file's bucket, made when missing: one CreateBucket, as IOR's
    /// create (tasks opening a shared file race; a bucket that exists
    /// when the request fails is as good).
    pub(super) fn file_bucket_made(&self, pf: &PerFile, path: &str) -> io::Result<Target> {
        let t = pf.target(path);
        if let Err(e) = self.client.create_bucket(&t.bucket) {
            if !bucket_exists(&self.client, &t.bucket)? {
                return Err(e);
            }
        }
        self.buckets
            .lock()
            .expect("no panic holds it")
            .insert(t.bucket.clone());
        Ok(t)
    }

    /// mdtest's create: a new bucket (an exclusive create refuses one that
    /// exists).
    pub(super) fn bucket_create(
        &self,
        pf: &PerFile,
        path: &str,
        exclusive: bool,
    ) -> io::Result<Target> {
        let bucket = pf.file_bucket(path);
        if exclusive && bucket_exists(&self.client, &bucket)? {
            return Err(io::Error::new(
                io::ErrorKind::AlreadyExists,
                format!("bucket {bucket}: exists"),
            ));
        }
        self.file_bucket_made(pf, path)
    }

    /// Removing a file: its unfinished uploads aborted, its objects
    /// deleted (`DeleteObjects`), then its bucket.
    pub(super) fn bucket_remove(&self, pf: &PerFile, path: &str) -> io::Result<()> {
        let bucket = pf.file_bucket(path);
        if !bucket_exists(&self.client, &bucket)? {
            return Err(errno(libc::ENOENT, format!("bucket {bucket}")));
        }
        if self.layout == Layout::Object {
            for (key, id) in self.client.list_uploads(&bucket, "")? {
                self.client.abort_upload(&bucket, &key, &id)?;
            }
        }
        let (objects, _) = self.client.list(&bucket, "", None, None)?;
        let keys: Vec<String> = objects.into_iter().map(|o| o.key).collect();
        self.client.delete_many(&bucket, &keys)?;
        self.client.delete_bucket(&bucket)?;
        self.buckets
            .lock()
            .expect("no panic holds it")
            .remove(&bucket);
        Ok(())
    }

    /// stat: a file's bucket (its size from the listing), else a
    /// directory's.
    pub(super) fn bucket_stat(&self, pf: &PerFile, path: &str) -> io::Result<Status> {
        if let Some(size) = self.namespace.bucket_file_size(pf, path)? {
            return Ok(Status {
                size,
                is_dir: false,
            });
        }
        match self.namespace.bucket_is_dir(pf, path)? {
            true => Ok(Status {
                size: 0,
                is_dir: true,
            }),
            false => Err(errno(
                libc::ENOENT,
                format!(
                    "{path}: no bucket {} nor {}",
                    pf.file_bucket(path),
                    pf.dir_bucket(path)
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_valid_and_distinct() {
        let pf = PerFile {
            prefix: "ior".into(),
        };
        // Relative paths keep IOR's name, `_` read as `-`.
        assert_eq!(pf.file_bucket("testFile"), "ior-testfileb");
        assert_eq!(pf.file_bucket("dir/f"), "ior-dir-fb");
        assert_eq!(pf.dir_bucket("/tmp/x"), "ior-tmpx");
        // An absolute path: its leading `/` would double the `-`.
        let abs = pf.file_bucket("/tmp/test.00000003");
        assert!(abs.starts_with("ior-tmp-testbu00000003b-"), "{abs}");
        assert_ne!(abs, pf.file_bucket("tmp/test.00000003"));
        assert_ne!(pf.file_bucket("/a//b"), pf.file_bucket("/a/b"));
        let long = "/x".repeat(60);
        let (a, b) = (pf.file_bucket(&long), pf.file_bucket(&format!("{long}y")));
        assert_ne!(a, b);
        for name in [abs, a, b, valid_name("IOR_"), valid_name("--")] {
            assert!(super::super::check_bucket(&name).is_ok(), "{name}");
            assert!(!name.contains("--"), "{name}");
        }
        assert_eq!(valid_name("x"), format!("x-{:08x}", fnv1a(b"x")));
    }
}
