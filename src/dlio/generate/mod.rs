//! `workflow.generate_data`: DLIO's dataset written through pario's
//! backend, spread over the ranks as DLIO spreads it (rank r writes files
//! r, r+size, ...), each file in its format's container ([`npz`],
//! [`tfrecord`], [`others`]).
//!
//! What stays: the dataset asked for stays, complete files included when
//! the run fails or is interrupted; only the file a rank was writing when
//! it stopped is removed (a partial file is a mess; a complete one is what
//! the user asked for, and a rerun overwrites it), and the folders the run
//! created that are left empty.

pub mod content;
#[cfg(feature = "hdf5")]
pub mod hdf5;
pub mod image;
pub mod npz;
pub mod others;
pub mod out;
pub mod tfrecord;

use std::ffi::CString;
use std::io;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::config::schema::{Config, Format};
use super::dataset::{self, Dataset, FileSpec};
use super::options::{Content, ParioOptions};
use crate::backend::{Access, Backend, OpenSpec};
use crate::comm::{agree, reduce_u64, Comm, ReduceOp};
use crate::error::{Error, Result};
use content::Source;
use out::{FileOut, Out, CHUNK};

/// What a generation did, over every rank.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenerationReport {
    pub data_folder: String,
    pub format: String,
    pub files: u64,
    pub bytes: u64,
    pub seconds: f64,
    pub mib_per_second: f64,
    /// `fast` or `exact` (`pario.content`).
    pub content: String,
}

/// The path a backend takes for a dataset path: below the storage root
/// for a file system (`os.path.join(storage_root, path)`); the key itself
/// in the bucket for S3.
pub fn full_path(root: Option<&str>, path: &str) -> String {
    match root {
        Some(root) if !path.starts_with('/') && !root.is_empty() => {
            format!("{}/{path}", root.trim_end_matches('/'))
        }
        _ => path.to_string(),
    }
}

fn cpath(path: &str) -> io::Result<CString> {
    CString::new(path).map_err(|_| io::Error::other("a path holds a NUL byte"))
}

