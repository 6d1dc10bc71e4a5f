//! How much of a file's data sits in this node's page cache (`mincore` over a
//! read-only mapping of the file), and asking the kernel to drop it
//! (`fdatasync` + `posix_fadvise(POSIX_FADV_DONTNEED)`, only a hint).
//!
//! Large ranges are sampled: at most [`SAMPLE_WINDOWS`] windows of
//! [`SAMPLE_WINDOW`] bytes spread evenly over the ranges are examined.

use std::fs::File;
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Ranges up to this many bytes in total are examined whole.
pub const EXAMINE_WHOLE: u64 = 4 << 30;
/// Size of one sampled window.
pub const SAMPLE_WINDOW: u64 = crate::units::MIB;
/// Windows examined when sampling.
pub const SAMPLE_WINDOWS: u64 = 1024;

/// Resident bytes among the bytes examined.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Residency {
    /// Bytes found in the page cache.
    pub resident: u64,
    /// Bytes examined (all of them, unless sampled).
    pub examined: u64,
    /// Bytes the ranges hold in total.
    pub total: u64,
}

impl Residency {
    /// The resident share, 0 to 1.
    pub fn fraction(&self) -> f64 {
        if self.examined == 0 {
            0.0
        } else {
            self.resident as f64 / self.examined as f64
        }
    }

    pub fn sampled(&self) -> bool {
        self.examined < self.total
    }
}

/// What a read phase found in the page cache, over all tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CacheReport {
    /// Before the read (before any eviction).
    #[serde(rename = "cachedBeforeRead")]
    pub before: Residency,
    /// After eviction, when asked for.
    #[serde(rename = "afterEviction", skip_serializing_if = "Option::is_none")]
    pub after_eviction: Option<Residency>,
    /// Whether every task read data written on another node.
    #[serde(rename = "readsCrossNodes")]
    pub cross_node: bool,
    /// O_DIRECT reads bypass the cache whatever it holds.
    #[serde(rename = "directIo")]
    pub direct: bool,
    /// The warning given, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

/// A cached share at or above this makes a read figure suspect.
pub const SUSPECT_FRACTION: f64 = 0.5;

impl CacheReport {
    /// The residency the read met: after eviction if there was one.
    pub fn at_read(&self) -> Residency {
        self.after_eviction.unwrap_or(self.before)
    }

    /// The warning for a read likely served from memory, if any.
    pub fn assess(&mut self) {
        let cached = self.at_read().fraction();
        self.warning = (cached >= SUSPECT_FRACTION && !self.cross_node && !self.direct).then(|| {
            let why = match self.after_eviction {
                Some(after) if after.fraction() >= self.before.fraction() - 0.01 => {
                    "; eviction had no effect on this file system (tmpfs keeps file data in memory)"
                }
                Some(_) => "; eviction left part of it cached",
                None => "",
            };
            let remedies = if self.after_eviction.is_some() {
                "-C across nodes or --posix.odirect"
            } else {
                "-C across nodes, --posix.odirect or -O evictBeforeRead=1"
            };
            format!(
                "WARNING: {:.0}% of the data read was in this node's page cache{why}: the read figure likely measures memory, not storage (use {remedies})",
                cached * 100.0
            )
        });
    }

    /// One line for the text output.
    pub fn describe(&self) -> String {
        let pct = |r: &Residency| r.fraction() * 100.0;
        let mut text = format!(
            "cached before read: {:.1}% of {}{}",
            pct(&self.before),
            crate::units::human_bytes(self.before.total),
            if self.before.sampled() {
                " (sampled)"
            } else {
                ""
            }
        );
        if let Some(after) = &self.after_eviction {
            text.push_str(&format!("; after eviction: {:.1}%", pct(after)));
            if after.fraction() >= self.before.fraction() - 0.01 && self.before.fraction() > 0.0 {
                text.push_str(" (eviction had no effect)");
            }
        }
        if self.cross_node {
            text.push_str("; reads cross nodes");
        }
        if self.direct {
            text.push_str("; O_DIRECT");
        }
        text
    }
}

