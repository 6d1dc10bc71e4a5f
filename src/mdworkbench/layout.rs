//! md-workbench's object model: which dataset directories and objects exist,
//! what they are called, and whose objects a rank reads and writes.
//!
//! Rank `r` owns `D` datasets `<prefix>/<r>_<d>`; object `i` of a dataset is
//! `<prefix>/<r>_<d>/file-<i>`. After the precreate phase every dataset holds
//! objects `start..P`. Benchmark iteration `f` (from start index `s`) takes
//! object `s+f` of dataset `d` of rank `r - O(d+1)` (stat, read, delete) and
//! creates object `P+s+f` in dataset `d` of rank `r + O(d+1)`.

use std::ffi::CStr;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The directory of dataset `d` of `rank`.
pub fn dataset_dir(prefix: &Path, rank: usize, d: u64) -> PathBuf {
    prefix.join(format!("{rank}_{d}"))
}

/// Object `index` of dataset `d` of `rank`.
pub fn object_path(prefix: &Path, rank: usize, d: u64, index: u64) -> PathBuf {
    dataset_dir(prefix, rank, d).join(format!("file-{index}"))
}

/// Object names, written into one reused buffer and NUL-terminated for the
/// system calls: a name costs no allocation in the operation loops.
pub struct ObjectNames {
    buf: Vec<u8>,
    prefix: usize,
}

impl ObjectNames {
    /// `None` when the prefix holds a NUL byte (no file can be named so).
    pub fn new(prefix: &Path) -> Option<ObjectNames> {
        let bytes = prefix.as_os_str().as_bytes();
        (!bytes.contains(&0)).then(|| ObjectNames {
            buf: bytes.to_vec(),
            prefix: bytes.len(),
        })
    }

    /// Object `index` of dataset `d` of `rank`.
    pub fn name(&mut self, rank: usize, d: u64, index: u64) -> &CStr {
        self.buf.truncate(self.prefix);
        let _ = write!(self.buf, "/{rank}_{d}/file-{index}\0");
        CStr::from_bytes_with_nul(&self.buf).expect("digits and a NUL-free prefix")
    }
}

/// `(r + shift) mod n`, never negative.
fn wrap(rank: usize, shift: i128, tasks: usize) -> usize {
    (rank as i128 + shift).rem_euclid(tasks as i128) as usize
}

/// The rank whose dataset `d` rank `rank` reads (and deletes) from.
pub fn read_rank(rank: usize, offset: i64, d: u64, tasks: usize) -> usize {
    wrap(rank, -(offset as i128) * (d as i128 + 1), tasks)
}

/// The rank whose dataset `d` rank `rank` creates new objects in.
pub fn write_rank(rank: usize, offset: i64, d: u64, tasks: usize) -> usize {
    wrap(rank, offset as i128 * (d as i128 + 1), tasks)
}

/// The item number the data pattern of an object is stamped with.
pub fn item(index: u64, data_sets: u64, d: u64) -> u64 {
    index.wrapping_mul(data_sets).wrapping_add(d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_md_workbenchs() {
        let p = Path::new("/x/out");
        assert_eq!(dataset_dir(p, 3, 7), Path::new("/x/out/3_7"));
        assert_eq!(object_path(p, 0, 1, 42), Path::new("/x/out/0_1/file-42"));
        let mut names = ObjectNames::new(p).unwrap();
        assert_eq!(names.name(0, 1, 42).to_bytes(), b"/x/out/0_1/file-42");
        assert_eq!(names.name(12, 3, 7).to_bytes(), b"/x/out/12_3/file-7");
        assert!(ObjectNames::new(Path::new("a\0b")).is_none());
    }

    #[test]
    fn readers_and_writers_are_offset_by_dataset() {
        // Two ranks, -O 1: dataset 0 is read from the other rank, dataset 1
        // from the rank itself (2 steps around a ring of 2).
        assert_eq!(read_rank(0, 1, 0, 2), 1);
        assert_eq!(read_rank(0, 1, 1, 2), 0);
        assert_eq!(write_rank(1, 1, 0, 2), 0);
        // Three ranks, -O 2, dataset 2: 6 steps, a full turn.
        assert_eq!(read_rank(2, 2, 2, 3), 2);
        assert_eq!(read_rank(0, 1, 0, 3), 2);
        assert_eq!(write_rank(0, 1, 0, 3), 1);
        assert_eq!(write_rank(2, -1, 0, 3), 1);
    }
}
