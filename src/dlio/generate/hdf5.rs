//! DLIO's HDF5 dataset (hdf5_generator.py), with the HDF5 library as h5py
//! calls it: `h5py.File(path, 'w')`, a dataset `records` of shape `(n,
//! dim1, dim2)` uint8 (numpy's `(dim1, dim2, n)` draw written in memory
//! order: one call, as for npy), a dataset `labels` of `n` int64 zeros,
//! contiguous, no chunking or compression (pario refuses those keys off
//! DLIO's default). The library writes the file itself, by its path:
//! like h5py, on a file system only.

use std::io;

use hdf5_metno as h5;

use super::content::Source;
use crate::dlio::dataset::FileSpec;

fn failed(what: &str, e: h5::Error) -> io::Error {
    io::Error::other(format!("HDF5 {what}: {e}"))
}

/// Writes the file's HDF5 container at `path`: its size.
pub fn write_hdf5(path: &str, file: &FileSpec, n: u64, src: &mut Source) -> io::Result<u64> {
    let len = usize::try_from(file.record_bytes() * n)
        .map_err(|_| io::Error::other("a file larger than memory"))?;
    let mut records = vec![0u8; len];
    src.call(file.index).fill(&mut records);
    let shape = [n as usize, file.dim1 as usize, file.dim2 as usize];
    let h5file = h5::File::create(path).map_err(|e| failed("create", e))?;
    h5file
        .new_dataset::<u8>()
        .shape(shape)
        .create("records")
        .and_then(|d| d.write_raw(&records[..]))
        .map_err(|e| failed("dataset records", e))?;
    drop(records);
    let labels = vec![0i64; n as usize];
    h5file
        .new_dataset::<i64>()
        .shape([n as usize])
        .create("labels")
        .and_then(|d| d.write_raw(&labels[..]))
        .map_err(|e| failed("dataset labels", e))?;
    h5file.close().map_err(|e| failed("close", e))?;
    Ok(std::fs::metadata(path)?.len())
}
