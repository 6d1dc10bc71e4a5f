//! numpy's `.npy` and `.npz` containers, byte for byte as numpy 2 and
//! Python 3's zipfile write them: `np.save` (magic, version 1.0, the header
//! dict padded to 64 bytes with room to grow), and `np.savez(x=records,
//! y=labels)`: a stored zip of `x.npy` and `y.npy`, each with a zip64 local
//! header (sizes 0xFFFFFFFF, the real ones in the extra field), date
//! 1980-01-01, mode 0600, then the central directory and its end.

use std::io;

use super::content::Source;
use super::out::Out;
use crate::dlio::dataset::FileSpec;

const ARRAY_ALIGN: usize = 64;
/// numpy leaves room for this many digits of the growing axis.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// Python's repr of a shape tuple.
fn shape_repr(shape: &[u64]) -> String {
    match shape {
        [one] => format!("({one},)"),
        _ => {
            let parts: Vec<String> = shape.iter().map(u64::to_string).collect();
            format!("({})", parts.join(", "))
        }
    }
}

/// The header of an array `descr` (`|u1`, `<i8`) of `shape` (C order).
pub fn npy_header(descr: &str, shape: &[u64]) -> Vec<u8> {
    let mut header = format!(
        "{{'descr': '{descr}', 'fortran_order': False, 'shape': {}, }}",
        shape_repr(shape)
    );
    let first = shape.first().map_or(0, |d| d.to_string().len());
    if !shape.is_empty() {
        header.push_str(&" ".repeat(GROWTH_AXIS_MAX_DIGITS.saturating_sub(first)));
    }
    let hlen = header.len() + 1;
    let padlen = ARRAY_ALIGN - ((8 + 2 + hlen) % ARRAY_ALIGN);
    let mut out = Vec::with_capacity(10 + hlen + padlen);
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&((hlen + padlen) as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend(std::iter::repeat_n(b' ', padlen));
    out.push(b'\n');
    out
}

/// `np.save` of the file's records: `uint8[dim1, dim2, n]`, one call.
pub fn write_npy(out: &mut dyn Out, file: &FileSpec, n: u64, src: &mut Source) -> io::Result<()> {
    out.put(&npy_header("|u1", &[file.dim1, file.dim2, n]))?;
    let mut call = src.call(file.index);
    out.fill(&mut call, file.record_bytes() * n)
}

/// One zip member as written: where its header is, its sizes and CRC.
struct Member {
    name: &'static str,
    offset: u64,
    size: u64,
    crc: u32,
}

/// The local header of a member (zip64: sizes in the extra field).
fn local_header(m: &Member) -> Vec<u8> {
    let mut h = Vec::with_capacity(55);
    h.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
    h.extend_from_slice(&45u16.to_le_bytes()); // version needed: zip64
    h.extend_from_slice(&0u16.to_le_bytes()); // flags
    h.extend_from_slice(&0u16.to_le_bytes()); // stored
    h.extend_from_slice(&0u16.to_le_bytes()); // time 00:00:00
    h.extend_from_slice(&0x21u16.to_le_bytes()); // date 1980-01-01
    h.extend_from_slice(&m.crc.to_le_bytes());
    h.extend_from_slice(&u32::MAX.to_le_bytes());
    h.extend_from_slice(&u32::MAX.to_le_bytes());
    h.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
    h.extend_from_slice(&20u16.to_le_bytes());
    h.extend_from_slice(m.name.as_bytes());
    h.extend_from_slice(&1u16.to_le_bytes()); // zip64 extra
    h.extend_from_slice(&16u16.to_le_bytes());
    h.extend_from_slice(&m.size.to_le_bytes());
    h.extend_from_slice(&m.size.to_le_bytes());
    h
}

/// A central directory entry; zip64 fields only for what exceeds 32 bits,
/// as zipfile writes them.
fn central_entry(m: &Member) -> Vec<u8> {
    let big = |v: u64| v >= 0xFFFF_FFFF;
    let mut extra = Vec::new();
    if big(m.size) {
        extra.extend_from_slice(&m.size.to_le_bytes());
        extra.extend_from_slice(&m.size.to_le_bytes());
    }
    if big(m.offset) {
        extra.extend_from_slice(&m.offset.to_le_bytes());
    }
    let clamp = |v: u64| if big(v) { u32::MAX } else { v as u32 };
    let mut e = Vec::with_capacity(46 + m.name.len() + 4 + extra.len());
    e.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
    e.extend_from_slice(&0x032du16.to_le_bytes()); // made by: Unix, 4.5
    e.extend_from_slice(&45u16.to_le_bytes());
    e.extend_from_slice(&[0; 6]); // flags, method, time
    e.extend_from_slice(&0x21u16.to_le_bytes());
    e.extend_from_slice(&m.crc.to_le_bytes());
    e.extend_from_slice(&clamp(m.size).to_le_bytes());
    e.extend_from_slice(&clamp(m.size).to_le_bytes());
    e.extend_from_slice(&(m.name.len() as u16).to_le_bytes());
    let extra_len = if extra.is_empty() { 0 } else { extra.len() + 4 };
    e.extend_from_slice(&(extra_len as u16).to_le_bytes());
    e.extend_from_slice(&[0; 6]); // comment, disk, internal attributes
    e.extend_from_slice(&(0o600u32 << 16).to_le_bytes());
    e.extend_from_slice(&clamp(m.offset).to_le_bytes());
    e.extend_from_slice(m.name.as_bytes());
    if !extra.is_empty() {
        e.extend_from_slice(&1u16.to_le_bytes());
        e.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        e.extend_from_slice(&extra);
    }
    e
}

/// The end of the central directory (with zip64's record and locator when
/// its offset or size needs them).
fn end_records(entries: u64, cd_offset: u64, cd_size: u64) -> Vec<u8> {
    let mut e = Vec::new();
    let zip64 = cd_offset >= 0xFFFF_FFFF || cd_size >= 0xFFFF_FFFF;
    if zip64 {
        let record_at = cd_offset + cd_size;
        e.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
        e.extend_from_slice(&44u64.to_le_bytes());
        e.extend_from_slice(&45u16.to_le_bytes());
        e.extend_from_slice(&45u16.to_le_bytes());
        e.extend_from_slice(&[0; 8]);
        e.extend_from_slice(&entries.to_le_bytes());
        e.extend_from_slice(&entries.to_le_bytes());
        e.extend_from_slice(&cd_size.to_le_bytes());
        e.extend_from_slice(&cd_offset.to_le_bytes());
        e.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
        e.extend_from_slice(&0u32.to_le_bytes());
        e.extend_from_slice(&record_at.to_le_bytes());
        e.extend_from_slice(&1u32.to_le_bytes());
    }
    let clamp = |v: u64| v.min(0xFFFF_FFFF) as u32;
    e.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    e.extend_from_slice(&[0; 4]);
    e.extend_from_slice(&(entries as u16).to_le_bytes());
    e.extend_from_slice(&(entries as u16).to_le_bytes());
    e.extend_from_slice(&clamp(cd_size).to_le_bytes());
    e.extend_from_slice(&clamp(cd_offset).to_le_bytes());
    e.extend_from_slice(&0u16.to_le_bytes());
    e
}

/// The labels array: `int64[n]` zeros.
fn labels(n: u64) -> Vec<u8> {
    let mut y = npy_header("<i8", &[n]);
    y.resize(y.len() + 8 * n as usize, 0);
    y
}

/// `np.savez(f, x=records, y=[0]*n)`. The records' CRC goes into the
/// header before them: the header is put with none, summed over while the
/// records are written, and put again complete (zipfile seeks back too), so
/// the content is made once.
pub fn write_npz(out: &mut dyn Out, file: &FileSpec, n: u64, src: &mut Source) -> io::Result<()> {
    let header_at = out.written();
    let mut x = Member {
        name: "x.npy",
        offset: header_at,
        size: npy_header("|u1", &[file.dim1, file.dim2, n]).len() as u64 + file.record_bytes() * n,
        crc: 0,
    };
    out.put(&local_header(&x))?;
    out.start_crc32();
    write_npy(out, file, n, src)?;
    x.crc = out.crc32();
    out.put_at(header_at, &local_header(&x))?;
    let y = labels(n);
    let ym = Member {
        name: "y.npy",
        offset: local_header(&x).len() as u64 + x.size,
        size: y.len() as u64,
        crc: crc32fast::hash(&y),
    };
    out.put(&local_header(&ym))?;
    out.put(&y)?;
    let cd_offset = out.written();
    let mut cd = central_entry(&x);
    cd.extend(central_entry(&ym));
    out.put(&cd)?;
    out.put(&end_records(2, cd_offset, cd.len() as u64))
}
