//! MPI-IO (`-a MPIIO`, cargo feature `mpi`): the raw `MPI_File_*` calls
//! that rsmpi exposes. Independent (`MPI_File_write_at`) or collective (`-c`:
//! `MPI_File_write_at_all`) transfers; a shared file is opened by the tasks
//! taking part, a file per process on `MPI_COMM_SELF`.
//!
//! Hints come from `--mpiio.hintsFileName` (lines `IOR_HINT__MPI__key=value`)
//! and from environment variables of the same form; `--mpiio.showHints` prints
//! what the opened file reports. `--mpiio.preallocate` preallocates written
//! files; `--mpiio.useFileView` gives each task a file view holding only its
//! blocks of a shared file.
//!
//! The raw MPI calls are in [`ffi`], the edge; this module holds none.

pub(super) mod ffi;

use std::ffi::{c_int, CStr, CString};
use std::io;

use mpi::topology::Color;
use mpi::traits::*;

use super::config::MPIIO_CAPABILITIES;
use super::cpath::path_of;
use super::featured::{mpiio_options as options, MpiioOptions};
use super::namespace::{Namespace, PosixNamespace};
use super::{Access, Backend, BackendInfo, BlockView, Config, Context, File, OpenSpec, Typed};
use crate::comm::mpi::MpiComm;
use ffi::{c_string, FileHandle, Info, RawComm};

pub const INFO: BackendInfo = BackendInfo {
    name: "MPIIO",
    capabilities: MPIIO_CAPABILITIES,
    options: &Typed {
        table: options,
        configure,
    },
};

/// Prefix of hints in the environment and in hints files.
const HINT_PREFIX: &str = "IOR_HINT__MPI__";

/// MPI-IO's options, checked: the hints are read from the environment and
/// the hints file here, before anything runs.
fn configure(o: MpiioOptions) -> Result<Box<dyn Config>, String> {
    let mut hints = hints_from_env();
    if let Some(path) = &o.hints_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--mpiio.hintsFileName {path}: {e}"))?;
        hints.extend(parse_hints(&text));
    }
    Ok(Box::new(MpiioConfig {
        show_hints: o.show_hints,
        preallocate: o.preallocate,
        file_view: o.use_file_view,
        hints,
    }))
}

impl Config for MpiioConfig {
    fn build(&self, context: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        let comm = context.comm.as_any().downcast_ref::<MpiComm>().ok_or(
            "MPI-IO needs the MPI engine: start pario with mpirun or srun (or with a single task)",
        )?;
        // Collective over all ranks: the tasks taking part share a communicator
        // for opening a shared file.
        let shared = comm
            .world()
            .split_by_color(Color::with_value(context.active as c_int));
        Ok(Box::new(MpiIo {
            options: self.clone(),
            shared: shared.map(RawComm),
            collective: context.collective,
            rank: context.comm.rank(),
            lines: context.lines,
        }))
    }
}

/// `key=value` hints from lines `IOR_HINT__MPI__key=value` (other lines ignored).
pub fn parse_hints(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|l| l.trim().strip_prefix(HINT_PREFIX))
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

pub(super) fn hints_from_env() -> Vec<(String, String)> {
    std::env::vars()
        .filter_map(|(k, v)| k.strip_prefix(HINT_PREFIX).map(|k| (k.to_string(), v)))
        .collect()
}

#[derive(Debug, Clone)]
struct MpiioConfig {
    show_hints: bool,
    preallocate: bool,
    file_view: bool,
    hints: Vec<(String, String)>,
}

pub struct MpiIo {
    options: MpiioConfig,
    shared: Option<RawComm>,
    collective: bool,
    rank: usize,
    lines: crate::console::TaskLines,
}

struct MpiFile {
    handle: FileHandle,
    access: Access,
    collective: bool,
    view: Option<BlockView>,
}

/// The path as MPI wants it: absolute, since Open MPI's OMPIO cannot find
/// the file system of a bare relative name.
fn path_string(path: &CStr) -> io::Result<CString> {
    c_string(&std::path::absolute(path_of(path))?.to_string_lossy())
}

/// A block of hints as IOR prints them (`-H`, `--hdf5.showHints`).
pub(super) fn print_hints(
    lines: &crate::console::TaskLines,
    title: &str,
    hints: &[(String, String)],
) {
    lines.print(format_args!("{title} {{"));
    for (k, v) in hints {
        lines.print(format_args!("\t{k} = {v}"));
    }
    lines.print(format_args!("}}"));
}

