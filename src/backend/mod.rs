//! Storage backends behind one trait (IOR's `aiori`).
//!
//! A backend opens files and moves bytes; the runners decide what, where and
//! when. Each backend is one module that exports a [`BackendInfo`]: its name,
//! its module options (`--posix.odirect`) and a constructor. Adding a backend is
//! one new module plus one line in [`registry`].

pub mod cpath;
pub mod dummy;
pub mod mmap;
pub mod namespace;
pub mod posix;

#[cfg(feature = "mpi")]
pub mod mpiio;

use std::collections::BTreeMap;
use std::ffi::CStr;
use std::io;

use cpath::path_of;
pub use namespace::FsUsage;

use crate::comm::Comm;
pub use crate::options::ModuleOption;

/// What a file is opened for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Write,
    Read,
}

/// How to open a test file.
#[derive(Debug, Clone, Copy)]
pub struct OpenSpec {
    pub access: Access,
    /// Create the file if it does not exist (write phases).
    pub create: bool,
    /// The size the file has once fully written (mapping backends need it).
    pub file_size: u64,
    /// The opening task (for backends that treat ranks differently).
    pub rank: usize,
    /// Whether transfers will visit the file in order (for access hints).
    pub sequential: bool,
    /// For a shared file: the blocks of the task whose data this is, for
    /// backends that can describe them (MPI-IO file views).
    pub blocks: Option<BlockView>,
}

/// Where one task's blocks lie in a shared file: `block` bytes at
/// `task·block` in every stretch of `tasks·block` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockView {
    pub block: u64,
    pub tasks: u64,
    pub task: u64,
}

/// How a metadata benchmark creates a file ([`Backend::create`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CreateSpec {
    /// Fail with [`io::ErrorKind::AlreadyExists`] when the path exists, so
    /// that a run never takes over a file it did not create (`O_EXCL`).
    pub exclusive: bool,
    /// Open for reading as well, to read back what was just written
    /// (mdtest `--verify-write`).
    pub read_back: bool,
    /// The creating task (for backends that treat ranks differently).
    pub rank: usize,
}

/// What [`Backend::stat`] tells about a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Status {
    /// Size in bytes (0 for backends that store nothing).
    pub size: u64,
    pub is_dir: bool,
}

/// The error of a metadata operation a backend does not have.
pub fn unsupported(backend: &str, operation: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("the {backend} backend cannot {operation}"),
    )
}

