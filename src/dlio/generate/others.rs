//! DLIO's simpler containers: CSV as pandas writes one record repeated
//! (csv_generator.py), and indexed binary (indexed_binary_generator.py):
//! the records back to back, with `.off.idx` and `.sz.idx` files of
//! little-endian u64 offsets and sizes.

use std::io;

use super::content::{Call, Source};
use super::out::Out;
use crate::dlio::dataset::FileSpec;

/// `pd.DataFrame([record] * n).to_csv(path)`: a header of column numbers,
/// then each row's index and the record's values.
pub fn write_csv(out: &mut dyn Out, file: &FileSpec, n: u64, src: &mut Source) -> io::Result<()> {
    let columns = file.record_bytes() as usize;
    let mut record = vec![0u8; columns];
    src.call(file.index).fill(&mut record);
    let mut header = String::with_capacity(columns * 7);
    for c in 0..columns {
        header.push(',');
        header.push_str(&c.to_string());
    }
    header.push('\n');
    out.put(header.as_bytes())?;
    let mut values = String::with_capacity(columns * 4);
    for v in &record {
        values.push(',');
        values.push_str(&v.to_string());
    }
    values.push('\n');
    for row in 0..n {
        out.put(row.to_string().as_bytes())?;
        out.put(values.as_bytes())?;
    }
    Ok(())
}

/// The records of an indexed binary file, and its two index files. DLIO
/// draws `min(file, buffer)` bytes (whole samples) once and writes them
/// again until the file is full; each write's offsets start at 0 again.
pub fn write_indexed(
    out: &mut dyn Out,
    file: &FileSpec,
    n: u64,
    buffer: u64,
    src: &mut Source,
) -> io::Result<(Vec<u8>, Vec<u8>)> {
    let sample = file.record_bytes();
    let total = sample * n;
    let write = if total > buffer {
        buffer - buffer % sample
    } else {
        total
    };
    if write == 0 {
        return Err(io::Error::other(format!(
            "dataset.generation_buffer_size {buffer} holds no sample of {sample} bytes"
        )));
    }
    let (mut off, mut sz) = (Vec::new(), Vec::new());
    let mut written = 0;
    let mut first: Option<Source> = None;
    while written < total {
        let chunk = write.min(total - written);
        // The same drawn bytes each time: draw from a copy after the first.
        let mut again = match &first {
            None => {
                first = Some(src.snapshot());
                None
            }
            Some(s) => Some(s.snapshot()),
        };
        let mut call: Call<'_> = match &mut again {
            Some(copy) => copy.call(file.index),
            None => src.call(file.index),
        };
        out.fill(&mut call, chunk)?;
        for i in 0..chunk / sample {
            off.extend_from_slice(&(i * sample).to_le_bytes());
            sz.extend_from_slice(&sample.to_le_bytes());
        }
        written += chunk;
    }
    Ok((off, sz))
}