/// Creates `path` and its missing parents; returns those it created.
fn mkdir_p(backend: &dyn Backend, path: &str) -> io::Result<Vec<String>> {
    let mut created = Vec::new();
    let mut at = String::new();
    for (i, part) in path.split('/').enumerate() {
        if i > 0 {
            at.push('/');
        }
        at.push_str(part);
        if part.is_empty() || part == "." || part == ".." {
            continue;
        }
        let c = cpath(&at)?;
        if backend.namespace().exists(&c)? {
            continue;
        }
        match backend.namespace().mkdir(&c) {
            Ok(()) => created.push(at.clone()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Ok(created)
}

/// Generates the dataset on this rank; every rank returns the same
/// outcome. `root`: the file system's storage root (`None` on S3).
pub fn generate(
    comm: &dyn Comm,
    config: &Config,
    options: &ParioOptions,
    backend: &dyn Backend,
    root: Option<&str>,
) -> Result<GenerationReport> {
    let rank = comm.rank();
    let dataset = Dataset::of(config);
    let mut created = Vec::new();
    let folders = if rank == 0 {
        let mut all = Ok(());
        for folder in &dataset.folders {
            match mkdir_p(backend, &full_path(root, folder)) {
                Ok(mut dirs) => created.append(&mut dirs),
                Err(e) => {
                    all = Err(Error::task(rank, format!("create {folder}: {e}")));
                    break;
                }
            }
        }
        all
    } else {
        Ok(())
    };
    agree(comm, folders)?;
    let start = Instant::now();
    let mine = write_files(comm, config, options, backend, root, &dataset);
    let (files, bytes) = match &mine {
        Ok(done) => *done,
        Err(_) => (0, 0),
    };
    let outcome = agree(comm, mine.map(|_| ()));
    if outcome.is_err() && rank == 0 {
        // Folders this run made that the failure left empty.
        for dir in created.iter().rev() {
            if let Ok(c) = cpath(dir) {
                let _ = backend.namespace().rmdir(&c);
            }
        }
    }
    outcome?;
    let seconds = start.elapsed().as_secs_f64();
    let files = reduce_u64(comm, files, ReduceOp::Sum)?;
    let bytes = reduce_u64(comm, bytes, ReduceOp::Sum)?;
    let seconds = f64::from_bits(reduce_u64(comm, seconds.to_bits(), ReduceOp::Max)?);
    Ok(GenerationReport {
        data_folder: config.dataset.data_folder.clone(),
        format: config.dataset.format.name().into(),
        files,
        bytes,
        seconds,
        mib_per_second: bytes as f64 / (1 << 20) as f64 / seconds.max(1e-9),
        content: match options.content {
            Content::Fast => "fast",
            Content::Exact => "exact",
        }
        .into(),
    })
}

/// This rank's files: `(files, bytes)` written.
fn write_files(
    comm: &dyn Comm,
    config: &Config,
    options: &ParioOptions,
    backend: &dyn Backend,
    root: Option<&str>,
    dataset: &Dataset,
) -> Result<(u64, u64)> {
    let rank = comm.rank();
    let total = dataset.files.len() as u64;
    let (_, state) = dataset::dimensions(config, total);
    let mut src = Source::new(options.content, state);
    let (mut files, mut bytes) = (0, 0);
    for file in dataset.of_rank(rank, comm.size()) {
        let path = full_path(root, &file.path);
        let (written, sidecars) =
            write_one(config, backend, &path, file, &mut src).map_err(|e| {
                if e.kind() == io::ErrorKind::Interrupted {
                    if let Some(signal) = crate::signals::signal() {
                        return crate::run::stop::interrupted(signal);
                    }
                }
                Error::task(rank, format!("write {path}: {e}"))
            })?;
        for (side, content) in sidecars {
            let side = full_path(root, &side);
            write_small(backend, &side, &content)
                .map_err(|e| Error::task(rank, format!("write {side}: {e}")))?;
        }
        files += 1;
        bytes += written;
    }
    Ok((files, bytes))
}

/// Files written beside a data file (indexes): dataset path, bytes.
type Sidecars = Vec<(String, Vec<u8>)>;

/// Writes one file (removing it if it fails half way): its bytes, and the
/// index files that go with it.
fn write_one(
    config: &Config,
    backend: &dyn Backend,
    path: &str,
    file: &FileSpec,
    src: &mut Source,
) -> io::Result<(u64, Sidecars)> {
    #[cfg(feature = "hdf5")]
    if config.dataset.format == Format::Hdf5 {
        let n = config.dataset.num_samples_per_file;
        let written = hdf5::write_hdf5(path, file, n, src);
        if written.is_err() {
            let _ = backend.remove(&cpath(path)?);
        }
        return Ok((written?, Vec::new()));
    }
    let size = expected_size(config, file);
    if size == 0 {
        // A container whose size is known only once written (CSV): made
        // whole in memory, then written (S3 plans an object's parts from
        // its size).
        let mut mem = out::MemOut::default();
        let sidecars = write_format(&mut mem, config, file, src)?;
        write_small(backend, path, &mem.bytes)?;
        return Ok((mem.bytes.len() as u64, sidecars));
    }
    let c = cpath(path)?;
    if backend.namespace().exists(&c)? {
        // DLIO overwrites: a shorter file must not keep the old tail.
        backend.remove(&c)?;
    }
    let mut out = FileOut::new(backend.open(&c, &open_spec(size))?);
    let written = write_format(&mut out, config, file, src).and_then(|sidecars| {
        let n = out.written();
        out.close().map(|()| (n, sidecars))
    });
    if written.is_err() {
        let _ = backend.remove(&c);
    }
    written
}

/// How a generated file is opened: created, written front to back, its
/// size known (one block of that size).
fn open_spec(size: u64) -> OpenSpec {
    OpenSpec {
        access: Access::Write,
        create: true,
        reads_too: false,
        file_size: size,
        rank: 0,
        sequential: true,
        blocks: None,
        segment: size,
        transfer: (CHUNK as u64).min(size.max(1)),
    }
}

/// The container of the dataset's format; the index files it needs.
fn write_format(
    out: &mut dyn Out,
    config: &Config,
    file: &FileSpec,
    src: &mut Source,
) -> io::Result<Sidecars> {
    let n = config.dataset.num_samples_per_file;
    match config.dataset.format {
        Format::Npz => npz::write_npz(out, file, n, src)?,
        Format::Npy => npz::write_npy(out, file, n, src)?,
        Format::Tfrecord => {
            // The index, as DALI's tfrecord2idx writes it.
            let index = tfrecord::write(out, file, n, config.dimension(), src)?;
            return Ok(vec![(
                dataset::tfrecord_index(config, file),
                index.into_bytes(),
            )]);
        }
        Format::Csv => others::write_csv(out, file, n, src)?,
        Format::Synthetic => out.put(file.index.to_string().as_bytes())?,
        Format::IndexedBinary | Format::MmapIndexedBinary => {
            let buffer = config.dataset.generation_buffer_size;
            let (off, sz) = others::write_indexed(out, file, n, buffer, src)?;
            return Ok(vec![
                (format!("{}.off.idx", file.path), off),
                (format!("{}.sz.idx", file.path), sz),
            ]);
        }
        Format::Jpeg => image::write_jpeg(out, file, src)?,
        Format::Png => image::write_png(out, file, src)?,
        Format::Hdf5 | Format::Hdf5Opt => {
            // Refused by the configuration's checks, or written by the
            // HDF5 library (write_one).
            return Err(io::Error::other(format!(
                "format {} is not generated through a backend",
                config.dataset.format.name()
            )));
        }
    }
    Ok(Vec::new())
}

/// The size a file will have, when the container says it up front (S3
/// plans its parts from it); 0 when unknown.
fn expected_size(config: &Config, file: &FileSpec) -> u64 {
    let n = config.dataset.num_samples_per_file;
    let data = file.record_bytes() * n;
    match config.dataset.format {
        Format::Npy => npz::npy_header("|u1", &[file.dim1, file.dim2, n]).len() as u64 + data,
        Format::Npz => {
            let x = npz::npy_header("|u1", &[file.dim1, file.dim2, n]).len() as u64 + data;
            let y = npz::npy_header("<i8", &[n]).len() as u64 + 8 * n;
            x + y + 2 * 55 + 2 * 51 + 22
        }
        Format::Tfrecord => {
            let (head, tail) = tfrecord::example(file.record_bytes(), config.dimension());
            n * (16 + head.len() as u64 + file.record_bytes() + tail.len() as u64)
        }
        Format::IndexedBinary | Format::MmapIndexedBinary => data,
        _ => 0,
    }
}

/// A small file in one write (an index).
pub fn write_small(backend: &dyn Backend, path: &str, bytes: &[u8]) -> io::Result<()> {
    let c = cpath(path)?;
    if backend.namespace().exists(&c)? {
        backend.remove(&c)?;
    }
    let mut out = FileOut::new(backend.open(&c, &open_spec(bytes.len() as u64))?);
    out.put(bytes)?;
    out.close()
}

#[cfg(test)]
mod tests;
