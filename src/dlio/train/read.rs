//! One sample, read as DLIO's reader for its format reads it, through
//! pario's backend (POSIX, O_DIRECT, S3): the requests of `np.load` for
//! npz and npy, one aligned read for their O_DIRECT readers, the index
//! files then one read per sample for indexed binary. Nothing is decoded.
//!
//! Approximate (documented): csv (pandas' reads), jpeg and png (PIL's) are
//! read whole through Python's buffer in 256 KiB and 64 KiB pieces; the
//! memory-mapped indexed binary reader's index pages are read whole and
//! its data file only opened, where DLIO faults pages in.

use std::collections::{HashMap, HashSet};
use std::ffi::{CStr, CString};
use std::io;
use std::time::Instant;

use super::numpy_load::{load_npy, load_npz};
use super::pyfile::{PyFile, Scratch};
use crate::backend::{Access, Backend, File, OpenSpec};
use crate::buffer::PAGE;
use crate::latency::LatencyRecorder;

/// The formats a PyTorch-style reader reads sample by sample.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleFormat {
    Npz,
    Npy,
    Jpeg,
    Png,
    Csv,
    IndexedBinary,
    MmapIndexedBinary,
}

/// How the samples are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    pub format: SampleFormat,
    /// `reader.odirect` (npz, npy): one aligned read of the whole file.
    pub odirect: bool,
    /// Python's buffer: the file system's block size (`st_blksize`).
    pub block: usize,
    /// Reopen the file for every sample (`read_type: on_demand`); otherwise
    /// a reader loads each file once and serves its samples from memory.
    pub reopen: bool,
}

/// The names of a dataset's files, by their index in the sorted list.
pub trait FileNames: Sync {
    fn count(&self) -> usize;
    fn path(&self, index: usize) -> CString;
}

impl FileNames for Vec<CString> {
    fn count(&self) -> usize {
        self.len()
    }

    fn path(&self, index: usize) -> CString {
        self[index].clone()
    }
}

/// Opens a file to read it through; its size (a `stat`, as Python's
/// `fstat` at open).
pub fn open_read(
    backend: &dyn Backend,
    path: &CStr,
    rank: usize,
) -> io::Result<(Box<dyn File>, u64)> {
    let size = backend.namespace().size_of(path)?.unwrap_or(0);
    let spec = OpenSpec {
        access: Access::Read,
        create: false,
        reads_too: false,
        file_size: size,
        rank,
        sequential: true,
        blocks: None,
        segment: size,
        transfer: 0,
    };
    Ok((backend.open(path, &spec)?, size))
}

/// An error naming the file.
pub fn at(path: &CStr, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", path.to_string_lossy()))
}

/// One reader (a PyTorch worker): what it reads with, counts and keeps.
pub struct SampleReader<'r> {
    backend: &'r dyn Backend,
    files: &'r dyn FileNames,
    options: ReadOptions,
    rank: usize,
    pub scratch: Scratch,
    /// Per sample: from open to close.
    pub latency: LatencyRecorder,
    pub opens: u64,
    /// Files loaded once (without `reopen`).
    loaded: HashSet<usize>,
    /// Indexed binary: each file's sample offsets and sizes.
    index: HashMap<usize, (Vec<u64>, Vec<u64>)>,
}

