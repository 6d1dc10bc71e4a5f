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
//! Everything `unsafe` here is an FFI call into MPI, with its justification.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::io;
use std::mem::MaybeUninit;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::{Color, SimpleCommunicator};
use mpi::traits::*;

use super::cpath::path_of;
use super::namespace::{Namespace, PosixNamespace};
use super::registry::MPIIO_CAPABILITIES;
use super::{
    Access, Backend, BackendInfo, BlockView, Config, Context, File, ModuleOption, OpenSpec,
    Settings,
};
use crate::comm::mpi::MpiComm;

pub const INFO: BackendInfo = BackendInfo {
    name: "MPIIO",
    capabilities: MPIIO_CAPABILITIES,
    options: &[
        ModuleOption {
            name: "mpiio.showHints",
            flag: true,
            default: "",
            help: "Show MPI hints",
        },
        ModuleOption {
            name: "mpiio.preallocate",
            flag: true,
            default: "",
            help: "Preallocate file size",
        },
        ModuleOption {
            name: "mpiio.useFileView",
            flag: true,
            default: "",
            help: "Use MPI_File_set_view",
        },
        ModuleOption {
            name: "mpiio.hintsFileName",
            flag: false,
            default: "STRING",
            help: "Full name for hints file",
        },
    ],
    configure,
};

/// Prefix of hints in the environment and in hints files.
const HINT_PREFIX: &str = "IOR_HINT__MPI__";

/// MPI-IO's options, checked: the hints are read from the environment and
/// the hints file here, before anything runs.
fn configure(settings: &Settings<'_>) -> Result<Box<dyn Config>, String> {
    let mut hints = hints_from_env();
    if let Some(path) = settings.values.get("mpiio.hintsFileName") {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("--mpiio.hintsFileName {path}: {e}"))?;
        hints.extend(parse_hints(&text));
    }
    Ok(Box::new(Options {
        show_hints: settings.flag("mpiio.showHints")?,
        preallocate: settings.flag("mpiio.preallocate")?,
        file_view: settings.flag("mpiio.useFileView")?,
        hints,
    }))
}

