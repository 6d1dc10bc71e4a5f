//! One checkpoint file written or read through a backend, each request
//! timed: `torch.save`'s writes (then fsync when asked, timed apart, then
//! close), `torch.load`'s reads; or, under O_DIRECT, pario's pattern of
//! aligned requests over the same bytes. A request of tensor data alone is
//! one gathered write from [`Content`]'s block.

use std::ffi::CStr;
use std::io;
use std::time::Instant;

use super::container::{Image, Piece};
use super::content::Content;
use super::load::torch_load;
use super::requests::Request;
use crate::backend::{write_fully, write_vectored_fully, Access, Backend, File, OpenSpec, Retry};
use crate::buffer::{AlignedBuffer, PAGE};
use crate::dlio::train::pyfile::{PyFile, Scratch};
use crate::latency::LatencyRecorder;

/// What one task's files took and made.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Tally {
    pub files: u64,
    pub requests: u64,
    pub bytes: u64,
    pub fsyncs: u64,
    /// Seconds in requests, in fsync, and in open and close.
    pub io_secs: f64,
    pub fsync_secs: f64,
    pub open_close_secs: f64,
}

impl Tally {
    pub fn add(&mut self, o: &Tally) {
        self.files += o.files;
        self.requests += o.requests;
        self.bytes += o.bytes;
        self.fsyncs += o.fsyncs;
        self.io_secs += o.io_secs;
        self.fsync_secs += o.fsync_secs;
        self.open_close_secs += o.open_close_secs;
    }

    /// What was done since `earlier`.
    pub fn since(&self, earlier: &Tally) -> Tally {
        Tally {
            files: self.files - earlier.files,
            requests: self.requests - earlier.requests,
            bytes: self.bytes - earlier.bytes,
            fsyncs: self.fsyncs - earlier.fsyncs,
            io_secs: self.io_secs - earlier.io_secs,
            fsync_secs: self.fsync_secs - earlier.fsync_secs,
            open_close_secs: self.open_close_secs - earlier.open_close_secs,
        }
    }
}

fn spec(access: Access, size: u64, rank: usize, part: u64) -> OpenSpec {
    OpenSpec {
        access,
        create: access == Access::Write,
        reads_too: false,
        file_size: size,
        rank,
        sequential: true,
        blocks: None,
        segment: size,
        transfer: part,
    }
}

/// A task's means of writing files.
pub struct Writer<'a> {
    pub backend: &'a dyn Backend,
    pub rank: usize,
    pub content: Content,
    /// Where a request made of several pieces is put together.
    pub stage: AlignedBuffer,
    pub fsync: bool,
    /// The part size an object store uploads in.
    pub part: u64,
    pub latency: LatencyRecorder,
    pub tally: Tally,
}

impl Writer<'_> {
    /// Writes `image` at `path` with `requests`.
    pub fn save(&mut self, path: &CStr, image: &Image, requests: &[Request]) -> io::Result<()> {
        let size = requests.last().map_or(0, |r| r.offset + r.len);
        let t = Instant::now();
        let mut file = self
            .backend
            .open(path, &spec(Access::Write, size, self.rank, self.part))?;
        self.tally.open_close_secs += t.elapsed().as_secs_f64();
        let written = self.requests(file.as_mut(), image, requests);
        let synced = written.and_then(|()| self.sync(file.as_mut()));
        let t = Instant::now();
        let closed = file.close();
        self.tally.open_close_secs += t.elapsed().as_secs_f64();
        synced.and(closed)?;
        self.tally.files += 1;
        Ok(())
    }

    fn requests(
        &mut self,
        file: &mut dyn File,
        image: &Image,
        requests: &[Request],
    ) -> io::Result<()> {
        for r in requests {
            if crate::signals::requested() {
                return Err(stopped());
            }
            let t = if r.tensor_only(image) {
                let mut slices = self.content.slices(r.offset, r.len);
                let t = Instant::now();
                write_vectored_fully(file, &mut slices, r.offset, Retry::Allowed)?;
                t
            } else {
                let len = r.len as usize;
                assemble(&mut self.stage, image, &mut self.content, r)?;
                let t = Instant::now();
                write_fully(
                    file,
                    &self.stage.as_slice()[..len],
                    r.offset,
                    Retry::Allowed,
                )?;
                t
            };
            let took = t.elapsed();
            self.latency.record(took);
            self.tally.io_secs += took.as_secs_f64();
            self.tally.requests += 1;
            self.tally.bytes += r.len;
        }
        Ok(())
    }

    fn sync(&mut self, file: &mut dyn File) -> io::Result<()> {
        if !self.fsync {
            return Ok(());
        }
        let t = Instant::now();
        file.sync()?;
        self.tally.fsync_secs += t.elapsed().as_secs_f64();
        self.tally.fsyncs += 1;
        Ok(())
    }
}

