//! POSIX: `pread`/`pwrite` on file descriptors; `--posix.odirect` opens with
//! `O_DIRECT` (buffers, offsets and sizes must then be 4 KiB aligned).

use std::ffi::CStr;
use std::io;
use std::os::unix::fs::FileExt;

use rustix::fs::{Mode, OFlags};

use super::cpath::path_of;
use super::namespace::{Namespace, PosixNamespace};
use super::{
    read_fully, Access, Backend, BackendInfo, Capabilities, Config, Context, CreateSpec, File,
    OpenSpec, Retry, Status, Typed,
};
use crate::options::{long_flag, on, OptSpec};

/// Alignment demanded under O_DIRECT: the page size, which satisfies every
/// common device's logical block size.
pub const DIRECT_ALIGNMENT: u64 = 4096;

pub const INFO: BackendInfo = BackendInfo {
    name: "POSIX",
    capabilities: Capabilities {
        collective: false,
        metadata: true,
        stores_data: true,
        posix_namespace: true,
    },
    options: &Typed {
        table: options,
        configure: |o| Ok(Box::new(o)),
    },
};

/// POSIX's options (AIO's too): they are its configuration.
#[derive(Debug, Clone, Copy, Default)]
pub struct PosixOptions {
    /// `--posix.odirect`: `O_DIRECT`.
    pub odirect: bool,
    /// `--posix.evict`: drop the files from the page cache before a read.
    pub evict: bool,
}

/// POSIX's module options.
pub fn options() -> Vec<OptSpec<PosixOptions>> {
    vec![
        long_flag(
            &["posix.odirect"],
            "Direct I/O Mode (O_DIRECT: sizes and offsets must be multiples of 4 KiB)",
            on(|o| &mut o.odirect),
        ),
        long_flag(
            &["posix.evict"],
            "Sync and drop the test files from the page cache before each read (fadvise DONTNEED)",
            on(|o| &mut o.evict),
        ),
    ]
}

impl Config for PosixOptions {
    fn alignment(&self) -> Option<u64> {
        self.odirect.then_some(DIRECT_ALIGNMENT)
    }

    fn evicts(&self) -> bool {
        self.evict
    }

    fn build(&self, _: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(Posix::new(self.odirect)))
    }
}

pub struct Posix {
    direct: bool,
}

impl Posix {
    pub fn new(direct: bool) -> Posix {
        Posix { direct }
    }
}

struct PosixFile {
    file: std::fs::File,
}

impl From<rustix::fd::OwnedFd> for PosixFile {
    fn from(fd: rustix::fd::OwnedFd) -> PosixFile {
        PosixFile {
            file: std::fs::File::from(fd),
        }
    }
}

/// mdtest's file mode: rw-rw-r-- (less the umask).
const FILE_MODE: u32 = 0o664;

/// The mode of test files `open` creates (as Rust's `File::create`: rw-rw-rw-
/// less the umask).
const TEST_FILE_MODE: u32 = 0o666;

/// Opens (or creates) a test file as `spec` says: ior's open, shared with
/// the backends layered on POSIX (AIO).
pub(super) fn open_test_file(
    path: &CStr,
    spec: &OpenSpec,
    direct: bool,
) -> io::Result<rustix::fd::OwnedFd> {
    let mut flags = OFlags::CLOEXEC;
    let write = match spec.reads_too {
        true => OFlags::RDWR,
        false => OFlags::WRONLY,
    };
    match spec.access {
        Access::Write if spec.create => flags |= write | OFlags::CREATE,
        Access::Write => flags |= write,
        Access::Read => flags |= OFlags::RDONLY,
    }
    if direct {
        flags |= OFlags::DIRECT;
    }
    open_raw(path, flags, Mode::from_raw_mode(TEST_FILE_MODE))
}

/// Creates a file for writing.
fn create_file(path: &CStr, spec: &CreateSpec, direct: bool) -> io::Result<Box<dyn File>> {
    let fd = open_raw(
        path,
        create_flags(spec, direct),
        Mode::from_raw_mode(FILE_MODE),
    )?;
    Ok(Box::new(PosixFile::from(fd)))
}

/// The flags of [`create_file`], for the raw system call.
fn create_flags(spec: &CreateSpec, direct: bool) -> OFlags {
    let mut flags = OFlags::CREATE | OFlags::CLOEXEC;
    flags |= if spec.read_back {
        OFlags::RDWR
    } else {
        OFlags::WRONLY
    };
    if spec.exclusive {
        flags |= OFlags::EXCL;
    }
    if direct {
        flags |= OFlags::DIRECT;
    }
    flags
}

