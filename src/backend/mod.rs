//! Storage backends behind one trait (IOR's `aiori`).
//!
//! A backend opens files and moves bytes; the runners decide what, where and
//! when. Each backend is one module that exports a [`BackendInfo`]: its name,
//! its capabilities, and its module options (`--posix.odirect`): a typed
//! options struct with one table ([`Typed`]) and the check that makes them
//! its configuration. Adding a backend is one new module plus one line in
//! [`registry::registry`]; adding an option, a field and a row of its table.

pub mod aio;
pub mod config;
pub mod cpath;
pub mod dummy;
pub mod featured;
pub mod listing;
pub mod mmap;
pub mod namespace;
pub mod posix;
pub mod registry;
pub mod ring;
pub mod s3;
pub mod transfer;

#[cfg(feature = "hdf5")]
pub mod hdf5;
#[cfg(feature = "mpi")]
pub mod mpiio;

use std::ffi::CStr;
use std::io;

pub use config::{BackendInfo, Capabilities, Config, Context, Demands, Given, Typed};
pub use namespace::{FsUsage, Namespace};
pub use registry::{all_module_options, configure, options_of, registry, Choice};
pub use transfer::{read_fully, transfer_pieces, write_fully, write_vectored_fully, Retry};

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
    /// A write phase that reads too (ior's mixed access): open for both.
    pub reads_too: bool,
    /// The size the file has once fully written (mapping backends need it).
    pub file_size: u64,
    /// The opening task (for backends that treat ranks differently).
    pub rank: usize,
    /// Whether transfers will visit the file in order (for access hints).
    pub sequential: bool,
    /// For a shared file: the blocks of the task whose data this is, for
    /// backends that can describe them (MPI-IO file views).
    pub blocks: Option<BlockView>,
    /// The bytes of one segment (IOR's `-s`): every task's block of a shared
    /// file, or one block of a file per task (HDF5 keeps each in a dataset).
    pub segment: u64,
    /// The bytes of one transfer (S3 groups transfers into parts); 0 when
    /// the caller does not say.
    pub transfer: u64,
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

/// The error of an operation a backend does not have.
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
    /// Writes `bufs` one after the other from `offset`, in one call for
    /// the backends that gather (POSIX's `pwritev`: many slices of one
    /// small buffer make one large request from cache); may write less
    /// than asked ([`write_vectored_fully`] goes on). The others write the
    /// buffers one by one with [`File::write_at`], up to a short one.
    fn write_vectored_at(&mut self, bufs: &[io::IoSlice<'_>], offset: u64) -> io::Result<usize> {
        let mut done = 0;
        for b in bufs.iter().filter(|b| !b.is_empty()) {
            match self.write_at(b, offset + done as u64) {
                Ok(n) if n == b.len() => done += n,
                Ok(n) => return Ok(done + n),
                // What was written counts; the next call meets the error.
                Err(_) if done > 0 => break,
                Err(e) => return Err(e),
            }
        }
        Ok(done)
    }
    /// Makes written data durable (`-e`, `-Y`).
    fn sync(&mut self) -> io::Result<()>;
    fn close(self: Box<Self>) -> io::Result<()>;
    /// Whether every task must make the same sequence of calls on this file
    /// (collective MPI-IO). The runner then never stops a task's phase early.
    fn collective(&self) -> bool {
        false
    }
    /// Takes part in one collective transfer, the one at `offset`, without
    /// moving data (a task that already failed keeps the others from waiting
    /// for it).
    fn skip(&mut self, _offset: u64) -> io::Result<()> {
        Ok(())
    }
    /// A queue for transfers of up to `len` bytes kept in flight together,
    /// for the backends that have one (AIO); `None`: one at a time.
    fn queue(&mut self, _len: usize) -> Option<io::Result<&mut dyn Queue>> {
        None
    }
    /// Several transfers in one call, in order, for a backend that makes
    /// them cheaper together than one by one: piece `k` reads into
    /// `read_buf` when bit `k` of `reads` is set and writes from `write_buf`
    /// otherwise, its bytes at [`Piece::at`] of that buffer. At most 64
    /// pieces. `None`: the caller makes them one by one
    /// ([`transfer::transfer_pieces`]).
    fn transfer_batch(
        &mut self,
        _write_buf: &[u8],
        _read_buf: &mut [u8],
        _pieces: &[Piece],
        _reads: u64,
    ) -> Option<BatchResult> {
        None
    }
}

/// One transfer of a batch: where it goes, how long it is, and where its
/// bytes are in the batch's buffer (pieces may share a place when their
/// contents do not matter).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Piece {
    pub offset: u64,
    pub len: u64,
    pub at: usize,
}

impl Piece {
    /// Its bytes in the batch's buffer.
    #[inline]
    pub fn bytes(&self) -> std::ops::Range<usize> {
        self.at..self.at + self.len as usize
    }
}

/// A batch's outcome: on a failure, the piece that failed (the ones before
/// it are complete) and why.
pub type BatchResult = Result<(), (usize, io::Error)>;

pub use ring::Completion;