/// Copies a request's segments into `stage`, growing it when needed.
fn assemble(
    stage: &mut AlignedBuffer,
    image: &Image,
    content: &mut Content,
    request: &Request,
) -> io::Result<()> {
    let len = request.len;
    if (stage.len() as u64) < len {
        *stage = AlignedBuffer::try_new(len.next_power_of_two(), PAGE).map_err(io::Error::other)?;
    }
    let out = stage.as_mut_slice();
    let mut at = 0;
    for s in &request.segments {
        let n = s.len as usize;
        match image.pieces[s.piece] {
            Piece::Bytes { at: from, .. } => {
                let from = from + s.start as usize;
                out[at..at + n].copy_from_slice(&image.blob[from..from + n]);
            }
            Piece::Tensor { .. } => {
                content.copy_into(request.offset + at as u64, &mut out[at..at + n])
            }
        }
        at += n;
    }
    Ok(())
}

/// How a file is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadPattern {
    /// `torch.load`'s requests through a buffer of `block` bytes.
    Torch { block: usize },
    /// pario's O_DIRECT pattern: the whole (padded) file in aligned
    /// requests of at most `chunk` bytes.
    Direct { chunk: u64 },
}

/// A task's means of reading files.
pub struct Reader<'a> {
    pub backend: &'a dyn Backend,
    pub rank: usize,
    pub pattern: ReadPattern,
    /// The sink, the request counts and each request's time.
    pub scratch: Scratch,
    pub tally: Tally,
}

impl Reader<'_> {
    /// Reads the file of `image` at `path`, `size` bytes long.
    pub fn load(&mut self, path: &CStr, image: &Image, size: u64) -> io::Result<()> {
        let t = Instant::now();
        let mut file = self
            .backend
            .open(path, &spec(Access::Read, size, self.rank, 0))?;
        self.tally.open_close_secs += t.elapsed().as_secs_f64();
        let (requests, bytes) = (self.scratch.requests, self.scratch.bytes);
        let t = Instant::now();
        let mut timed = Stoppable(file.as_mut());
        let read = match self.pattern {
            ReadPattern::Torch { block } => {
                let mut f = PyFile::new(&mut timed, &mut self.scratch, size, block);
                torch_load(&mut f, image)
            }
            ReadPattern::Direct { chunk } => {
                read_chunks(&mut timed, &mut self.scratch, size, chunk)
            }
        };
        self.tally.io_secs += t.elapsed().as_secs_f64();
        let t = Instant::now();
        let closed = file.close();
        self.tally.open_close_secs += t.elapsed().as_secs_f64();
        read.and(closed)?;
        self.tally.files += 1;
        self.tally.requests += self.scratch.requests - requests;
        self.tally.bytes += self.scratch.bytes - bytes;
        Ok(())
    }
}

/// A file whose reads stop at a signal (the reader's scratch times them).
struct Stoppable<'a>(&'a mut dyn File);

impl File for Stoppable<'_> {
    fn write_at(&mut self, buf: &[u8], offset: u64) -> io::Result<usize> {
        self.0.write_at(buf, offset)
    }

    fn read_at(&mut self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        if crate::signals::requested() {
            return Err(stopped());
        }
        self.0.read_at(buf, offset)
    }

    fn sync(&mut self) -> io::Result<()> {
        self.0.sync()
    }

    /// The file underneath is closed by its owner.
    fn close(self: Box<Self>) -> io::Result<()> {
        Ok(())
    }
}

fn stopped() -> io::Error {
    io::Error::new(io::ErrorKind::Interrupted, "stopped by a signal")
}

/// The whole file in aligned requests of `chunk` bytes.
fn read_chunks(
    file: &mut dyn File,
    scratch: &mut Scratch,
    size: u64,
    chunk: u64,
) -> io::Result<()> {
    let mut at = 0;
    while at < size {
        let len = chunk.min(size - at);
        let got = scratch.read(file, at, len as usize)?;
        if got == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("the file ends at {at}"),
            ));
        }
        at += got as u64;
    }
    Ok(())
}

#[cfg(test)]
mod tests;
