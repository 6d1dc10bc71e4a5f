//! Where a generated file's bytes go: the file (through the backend, in
//! large writes at increasing offsets, with a running CRC-32C for TFRecord
//! framing), or a first pass that only sums them (the CRC-32 a zip header
//! holds before its data).

use std::io;

use crate::backend::{write_fully, File, Retry};

use super::content::Call;

/// Bytes per write.
pub const CHUNK: usize = 4 << 20;
/// A fill at least this long goes to the file straight from the content
/// (fast), in pieces of [`CHUNK`], after what is buffered: as numpy's
/// `write_array` writes an array's data past Python's file buffer, in
/// pieces (of 16 MiB), after the small headers the buffer held.
const DIRECT_FROM: u64 = 1 << 20;

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
    /// Starts a CRC-32 (zip's) over what follows.
    fn start_crc32(&mut self);
    /// The CRC-32 since [`Out::start_crc32`].
    fn crc32(&self) -> u32;
    /// Writes `bytes` again at `offset`, over bytes already put (a header
    /// completed once what follows it is known, as zipfile seeks back to).
    fn put_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()>;
}

/// The checksum running over the bytes put.
enum Running {
    Crc32c(u32),
    Crc32(crc32fast::Hasher),
}

/// The file being written.
pub struct FileOut {
    file: Option<Box<dyn File>>,
    buf: Vec<u8>,
    offset: u64,
    crc: Option<Running>,
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
        let buf = std::mem::take(&mut self.buf);
        let written = self.write_out(&buf);
        self.buf = buf;
        self.buf.clear();
        written
    }

    /// Writes `bytes` at the end of what was written.
    fn write_out(&mut self, bytes: &[u8]) -> io::Result<()> {
        if crate::signals::requested() {
            return Err(io::ErrorKind::Interrupted.into());
        }
        let file = self.file.as_mut().expect("open until closed");
        write_fully(file.as_mut(), bytes, self.offset, Retry::Allowed)?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// `len` bytes of `call` written from the content itself, when it
    /// allows it; false when it does not (exact content).
    fn fill_direct(&mut self, call: &mut Call<'_>, mut len: u64) -> io::Result<bool> {
        if len < DIRECT_FROM || call.direct(0).is_none() {
            return Ok(false);
        }
        self.flush()?;
        while len > 0 {
            let take = (CHUNK as u64).min(len) as usize;
            let bytes = call.direct(take).expect("fast content");
            sum(&mut self.crc, bytes);
            self.write_out(bytes)?;
            len -= bytes.len() as u64;
        }
        Ok(true)
    }

    /// Writes what is left and closes the file.
    pub fn close(mut self) -> io::Result<()> {
        self.flush()?;
        self.file.take().expect("open until closed").close()
    }

    fn sum(&mut self, from: usize) {
        sum(&mut self.crc, &self.buf[from..]);
    }
}

/// The running checksum, over `bytes` too.
fn sum(crc: &mut Option<Running>, bytes: &[u8]) {
    match crc {
        Some(Running::Crc32c(crc)) => *crc = crc32c::crc32c_append(*crc, bytes),
        Some(Running::Crc32(hasher)) => hasher.update(bytes),
        None => {}
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
        if self.fill_direct(call, len)? {
            return Ok(());
        }
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
        self.crc = Some(Running::Crc32c(0));
    }

    fn crc32c(&self) -> u32 {
        match &self.crc {
            Some(Running::Crc32c(crc)) => *crc,
            _ => 0,
        }
    }

    fn start_crc32(&mut self) {
        self.crc = Some(Running::Crc32(crc32fast::Hasher::new()));
    }

    fn crc32(&self) -> u32 {
        match &self.crc {
            Some(Running::Crc32(hasher)) => hasher.clone().finalize(),
            _ => 0,
        }
    }

    fn put_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        self.flush()?;
        let file = self.file.as_mut().expect("open until closed");
        write_fully(file.as_mut(), bytes, offset, Retry::Allowed)
    }
}

/// Bytes kept in memory (small files made whole before they are written,
/// and tests).
#[derive(Default)]
pub struct MemOut {
    pub bytes: Vec<u8>,
    crc_from: Option<usize>,
    crc32_from: Option<usize>,
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

    fn start_crc32(&mut self) {
        self.crc32_from = Some(self.bytes.len());
    }

    fn crc32(&self) -> u32 {
        self.crc32_from
            .map_or(0, |from| crc32fast::hash(&self.bytes[from..]))
    }

    fn put_at(&mut self, offset: u64, bytes: &[u8]) -> io::Result<()> {
        let at = offset as usize;
        self.bytes[at..at + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }
}
