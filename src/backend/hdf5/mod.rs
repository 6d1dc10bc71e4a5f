//! HDF5 (`-a HDF5`, cargo feature `hdf5`): IOR's layout through the
//! `hdf5-metno` bindings to parallel HDF5.
//!
//! A test file is one HDF5 file with one 1-D dataset of native 64-bit
//! integers per segment, `Dataset-0000.<segment>`, as long as the segment
//! (every task's block of a shared file, one block with `-F`). A transfer is
//! one hyperslab of its segment's dataset: the bytes IOR's buffer holds land
//! at the dataset's data offset plus the transfer's offset within the
//! segment ([`file`]).
//!
//! Under MPI the files are opened with the MPI-IO driver: a shared file on
//! the tasks taking part, a file per task on `MPI_COMM_SELF`; `-c` makes the
//! transfers collective. With the local engine (threads, MPI not started)
//! the files use HDF5's default POSIX driver. HDF5 is not thread-safe:
//! every call into it holds the bindings' one process-wide lock, and threads
//! must use `-F` (two threads cannot open one HDF5 file in one process).

mod ffi;
mod file;

use std::ffi::{c_int, CStr};
use std::io;

use hdf5_metno as h5;
use mpi::topology::Color;
use mpi::traits::*;

use super::config::HDF5_CAPABILITIES;
use super::cpath::path_of;
use super::featured::{hdf5_options as options, Hdf5Options};
use super::mpiio::ffi::{comm_self, MPI_Comm, RawComm};
use super::mpiio::{hints_from_env, parse_hints, print_hints};
use super::namespace::{Namespace, PosixNamespace};
use super::{Backend, BackendInfo, Config, Context, Demands, File, OpenSpec, Typed};
use crate::comm::mpi::MpiComm;
use crate::console::TaskLines;

pub const INFO: BackendInfo = BackendInfo {
    name: "HDF5",
    capabilities: HDF5_CAPABILITIES,
    options: &Typed {
        table: options,
        configure,
    },
};

/// HDF5's options, checked; MPI hints are read here, before anything runs.
fn configure(o: Hdf5Options) -> Result<Box<dyn Config>, String> {
    if o.individual_data_sets {
        return Err(
            "--hdf5.individualDataSets: individual datasets are not implemented (IOR refuses them too)"
                .into(),
        );
    }
    let mut hints = hints_from_env();
    if let Some(path) = &o.hints_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--hdf5.hintsFileName {path}: {e}"))?;
        hints.extend(parse_hints(&text));
    }
    Ok(Box::new(Hdf5Config {
        hints,
        show_hints: o.show_hints,
        collective_metadata: o.collective_metadata,
        alignment: o.set_alignment,
        no_fill: o.no_fill,
        chunk: o.chunk_size,
    }))
}

#[derive(Debug, Clone)]
struct Hdf5Config {
    hints: Vec<(String, String)>,
    show_hints: bool,
    collective_metadata: bool,
    /// `H5Pset_alignment(A, A)`; 1: off.
    alignment: u64,
    /// Fill time NEVER.
    no_fill: bool,
    /// Elements per chunk; 0: contiguous.
    chunk: u64,
}

impl Config for Hdf5Config {
    fn build(&self, context: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        // The bindings turn HDF5's automatic error printing off when they
        // first start the library; this makes sure that happens first.
        h5::silence_errors(true);
        // Collective over all ranks: the tasks taking part share a
        // communicator for a shared file.
        let mpi = context.comm.as_any().downcast_ref::<MpiComm>().map(|comm| {
            comm.world()
                .split_by_color(Color::with_value(context.active as c_int))
                .map(RawComm)
        });
        Ok(Box::new(Hdf5 {
            options: self.clone(),
            mpi,
            collective: context.collective,
            rank: context.comm.rank(),
            lines: context.lines,
        }))
    }

    /// IOR skips its file size check for HDF5 too.
    fn exact_file_size(&self) -> bool {
        false
    }

    fn refuse(&self, d: &Demands) -> Result<(), String> {
        if d.random_offsets {
            return Err("-z: random offsets are not available with -a HDF5 (IOR refuses them too: a transfer is a hyperslab of its segment's dataset, written in order)".into());
        }
        if d.own_deadline && d.shared_file {
            return Err("-D with -a HDF5 on a shared file needs -c: the tasks create each segment's dataset together, so none may stop alone".into());
        }
        if d.threads && d.shared_file {
            return Err("-a HDF5 with threads needs -F: HDF5 cannot open one file from two threads of a process (or start the tasks as MPI ranks with mpirun)".into());
        }
        if d.threads && d.collective {
            return Err("-c with -a HDF5 needs MPI ranks (mpirun): threads have no collective HDF5 transfers".into());
        }
        Ok(())
    }
}

