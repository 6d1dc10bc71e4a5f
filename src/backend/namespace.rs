//! Where a backend's paths live. [`Namespace`] is what a run needs to set up,
//! check and clean up its files and directories, and to look at the page
//! cache; [`PosixNamespace`] is the helper a backend whose paths are POSIX
//! file-system names opts into, and [`NoNamespace`] the one of a backend
//! that stores nothing.

use std::ffi::CStr;
use std::io;

use serde::{Deserialize, Serialize};

use super::cpath::path_of;
use crate::pagecache::{self, Residency};

/// Operations on the names a backend's files have.
pub trait Namespace: Sync {
    fn exists(&self, path: &CStr) -> io::Result<bool>;
    /// The file's size, or `None` when the backend stores nothing.
    fn size_of(&self, path: &CStr) -> io::Result<Option<u64>>;
    fn mkdir(&self, path: &CStr) -> io::Result<()>;
    /// Removes an empty directory (never recursively).
    fn rmdir(&self, path: &CStr) -> io::Result<()>;
    /// Capacity and use of the file system holding `dir`, when known.
    fn fs_usage(&self, dir: &CStr) -> Option<FsUsage>;
    /// How much of `ranges` (offset, length) of a file is in this node's
    /// page cache; `None` when the backend cannot tell.
    fn residency(&self, path: &CStr, ranges: &[(u64, u64)]) -> io::Result<Option<Residency>>;
    /// Flushes `ranges` of a file and asks to drop them from the page cache.
    fn evict(&self, path: &CStr, ranges: &[(u64, u64)]) -> io::Result<()>;
}

/// Paths that are names in the POSIX file system.
pub struct PosixNamespace;

impl Namespace for PosixNamespace {
    fn exists(&self, path: &CStr) -> io::Result<bool> {
        path_of(path).try_exists()
    }

    fn size_of(&self, path: &CStr) -> io::Result<Option<u64>> {
        Ok(Some(std::fs::metadata(path_of(path))?.len()))
    }

    /// `mkdir(2)` with mode rwxrwxrwx less the umask, as `std::fs::create_dir`.
    fn mkdir(&self, path: &CStr) -> io::Result<()> {
        Ok(rustix::fs::mkdir(
            path,
            rustix::fs::Mode::from_raw_mode(0o777),
        )?)
    }

    fn rmdir(&self, path: &CStr) -> io::Result<()> {
        Ok(rustix::fs::rmdir(path)?)
    }

    fn fs_usage(&self, dir: &CStr) -> Option<FsUsage> {
        FsUsage::of(path_of(dir))
    }

    fn residency(&self, path: &CStr, ranges: &[(u64, u64)]) -> io::Result<Option<Residency>> {
        pagecache::residency(path_of(path), ranges).map(Some)
    }

    fn evict(&self, path: &CStr, ranges: &[(u64, u64)]) -> io::Result<()> {
        pagecache::evict(path_of(path), ranges)
    }
}

/// The names of a backend that stores nothing: every directory can be made
/// and removed, no file exists, nothing is cached. The paths still name a
/// place, so the file system there is reported, as for every backend.
pub struct NoNamespace;

impl Namespace for NoNamespace {
    fn exists(&self, _path: &CStr) -> io::Result<bool> {
        Ok(false)
    }

    fn size_of(&self, _path: &CStr) -> io::Result<Option<u64>> {
        Ok(None)
    }

    fn mkdir(&self, _path: &CStr) -> io::Result<()> {
        Ok(())
    }

    fn rmdir(&self, _path: &CStr) -> io::Result<()> {
        Ok(())
    }

    fn fs_usage(&self, dir: &CStr) -> Option<FsUsage> {
        FsUsage::of(path_of(dir))
    }

    fn residency(&self, _path: &CStr, _ranges: &[(u64, u64)]) -> io::Result<Option<Residency>> {
        Ok(None)
    }

    fn evict(&self, _path: &CStr, _ranges: &[(u64, u64)]) -> io::Result<()> {
        Ok(())
    }
}

/// Capacity and use of the file system holding the test files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FsUsage {
    #[serde(rename = "totalBytes")]
    pub total_bytes: u64,
    #[serde(rename = "usedPercent")]
    pub used_percent: f64,
    #[serde(rename = "totalInodes")]
    pub total_inodes: u64,
    #[serde(rename = "usedInodesPercent")]
    pub used_inodes_percent: f64,
}

impl FsUsage {
    /// `statvfs` of a directory.
    pub fn of(dir: &std::path::Path) -> Option<FsUsage> {
        let s = rustix::fs::statvfs(dir).ok()?;
        let total = s.f_blocks * s.f_frsize;
        let free = s.f_bfree * s.f_frsize;
        let pct = |free: u64, total: u64| {
            if total == 0 {
                0.0
            } else {
                (1.0 - free as f64 / total as f64) * 100.0
            }
        };
        Some(FsUsage {
            total_bytes: total,
            used_percent: pct(free, total),
            total_inodes: s.f_files,
            used_inodes_percent: pct(s.f_ffree, s.f_files),
        })
    }

    /// IOR's FS line: `23.5 GiB   Used FS: 0.0%   Inodes: 2.9 Mi   Used Inodes: 0.0%`.
    pub fn text(&self) -> String {
        let mut size = self.total_bytes as f64 / (1u64 << 30) as f64;
        let mut unit = "GiB";
        if size > 1024.0 {
            size /= 1024.0;
            unit = "TiB";
        }
        format!(
            "{size:.1} {unit}   Used FS: {:.1}%   Inodes: {:.1} Mi   Used Inodes: {:.1}%",
            self.used_percent,
            self.total_inodes as f64 / (1u64 << 20) as f64,
            self.used_inodes_percent
        )
    }
}
