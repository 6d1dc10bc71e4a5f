//! The namespace side of the S3 backend: where a path is (its bucket and
//! key), whether it exists, its size, directories as marker objects (or
//! buckets, with `--S3-libs3.bucket-per-file`).

use std::ffi::CStr;
use std::io;
use std::sync::Arc;

use super::client::Client;
use super::object::{file_key, Naming};
use super::per_file::PerFile;
use super::{parse_target, Layout, Target};
use crate::backend::namespace::Namespace;
use crate::backend::FsUsage;
use crate::pagecache::Residency;

/// The namespace side: existence and sizes by HEAD or listing.
pub(super) struct S3Names {
    pub(super) client: Arc<Client>,
    pub(super) layout: Layout,
    pub(super) naming: Naming,
    pub(super) bucket: Option<String>,
    pub(super) ior_keys: bool,
    pub(super) per_file: Option<PerFile>,
}

pub(super) fn text(path: &CStr) -> String {
    path.to_string_lossy().into_owned()
}

/// The marker object of directory `key`.
pub(super) fn marker(key: &str) -> String {
    format!("{}/", key.trim_end_matches('/'))
}

/// The bucket and key of `path`: pario's mapping, IOR's S3-libs3 key in
/// the one bucket, or the file's own bucket.
pub(super) fn target_of(
    path: &CStr,
    bucket: Option<&str>,
    ior_keys: bool,
    per_file: Option<&PerFile>,
) -> io::Result<Target> {
    if let Some(pf) = per_file {
        return Ok(pf.target(&text(path)));
    }
    match (ior_keys, bucket) {
        (true, Some(b)) => Ok(Target {
            bucket: b.to_string(),
            key: file_key(&text(path)),
        }),
        _ => parse_target(&text(path), bucket),
    }
}

impl S3Names {
    pub(super) fn target(&self, path: &CStr) -> io::Result<Target> {
        target_of(
            path,
            self.bucket.as_deref(),
            self.ior_keys,
            self.per_file.as_ref(),
        )
    }

    /// The size of a file, `None` when it does not exist.
    pub(super) fn size(&self, path: &CStr) -> io::Result<Option<u64>> {
        if let Some(pf) = &self.per_file {
            return self.bucket_file_size(pf, &text(path));
        }
        let t = self.target(path)?;
        match self.layout {
            Layout::Object => self.client.head(&t.bucket, &t.key),
            Layout::Fragments => {
                let found = self.fragments(&t)?;
                Ok(found.iter().map(|f| f.1.saturating_add(f.2)).max())
            }
        }
    }

    /// Whether `path` is a directory: its marker exists (the bucket itself
    /// always does).
    pub(super) fn is_dir(&self, path: &CStr) -> io::Result<bool> {
        if let Some(pf) = &self.per_file {
            return self.bucket_is_dir(pf, &text(path));
        }
        let t = self.target(path)?;
        if t.key.is_empty() {
            return Ok(true);
        }
        Ok(self.client.head(&t.bucket, &marker(&t.key))?.is_some())
    }

    /// The fragments of a file: (key, offset, size).
    pub(super) fn fragments(&self, t: &Target) -> io::Result<Vec<(String, u64, u64)>> {
        let prefix = self.naming.prefix(&t.key);
        let (objects, _) = self.client.list(&t.bucket, &prefix, None, None)?;
        Ok(objects
            .into_iter()
            .filter_map(|o| {
                let offset = self.naming.offset_of(&t.key, &o.key)?;
                Some((o.key, offset, o.size))
            })
            .collect())
    }
}

impl Namespace for S3Names {
    fn exists(&self, path: &CStr) -> io::Result<bool> {
        Ok(self.size(path)?.is_some() || self.is_dir(path)?)
    }

    fn size_of(&self, path: &CStr) -> io::Result<Option<u64>> {
        match self.size(path)? {
            Some(size) => Ok(Some(size)),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                format!("{}: no such object", text(path)),
            )),
        }
    }

    /// A directory is a key prefix with a marker, an empty object `DIR/`,
    /// so that it exists (mdtest stats its directories) before it holds
    /// anything.
    fn mkdir(&self, path: &CStr) -> io::Result<()> {
        if let Some(pf) = &self.per_file {
            return self.bucket_mkdir(pf, &text(path));
        }
        let t = self.target(path)?;
        if t.key.is_empty() {
            return Ok(());
        }
        if self.is_dir(path)? {
            return Err(io::Error::from_raw_os_error(libc::EEXIST));
        }
        self.client.put(&t.bucket, &marker(&t.key), &[])
    }

    fn rmdir(&self, path: &CStr) -> io::Result<()> {
        if let Some(pf) = &self.per_file {
            return self.bucket_rmdir(pf, &text(path));
        }
        let t = self.target(path)?;
        if t.key.is_empty() {
            return Ok(());
        }
        self.client.delete(&t.bucket, &marker(&t.key))
    }

    fn fs_usage(&self, _dir: &CStr) -> Option<FsUsage> {
        None
    }

    fn residency(&self, _path: &CStr, _ranges: &[(u64, u64)]) -> io::Result<Option<Residency>> {
        Ok(None)
    }

    fn evict(&self, _path: &CStr, _ranges: &[(u64, u64)]) -> io::Result<()> {
        Ok(())
    }
}