/// An open test file.
pub trait File: Send {
    /// Writes at `offset`; may write less than asked (the runner retries).
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize>;
    /// Reads at `offset`; may read less than asked; 0 means end of file.
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
    /// Makes written data durable (`-e`, `-Y`).
    fn sync(&mut self) -> io::Result<()>;
    fn close(self: Box<Self>) -> io::Result<()>;
    /// Whether every task must make the same sequence of calls on this file
    /// (collective MPI-IO). The runner then never stops a task's phase early.
    fn collective(&self) -> bool {
        false
    }
    /// Takes part in one collective transfer without moving data (a task that
    /// already failed keeps the others from waiting for it).
    fn skip(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A storage interface.
pub trait Backend: Send + Sync {
    /// The name `-a` selects, as IOR prints it.
    fn name(&self) -> &'static str;
    /// IOR's "apiVersion" line.
    fn version(&self) -> String {
        String::new()
    }
    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>>;
    fn remove(&self, path: &CStr) -> io::Result<()>;
    // The name-space operations below default to the POSIX file system that
    // holds the paths, which is where every file-based backend keeps them.
    fn exists(&self, path: &CStr) -> io::Result<bool> {
        path_of(path).try_exists()
    }
    /// The file's size, or `None` when the backend stores nothing.
    fn size_of(&self, path: &CStr) -> io::Result<Option<u64>> {
        Ok(Some(std::fs::metadata(path_of(path))?.len()))
    }
    fn mkdir(&self, path: &CStr) -> io::Result<()> {
        posix::make_dir(path)
    }
    fn rmdir(&self, path: &CStr) -> io::Result<()> {
        posix::remove_dir(path)
    }
    /// Creates a file and opens it for writing from offset 0 (mdtest's create
    /// phase). Files get mode 0664 less the umask, as mdtest's do.
    fn create(&self, path: &CStr, spec: &CreateSpec) -> io::Result<Box<dyn File>>;
    /// Creates an empty file and closes it (mdtest's create phase without
    /// `-w`): [`Backend::create`] then close, without keeping a handle.
    /// Backends may do it in fewer steps.
    fn create_empty(&self, path: &CStr, spec: &CreateSpec) -> io::Result<()> {
        self.create(path, spec)?.close()
    }
    /// Opens an existing file, reads `buf.len()` bytes from offset 0 into
    /// `buf` and closes it (mdtest's read phase; an empty `buf` only opens and
    /// closes). A file shorter than `buf` is an error. Backends may do it in
    /// fewer steps than this default.
    fn open_read_close(&self, path: &CStr, buf: &mut [u8], rank: usize) -> io::Result<()> {
        let spec = OpenSpec {
            access: Access::Read,
            create: false,
            file_size: buf.len() as u64,
            rank,
            sequential: true,
            blocks: None,
        };
        let mut file = self.open(path, &spec)?;
        if !buf.is_empty() {
            read_fully(file.as_mut(), buf, 0, Retry::Allowed)?;
        }
        file.close()
    }
    /// The status of a path, following symbolic links (mdtest's stat phase).
    fn stat(&self, path: &CStr) -> io::Result<Status>;
    /// Renames `from` to `to` (mdtest's directory rename phase). Storage
    /// interfaces without renames keep this default, which reports
    /// [`io::ErrorKind::Unsupported`].
    fn rename(&self, _from: &CStr, _to: &CStr) -> io::Result<()> {
        Err(unsupported(self.name(), "rename"))
    }
    /// Creates an empty regular file with `mknod` instead of open and close
    /// (mdtest `-k`). Interfaces without it keep this default (`Unsupported`).
    fn mknod(&self, _path: &CStr) -> io::Result<()> {
        Err(unsupported(self.name(), "create files with mknod"))
    }
    /// Flushes everything written to the file system holding `path` to
    /// stable storage (mdtest `-Y`, inside the phase's time). Interfaces
    /// without such a call keep this default (`Unsupported`).
    fn sync_fs(&self, _path: &CStr) -> io::Result<()> {
        Err(unsupported(self.name(), "flush a whole file system"))
    }
    /// Alignment that buffers, offsets and sizes must respect (O_DIRECT).
    fn alignment(&self) -> Option<u64> {
        None
    }
    /// Whether this backend really stores data (DUMMY does not).
    fn stores_data(&self) -> bool {
        true
    }
}

/// The module options given for a run, with typed accessors.
pub struct Settings<'a> {
    pub values: &'a BTreeMap<String, String>,
}

impl Settings<'_> {
    pub fn flag(&self, name: &str) -> Result<bool, String> {
        match self.values.get(name) {
            None => Ok(false),
            Some(v) => v
                .trim()
                .parse::<i64>()
                .map(|n| n != 0)
                .map_err(|_| format!("--{name}={v}: expected 0 or 1")),
        }
    }

    pub fn number(&self, name: &str) -> Result<u64, String> {
        match self.values.get(name) {
            None => Ok(0),
            Some(v) => crate::units::parse_size(v).map_err(|e| format!("--{name}: {e}")),
        }
    }
}

/// What a backend may need from the run it serves.
pub struct Context<'a> {
    pub comm: &'a dyn Comm,
    /// Whether this task takes part in the test (`-N`).
    pub active: bool,
    /// `-c`: collective transfers.
    pub collective: bool,
    /// Where the backend prints lines of its own (`--mpiio.showHints`).
    pub lines: crate::console::TaskLines,
}

