//! `np.load` of an `.npz` member and of an `.npy` file, request for
//! request as numpy 2 does it on CPython 3.11 (measured with strace): the
//! zip end record and central directory, the member's local header, then
//! the array in 256 KiB pieces through zipfile's reads; or the npy header
//! through Python's buffer and the data through C's `fread`. The headers
//! are parsed (they say where the member is and how long the array is);
//! the data is not looked at.

use std::io;

use super::pyfile::{c_fread, PyFile, Scratch};
use crate::backend::File;

/// zipfile's smallest read of a member (`ZipExtFile.MIN_READ_SIZE`).
const MIN_READ: usize = 4096;
/// numpy's piece of an array read from a stream (`format.BUFFER_SIZE`).
const NUMPY_PIECE: usize = 1 << 18;

fn invalid(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_string())
}

fn u16_at(b: &[u8], at: usize) -> u64 {
    u16::from_le_bytes([b[at], b[at + 1]]) as u64
}

fn u32_at(b: &[u8], at: usize) -> u64 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes")) as u64
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// `np.load(path)['x']` of a DLIO npz file.
pub fn load_npz(
    file: &mut dyn File,
    scratch: &mut Scratch,
    size: u64,
    block: usize,
) -> io::Result<()> {
    let mut py = PyFile::new(file, scratch, size, block);
    let mut magic = Vec::new();
    py.read(6, Some(&mut magic))?;
    py.seek(py.tell() - magic.len() as u64);
    if !magic.starts_with(b"PK\x03\x04") && !magic.starts_with(b"PK\x05\x06") {
        return Err(invalid("not an npz file (no zip signature)"));
    }
    let directory = central_directory(&mut py)?;
    let member = find_member(&directory.bytes, b"x.npy", directory.concat)?;
    let mut x = Member::open(&mut py, &member)?;
    read_array(&mut py, &mut x)
}

/// The zip's central directory as zipfile reads it, and how far the
/// archive sits from the start of the file.
struct Directory {
    bytes: Vec<u8>,
    concat: u64,
}

fn central_directory(py: &mut PyFile) -> io::Result<Directory> {
    let size = py.size();
    py.seek_end(22);
    let mut end = Vec::new();
    py.read_all(&mut end)?;
    if end.len() != 22 || &end[..4] != b"PK\x05\x06" || end[20..22] != [0, 0] {
        return Err(invalid("zip end record not where numpy writes it"));
    }
    let (mut cd_size, mut cd_offset) = (u32_at(&end, 12), u32_at(&end, 16));
    let mut records = 22;
    py.seek_end(42);
    let mut locator = Vec::new();
    if py.read(20, Some(&mut locator))? == 20 && &locator[..4] == b"PK\x06\x07" {
        py.seek_end(42 + 56);
        let mut end64 = Vec::new();
        if py.read(56, Some(&mut end64))? == 56 && &end64[..4] == b"PK\x06\x06" {
            cd_size = u64_at(&end64, 40);
            cd_offset = u64_at(&end64, 48);
            records += 76;
        }
    }
    let concat = size
        .checked_sub(records + cd_size + cd_offset)
        .ok_or_else(|| invalid("zip central directory out of the file"))?;
    py.seek(cd_offset + concat);
    let mut bytes = Vec::new();
    py.read(cd_size as usize, Some(&mut bytes))?;
    Ok(Directory { bytes, concat })
}

/// A member as the central directory describes it.
struct Entry {
    header_offset: u64,
    stored_size: u64,
}

fn find_member(dir: &[u8], name: &[u8], concat: u64) -> io::Result<Entry> {
    let mut p = 0;
    while p + 46 <= dir.len() && &dir[p..p + 4] == b"PK\x01\x02" {
        let (name_len, extra_len) = (u16_at(dir, p + 28) as usize, u16_at(dir, p + 30) as usize);
        let comment_len = u16_at(dir, p + 32) as usize;
        let next = p + 46 + name_len + extra_len + comment_len;
        if next > dir.len() {
            break;
        }
        if &dir[p + 46..p + 46 + name_len] == name {
            if u16_at(dir, p + 10) != 0 {
                return Err(invalid("a compressed npz member (not modelled)"));
            }
            let extra = &dir[p + 46 + name_len..p + 46 + name_len + extra_len];
            let mut sizes = [
                u32_at(dir, p + 24),
                u32_at(dir, p + 20),
                u32_at(dir, p + 42),
            ];
            zip64_sizes(extra, &mut sizes);
            return Ok(Entry {
                header_offset: sizes[2] + concat,
                stored_size: sizes[1],
            });
        }
        p = next;
    }
    Err(invalid("no member x in the npz file"))
}

