//! The reads `torch.load(path)` makes of a checkpoint file, call for call:
//! the Python file's `read`/`seek`/`readinto` calls of `torch.load`, of
//! PyTorch's reader and of miniz under it, through CPython's buffered
//! reader (`train::pyfile`), which turns them into the requests the
//! storage sees.
//!
//! In order: `_is_zipfile` reads 4 bytes at 0; the reader seeks to the end
//! for the size and reads 8 bytes at 0 (the old magic); miniz reads the
//! last 4096 bytes (the end record's signature), the end record, the zip64
//! locator and end record, the central directory; then every record it is
//! asked for: its 30-byte local header, then its data. PyTorch asks for
//! `.data/serialization_id`, `version`; `torch.load` for `.format_version`,
//! `byteorder`, `.storage_alignment`, `data.pkl` and each storage in order.

use std::io;

use super::container::Image;
use crate::dlio::train::pyfile::PyFile;

/// The end of central directory record (no comment).
const END: u64 = 22;
const LOCATOR: u64 = 20;
const END64: u64 = 56;
const LOCAL_HEADER: usize = 30;
/// miniz's scan for the end record reads this much at the file's end.
const SCAN: u64 = 4096;

/// `seek(at)` then `readinto` of `len` bytes.
fn read_at(f: &mut PyFile, at: u64, len: u64) -> io::Result<()> {
    f.seek(at);
    let got = f.read_into(len as usize, None)?;
    if (got as u64) < len {
        return Err(io::Error::new(
            io::ErrorKind::UnexpectedEof,
            format!(
                "the file ends {} bytes early at offset {at}",
                len - got as u64
            ),
        ));
    }
    Ok(())
}

/// Reads a file as `torch.load` reads it; `f` must be the file of `image`.
pub fn torch_load(f: &mut PyFile, image: &Image) -> io::Result<()> {
    let size = f.size();
    // torch.load's _is_zipfile: read(4) and back.
    f.read(4, None)?;
    f.seek(0);
    // PyTorch's adapter over the Python file: its size, then the magic.
    f.seek_end(0);
    f.seek(0);
    if size > 8 {
        read_at(f, 0, 8)?;
    }
    // miniz: the end record, zip64 locator and end record, the directory.
    let scan = size.saturating_sub(SCAN);
    read_at(f, scan, size - scan)?;
    let end = size - END;
    read_at(f, end, END)?;
    if end >= LOCATOR + END64 {
        read_at(f, end - LOCATOR, LOCATOR)?;
        read_at(f, image.end64, END64)?;
    }
    read_at(f, image.central.0, image.central.1)?;
    let mut names = vec![
        ".data/serialization_id".to_string(),
        "version".into(),
        ".format_version".into(),
        "byteorder".into(),
        ".storage_alignment".into(),
        "data.pkl".into(),
    ];
    names.extend((0..image.storages.len()).map(|i| format!("data/{i}")));
    for name in &names {
        let record = image.record(name).ok_or_else(|| {
            io::Error::other(format!("the checkpoint's layout has no record {name}"))
        })?;
        read_at(f, record.header, LOCAL_HEADER as u64)?;
        if record.size > 0 {
            read_at(f, record.data, record.size)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