/// A backend's constructor (see [`BackendInfo::build`]).
pub type BuildFn = fn(&Settings<'_>, Option<&Context<'_>>) -> Result<Box<dyn Backend>, String>;

/// A backend as the registry knows it.
pub struct BackendInfo {
    pub name: &'static str,
    pub options: &'static [ModuleOption],
    /// Builds the backend. Without a context (option validation) it only
    /// checks its settings; with one it must be called by every task.
    pub build: BuildFn,
}

/// Every backend of this build.
pub fn registry() -> &'static [BackendInfo] {
    &[
        posix::INFO,
        dummy::INFO,
        mmap::INFO,
        #[cfg(feature = "mpi")]
        mpiio::INFO,
    ]
}

/// The backend a module option belongs to (`posix.odirect` → POSIX).
pub fn module_of(option: &str) -> Option<&'static str> {
    registry()
        .iter()
        .find(|b| {
            b.options
                .iter()
                .any(|o| o.name.eq_ignore_ascii_case(option))
        })
        .map(|b| b.name)
}

/// IOR APIs this build does not have, with the reason.
fn unavailable_reason(api: &str) -> Option<&'static str> {
    const NEED_MPI: &str = "needs MPI: rebuild pario with '--features mpi'";
    let known: &[(&str, &str)] = &[
        ("MPIIO", NEED_MPI),
        ("HDF5", "is not supported by pario"),
        ("NCMPI", "is not supported by pario"),
        (
            "AIO",
            "is not supported by pario (io_uring is planned instead)",
        ),
        ("S3", "is not supported by pario"),
        ("S3-4C", "is not supported by pario"),
        ("S3-LIBS3", "is not supported by pario"),
        ("DFS", "is not supported by pario"),
        ("DAOS", "is not supported by pario"),
        ("HDFS", "is not supported by pario"),
        ("RADOS", "is not supported by pario"),
        ("CEPHFS", "is not supported by pario"),
        ("IME", "is not supported by pario"),
        ("GFARM", "is not supported by pario"),
        ("PMDK", "is not supported by pario"),
        ("LIBNFS", "is not supported by pario"),
    ];
    known
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case(api))
        .map(|(_, why)| *why)
}

/// Builds the backend `api` with the given module options; see
/// [`BackendInfo::build`] for the context.
pub fn build(
    api: &str,
    options: &BTreeMap<String, String>,
    context: Option<&Context<'_>>,
) -> Result<Box<dyn Backend>, String> {
    let settings = Settings { values: options };
    if let Some(info) = registry().iter().find(|b| b.name.eq_ignore_ascii_case(api)) {
        return (info.build)(&settings, context).map_err(|e| format!("-a {}: {e}", info.name));
    }
    let names: Vec<&str> = registry().iter().map(|b| b.name).collect();
    match unavailable_reason(api) {
        Some(why) => Err(format!("-a {api}: this API {why}")),
        None => Err(format!(
            "-a {api}: unknown API (this build has {})",
            names.join(", ")
        )),
    }
}

/// The module options of every backend (for the option grammar).
pub fn all_module_options() -> impl Iterator<Item = (&'static str, &'static ModuleOption)> {
    registry()
        .iter()
        .flat_map(|b| b.options.iter().map(move |o| (b.name, o)))
}

/// What to do when a transfer moves fewer bytes than asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// Go on with the rest until all is done.
    Allowed,
    /// A short transfer is an error; the text says why (it ends the message).
    Forbidden(&'static str),
}

impl Retry {
    /// The policy of a task's transfers: `-x` forbids retrying, and so does
    /// collective I/O (every task must make the same calls).
    pub fn of(single_attempt: bool, collective: bool) -> Retry {
        if single_attempt {
            Retry::Forbidden("-x forbids retrying")
        } else if collective {
            Retry::Forbidden("collective transfers are not retried")
        } else {
            Retry::Allowed
        }
    }
}