impl Config for Options {
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
struct Options {
    show_hints: bool,
    preallocate: bool,
    file_view: bool,
    hints: Vec<(String, String)>,
}

/// A communicator handle for the tasks of a shared file.
pub(super) struct RawComm(pub(super) SimpleCommunicator);

// SAFETY: an MPI rank runs pario's task on one thread; the communicator is
// only ever used from that thread.
unsafe impl Send for RawComm {}
// SAFETY: as above: never used from two threads.
unsafe impl Sync for RawComm {}

pub struct MpiIo {
    options: Options,
    shared: Option<RawComm>,
    collective: bool,
    rank: usize,
    lines: crate::console::TaskLines,
}

struct MpiFile {
    handle: ffi::MPI_File,
    access: Access,
    collective: bool,
    view: Option<BlockView>,
}

// SAFETY: the file handle is used only by the thread of the MPI rank that
// opened it (see RawComm).
unsafe impl Send for MpiFile {}

/// Turns an MPI return code into an `io::Error` with MPI's message.
fn check(code: c_int, what: &str) -> io::Result<()> {
    if code == ffi::MPI_SUCCESS as c_int {
        return Ok(());
    }
    let mut text = vec![0 as c_char; ffi::MPI_MAX_ERROR_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: the buffer holds MPI_MAX_ERROR_STRING characters plus one, as
    // MPI_Error_string requires; `len` receives the length written.
    unsafe { ffi::MPI_Error_string(code, text.as_mut_ptr(), &mut len) };
    let message: String = text[..len.max(0) as usize]
        .iter()
        .map(|&c| c as u8 as char)
        .collect();
    Err(io::Error::other(format!("{what}: {message}")))
}

fn c_string(text: &str) -> io::Result<CString> {
    CString::new(text)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a name"))
}

/// The path as MPI wants it: absolute, since Open MPI's OMPIO cannot find
/// the file system of a bare relative name.
fn path_string(path: &CStr) -> io::Result<CString> {
    c_string(&std::path::absolute(path_of(path))?.to_string_lossy())
}

/// An `MPI_Info` holding the hints; freed on drop.
pub(super) struct Info(pub(super) ffi::MPI_Info);

impl Info {
    pub(super) fn new(hints: &[(String, String)]) -> io::Result<Info> {
        let mut info = MaybeUninit::uninit();
        // SAFETY: MPI_Info_create writes a new handle into `info`.
        check(
            unsafe { ffi::MPI_Info_create(info.as_mut_ptr()) },
            "MPI_Info_create",
        )?;
        // SAFETY: initialised by the successful call above.
        let info = Info(unsafe { info.assume_init() });
        for (key, value) in hints {
            let (k, v) = (c_string(key)?, c_string(value)?);
            // SAFETY: `info` is a live handle; key and value are NUL-terminated.
            check(
                unsafe { ffi::MPI_Info_set(info.0, k.as_ptr(), v.as_ptr()) },
                "MPI_Info_set",
            )?;
        }
        Ok(info)
    }
}

impl Drop for Info {
    fn drop(&mut self) {
        // SAFETY: the handle was created by MPI_Info_create and is freed once.
        unsafe { ffi::MPI_Info_free(&mut self.0) };
    }
}

/// The hints an open file reports.
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

pub(super) fn file_hints(handle: ffi::MPI_File) -> io::Result<Vec<(String, String)>> {
    let mut info = MaybeUninit::uninit();
    // SAFETY: `handle` is an open file; MPI_File_get_info returns a new info.
    check(
        unsafe { ffi::MPI_File_get_info(handle, info.as_mut_ptr()) },
        "MPI_File_get_info",
    )?;
    // SAFETY: initialised by the successful call above.
    let info = Info(unsafe { info.assume_init() });
    let mut count: c_int = 0;
    // SAFETY: `info` is live; `count` receives the number of keys.
    check(
        unsafe { ffi::MPI_Info_get_nkeys(info.0, &mut count) },
        "MPI_Info_get_nkeys",
    )?;
    let mut hints = Vec::new();
    for n in 0..count {
        let mut key = vec![0 as c_char; ffi::MPI_MAX_INFO_KEY as usize + 1];
        // SAFETY: the key buffer has MPI_MAX_INFO_KEY + 1 characters.
        check(
            unsafe { ffi::MPI_Info_get_nthkey(info.0, n, key.as_mut_ptr()) },
            "MPI_Info_get_nthkey",
        )?;
        let mut value = vec![0 as c_char; ffi::MPI_MAX_INFO_VAL as usize + 1];
        let mut found: c_int = 0;
        // SAFETY: `key` is NUL-terminated by MPI; the value buffer holds
        // MPI_MAX_INFO_VAL characters plus the terminator.
        check(
            unsafe {
                ffi::MPI_Info_get(
                    info.0,
                    key.as_ptr(),
                    ffi::MPI_MAX_INFO_VAL as c_int,
                    value.as_mut_ptr(),
                    &mut found,
                )
            },
            "MPI_Info_get",
        )?;
        let text = |b: &[c_char]| {
            b.iter()
                .take_while(|&&c| c != 0)
                .map(|&c| c as u8 as char)
                .collect::<String>()
        };
        hints.push((text(&key), text(&value)));
    }
    Ok(hints)
}

/// A derived datatype; freed on drop (a file view keeps its own reference).
struct Datatype(ffi::MPI_Datatype);

impl Datatype {
    /// A new datatype from `create`, an MPI call that writes its handle.
    fn new(what: &str, create: impl FnOnce(*mut ffi::MPI_Datatype) -> c_int) -> io::Result<Self> {
        let mut handle = MaybeUninit::uninit();
        check(create(handle.as_mut_ptr()), what)?;
        // SAFETY: initialised by the successful call above.
        Ok(Datatype(unsafe { handle.assume_init() }))
    }
}

impl Drop for Datatype {
    fn drop(&mut self) {
        // SAFETY: the handle was created by MPI and is freed once.
        unsafe { ffi::MPI_Type_free(&mut self.0) };
    }
}

/// `MPI_File_open` of `path` on `comm` with `mode` and the hints in `info`:
/// collective over `comm`.
fn open_handle(
    comm: ffi::MPI_Comm,
    path: &CStr,
    mode: c_int,
    info: &Info,
) -> io::Result<ffi::MPI_File> {
    let name = path_string(path)?;
    let mut handle = MaybeUninit::uninit();
    // SAFETY: `comm` and `info` are live handles, `name` is NUL-terminated,
    // MPI writes the new file handle into `handle`.
    check(
        unsafe { ffi::MPI_File_open(comm, name.as_ptr(), mode, info.0, handle.as_mut_ptr()) },
        "MPI_File_open",
    )?;
    // SAFETY: initialised by the successful open.
    Ok(unsafe { handle.assume_init() })
}

impl MpiIo {
    /// A file view showing only the task's blocks of a shared file.
    fn set_view(&self, handle: ffi::MPI_File, view: &BlockView, info: &Info) -> io::Result<()> {
        let block = c_int::try_from(view.block).map_err(|_| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "--mpiio.useFileView needs blocks below 2 GiB",
            )
        })?;
        let native = c_string("native")?;
        let contiguous = Datatype::new("MPI_Type_contiguous", |out| {
            // SAFETY: `block` bytes of MPI's byte type; MPI writes `out`.
            unsafe { ffi::MPI_Type_contiguous(block, ffi::RSMPI_UINT8_T, out) }
        })?;
        let mut tiled = Datatype::new("MPI_Type_create_resized", |out| {
            // SAFETY: `contiguous` is live; MPI writes `out`.
            unsafe {
                ffi::MPI_Type_create_resized(
                    contiguous.0,
                    0,
                    (view.block * view.tasks) as ffi::MPI_Aint,
                    out,
                )
            }
        })?;
        // SAFETY: `tiled` is live; committed once, before it is used.
        check(
            unsafe { ffi::MPI_Type_commit(&mut tiled.0) },
            "MPI_Type_commit",
        )?;
        // SAFETY: `handle` is open, `tiled` committed, `native` NUL-terminated
        // and `info` live. Collective over the file's tasks. Both datatypes
        // are freed on return; the view keeps its own reference.
        check(
            unsafe {
                ffi::MPI_File_set_view(
                    handle,
                    (view.task * view.block) as ffi::MPI_Offset,
                    ffi::RSMPI_UINT8_T,
                    tiled.0,
                    native.as_ptr(),
                    info.0,
                )
            },
            "MPI_File_set_view",
        )
    }