/// `open(2)`, retried if a signal interrupts it. With `O_DIRECT`, `EINVAL`
/// says that the file system may not support it.
fn open_raw(path: &CStr, flags: OFlags, mode: Mode) -> io::Result<rustix::fd::OwnedFd> {
    loop {
        match rustix::fs::open(path, flags, mode) {
            Ok(fd) => return Ok(fd),
            Err(rustix::io::Errno::INTR) => continue,
            Err(e) if e == rustix::io::Errno::INVAL && flags.contains(OFlags::DIRECT) => {
                let e = io::Error::from(e);
                return Err(io::Error::new(
                    e.kind(),
                    format!("{e}; the file system may not support O_DIRECT"),
                ));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Creates an empty file and closes it: `open(O_CREAT…)` and `close`, with no
/// handle object in between (mdtest's hot path).
fn create_empty_file(path: &CStr, spec: &CreateSpec, direct: bool) -> io::Result<()> {
    let fd = open_raw(
        path,
        create_flags(spec, direct),
        Mode::from_raw_mode(FILE_MODE),
    )?;
    drop(fd);
    Ok(())
}

/// Opens a file read-only, reads `buf.len()` bytes from offset 0 with
/// `pread` (as [`read_fully`] does) and closes it; an empty `buf` only opens
/// and closes.
fn read_start_of_file(path: &CStr, buf: &mut [u8], direct: bool) -> io::Result<()> {
    let mut flags = OFlags::RDONLY | OFlags::CLOEXEC;
    if direct {
        flags |= OFlags::DIRECT;
    }
    let mut file = PosixFile::from(open_raw(path, flags, Mode::empty())?);
    if !buf.is_empty() {
        read_fully(&mut file, buf, 0, Retry::Allowed)?;
    }
    Ok(())
}

/// `stat(2)` of a path.
fn stat_path(path: &CStr) -> io::Result<Status> {
    let st = rustix::fs::stat(path)?;
    Ok(Status {
        size: st.st_size as u64,
        is_dir: rustix::fs::FileType::from_raw_mode(st.st_mode).is_dir(),
    })
}

/// `mknod(2)` of an empty regular file.
fn mknod_file(path: &CStr) -> io::Result<()> {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::RegularFile,
        rustix::fs::Mode::from_raw_mode(FILE_MODE),
        0,
    )?;
    Ok(())
}

/// `unlink(2)`.
pub(crate) fn remove_file(path: &CStr) -> io::Result<()> {
    Ok(rustix::fs::unlink(path)?)
}

/// `rename(2)`.
fn rename_path(from: &CStr, to: &CStr) -> io::Result<()> {
    Ok(rustix::fs::rename(from, to)?)
}

/// `syncfs(2)` of the file system holding `path` (a directory or file).
fn sync_file_system(path: &CStr) -> io::Result<()> {
    let handle = std::fs::File::open(path_of(path))?;
    rustix::fs::syncfs(&handle)?;
    Ok(())
}

/// `pwritev(2)`: at most `IOV_MAX` buffers a call (a short write beyond).
pub(super) fn gathered_write(
    file: &std::fs::File,
    bufs: &[io::IoSlice<'_>],
    offset: u64,
) -> io::Result<usize> {
    Ok(rustix::io::pwritev(file, bufs, offset)?)
}

impl Backend for Posix {
    fn name(&self) -> &'static str {
        "POSIX"
    }

    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        Ok(Box::new(PosixFile::from(open_test_file(
            path,
            spec,
            self.direct,
        )?)))
    }

    fn remove(&self, path: &CStr) -> io::Result<()> {
        remove_file(path)
    }

    fn namespace(&self) -> &dyn Namespace {
        &PosixNamespace
    }

    fn create(&self, path: &CStr, spec: &CreateSpec) -> io::Result<Box<dyn File>> {
        create_file(path, spec, self.direct)
    }

    fn create_empty(&self, path: &CStr, spec: &CreateSpec) -> io::Result<()> {
        create_empty_file(path, spec, self.direct)
    }

    fn open_read_close(&self, path: &CStr, buf: &mut [u8], _rank: usize) -> io::Result<()> {
        read_start_of_file(path, buf, self.direct)
    }

    fn stat(&self, path: &CStr) -> io::Result<Status> {
        stat_path(path)
    }

    fn rename(&self, from: &CStr, to: &CStr) -> io::Result<()> {
        rename_path(from, to)
    }

    fn mknod(&self, path: &CStr) -> io::Result<()> {
        mknod_file(path)
    }

    fn sync_fs(&self, path: &CStr) -> io::Result<()> {
        sync_file_system(path)
    }
}

impl File for PosixFile {
    #[inline]
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.file.write_at(buf, offset)
    }

    #[inline]
    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        self.file.read_at(buf, offset)
    }

    fn write_vectored_at(&mut self, bufs: &[io::IoSlice<'_>], offset: u64) -> io::Result<usize> {
        gathered_write(&self.file, bufs, offset)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        drop(self.file);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::cpath::c_path;
    use std::ffi::CString;
    use std::path::Path;

    fn c(path: impl AsRef<Path>) -> CString {
        c_path(path.as_ref()).unwrap()
    }

    fn spec(exclusive: bool) -> CreateSpec {
        CreateSpec {
            exclusive,
            read_back: false,
            rank: 0,
        }
    }

    #[test]
    fn einval_under_o_direct_names_the_likely_cause() {
        // O_TMPFILE without write access is EINVAL on every file system.
        let dir = tempfile::tempdir().unwrap();
        let flags = OFlags::TMPFILE | OFlags::RDONLY;
        let e = open_raw(&c(dir.path()), flags | OFlags::DIRECT, Mode::empty()).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        assert!(
            e.to_string()
                .ends_with("; the file system may not support O_DIRECT"),
            "{e}"
        );
        let e = open_raw(&c(dir.path()), flags, Mode::empty()).unwrap_err();
        assert!(!e.to_string().contains("O_DIRECT"), "{e}");
    }

    #[test]
    fn gathered_writes_past_iov_max_go_on() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("v");
        let mut file = Posix::new(false).create(&c(&f), &spec(true)).unwrap();
        let words: Vec<[u8; 8]> = (0..1500u64).map(u64::to_le_bytes).collect();
        let mut slices: Vec<io::IoSlice<'_>> = words.iter().map(|w| io::IoSlice::new(w)).collect();
        // One call takes IOV_MAX (1024) buffers.
        assert_eq!(file.write_vectored_at(&slices, 8).unwrap(), 1024 * 8);
        crate::backend::write_vectored_fully(file.as_mut(), &mut slices, 8, Retry::Allowed)
            .unwrap();
        file.close().unwrap();
        let bytes = std::fs::read(&f).unwrap();
        assert_eq!(bytes.len(), 8 + 1500 * 8);
        for (i, w) in bytes[8..].chunks(8).enumerate() {
            assert_eq!(w, (i as u64).to_le_bytes());
        }
    }

    #[test]
    fn metadata_operations() {
        let dir = tempfile::tempdir().unwrap();
        let b = Posix::new(false);
        let f = dir.path().join("f");
        b.create_empty(&c(&f), &spec(true)).unwrap();
        assert_eq!(
            b.create_empty(&c(&f), &spec(true)).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        b.create_empty(&c(&f), &spec(false)).unwrap();
        let mut file = b.create(&c(dir.path().join("g")), &spec(true)).unwrap();
        file.write_at(b"hello", 0).unwrap();
        file.close().unwrap();
        let st = b.stat(&c(dir.path().join("g"))).unwrap();
        assert_eq!(
            st,
            Status {
                size: 5,
                is_dir: false
            }
        );
        assert!(b.stat(&c(dir.path())).unwrap().is_dir);
        let mut buf = [0u8; 5];
        b.open_read_close(&c(dir.path().join("g")), &mut buf, 0)
            .unwrap();
        assert_eq!(&buf, b"hello");
        let mut long = [0u8; 6];
        let e = b
            .open_read_close(&c(dir.path().join("g")), &mut long, 0)
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        b.open_read_close(&c(&f), &mut [], 0).unwrap();
        b.rename(&c(&f), &c(dir.path().join("h"))).unwrap();
        assert!(!f.exists());
        b.mknod(&c(dir.path().join("n"))).unwrap();
        assert_eq!(b.stat(&c(dir.path().join("n"))).unwrap().size, 0);
        b.sync_fs(&c(dir.path())).unwrap();
        let sub = c(dir.path().join("d"));
        b.namespace().mkdir(&sub).unwrap();
        assert_eq!(
            b.namespace().mkdir(&sub).unwrap_err().kind(),
            io::ErrorKind::AlreadyExists
        );
        assert!(b.stat(&sub).unwrap().is_dir);
        b.create_empty(&c(dir.path().join("d/x")), &spec(true))
            .unwrap();
        let full = b.namespace().rmdir(&sub).unwrap_err();
        assert_eq!(full.kind(), io::ErrorKind::DirectoryNotEmpty);
        b.remove(&c(dir.path().join("d/x"))).unwrap();
        b.namespace().rmdir(&sub).unwrap();
        assert!(!dir.path().join("d").exists());
        let gone = b.remove(&c(dir.path().join("d/x"))).unwrap_err();
        assert_eq!(gone.kind(), io::ErrorKind::NotFound);
        let missing = b.stat(&c(dir.path().join("missing"))).unwrap_err();
        assert_eq!(missing.kind(), io::ErrorKind::NotFound);
    }
}
