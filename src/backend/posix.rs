//! POSIX: `pread`/`pwrite` on file descriptors; `--posix.odirect` opens with
//! `O_DIRECT` (buffers, offsets and sizes must then be 4 KiB aligned).

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use super::{Access, Backend, BackendInfo, Context, File, ModuleOption, OpenSpec, Settings};

/// Alignment demanded under O_DIRECT: the page size, which satisfies every
/// common device's logical block size.
pub const DIRECT_ALIGNMENT: u64 = 4096;

pub const INFO: BackendInfo = BackendInfo {
    name: "POSIX",
    options: &[ModuleOption {
        name: "posix.odirect",
        flag: true,
        default: "",
        help: "Direct I/O Mode (O_DIRECT: sizes and offsets must be multiples of 4 KiB)",
    }],
    build,
};

fn build(settings: &Settings<'_>, _: Option<&Context<'_>>) -> Result<Box<dyn Backend>, String> {
    Ok(Box::new(Posix {
        direct: settings.flag("posix.odirect")?,
    }))
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

impl Backend for Posix {
    fn name(&self) -> &'static str {
        "POSIX"
    }

    fn open(&self, path: &Path, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        let mut options = OpenOptions::new();
        match spec.access {
            Access::Write => options.write(true).create(spec.create),
            Access::Read => options.read(true),
        };
        if self.direct {
            options.custom_flags(rustix::fs::OFlags::DIRECT.bits() as i32);
        }
        let file = options.open(path).map_err(|e| {
            if self.direct && e.raw_os_error() == Some(rustix::io::Errno::INVAL.raw_os_error()) {
                io::Error::new(
                    e.kind(),
                    format!("{e}; the file system may not support O_DIRECT"),
                )
            } else {
                e
            }
        })?;
        Ok(Box::new(PosixFile { file }))
    }

    fn remove(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn exists(&self, path: &Path) -> io::Result<bool> {
        path.try_exists()
    }

    fn size_of(&self, path: &Path) -> io::Result<Option<u64>> {
        Ok(Some(std::fs::metadata(path)?.len()))
    }

    fn mkdir(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir(path)
    }

    fn rmdir(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_dir(path)
    }

    fn alignment(&self) -> Option<u64> {
        self.direct.then_some(DIRECT_ALIGNMENT)
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

    fn sync(&mut self) -> io::Result<()> {
        self.file.sync_all()
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        drop(self.file);
        Ok(())
    }
}