impl<'r> SampleReader<'r> {
    pub fn new(
        backend: &'r dyn Backend,
        files: &'r dyn FileNames,
        options: ReadOptions,
        rank: usize,
    ) -> SampleReader<'r> {
        SampleReader {
            backend,
            files,
            options,
            rank,
            scratch: Scratch::new(),
            latency: LatencyRecorder::new(),
            opens: 0,
            loaded: HashSet::new(),
            index: HashMap::new(),
        }
    }

    fn open(&mut self, path: &CStr) -> io::Result<(Box<dyn File>, u64)> {
        self.opens += 1;
        open_read(self.backend, path, self.rank)
    }

    /// What a reader does when it starts (DLIO's `load_index`): the index
    /// files of every file its samples are in, in their order.
    pub fn start(&mut self, files: impl IntoIterator<Item = usize>) -> io::Result<()> {
        use SampleFormat::*;
        if !matches!(self.options.format, IndexedBinary | MmapIndexedBinary) {
            return Ok(());
        }
        for file in files {
            if self.index.contains_key(&file) {
                continue;
            }
            let path = self.files.path(file);
            let found = self.read_index(&path).map_err(|e| at(&path, e))?;
            self.index.insert(file, found);
        }
        Ok(())
    }

    /// The `.off.idx` and `.sz.idx` files of a data file, as numbers.
    fn read_index(&mut self, path: &CStr) -> io::Result<(Vec<u64>, Vec<u64>)> {
        let mut values = [Vec::new(), Vec::new()];
        for (suffix, into) in [".off.idx", ".sz.idx"].iter().zip(values.iter_mut()) {
            let mut name = path.to_bytes().to_vec();
            name.extend_from_slice(suffix.as_bytes());
            let name = CString::new(name).map_err(io::Error::other)?;
            let (mut file, size) = self.open(&name)?;
            let mut bytes = Vec::new();
            if self.options.format == SampleFormat::MmapIndexedBinary {
                bytes.resize(size as usize, 0);
                self.scratch.read_into(file.as_mut(), &mut bytes, 0)?;
            } else {
                let mut py =
                    PyFile::new(file.as_mut(), &mut self.scratch, size, self.options.block);
                py.read_into(size as usize, Some(&mut bytes))?;
            }
            file.close()?;
            *into = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
                .collect();
        }
        if self.options.format == SampleFormat::MmapIndexedBinary {
            // np.memmap of the data file: opened and mapped, not read.
            self.open(path)?.0.close()?;
        }
        let [offsets, sizes] = values;
        Ok((offsets, sizes))
    }

    /// Reads sample `sample` of file `file`.
    pub fn read(&mut self, file: usize, sample: usize) -> io::Result<()> {
        if !self.options.reopen && !self.loaded.insert(file) {
            return Ok(());
        }
        if self.options.format == SampleFormat::MmapIndexedBinary {
            return Ok(());
        }
        let path = self.files.path(file);
        let began = Instant::now();
        self.read_sample(&path, file, sample)
            .map_err(|e| at(&path, e))?;
        self.latency.record(began.elapsed());
        Ok(())
    }

    fn read_sample(&mut self, path: &CStr, file: usize, sample: usize) -> io::Result<()> {
        use SampleFormat::*;
        let (mut f, size) = self.open(path)?;
        let (block, scratch) = (self.options.block, &mut self.scratch);
        let file_ref = f.as_mut();
        match self.options.format {
            Npz | Npy if self.options.odirect => odirect(file_ref, scratch, size)?,
            Npz => load_npz(file_ref, scratch, size, block)?,
            Npy => load_npy(file_ref, scratch, size, block)?,
            Csv => whole(file_ref, scratch, size, block, 0, 1 << 18)?,
            Jpeg | Png => whole(file_ref, scratch, size, block, 16, 1 << 16)?,
            IndexedBinary => {
                let (offsets, sizes) = self
                    .index
                    .get(&file)
                    .ok_or_else(|| io::Error::other("index not loaded"))?;
                let (offset, len) = match (offsets.get(sample), sizes.get(sample)) {
                    (Some(o), Some(l)) => (*o, *l),
                    _ => return Err(io::Error::other("sample beyond the index")),
                };
                let mut py = PyFile::new(file_ref, scratch, size, block);
                py.seek(offset);
                py.read_into(len as usize, None)?;
            }
            MmapIndexedBinary => {}
        }
        f.close()
    }
}

/// DLIO's O_DIRECT npz/npy reader: one read of the file's size rounded up
/// to 4 KiB into an aligned buffer; fewer bytes than the file is an error.
fn odirect(file: &mut dyn File, scratch: &mut Scratch, size: u64) -> io::Result<()> {
    let len = size.div_ceil(PAGE as u64) * PAGE as u64;
    let got = scratch.read(file, 0, len as usize)?;
    if got as u64 != size {
        return Err(io::Error::other(format!(
            "could not read the entire file: expected {size} bytes, got {got}"
        )));
    }
    Ok(())
}

/// The whole file through Python's buffer: a first read of `head` bytes
/// (0: none), then pieces of `piece` until the end.
fn whole(
    file: &mut dyn File,
    scratch: &mut Scratch,
    size: u64,
    block: usize,
    head: usize,
    piece: usize,
) -> io::Result<()> {
    let mut py = PyFile::new(file, scratch, size, block);
    if head > 0 {
        py.read(head, None)?;
    }
    while py.read(piece, None)? > 0 {}
    Ok(())
}

#[cfg(test)]
mod tests;