/// The HDF5 backend of a run.
pub struct Hdf5 {
    options: Hdf5Config,
    /// Under MPI: the communicator of the tasks taking part (`None` on a task
    /// left out by `-N`); `None` with the local engine.
    mpi: Option<Option<RawComm>>,
    collective: bool,
    rank: usize,
    lines: TaskLines,
}

/// A failure of the bindings as an `io::Error` naming the call.
fn failed(call: &str, e: h5::Error) -> io::Error {
    named(call, e.to_string())
}

/// `cause`, led by the call unless HDF5's description already names it.
fn named(call: &str, cause: String) -> io::Error {
    match cause.starts_with(call) {
        true => io::Error::other(cause),
        false => io::Error::other(format!("{call}: {cause}")),
    }
}

impl Hdf5 {
    /// The communicator of a file: the tasks taking part for a shared file,
    /// `MPI_COMM_SELF` for a file per task; `None` without MPI.
    fn comm_of(&self, shared: bool) -> io::Result<Option<MPI_Comm>> {
        let Some(taking_part) = &self.mpi else {
            return Ok(None);
        };
        if !shared {
            return Ok(Some(comm_self()));
        }
        let comm = taking_part
            .as_ref()
            .ok_or_else(|| io::Error::other("this task takes no part in the test"))?;
        Ok(Some(comm.raw()))
    }

    fn show_hints(&self, file: &file::H5File) -> io::Result<()> {
        if !self.options.show_hints || self.rank != 0 {
            return Ok(());
        }
        let passed = "hints passed to access property list";
        print_hints(&self.lines, passed, &self.options.hints);
        if let Some(hints) = file.mpi_hints()? {
            print_hints(&self.lines, "hints returned from opened file", &hints);
        }
        Ok(())
    }
}

impl Backend for Hdf5 {
    fn name(&self) -> &'static str {
        "HDF5"
    }

    /// As IOR prints it: the linked library's version, which is parallel
    /// (the `mpio` feature of the bindings does not build against a serial
    /// HDF5).
    fn version(&self) -> String {
        let (major, minor, release) = h5::library_version();
        format!("{major}.{minor}.{release} (Parallel)")
    }

    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        let shared = spec.blocks.is_some();
        let comm = self.comm_of(shared)?;
        let setup = file::Setup {
            comm,
            hints: &self.options.hints,
            alignment: self.options.alignment,
            collective_metadata: self.options.collective_metadata,
            chunk: self.options.chunk,
            no_fill: self.options.no_fill,
            segment: spec.segment,
            collective: self.collective && comm.is_some(),
            // Under MPI every task of a shared file creates and opens its
            // datasets with the others.
            in_step: (shared && comm.is_some()) || (self.collective && comm.is_some()),
        };
        let file = file::H5File::open(path_of(path), spec.access, setup)?;
        if let Err(e) = self.show_hints(&file) {
            let _ = Box::new(file).close();
            return Err(e);
        }
        Ok(Box::new(file))
    }

    /// A plain unlink (IOR's H5Fdelete fails on some HDF5 releases,
    /// hpc/ior#443).
    fn remove(&self, path: &CStr) -> io::Result<()> {
        std::fs::remove_file(path_of(path))
    }

    fn namespace(&self) -> &dyn Namespace {
        // HDF5's files are file system paths.
        &PosixNamespace
    }
}

impl std::fmt::Debug for Hdf5 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HDF5 {:?}", self.options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(pairs: &[(&str, &str)]) -> Result<Box<dyn Config>, String> {
        INFO.options
            .configure(&crate::backend::config::given(pairs))
    }

    #[test]
    fn options_and_refusals() {
        let e = configured(&[("hdf5.individualDataSets", "1")]).unwrap_err();
        assert!(e.contains("not implemented"), "{e}");
        let e = configured(&[("hdf5.setAlignment", "0")]).unwrap_err();
        assert!(e.contains("at least 1"), "{e}");
        let c = configured(&[("hdf5.setAlignment", "64k"), ("hdf5.chunkSize", "8k")]).unwrap();
        let z = Demands {
            random_offsets: true,
            ..Demands::default()
        };
        assert!(c.refuse(&z).unwrap_err().starts_with("-z:"));
        let threads = Demands {
            threads: true,
            shared_file: true,
            ..Demands::default()
        };
        assert!(c.refuse(&threads).unwrap_err().contains("needs -F"));
        assert!(c.refuse(&Demands::default()).is_ok());
    }
}
