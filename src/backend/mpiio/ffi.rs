//! The MPI-IO edge: every raw MPI call of `-a MPIIO` (and of HDF5's hints),
//! behind safe wrappers. The backend above it holds no `unsafe`.
//!
//! Invariants, which make the `unsafe` below sound:
//! - an MPI rank runs one pario task on one thread: communicators and file
//!   handles are used only from the thread that made them;
//! - every handle is created by a successful MPI call before it is read, and
//!   freed at most once (`Info` and `Datatype` on drop, a file by `close`);
//! - buffers handed to MPI are Rust slices whose length MPI is given, and
//!   string buffers hold MPI's maximum length plus the terminator;
//! - collective calls (open, set_view, preallocate, `*_all`, sync, close)
//!   are made by every task of the file the same number of times: the
//!   runner guarantees it (see `File::collective`).

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::io;
use std::mem::MaybeUninit;

use mpi::ffi;
use mpi::raw::AsRaw;
use mpi::topology::SimpleCommunicator;

use crate::backend::Access;

pub(in crate::backend) use mpi::ffi::MPI_Comm;

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
    Err(io::Error::other(format!(
        "{what}: {}",
        chars(&text[..len.max(0) as usize])
    )))
}

/// C characters as text, up to the first NUL.
fn chars(text: &[c_char]) -> String {
    text.iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8 as char)
        .collect()
}

/// `text` NUL-terminated for MPI.
pub(in crate::backend) fn c_string(text: &str) -> io::Result<CString> {
    CString::new(text)
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in a name"))
}

/// A communicator of the tasks sharing a file.
pub(in crate::backend) struct RawComm(pub(in crate::backend) SimpleCommunicator);

// SAFETY: an MPI rank runs pario's task on one thread; the communicator is
// only ever used from that thread.
unsafe impl Send for RawComm {}
// SAFETY: as above: never used from two threads.
unsafe impl Sync for RawComm {}

impl RawComm {
    pub(in crate::backend) fn raw(&self) -> MPI_Comm {
        self.0.as_raw()
    }
}

/// MPI's predefined `MPI_COMM_SELF`.
pub(in crate::backend) fn comm_self() -> MPI_Comm {
    // SAFETY: reads the handle rsmpi's C shim initialises to MPI_COMM_SELF;
    // it is never written.
    unsafe { ffi::RSMPI_COMM_SELF }
}

/// The first line of `MPI_Get_library_version`, as MPI reports it.
pub(super) fn library_version() -> String {
    let mut text = vec![0 as c_char; ffi::MPI_MAX_LIBRARY_VERSION_STRING as usize + 1];
    let mut len: c_int = 0;
    // SAFETY: the buffer has room for MPI_MAX_LIBRARY_VERSION_STRING chars
    // and the terminator; `len` receives the length written.
    unsafe { ffi::MPI_Get_library_version(text.as_mut_ptr(), &mut len) };
    // The length Open MPI returns counts the terminating NUL: `chars` stops
    // there.
    chars(&text[..len.max(0) as usize])
}

/// `MPI_File_delete` of `name` with no hints.
pub(super) fn delete(name: &CStr) -> io::Result<()> {
    check(
        // SAFETY: `name` is NUL-terminated; MPI_INFO_NULL is predefined.
        unsafe { ffi::MPI_File_delete(name.as_ptr(), ffi::RSMPI_INFO_NULL) },
        "MPI_File_delete",
    )
}

/// An `MPI_Info` holding hints; freed on drop.
pub(in crate::backend) struct Info(ffi::MPI_Info);

impl Info {
    pub(in crate::backend) fn new(hints: &[(String, String)]) -> io::Result<Info> {
        let mut info = MaybeUninit::uninit();
        check(
            // SAFETY: MPI_Info_create writes a new handle into `info`.
            unsafe { ffi::MPI_Info_create(info.as_mut_ptr()) },
            "MPI_Info_create",
        )?;
        // SAFETY: initialised by the successful call above.
        let info = Info(unsafe { info.assume_init() });
        for (key, value) in hints {
            let (k, v) = (c_string(key)?, c_string(value)?);
            check(
                // SAFETY: `info` is a live handle; key and value are NUL-terminated.
                unsafe { ffi::MPI_Info_set(info.0, k.as_ptr(), v.as_ptr()) },
                "MPI_Info_set",
            )?;
        }
        Ok(info)
    }

    /// The handle, for bindings that take one (HDF5's file access list).
    #[cfg(feature = "hdf5")]
    pub(in crate::backend) fn raw(&self) -> ffi::MPI_Info {
        self.0
    }