impl MpiIo {
    /// A file view showing only the task's blocks of a shared file.
    fn set_view(&self, handle: &FileHandle, view: &BlockView, info: &Info) -> io::Result<()> {
        let block = c_int::try_from(view.block).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "--mpiio.useFileView needs blocks below 2 GiB",
            )
        })?;
        handle.set_view(view.task * view.block, block, view.block * view.tasks, info)
    }

    /// What follows the open of a transfer file: preallocation, the file
    /// view, the hints shown.
    fn prepare(&self, file: &mut MpiFile, spec: &OpenSpec, info: &Info) -> io::Result<()> {
        if self.options.preallocate && spec.access == Access::Write {
            file.handle.preallocate(spec.file_size)?;
        }
        if self.options.file_view {
            if let Some(view) = spec.blocks {
                self.set_view(&file.handle, &view, info)?;
                file.view = Some(view);
            }
        }
        if self.options.show_hints && self.rank == 0 {
            print_hints(
                &self.lines,
                "hints returned from opened file",
                &file.handle.hints()?,
            );
        }
        Ok(())
    }
}

impl Backend for MpiIo {
    fn name(&self) -> &'static str {
        "MPIIO"
    }

    fn version(&self) -> String {
        ffi::library_version()
            .lines()
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    }

    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        let shared = spec.blocks.is_some();
        let comm = if shared {
            self.shared
                .as_ref()
                .ok_or_else(|| io::Error::other("this task takes no part in the test"))?
                .raw()
        } else {
            ffi::comm_self()
        };
        let info = Info::new(&self.options.hints)?;
        // Every task taking part opens a shared file together.
        let name = path_string(path)?;
        let handle = FileHandle::open(comm, &name, spec.access, spec.create, &info)?;
        let mut file = MpiFile {
            handle,
            access: spec.access,
            collective: self.collective,
            view: None,
        };
        if let Err(e) = self.prepare(&mut file, spec, &info) {
            // Close the file rather than leak its handle (MPI_File_close is
            // collective over the file's tasks, like the close every task
            // makes at the end of a phase), then report the failure.
            let _ = Box::new(file).close();
            return Err(e);
        }
        Ok(Box::new(file))
    }

    fn remove(&self, path: &CStr) -> io::Result<()> {
        ffi::delete(&path_string(path)?)
    }

    fn namespace(&self) -> &dyn Namespace {
        // MPI-IO's files are file system paths.
        &PosixNamespace
    }
}

impl MpiFile {
    /// Offsets within the view: only this task's blocks are visible.
    fn view_offset(&self, offset: u64) -> io::Result<i64> {
        let Some(v) = self.view else {
            return Ok(offset as i64);
        };
        let stretch = v.block * v.tasks;
        let within = (offset % stretch)
            .checked_sub(v.task * v.block)
            .filter(|&w| w < v.block);
        let within = within.ok_or_else(|| {
            io::Error::other(format!(
                "offset {offset} lies outside this task's blocks of the file view"
            ))
        })?;
        Ok(((offset / stretch) * v.block + within) as i64)
    }
}

impl File for MpiFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let at = self.view_offset(offset)?;
        self.handle.write_at(buf, at, self.collective)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let at = self.view_offset(offset)?;
        self.handle.read_at(buf, at, self.collective)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.handle.sync()
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        self.handle.close()
    }

    fn collective(&self) -> bool {
        self.collective
    }

    fn skip(&mut self, _offset: u64) -> io::Result<()> {
        // A zero-length transfer keeps every task's count of collective calls
        // equal.
        let mut nothing = [0u8; 1];
        let done = match self.access {
            Access::Write => self.handle.write_at(&nothing[..0], 0, self.collective),
            Access::Read => self.handle.read_at(&mut nothing[..0], 0, self.collective),
        };
        done.map(|_| ())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_files() {
        let text = "IOR_HINT__MPI__romio_cb_write=enable\n# comment\nIOR_HINT__GPFS__x=1\n  IOR_HINT__MPI__cb_nodes = 4\n";
        assert_eq!(
            parse_hints(text),
            vec![
                ("romio_cb_write".into(), "enable".into()),
                ("cb_nodes".into(), "4".into())
            ]
        );
    }
}