/// Replaces the 32-bit file size, stored size and header offset that are
/// all ones with the zip64 extra field's values, in that order.
fn zip64_sizes(mut extra: &[u8], sizes: &mut [u64; 3]) {
    while extra.len() >= 4 {
        let (id, len) = (u16_at(extra, 0), u16_at(extra, 2) as usize);
        let data = &extra[4..(4 + len).min(extra.len())];
        if id == 1 {
            let mut at = 0;
            for size in sizes.iter_mut().filter(|s| **s == 0xFFFF_FFFF) {
                if at + 8 <= data.len() {
                    *size = u64_at(data, at);
                    at += 8;
                }
            }
        }
        extra = &extra[(4 + len).min(extra.len())..];
    }
}

/// zipfile's `ZipExtFile` of a stored member: where its bytes are, what
/// is left of them, and its read buffer (kept only while it holds the
/// header numpy parses).
struct Member {
    /// The shared file position (`_SharedFile._pos`).
    at: u64,
    left: u64,
    buffered: Vec<u8>,
    /// Bytes of the read buffer (kept or not) and the position in it.
    buffer_len: usize,
    offset: usize,
    eof: bool,
}

impl Member {
    /// `ZipFile.open`: the local header, name and extra field.
    fn open(py: &mut PyFile, entry: &Entry) -> io::Result<Member> {
        py.seek(entry.header_offset);
        let mut header = Vec::new();
        if py.read(30, Some(&mut header))? != 30 || &header[..4] != b"PK\x03\x04" {
            return Err(invalid("bad zip local header"));
        }
        let (name_len, extra_len) = (u16_at(&header, 26) as usize, u16_at(&header, 28) as usize);
        py.seek(py.tell());
        py.read(name_len, None)?;
        if extra_len > 0 {
            py.seek(py.tell());
            py.read(extra_len, None)?;
        }
        Ok(Member {
            at: py.tell(),
            left: entry.stored_size,
            buffered: Vec::new(),
            buffer_len: 0,
            offset: 0,
            eof: false,
        })
    }

    /// `_read2` through `_read1`: at least 4096 bytes of the member, in
    /// one buffered read.
    fn read_raw(&mut self, py: &mut PyFile, n: usize, keep: bool) -> io::Result<usize> {
        if self.eof || n == 0 || self.left == 0 {
            self.eof = true;
            return Ok(0);
        }
        let n = n.max(MIN_READ).min(self.left as usize);
        py.seek(self.at);
        let got = py.read(n, keep.then_some(&mut self.buffered))?;
        self.at = py.tell();
        if got == 0 {
            return Err(invalid("npz member shorter than its directory says"));
        }
        self.left -= got as u64;
        self.eof = self.left == 0;
        Ok(got)
    }

    /// `ZipExtFile.read(n)`: bytes returned; `out` gets them when they
    /// come from the kept buffer.
    fn read(&mut self, py: &mut PyFile, n: usize, out: Option<&mut Vec<u8>>) -> io::Result<usize> {
        let end = n + self.offset;
        if end < self.buffer_len {
            if let Some(o) = out {
                o.extend_from_slice(&self.buffered[self.offset..end]);
            }
            self.offset = end;
            return Ok(n);
        }
        let mut got = self.buffer_len - self.offset;
        if let Some(o) = out {
            o.extend_from_slice(&self.buffered[self.offset.min(self.buffered.len())..]);
        }
        let mut want = end - self.buffer_len;
        self.buffered.clear();
        (self.buffer_len, self.offset) = (0, 0);
        while want > 0 && !self.eof {
            let data = self.read_raw(py, want, false)?;
            if want < data {
                (self.buffer_len, self.offset) = (data, want);
                got += want;
                break;
            }
            got += data;
            want -= data;
        }
        Ok(got)
    }

    /// The first read of the member, kept: numpy's magic check
    /// (`read(6)`, then `seek(0)` inside the buffer).
    fn first(&mut self, py: &mut PyFile) -> io::Result<()> {
        let got = self.read_raw(py, 6, true)?;
        self.buffer_len = got;
        self.offset = 0;
        Ok(())
    }

