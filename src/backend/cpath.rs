//! Paths as the kernel takes them: NUL-terminated bytes.
//!
//! Backends receive every path as a `&CStr`. A `&Path` handed to rustix or
//! std is copied into a fresh C string and scanned for NUL bytes on every
//! call, 20-40 ns that show in a metadata loop on tmpfs (1-3 % of an mdtest
//! stat). The runners build each name once instead: a fixed path with
//! [`c_path`], and mdtest's item names in a reused [`CPathBuf`] whose number
//! is counted up in place.

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// `path` as a C string; a path holding a NUL byte is an
/// [`io::ErrorKind::InvalidInput`] error naming it.
pub fn c_path(path: &Path) -> io::Result<CString> {
    CString::new(path.as_os_str().as_bytes()).map_err(|_| nul_error())
}

/// The [`Path`] a C-string path names (for messages and `std::fs` calls).
pub fn path_of(path: &CStr) -> &Path {
    Path::new(OsStr::from_bytes(path.to_bytes()))
}

/// The callers name the path (a task's error message shows it once).
fn nul_error() -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, "a path cannot hold a NUL byte")
}

/// A path built in place, always NUL-terminated, so that [`as_c_str`]
/// costs nothing.
///
/// [`as_c_str`]: CPathBuf::as_c_str
#[derive(Debug, Clone)]
pub struct CPathBuf {
    /// The path's bytes, then one NUL: no other byte is NUL.
    bytes: Vec<u8>,
}

impl Default for CPathBuf {
    fn default() -> Self {
        CPathBuf { bytes: vec![0] }
    }
}

impl CPathBuf {
    /// The length of the path, without its NUL.
    pub fn len(&self) -> usize {
        self.bytes.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Keeps the first `len` bytes of the path.
    pub fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.bytes.truncate(len);
            self.bytes.push(0);
        }
    }

    /// Appends `more`; fails, leaving the path as it was, if `more` holds a
    /// NUL byte.
    pub fn push(&mut self, more: &[u8]) -> io::Result<()> {
        if more.contains(&0) {
            return Err(nul_error());
        }
        self.bytes.pop();
        self.bytes.extend_from_slice(more);
        self.bytes.push(0);
        Ok(())
    }

    /// Appends `n` in decimal.
    pub fn push_decimal(&mut self, n: u64) {
        let mut digits = [0u8; 20];
        let mut i = digits.len();
        let mut x = n;
        loop {
            i -= 1;
            digits[i] = b'0' + (x % 10) as u8;
            x /= 10;
            if x == 0 {
                break;
            }
        }
        self.bytes.pop();
        self.bytes.extend_from_slice(&digits[i..]);
        self.bytes.push(0);
    }

    /// Adds one to the decimal number that ends the path and starts at
    /// `start` or after its last non-digit, whichever is later.
    pub fn increment_decimal(&mut self, start: usize) {
        let mut i = self.len();
        while i > start {
            i -= 1;
            match self.bytes[i] {
                b'9' => self.bytes[i] = b'0',
                digit @ b'0'..=b'8' => {
                    self.bytes[i] = digit + 1;
                    return;
                }
                _ => {
                    // 9…9 + 1 after a non-digit: one more digit.
                    self.bytes.insert(i + 1, b'1');
                    return;
                }
            }
        }
        // 9…9 + 1: one more digit.
        self.bytes.insert(start, b'1');
    }

    pub fn as_c_str(&self) -> &CStr {
        debug_assert!(CStr::from_bytes_with_nul(&self.bytes).is_ok());
        // SAFETY: `bytes` ends with a NUL and holds no other (the only
        // invariant of this type, kept by every method above: `push` rejects
        // NUL bytes, the decimal methods write ASCII digits only), which is all
        // `from_bytes_with_nul_unchecked` requires. Skipping the check is the
        // point: this pointer goes to the kernel once per metadata call.
        unsafe { CStr::from_bytes_with_nul_unchecked(&self.bytes) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_up_in_place_and_stays_terminated() {
        let mut p = CPathBuf::default();
        p.push(b"/d/file.").unwrap();
        let start = p.len();
        p.push_decimal(98);
        p.increment_decimal(start);
        assert_eq!(p.as_c_str().to_bytes(), b"/d/file.99");
        p.increment_decimal(start);
        assert_eq!(p.as_c_str().to_bytes(), b"/d/file.100");
        assert_eq!(path_of(p.as_c_str()), Path::new("/d/file.100"));
        // A start before the number: it still counts from its first digit.
        p.increment_decimal(0);
        assert_eq!(p.as_c_str(), c"/d/file.101");
        p.truncate(start);
        p.push_decimal(0);
        assert_eq!(p.as_c_str(), c"/d/file.0");
    }

    #[test]
    fn a_nul_byte_is_refused_and_changes_nothing() {
        let mut p = CPathBuf::default();
        p.push(b"/d/").unwrap();
        let e = p.push(b"a\0b").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(e.to_string(), "a path cannot hold a NUL byte");
        assert_eq!(p.as_c_str(), c"/d/");
        assert!(c_path(Path::new(OsStr::from_bytes(b"x\0y"))).is_err());
        assert_eq!(
            path_of(&c_path(Path::new("/a/b")).unwrap()),
            Path::new("/a/b")
        );
    }
}
