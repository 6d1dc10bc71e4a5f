//! Where a generated file's bytes go: the file (through the backend, in
//! large writes at increasing offsets, with a running CRC-32C for TFRecord
//! framing), or a first pass that only sums them (the CRC-32 a zip header
//! holds before its data).

use std::io;

use crate::backend::{write_fully, File, Retry};

use super::content::Call;

/// Bytes per write.
pub const CHUNK: usize = 4 << 20;

/// A sink of a file's bytes, in order.
pub trait Out {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()>;
    /// `len` bytes of a call.
    fn fill(&mut self, call: &mut Call<'_>, len: u64) -> io::Result<()>;
    /// Bytes so far.
    fn written(&self) -> u64;
    /// Starts a CRC-32C over what follows.
    fn start_crc32c(&mut self) {}
    /// The CRC-32C since [`Out::start_crc32c`].
    fn crc32c(&self) -> u32 {
        0
    }
}

/// The file being written.
pub struct FileOut {
    file: Option<Box<dyn File>>,
    buf: Vec<u8>,
    offset: u64,
    crc: Option<u32>,
}

impl FileOut {
    pub fn new(file: Box<dyn File>) -> FileOut {
        FileOut {
            file: Some(file),
            buf: Vec::with_capacity(CHUNK),
            offset: 0,
            crc: None,
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        if self.buf.is_empty() {
            return Ok(());
        }
        if crate::signals::requested() {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let file = self.file.as_mut().expect("open until closed");
        write_fully(file.as_mut(), &self.buf, self.offset, Retry::Allowed)?;
        self.offset += self.buf.len() as u64;
        self.buf.clear();
        Ok(())
    }

    /// Writes what is left and closes the file.
    pub fn close(mut self) -> io::Result<()> {
        self.flush()?;
        self.file.take().expect("open until closed").close()
    }

    fn sum(&mut self, from: usize) {
        if let Some(crc) = &mut self.crc {
            *crc = crc32c::crc32c_append(*crc, &self.buf[from..]);
        }
    }
}

impl Out for FileOut {
    fn put(&mut self, mut bytes: &[u8]) -> io::Result<()> {
        while !bytes.is_empty() {
            let take = (CHUNK - self.buf.len()).min(bytes.len());
            let from = self.buf.len();
            self.buf.extend_from_slice(&bytes[..take]);
            self.sum(from);
            bytes = &bytes[take..];
            if self.buf.len() == CHUNK {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn fill(&mut self, call: &mut Call<'_>, mut len: u64) -> io::Result<()> {
        while len > 0 {
            let from = self.buf.len();
            let take = ((CHUNK - from) as u64).min(len) as usize;
            self.buf.resize(from + take, 0);
            call.fill(&mut self.buf[from..]);
            self.sum(from);
            len -= take as u64;
            if self.buf.len() == CHUNK {
                self.flush()?;
            }
        }
        Ok(())
    }

    fn written(&self) -> u64 {
        self.offset + self.buf.len() as u64
    }

    fn start_crc32c(&mut self) {
        self.crc = Some(0);
    }

    fn crc32c(&self) -> u32 {
        self.crc.unwrap_or(0)
    }
}

/// A first pass: the CRC-32 (zip's) and length of the bytes, nothing
/// written.
pub struct Crc32Out {
    pub hasher: crc32fast::Hasher,
    pub len: u64,
    scratch: Vec<u8>,
}

impl Default for Crc32Out {
    fn default() -> Crc32Out {
        Crc32Out {
            hasher: crc32fast::Hasher::new(),
            len: 0,
            scratch: vec![0; CHUNK],
        }
    }
}

impl Out for Crc32Out {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hasher.update(bytes);
        self.len += bytes.len() as u64;
        Ok(())
    }

    fn fill(&mut self, call: &mut Call<'_>, mut len: u64) -> io::Result<()> {
        while len > 0 {
            let take = (self.scratch.len() as u64).min(len) as usize;
            call.fill(&mut self.scratch[..take]);
            self.hasher.update(&self.scratch[..take]);
            self.len += take as u64;
            len -= take as u64;
        }
        Ok(())
    }

    fn written(&self) -> u64 {
        self.len
    }
}

/// Bytes kept in memory (small files made whole before they are written,
/// and tests).
#[derive(Default)]
pub struct MemOut {
    pub bytes: Vec<u8>,
    crc_from: Option<usize>,
}

impl Out for MemOut {
    fn put(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.bytes.extend_from_slice(bytes);
        Ok(())
    }

    fn fill(&mut self, call: &mut Call<'_>, len: u64) -> io::Result<()> {
        let from = self.bytes.len();
        self.bytes.resize(from + len as usize, 0);
        call.fill(&mut self.bytes[from..]);
        Ok(())
    }

    fn written(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn start_crc32c(&mut self) {
        self.crc_from = Some(self.bytes.len());
    }

    fn crc32c(&self) -> u32 {
        self.crc_from
            .map_or(0, |from| crc32c::crc32c(&self.bytes[from..]))
    }
}