    /// The key and value of every hint.
    fn entries(&self) -> io::Result<Vec<(String, String)>> {
        let mut count: c_int = 0;
        check(
            // SAFETY: `self` is live; `count` receives the number of keys.
            unsafe { ffi::MPI_Info_get_nkeys(self.0, &mut count) },
            "MPI_Info_get_nkeys",
        )?;
        let mut hints = Vec::new();
        for n in 0..count {
            let mut key = vec![0 as c_char; ffi::MPI_MAX_INFO_KEY as usize + 1];
            check(
                // SAFETY: the key buffer has MPI_MAX_INFO_KEY + 1 characters.
                unsafe { ffi::MPI_Info_get_nthkey(self.0, n, key.as_mut_ptr()) },
                "MPI_Info_get_nthkey",
            )?;
            let mut value = vec![0 as c_char; ffi::MPI_MAX_INFO_VAL as usize + 1];
            let mut found: c_int = 0;
            check(
                // SAFETY: `key` is NUL-terminated by MPI; the value buffer holds
                // MPI_MAX_INFO_VAL characters plus the terminator.
                unsafe {
                    ffi::MPI_Info_get(
                        self.0,
                        key.as_ptr(),
                        ffi::MPI_MAX_INFO_VAL as c_int,
                        value.as_mut_ptr(),
                        &mut found,
                    )
                },
                "MPI_Info_get",
            )?;
            hints.push((chars(&key), chars(&value)));
        }
        Ok(hints)
    }
}

impl Drop for Info {
    fn drop(&mut self) {
        // SAFETY: the handle was created by MPI_Info_create and is freed once.
        unsafe { ffi::MPI_Info_free(&mut self.0) };
    }
}