    /// numpy's `_read_bytes`: `n` bytes or an error.
    fn read_exactly(
        &mut self,
        py: &mut PyFile,
        n: usize,
        mut out: Option<&mut Vec<u8>>,
    ) -> io::Result<()> {
        let mut got = 0;
        while got < n {
            let r = self.read(py, n - got, out.as_deref_mut())?;
            if r == 0 {
                return Err(invalid("npz member ran out of data"));
            }
            got += r;
        }
        Ok(())
    }
}

/// numpy's `format.read_array` on a member: magic, header, then the data
/// in 256 KiB pieces.
fn read_array(py: &mut PyFile, x: &mut Member) -> io::Result<()> {
    x.first(py)?;
    let mut magic = Vec::new();
    x.read_exactly(py, 8, Some(&mut magic))?;
    let length_bytes = npy_length_bytes(&magic)?;
    let mut length = Vec::new();
    x.read_exactly(py, length_bytes, Some(&mut length))?;
    let mut header = Vec::new();
    x.read_exactly(py, le_number(&length) as usize, Some(&mut header))?;
    let (count, item) = npy_shape(&header)?;
    if item == 0 {
        return Ok(());
    }
    let per_piece = (NUMPY_PIECE / item.min(NUMPY_PIECE)) as u64;
    let mut done = 0;
    while done < count {
        let n = per_piece.min(count - done);
        x.read_exactly(py, (n * item as u64) as usize, None)?;
        done += n;
    }
    Ok(())
}

/// `np.load(path)` of a DLIO npy file.
pub fn load_npy(
    file: &mut dyn File,
    scratch: &mut Scratch,
    size: u64,
    block: usize,
) -> io::Result<()> {
    let (start, len) = {
        let mut py = PyFile::new(file, scratch, size, block);
        let mut magic = Vec::new();
        py.read(6, Some(&mut magic))?;
        py.seek(py.tell() - magic.len() as u64);
        magic.clear();
        py.read(8, Some(&mut magic))?;
        let mut length = Vec::new();
        py.read(npy_length_bytes(&magic)?, Some(&mut length))?;
        let mut header = Vec::new();
        py.read(le_number(&length) as usize, Some(&mut header))?;
        let (count, item) = npy_shape(&header)?;
        (py.tell(), count * item as u64)
    };
    c_fread(file, scratch, block, start, len)
}

/// The bytes of the header length of an npy file of this magic (version
/// 1: two, 2 and 3: four).
fn npy_length_bytes(magic: &[u8]) -> io::Result<usize> {
    if magic.len() < 8 || &magic[..6] != b"\x93NUMPY" {
        return Err(invalid("not an npy array (no numpy magic)"));
    }
    match magic[6] {
        1 => Ok(2),
        2 | 3 => Ok(4),
        _ => Err(invalid("unknown npy format version")),
    }
}

fn le_number(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |n, b| n << 8 | *b as u64)
}

/// Elements and bytes per element of an npy header
/// (`{'descr': '|u1', 'fortran_order': False, 'shape': (3, 4, 1), }`).
fn npy_shape(header: &[u8]) -> io::Result<(u64, usize)> {
    let text = std::str::from_utf8(header).map_err(|_| invalid("npy header is not text"))?;
    let after = |key: &str| text.find(key).map(|at| &text[at + key.len()..]);
    let descr = after("'descr':").ok_or_else(|| invalid("npy header without descr"))?;
    let item: usize = descr
        .trim_start()
        .trim_start_matches(['\'', '<', '>', '|', '='])
        .trim_start_matches(char::is_alphabetic)
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .map_err(|_| invalid("npy descr without an item size"))?;
    let shape = after("'shape':").ok_or_else(|| invalid("npy header without shape"))?;
    let inside = shape
        .trim_start()
        .strip_prefix('(')
        .and_then(|s| s.split(')').next())
        .ok_or_else(|| invalid("npy shape is not a tuple"))?;
    let mut count: u64 = 1;
    for dim in inside.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let d: u64 = dim
            .parse()
            .map_err(|_| invalid("npy shape is not numbers"))?;
        count = count
            .checked_mul(d)
            .ok_or_else(|| invalid("npy shape too large"))?;
    }
    Ok((count, item))
}

#[cfg(test)]
mod tests;