/// `write_at` until all of `buf` is written (as `retry` allows). The first
/// attempt is inline: a complete transfer costs one call and one comparison.
#[inline(always)]
pub fn write_fully(file: &mut dyn File, buf: &[u8], offset: u64, retry: Retry) -> io::Result<()> {
    match file.write_at(buf, offset) {
        Ok(n) if n == buf.len() => Ok(()),
        first => finish_write(file, buf, offset, retry, first),
    }
}

/// `read_at` until `buf` is full (as `retry` allows); end of file first is
/// an error naming how much was missing. The first attempt is inline.
#[inline(always)]
pub fn read_fully(
    file: &mut dyn File,
    buf: &mut [u8],
    offset: u64,
    retry: Retry,
) -> io::Result<()> {
    match file.read_at(buf, offset) {
        Ok(n) if n == buf.len() => Ok(()),
        first => finish_read(file, buf, offset, retry, first),
    }
}

/// The rest of [`write_fully`] after a first attempt that was not complete.
#[cold]
#[inline(never)]
fn finish_write(
    file: &mut dyn File,
    buf: &[u8],
    offset: u64,
    retry: Retry,
    first: io::Result<usize>,
) -> io::Result<()> {
    let zero = |_| io::Error::new(io::ErrorKind::WriteZero, "write returned 0 bytes");
    finish("write", buf.len(), offset, retry, first, zero, |done| {
        file.write_at(&buf[done..], offset + done as u64)
    })
}

/// The rest of [`read_fully`] after a first attempt that was not complete.
#[cold]
#[inline(never)]
fn finish_read(
    file: &mut dyn File,
    buf: &mut [u8],
    offset: u64,
    retry: Retry,
    first: io::Result<usize>,
) -> io::Result<()> {
    let wanted = buf.len();
    let zero = |done: usize| ended(offset + done as u64, wanted, offset);
    finish("read", wanted, offset, retry, first, zero, |done| {
        file.read_at(&mut buf[done..], offset + done as u64)
    })
}

/// Goes on with a transfer of `wanted` bytes whose first attempt returned
/// `first`: `again(done)` moves the rest from `done` on, and a call that
/// moves nothing is the error `zero(done)`.
fn finish(
    what: &str,
    wanted: usize,
    offset: u64,
    retry: Retry,
    first: io::Result<usize>,
    zero: impl Fn(usize) -> io::Error,
    mut again: impl FnMut(usize) -> io::Result<usize>,
) -> io::Result<()> {
    let mut done = 0;
    let mut outcome = first;
    loop {
        match outcome {
            Ok(0) => return Err(zero(done)),
            Ok(n) => done += n,
            // A signal came before any byte moved: try again, if allowed.
            Err(e) if e.kind() == io::ErrorKind::Interrupted && retry == Retry::Allowed => {}
            Err(e) => return Err(e),
        }
        if done >= wanted {
            return Ok(());
        }
        if let Retry::Forbidden(why) = retry {
            return Err(short(what, done, wanted, offset, why));
        }
        outcome = again(done);
    }
}

/// The error of a short transfer that was not retried.
fn short(what: &str, done: usize, wanted: usize, offset: u64, why: &str) -> io::Error {
    io::Error::other(format!(
        "short {what}: {done} of {wanted} bytes at offset {offset} ({why})"
    ))
}