/// Transfers in flight together (`-a AIO`): each request uses one slot's
/// buffer, which the queue owns, from submission to completion.
pub trait Queue {
    /// Slots: requests in flight at most.
    fn depth(&self) -> usize;
    fn in_flight(&self) -> usize;
    /// A slot's buffer, while no request uses it.
    fn buffer(&mut self, slot: usize) -> &mut [u8];
    /// Transfers `len` bytes of `slot`'s buffer from `start` at `offset`.
    fn submit(
        &mut self,
        access: Access,
        slot: usize,
        start: usize,
        len: usize,
        offset: u64,
    ) -> io::Result<()>;
    /// Waits for at least one request; appends every finished one.
    fn reap(&mut self, done: &mut Vec<Completion>) -> io::Result<()>;
    /// Writes submitted from now on send `bytes` (their first `start + len`),
    /// whatever their slots hold, or their slots' bytes again (`None`). A
    /// queue that can returns true, and the writer need not fill the slots:
    /// one copy for every request in flight instead of one per slot, which
    /// for large transfers is the difference between cache and memory.
    fn send_from(&mut self, _bytes: Option<&[u8]>) -> bool {
        false
    }
    /// Whether reads submitted from now on may land in a buffer of the
    /// queue's own instead of their slot's: nobody looks at their bytes
    /// (no `-R`). A queue whose requests are made by threads reads each
    /// into the thread's own buffer then, as a client would, instead of
    /// touching every slot's.
    fn discard_reads(&mut self, _discard: bool) {}
}

/// A storage interface. The metadata calls (mdtest's) are for backends whose
/// [`Capabilities::metadata`] says so; the others keep their defaults, which
/// report [`io::ErrorKind::Unsupported`].
pub trait Backend: Send + Sync {
    /// The name `-a` selects, as IOR prints it.
    fn name(&self) -> &'static str;
    /// IOR's "apiVersion" line.
    fn version(&self) -> String {
        String::new()
    }
    /// An object store's client as the headers of mdtest and md-workbench
    /// name it (they print no `FS:` line for it); `None` for file systems.
    fn object_client(&self) -> Option<String> {
        None
    }
    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>>;
    fn remove(&self, path: &CStr) -> io::Result<()>;
    /// Where its paths live: directories, existence, sizes, the page cache.
    fn namespace(&self) -> &dyn Namespace;
    /// Creates a file and opens it for writing from offset 0 (mdtest's create
    /// phase). Files get mode 0664 less the umask, as mdtest's do.
    fn create(&self, _path: &CStr, _spec: &CreateSpec) -> io::Result<Box<dyn File>> {
        Err(unsupported(self.name(), "create files one by one"))
    }
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
            reads_too: false,
            file_size: buf.len() as u64,
            rank,
            sequential: true,
            blocks: None,
            segment: buf.len() as u64,
            transfer: buf.len() as u64,
        };
        let mut file = self.open(path, &spec)?;
        if !buf.is_empty() {
            read_fully(file.as_mut(), buf, 0, Retry::Allowed)?;
        }
        file.close()
    }
    /// The status of a path, following symbolic links (mdtest's stat phase).
    fn stat(&self, _path: &CStr) -> io::Result<Status> {
        Err(unsupported(self.name(), "stat"))
    }
    /// Whether [`Backend::rename`] works; mdtest skips its directory rename
    /// phase otherwise, as IOR's mdtest does for a backend without rename.
    fn renames(&self) -> bool {
        true
    }
    /// Renames `from` to `to` (mdtest's directory rename phase).
    fn rename(&self, _from: &CStr, _to: &CStr) -> io::Result<()> {
        Err(unsupported(self.name(), "rename"))
    }
    /// Creates an empty regular file with `mknod` instead of open and close
    /// (mdtest `-k`).
    fn mknod(&self, _path: &CStr) -> io::Result<()> {
        Err(unsupported(self.name(), "create files with mknod"))
    }
    /// Whether the tasks sharing a file open and close it together
    /// ([`Backend::open_together`], [`Backend::close_together`]).
    fn opens_together(&self) -> bool {
        false
    }
    /// Opens a file every task of `comm` opens at the same point (a shared
    /// file), for backends whose tasks must agree on something first (S3:
    /// the multipart upload they all add parts to).
    fn open_together(
        &self,
        _comm: &dyn crate::comm::Comm,
        path: &CStr,
        spec: &OpenSpec,
    ) -> io::Result<Box<dyn File>> {
        self.open(path, spec)
    }
    /// Closes a file opened with [`Backend::open_together`], on every task
    /// of the same `comm`.
    fn close_together(
        &self,
        _comm: &dyn crate::comm::Comm,
        _path: &CStr,
        file: Box<dyn File>,
    ) -> io::Result<()> {
        file.close()
    }
    /// Flushes everything written to the file system holding `path` to
    /// stable storage (mdtest `-Y`, inside the phase's time).
    fn sync_fs(&self, _path: &CStr) -> io::Result<()> {
        Err(unsupported(self.name(), "flush a whole file system"))
    }
    /// Its tree as listings, for backends whose directories are key
    /// prefixes (io500's find and cleanup on S3).
    fn listing(&self) -> Option<&dyn listing::Listing> {
        None
    }
    /// Checks, before the header and before anything is created, that the
    /// run can use the place `path` lies in (an object store: its bucket
    /// exists and, when the run `writes`, takes writes). File systems find
    /// out at the first open.
    fn check_place(&self, _path: &CStr, _writes: bool) -> io::Result<()> {
        Ok(())
    }
    /// Requests this task sent again after a transient answer (S3's 500
    /// and 503 SlowDown) since the backend was built; `None` for backends
    /// that never send a request again.
    fn retries(&self) -> Option<u64> {
        None
    }
    /// The tool reported `n` of [`Backend::retries`] (in a phase's row);
    /// the backend tells the others itself when it is dropped, so none is
    /// hidden.
    fn retries_reported(&self, _n: u64) {}
}

/// The requests `backend` sent again since it said `before` (from
/// [`Backend::retries`]), now counted as reported by the caller.
pub fn retries_since(backend: &dyn Backend, before: Option<u64>) -> Option<u64> {
    let after = backend.retries()?;
    let n = after.saturating_sub(before.unwrap_or(after));
    backend.retries_reported(n);
    Some(n)
}