    /// What follows the open of a transfer file: preallocation, the file
    /// view, the hints shown.
    fn prepare(&self, file: &mut MpiFile, spec: &OpenSpec, info: &Info) -> io::Result<()> {
        if self.options.preallocate && spec.access == Access::Write {
            // SAFETY: collective on the open file, with its full size.
            check(
                unsafe {
                    ffi::MPI_File_preallocate(file.handle, spec.file_size as ffi::MPI_Offset)
                },
                "MPI_File_preallocate",
            )?;
        }
        if self.options.file_view {
            if let Some(view) = spec.blocks {
                self.set_view(file.handle, &view, info)?;
                file.view = Some(view);
            }
        }
        if self.options.show_hints && self.rank == 0 {
            print_hints(
                &self.lines,
                "hints returned from opened file",
                &file_hints(file.handle)?,
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
        let mut text = vec![0 as c_char; ffi::MPI_MAX_LIBRARY_VERSION_STRING as usize + 1];
        let mut len: c_int = 0;
        // SAFETY: the buffer has room for MPI_MAX_LIBRARY_VERSION_STRING chars.
        unsafe { ffi::MPI_Get_library_version(text.as_mut_ptr(), &mut len) };
        let full: String = text[..len.max(0) as usize]
            .iter()
            .map(|&c| c as u8 as char)
            .collect();
        // The length Open MPI returns counts the terminating NUL.
        full.trim_end_matches(char::from(0))
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
                .0
                .as_raw()
        } else {
            // SAFETY: reading the address of MPI's predefined MPI_COMM_SELF.
            unsafe { ffi::RSMPI_COMM_SELF }
        };
        let mode = match spec.access {
            Access::Write => {
                (ffi::MPI_MODE_RDWR | if spec.create { ffi::MPI_MODE_CREATE } else { 0 }) as c_int
            }
            Access::Read => ffi::MPI_MODE_RDONLY as c_int,
        };
        let info = Info::new(&self.options.hints)?;
        // Every task taking part opens a shared file together.
        let handle = open_handle(comm, path, mode, &info)?;
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
        let name = path_string(path)?;
        // SAFETY: deletes by name with no hints; `name` is NUL-terminated.
        check(
            unsafe { ffi::MPI_File_delete(name.as_ptr(), ffi::RSMPI_INFO_NULL) },
            "MPI_File_delete",
        )
    }

    fn namespace(&self) -> &dyn Namespace {
        // MPI-IO's files are file system paths.
        &PosixNamespace
    }
}

impl MpiFile {
    /// Offsets within the view: only this task's blocks are visible.
    fn view_offset(&self, offset: u64) -> io::Result<ffi::MPI_Offset> {
        let Some(v) = self.view else {
            return Ok(offset as ffi::MPI_Offset);
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
        Ok(((offset / stretch) * v.block + within) as ffi::MPI_Offset)
    }

    fn transfer(&mut self, buf: *mut c_void, len: usize, offset: u64) -> io::Result<usize> {
        let at = self.view_offset(offset)?;
        self.transfer_at(buf, len, at)
    }

    /// A transfer at an offset already in the view's terms.
    fn transfer_at(
        &mut self,
        buf: *mut c_void,
        len: usize,
        at: ffi::MPI_Offset,
    ) -> io::Result<usize> {
        let count = c_int::try_from(len).map_err(|_| io::Error::other("a transfer above 2 GiB"))?;
        let mut status = MaybeUninit::<ffi::MPI_Status>::uninit();
        // SAFETY: `buf` points to `len` bytes owned by the caller for the
        // duration of the call; `status` receives the transfer's status. The
        // collective variants are called by every task the same number of
        // times (the runner guarantees it, see File::collective).
        let code = unsafe {
            match (self.access, self.collective) {
                (Access::Write, false) => ffi::MPI_File_write_at(
                    self.handle,
                    at,
                    buf,
                    count,
                    ffi::RSMPI_UINT8_T,
                    status.as_mut_ptr(),
                ),
                (Access::Write, true) => ffi::MPI_File_write_at_all(
                    self.handle,
                    at,
                    buf,
                    count,
                    ffi::RSMPI_UINT8_T,
                    status.as_mut_ptr(),
                ),
                (Access::Read, false) => ffi::MPI_File_read_at(
                    self.handle,
                    at,
                    buf,
                    count,
                    ffi::RSMPI_UINT8_T,
                    status.as_mut_ptr(),
                ),
                (Access::Read, true) => ffi::MPI_File_read_at_all(
                    self.handle,
                    at,
                    buf,
                    count,
                    ffi::RSMPI_UINT8_T,
                    status.as_mut_ptr(),
                ),
            }
        };
        check(code, "MPI-IO transfer")?;
        let mut done: c_int = 0;
        // SAFETY: `status` was filled by the successful transfer.
        check(
            unsafe { ffi::MPI_Get_count(status.as_ptr(), ffi::RSMPI_UINT8_T, &mut done) },
            "MPI_Get_count",
        )?;
        Ok(done.max(0) as usize)
    }
}

impl File for MpiFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        // MPI's C signature takes a mutable pointer even for writes; it does
        // not write through it.
        self.transfer(buf.as_ptr() as *mut c_void, buf.len(), offset)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.transfer(buf.as_mut_ptr() as *mut c_void, buf.len(), offset)
    }

    fn sync(&mut self) -> io::Result<()> {
        // SAFETY: `handle` is open; collective over the file's tasks.
        check(unsafe { ffi::MPI_File_sync(self.handle) }, "MPI_File_sync")
    }

    fn close(mut self: Box<Self>) -> io::Result<()> {
        // SAFETY: closes the open handle once (collective over its tasks).
        check(
            unsafe { ffi::MPI_File_close(&mut self.handle) },
            "MPI_File_close",
        )
    }

    fn collective(&self) -> bool {
        self.collective
    }

    fn skip(&mut self, _offset: u64) -> io::Result<()> {
        // A zero-length transfer keeps every task's count of collective calls
        // equal.
        let mut nothing = [0u8; 1];
        self.transfer_at(nothing.as_mut_ptr() as *mut c_void, 0, 0)
            .map(|_| ())
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