/// The hints an open file reports.
///
/// # Safety
/// `handle` must be an open MPI file (HDF5's MPI-IO driver hands one out
/// while its file is open).
pub(in crate::backend) unsafe fn hints_of(
    handle: ffi::MPI_File,
) -> io::Result<Vec<(String, String)>> {
    let mut info = MaybeUninit::uninit();
    check(
        // SAFETY: `handle` is open (the caller's promise); MPI_File_get_info
        // writes a new info handle.
        unsafe { ffi::MPI_File_get_info(handle, info.as_mut_ptr()) },
        "MPI_File_get_info",
    )?;
    // SAFETY: initialised by the successful call above.
    Info(unsafe { info.assume_init() }).entries()
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

/// An open MPI file. Closed by [`FileHandle::close`]; a handle dropped
/// without it is left to MPI.
pub(super) struct FileHandle(ffi::MPI_File);

// SAFETY: the file handle is used only by the thread of the MPI rank that
// opened it (see RawComm).
unsafe impl Send for FileHandle {}

impl FileHandle {
    /// `MPI_File_open` of `name` on `comm` with the hints in `info`:
    /// collective over `comm`. Writing opens read-write (creating the file
    /// if `create`), reading read-only.
    pub(super) fn open(
        comm: MPI_Comm,
        name: &CStr,
        access: Access,
        create: bool,
        info: &Info,
    ) -> io::Result<FileHandle> {
        let mode = match access {
            Access::Write => {
                (ffi::MPI_MODE_RDWR | if create { ffi::MPI_MODE_CREATE } else { 0 }) as c_int
            }
            Access::Read => ffi::MPI_MODE_RDONLY as c_int,
        };
        let mut handle = MaybeUninit::uninit();
        check(
            // SAFETY: `comm` and `info` are live handles, `name` is NUL-terminated,
            // MPI writes the new file handle into `handle`.
            unsafe { ffi::MPI_File_open(comm, name.as_ptr(), mode, info.0, handle.as_mut_ptr()) },
            "MPI_File_open",
        )?;
        // SAFETY: initialised by the successful open.
        Ok(FileHandle(unsafe { handle.assume_init() }))
    }

    /// `MPI_File_preallocate` to `size` bytes (collective).
    pub(super) fn preallocate(&self, size: u64) -> io::Result<()> {
        check(
            // SAFETY: the handle is open; collective on the file's tasks.
            unsafe { ffi::MPI_File_preallocate(self.0, size as ffi::MPI_Offset) },
            "MPI_File_preallocate",
        )
    }

    /// A file view of bytes starting at `displacement` that shows `block`
    /// bytes of every `stride` (collective).
    pub(super) fn set_view(
        &self,
        displacement: u64,
        block: c_int,
        stride: u64,
        info: &Info,
    ) -> io::Result<()> {
        let native = c_string("native")?;
        let contiguous = Datatype::new("MPI_Type_contiguous", |out| {
            // SAFETY: `block` bytes of MPI's byte type; MPI writes `out`.
            unsafe { ffi::MPI_Type_contiguous(block, ffi::RSMPI_UINT8_T, out) }
        })?;
        let mut tiled = Datatype::new("MPI_Type_create_resized", |out| {
            // SAFETY: `contiguous` is live; MPI writes `out`.
            unsafe { ffi::MPI_Type_create_resized(contiguous.0, 0, stride as ffi::MPI_Aint, out) }
        })?;
        check(
            // SAFETY: `tiled` is live; committed once, before it is used.
            unsafe { ffi::MPI_Type_commit(&mut tiled.0) },
            "MPI_Type_commit",
        )?;
        check(
            // SAFETY: the handle is open, `tiled` committed, `native`
            // NUL-terminated and `info` live. Both datatypes are freed on
            // return; the view keeps its own reference.
            unsafe {
                ffi::MPI_File_set_view(
                    self.0,
                    displacement as ffi::MPI_Offset,
                    ffi::RSMPI_UINT8_T,
                    tiled.0,
                    native.as_ptr(),
                    info.0,
                )
            },
            "MPI_File_set_view",
        )
    }

    /// The hints the open file reports.
    pub(super) fn hints(&self) -> io::Result<Vec<(String, String)>> {
        // SAFETY: the handle is open until `close` consumes it.
        unsafe { hints_of(self.0) }
    }

    /// Writes `buf` at byte `at` of the view; `collective`:
    /// `MPI_File_write_at_all`. Returns the bytes written.
    pub(super) fn write_at(&self, buf: &[u8], at: i64, collective: bool) -> io::Result<usize> {
        let count = count_of(buf.len())?;
        let mut status = MaybeUninit::<ffi::MPI_Status>::uninit();
        // MPI's C signature takes a mutable pointer even for writes; it does
        // not write through it.
        let data = buf.as_ptr() as *mut c_void;
        let (out, byte, at) = (status.as_mut_ptr(), byte(), at as ffi::MPI_Offset);
        // SAFETY: `data` points to `count` bytes borrowed for the call;
        // `status` receives the transfer's status.
        let code = unsafe {
            match collective {
                false => ffi::MPI_File_write_at(self.0, at, data, count, byte, out),
                true => ffi::MPI_File_write_at_all(self.0, at, data, count, byte, out),
            }
        };
        check(code, "MPI-IO transfer")?;
        // SAFETY: filled by the successful transfer.
        bytes_moved(unsafe { status.assume_init_ref() })
    }

    /// Reads into `buf` from byte `at` of the view; `collective`:
    /// `MPI_File_read_at_all`. Returns the bytes read.
    pub(super) fn read_at(&self, buf: &mut [u8], at: i64, collective: bool) -> io::Result<usize> {
        let count = count_of(buf.len())?;
        let mut status = MaybeUninit::<ffi::MPI_Status>::uninit();
        let data = buf.as_mut_ptr() as *mut c_void;
        let (out, byte, at) = (status.as_mut_ptr(), byte(), at as ffi::MPI_Offset);
        // SAFETY: `data` points to `count` bytes borrowed mutably for the
        // call; `status` receives the transfer's status.
        let code = unsafe {
            match collective {
                false => ffi::MPI_File_read_at(self.0, at, data, count, byte, out),
                true => ffi::MPI_File_read_at_all(self.0, at, data, count, byte, out),
            }
        };
        check(code, "MPI-IO transfer")?;
        // SAFETY: filled by the successful transfer.
        bytes_moved(unsafe { status.assume_init_ref() })
    }

    /// `MPI_File_sync` (collective).
    pub(super) fn sync(&self) -> io::Result<()> {
        // SAFETY: the handle is open; collective over the file's tasks.
        check(unsafe { ffi::MPI_File_sync(self.0) }, "MPI_File_sync")
    }

    /// `MPI_File_close` (collective).
    pub(super) fn close(mut self) -> io::Result<()> {
        check(
            // SAFETY: closes the open handle once: `self` is consumed.
            unsafe { ffi::MPI_File_close(&mut self.0) },
            "MPI_File_close",
        )
    }
}

/// MPI's predefined byte type, `MPI_UINT8_T`.
fn byte() -> ffi::MPI_Datatype {
    // SAFETY: reads the handle rsmpi's C shim initialises to MPI_UINT8_T;
    // it is never written.
    unsafe { ffi::RSMPI_UINT8_T }
}

/// A transfer's length as MPI's count of bytes.
fn count_of(len: usize) -> io::Result<c_int> {
    c_int::try_from(len).map_err(|_| io::Error::other("a transfer above 2 GiB"))
}

/// The bytes a finished transfer moved.
fn bytes_moved(status: &ffi::MPI_Status) -> io::Result<usize> {
    let mut done: c_int = 0;
    check(
        // SAFETY: `status` was filled by a successful transfer; `done` receives
        // its count of bytes.
        unsafe { ffi::MPI_Get_count(status, ffi::RSMPI_UINT8_T, &mut done) },
        "MPI_Get_count",
    )?;
    Ok(done.max(0) as usize)
}