/// The ranges to examine: all of `ranges` if small enough, else evenly spaced
/// windows over them.
fn windows(ranges: &[(u64, u64)], file_len: u64) -> (Vec<(u64, u64)>, u64) {
    let clipped: Vec<(u64, u64)> = ranges
        .iter()
        .filter(|&&(o, _)| o < file_len)
        .map(|&(o, l)| (o, l.min(file_len - o)))
        .filter(|&(_, l)| l > 0)
        .collect();
    let total: u64 = clipped.iter().map(|r| r.1).sum();
    if total <= EXAMINE_WHOLE {
        return (clipped, total);
    }
    let step = total / SAMPLE_WINDOWS;
    let mut picked = Vec::new();
    let mut target = 0u64;
    let mut passed = 0u64;
    for &(offset, len) in &clipped {
        while target < passed + len && picked.len() < SAMPLE_WINDOWS as usize {
            let within = target - passed;
            picked.push((offset + within, SAMPLE_WINDOW.min(len - within)));
            target += step;
        }
        passed += len;
    }
    (picked, total)
}

/// Measures how much of `ranges` (offset, length) of the file at `path` is
/// resident in this node's page cache.
pub fn residency(path: &Path, ranges: &[(u64, u64)]) -> io::Result<Residency> {
    let file = File::open(path)?;
    let len = file.metadata()?.len();
    let (examine, total) = windows(ranges, len);
    let page = rustix::param::page_size() as u64;
    let mut found = Residency {
        total,
        ..Default::default()
    };
    for (offset, length) in examine {
        let start = offset / page * page;
        let end = (offset + length).min(len);
        let map_len = (end - start) as usize;
        if map_len == 0 {
            continue;
        }
        // SAFETY: a read-only shared mapping used only for mincore, never
        // read through, so changes to the file by others cannot matter.
        let map = unsafe {
            memmap2::MmapOptions::new()
                .offset(start)
                .len(map_len)
                .map(&file)?
        };
        let pages = map_len.div_ceil(page as usize);
        let mut flags = vec![0u8; pages];
        // SAFETY: `map` covers `map_len` bytes starting at a page-aligned
        // address; `flags` has one byte per page of that range, as mincore
        // requires.
        let rc = unsafe {
            libc::mincore(
                map.as_ptr() as *mut libc::c_void,
                map_len,
                flags.as_mut_ptr(),
            )
        };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        let resident_pages = flags.iter().filter(|&&f| f & 1 == 1).count() as u64;
        found.resident += (resident_pages * page).min(map_len as u64);
        found.examined += map_len as u64;
    }
    Ok(found)
}

/// Flushes and asks the kernel to drop the page cache of `ranges` of a file.
pub fn evict(path: &Path, ranges: &[(u64, u64)]) -> io::Result<()> {
    let file = File::open(path)?;
    file.sync_data()?;
    for &(offset, len) in ranges {
        let len = std::num::NonZeroU64::new(len);
        rustix::fs::fadvise(&file, offset, len, rustix::fs::Advice::DontNeed)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_ranges_are_examined_whole() {
        let (w, total) = windows(&[(0, 100), (200, 50), (1000, 10)], 220);
        assert_eq!(w, vec![(0, 100), (200, 20)]);
        assert_eq!(total, 120);
    }

    #[test]
    fn huge_ranges_are_sampled() {
        let (w, total) = windows(&[(0, 10 << 30)], 10 << 30);
        assert_eq!(total, 10 << 30);
        assert_eq!(w.len(), SAMPLE_WINDOWS as usize);
        assert_eq!(w[0], (0, SAMPLE_WINDOW));
        assert_eq!(w[1].0, (10 << 30) / SAMPLE_WINDOWS);
    }

    #[test]
    fn a_freshly_written_file_is_resident() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, vec![7u8; 1 << 20]).unwrap();
        let r = residency(&path, &[(0, 1 << 20)]).unwrap();
        assert_eq!(r.examined, 1 << 20);
        assert!(r.fraction() > 0.99, "{r:?}");
        evict(&path, &[(0, 1 << 20)]).unwrap();
        // Eviction is a hint: on tmpfs it does nothing. Whatever happened,
        // the measurement stays within bounds.
        let after = residency(&path, &[(0, 1 << 20)]).unwrap();
        assert!(after.resident <= after.examined);
    }
}