/// The error of a read that met the end of the file at `end`.
fn ended(end: u64, wanted: usize, offset: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::UnexpectedEof,
        format!(
            "short read: the file ends at {end} but {wanted} bytes were expected \
             at offset {offset}"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file that moves at most `chunk` bytes per call and ends at `len`;
    /// its first `interrupted` calls fail with `EINTR`.
    struct Stub {
        chunk: usize,
        len: u64,
        interrupted: usize,
        calls: usize,
    }

    impl Stub {
        fn new(chunk: usize, len: u64) -> Stub {
            Stub {
                chunk,
                len,
                interrupted: 0,
                calls: 0,
            }
        }

        fn call(&mut self) -> io::Result<()> {
            self.calls += 1;
            if self.calls <= self.interrupted {
                return Err(io::ErrorKind::Interrupted.into());
            }
            Ok(())
        }
    }

    impl File for Stub {
        fn write_at(&mut self, buf: &[u8], _offset: u64) -> io::Result<usize> {
            self.call()?;
            Ok(buf.len().min(self.chunk))
        }
        fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
            self.call()?;
            let left = self.len.saturating_sub(offset) as usize;
            Ok(buf.len().min(self.chunk).min(left))
        }
        fn sync(&mut self) -> io::Result<()> {
            Ok(())
        }
        fn close(self: Box<Self>) -> io::Result<()> {
            Ok(())
        }
    }

    const X: Retry = Retry::Forbidden("-x forbids retrying");

    #[test]
    fn complete_transfers_take_one_call() {
        let mut f = Stub::new(usize::MAX, u64::MAX);
        write_fully(&mut f, &[0; 10], 100, X).unwrap();
        read_fully(&mut f, &mut [0; 10], 100, X).unwrap();
        assert_eq!(f.calls, 2);
    }

    #[test]
    fn short_transfers_are_finished_when_retrying_is_allowed() {
        let mut f = Stub::new(3, u64::MAX);
        write_fully(&mut f, &[0; 10], 100, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 4);
        let mut f = Stub::new(3, u64::MAX);
        read_fully(&mut f, &mut [0; 10], 100, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 4);
        // The end of the file comes first: 3 + 2 bytes, then 0.
        let mut f = Stub::new(3, 105);
        let e = read_fully(&mut f, &mut [0; 10], 100, Retry::Allowed).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(
            e.to_string(),
            "short read: the file ends at 105 but 10 bytes were expected at offset 100"
        );
        assert_eq!(f.calls, 3);
        let mut f = Stub::new(0, u64::MAX);
        let e = write_fully(&mut f, &[0; 10], 100, Retry::Allowed).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WriteZero);
        assert_eq!(f.calls, 1);
    }

    #[test]
    fn x_does_not_retry() {
        let mut f = Stub::new(3, u64::MAX);
        let e = write_fully(&mut f, &[0; 10], 100, X).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short write: 3 of 10 bytes at offset 100 (-x forbids retrying)"
        );
        assert_eq!(f.calls, 1);
        let mut f = Stub::new(3, u64::MAX);
        let e = read_fully(&mut f, &mut [0; 10], 100, X).unwrap_err();
        assert_eq!(
            e.to_string(),
            "short read: 3 of 10 bytes at offset 100 (-x forbids retrying)"
        );
        assert_eq!(f.calls, 1);
        // A first read at the end of the file is not tried again either.
        let mut f = Stub::new(3, 100);
        let e = read_fully(&mut f, &mut [0; 10], 100, X).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        assert_eq!(f.calls, 1);
    }

    #[test]
    fn interrupted_calls_are_retried_unless_forbidden() {
        let mut f = Stub::new(usize::MAX, u64::MAX);
        f.interrupted = 2;
        read_fully(&mut f, &mut [0; 10], 0, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 3);
        let mut f = Stub::new(4, u64::MAX);
        f.interrupted = 1;
        write_fully(&mut f, &[0; 10], 0, Retry::Allowed).unwrap();
        assert_eq!(f.calls, 4);
        let mut f = Stub::new(usize::MAX, u64::MAX);
        f.interrupted = 1;
        let e = read_fully(&mut f, &mut [0; 10], 0, X).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::Interrupted);
        assert_eq!(f.calls, 1);
    }

    #[test]
    fn collective_io_is_not_retried_either() {
        assert_eq!(Retry::of(false, false), Retry::Allowed);
        assert_eq!(Retry::of(true, true), X);
        let mut f = Stub::new(3, u64::MAX);
        let e = write_fully(&mut f, &[0; 10], 0, Retry::of(false, true)).unwrap_err();
        assert!(e
            .to_string()
            .ends_with("(collective transfers are not retried)"));
        assert_eq!(f.calls, 1);
    }
}
