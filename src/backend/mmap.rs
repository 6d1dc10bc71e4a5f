//! MMAP: the file is mapped whole and transfers are memory copies.
//! `--mmap.madv_pattern` tells the kernel the access pattern;
//! `--mmap.madv_dont_need` drops this process's pages at close.

use std::ffi::CStr;
use std::fs::OpenOptions;
use std::io;

use memmap2::{Advice, MmapMut};

use super::cpath::path_of;
use super::namespace::{Namespace, PosixNamespace};
use super::{
    posix, Access, Backend, BackendInfo, Capabilities, Config, Context, File, OpenSpec, Typed,
};
use crate::options::{long_flag, on, OptSpec};

pub const INFO: BackendInfo = BackendInfo {
    name: "MMAP",
    // mdtest does not run on it: IOR documents POSIX and DUMMY for mdtest.
    capabilities: Capabilities {
        collective: false,
        metadata: false,
        stores_data: true,
        posix_namespace: true,
    },
    options: &Typed {
        table: options,
        configure: |o| Ok(Box::new(o)),
    },
};

/// MMAP's options: they are its configuration (the backend is too).
#[derive(Debug, Clone, Copy, Default)]
pub struct MmapOptions {
    /// `madvise(DONTNEED)` at close.
    pub dont_need: bool,
    /// `madvise` of the access pattern.
    pub advise_pattern: bool,
}

fn options() -> Vec<OptSpec<MmapOptions>> {
    vec![
        long_flag(
            &["mmap.madv_dont_need"],
            "Use advise don't need",
            on(|o| &mut o.dont_need),
        ),
        long_flag(
            &["mmap.madv_pattern"],
            "Use advise to indicate the pattern random/sequential",
            on(|o| &mut o.advise_pattern),
        ),
    ]
}

impl Config for MmapOptions {
    fn build(&self, _: &Context<'_>) -> Result<Box<dyn Backend>, String> {
        Ok(Box::new(Mmap {
            dont_need: self.dont_need,
            advise_pattern: self.advise_pattern,
        }))
    }
}

pub struct Mmap {
    dont_need: bool,
    advise_pattern: bool,
}

struct MappedFile {
    map: MmapMut,
    file: std::fs::File,
    dont_need: bool,
}

impl Backend for Mmap {
    fn name(&self) -> &'static str {
        "MMAP"
    }

    fn open(&self, path: &CStr, spec: &OpenSpec) -> io::Result<Box<dyn File>> {
        // A shared writable mapping needs a descriptor open for reading too.
        let file = OpenOptions::new()
            .read(true)
            .write(spec.access == Access::Write)
            .create(spec.create)
            .open(path_of(path))?;
        let length = match spec.access {
            Access::Write => {
                if file.metadata()?.len() < spec.file_size {
                    file.set_len(spec.file_size)?;
                }
                spec.file_size
            }
            Access::Read => file.metadata()?.len(),
        };
        if length == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the file is empty",
            ));
        }
        let map = match spec.access {
            // SAFETY: a shared (MAP_SHARED) mapping of `length` bytes, which
            // the file holds: it was extended above if it was shorter, and
            // pario never shrinks a file while it is mapped. The mapping is
            // the file: another process writing the file changes the bytes
            // this handle reads, and another process truncating it makes an
            // access beyond the new end raise SIGBUS, which ends the run.
            // pario's own tasks write disjoint ranges.
            Access::Write => unsafe {
                memmap2::MmapOptions::new()
                    .len(length as usize)
                    .map_mut(&file)?
            },
            // SAFETY: a private copy-on-write (MAP_PRIVATE) mapping, so that
            // read handles have the same type as write handles; it is never
            // written, so it keeps showing the file's pages. `length` is the
            // file's size just read; as above, a truncation by another
            // process while the file is mapped raises SIGBUS.
            Access::Read => unsafe {
                memmap2::MmapOptions::new()
                    .len(length as usize)
                    .map_copy(&file)?
            },
        };
        if self.advise_pattern {
            map.advise(if spec.sequential {
                Advice::Sequential
            } else {
                Advice::Random
            })?;
        }
        Ok(Box::new(MappedFile {
            map,
            file,
            dont_need: self.dont_need,
        }))
    }

    fn remove(&self, path: &CStr) -> io::Result<()> {
        posix::remove_file(path)
    }

    fn namespace(&self) -> &dyn Namespace {
        &PosixNamespace
    }
}

impl MappedFile {
    fn range(&self, offset: u64, len: usize) -> std::ops::Range<usize> {
        let start = (offset as usize).min(self.map.len());
        start..(start + len).min(self.map.len())
    }
}

impl File for MappedFile {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        let range = self.range(offset, buf.len());
        let n = range.len();
        self.map[range].copy_from_slice(&buf[..n]);
        Ok(n)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let range = self.range(offset, buf.len());
        let n = range.len();
        buf[..n].copy_from_slice(&self.map[range]);
        Ok(n)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.map.flush()?;
        self.file.sync_all()
    }

    fn close(self: Box<Self>) -> io::Result<()> {
        if self.dont_need {
            // SAFETY: MADV_DONTNEED drops this process's pages of the
            // mapping. A write handle's mapping is shared: its data is in the
            // file (page cache) and would be read back from it. A read
            // handle's mapping is private but was never written, so no
            // private copy is lost either. No slice of the mapping outlives
            // this call, and the mapping is unmapped when `self` drops.
            unsafe {
                self.map
                    .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)?
            };
        }
        Ok(())
    }
}
