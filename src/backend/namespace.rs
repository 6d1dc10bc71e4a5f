//! The name space of file-based backends: the opt-in helper for backends
//! whose paths live in the POSIX file system.

use serde::Serialize;

/// Capacity and use of the file system holding the test files.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
