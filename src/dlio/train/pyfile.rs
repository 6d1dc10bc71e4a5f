//! The requests Python's and C's buffered files make, reproduced one for
//! one over a backend's file: CPython 3.11's `io.BufferedReader` over
//! `io.FileIO` (what `open(path, "rb")` gives: numpy's `np.load`, zipfile)
//! and glibc's `FILE` (numpy's `fromfile`). Both buffer one block of
//! `st_blksize`; every raw read is one request to the storage.
//!
//! Only the bytes a caller parses (zip and npy headers) are kept; large
//! reads land in the thread's scratch buffer.

use std::io;
use std::time::Instant;

use crate::backend::File;
use crate::buffer::{AlignedBuffer, PAGE};
use crate::latency::LatencyRecorder;

/// What one reader thread reuses and counts.
pub struct Scratch {
    /// Where reads nobody looks at land: page-aligned (O_DIRECT), grown to
    /// the largest request.
    sink: AlignedBuffer,
    /// Requests made and bytes they returned.
    pub requests: u64,
    pub bytes: u64,
    /// Each request (offset, asked, returned), when asked for.
    pub trace: Option<Vec<(u64, usize, usize)>>,
    /// The most one raw read asks for: Linux moves at most
    /// `0x7ffff000` bytes a call, and the callers loop as for any short
    /// read (a smaller cap is pario's pattern of bounded requests).
    pub max_request: usize,
    /// Each request's time.
    pub latency: LatencyRecorder,
    /// Their sum, in seconds.
    pub busy: f64,
    /// Whether a read at or past the end of the file is sent (a file
    /// system answers it with nothing, as Python and TensorFlow expect);
    /// an object store refuses such a range, so it is answered here.
    pub sends_past_end: bool,
    /// The size of the file being read.
    pub file_size: u64,
}

impl Scratch {
    pub fn new() -> Scratch {
        Scratch {
            sink: AlignedBuffer::new(PAGE, PAGE),
            requests: 0,
            bytes: 0,
            trace: None,
            max_request: 0x7fff_f000,
            latency: LatencyRecorder::new(),
            busy: 0.0,
            sends_past_end: true,
            file_size: u64::MAX,
        }
    }

    /// One request of `len` bytes at `offset` into the sink.
    pub fn read(&mut self, file: &mut dyn File, offset: u64, len: usize) -> io::Result<usize> {
        let len = len.min(self.max_request.max(1));
        if !self.sends_past_end && offset >= self.file_size {
            return Ok(0);
        }
        self.grow(len)?;
        let began = Instant::now();
        let got = file.read_at(&mut self.sink.as_mut_slice()[..len], offset);
        self.count(got, offset, len, began)
    }

    /// A sink of at least `len` bytes (doubling, so that growing is rare).
    fn grow(&mut self, len: usize) -> io::Result<()> {
        if self.sink.len() < len {
            let want = len.next_power_of_two().max(self.sink.len() * 2) as u64;
            self.sink = AlignedBuffer::try_new(want, PAGE).map_err(io::Error::other)?;
        }
        Ok(())
    }

    /// One request into `buf`.
    pub fn read_into(
        &mut self,
        file: &mut dyn File,
        buf: &mut [u8],
        offset: u64,
    ) -> io::Result<usize> {
        if !self.sends_past_end && offset >= self.file_size {
            return Ok(0);
        }
        let (len, began) = (buf.len(), Instant::now());
        let got = file.read_at(buf, offset);
        self.count(got, offset, len, began)
    }

    fn count(
        &mut self,
        got: io::Result<usize>,
        offset: u64,
        len: usize,
        began: Instant,
    ) -> io::Result<usize> {
        let took = began.elapsed();
        self.latency.record(took);
        self.busy += took.as_secs_f64();
        let got = got?;
        self.requests += 1;
        self.bytes += got as u64;
        if let Some(trace) = &mut self.trace {
            trace.push((offset, len, got));
        }
        Ok(got)
    }

    /// The first `len` bytes of the last sink read.
    fn last(&self, len: usize) -> &[u8] {
        &self.sink.as_slice()[..len]
    }
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch::new()
    }
}

/// `buffer_size`'s `MINUS_LAST_BLOCK`: whole blocks of `n`.
fn whole_blocks(n: usize, block: usize) -> usize {
    n - n % block
}

/// CPython's buffered binary file (`Modules/_io/bufferedio.c`).
pub struct PyFile<'a> {
    file: &'a mut dyn File,
    scratch: &'a mut Scratch,
    size: u64,
    /// Where the next raw read starts.
    raw: u64,
    buf: Vec<u8>,
    /// The file offset of `buf[0]`.
    buf_at: u64,
    /// Valid bytes in `buf`; `None` after a raw seek (`read_end == -1`).
    end: Option<usize>,
    /// The read position in `buf`.
    pos: usize,
}

impl<'a> PyFile<'a> {
    /// A file of `size` bytes opened with a buffer of `block` bytes.
    pub fn new(file: &'a mut dyn File, scratch: &'a mut Scratch, size: u64, block: usize) -> Self {
        scratch.file_size = size;
        PyFile {
            file,
            scratch,
            size,
            raw: 0,
            buf: vec![0; block.max(1)],
            buf_at: 0,
            end: None,
            pos: 0,
        }
    }

    /// The file's size (what `seek(0, 2)` returns).
    pub fn size(&self) -> u64 {
        self.size
    }

    fn block(&self) -> usize {
        self.buf.len()
    }

    pub fn tell(&self) -> u64 {
        match self.end {
            Some(_) => self.buf_at + self.pos as u64,
            None => self.raw,
        }
    }

    fn avail(&self) -> usize {
        self.end.map_or(0, |end| end - self.pos)
    }

    /// `seek(target)`: inside the unread buffer moves the position only;
    /// elsewhere the buffer is dropped.
    pub fn seek(&mut self, target: u64) {
        if let Some(end) = self.end {
            if self.avail() > 0 && target >= self.buf_at && target <= self.buf_at + end as u64 {
                self.pos = (target - self.buf_at) as usize;
                return;
            }
        }
        self.raw = target;
        self.end = None;
        self.pos = 0;
    }

    /// `seek(offset, 2)`: always a raw seek.
    pub fn seek_end(&mut self, back: u64) {
        self.raw = self.size.saturating_sub(back);
        self.end = None;
        self.pos = 0;
    }

    /// Refills the buffer after its valid bytes; 0 at the end of the file.
    fn fill(&mut self) -> io::Result<usize> {
        let start = self.end.unwrap_or(0);
        if self.end.is_none() {
            self.buf_at = self.raw;
            self.pos = 0;
        }
        let got = self
            .scratch
            .read_into(self.file, &mut self.buf[start..], self.raw)?;
        self.raw += got as u64;
        self.end = Some(start + got);
        Ok(got)
    }

    /// `read(n)`: bytes returned (fewer at the end of the file), appended
    /// to `out` when given.
    pub fn read(&mut self, n: usize, mut out: Option<&mut Vec<u8>>) -> io::Result<usize> {
        let avail = self.avail();
        let take = n.min(avail);
        if let Some(o) = out.as_deref_mut() {
            o.extend_from_slice(&self.buf[self.pos..self.pos + take]);
        }
        self.pos += take;
        if n <= avail {
            return Ok(n);
        }
        let mut done = take;
        let mut remaining = n - take;
        self.end = None;
        // Whole blocks straight to the caller.
        loop {
            let r = whole_blocks(remaining, self.block());
            if r == 0 {
                break;
            }
            let got = self.scratch.read(self.file, self.raw, r)?;
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(self.scratch.last(got));
            }
            self.raw += got as u64;
            if got == 0 {
                return Ok(done);
            }
            done += got;
            remaining -= got;
        }
        // The rest through a fresh buffer.
        self.buf_at = self.raw;
        self.pos = 0;
        self.end = Some(0);
        while remaining > 0 && self.end.unwrap_or(0) < self.block() {
            let got = self.fill()?;
            if got == 0 {
                break;
            }
            let take = remaining.min(got);
            if let Some(o) = out.as_deref_mut() {
                o.extend_from_slice(&self.buf[self.pos..self.pos + take]);
            }
            self.pos += take;
            done += take;
            remaining -= take;
        }
        Ok(done)
    }

    /// `readinto(b)` of `n` bytes (`_buffered_readinto_generic`): what is
    /// left of the buffer, then each piece above a block straight from the
    /// file, a smaller one through a refilled buffer.
    pub fn read_into(&mut self, n: usize, mut out: Option<&mut Vec<u8>>) -> io::Result<usize> {
        let take = n.min(self.avail());
        if let Some(o) = out.as_deref_mut() {
            o.extend_from_slice(&self.buf[self.pos..self.pos + take]);
        }
        self.pos += take;
        let (mut done, mut remaining) = (take, n - take);
        if remaining > 0 {
            self.end = None;
        }
        while remaining > 0 {
            let got = if remaining > self.block() {
                let got = self.scratch.read(self.file, self.raw, remaining)?;
                if let Some(o) = out.as_deref_mut() {
                    o.extend_from_slice(self.scratch.last(got));
                }
                self.raw += got as u64;
                got
            } else {
                if self.end.is_none() {
                    (self.buf_at, self.pos, self.end) = (self.raw, 0, Some(0));
                }
                let got = self.fill()?.min(remaining);
                if let Some(o) = out.as_deref_mut() {
                    o.extend_from_slice(&self.buf[self.pos..self.pos + got]);
                }
                self.pos += got;
                got
            };
            if got == 0 {
                break;
            }
            done += got;
            remaining -= got;
        }
        Ok(done)
    }

    /// `read()`: to the end, through `FileIO.readall` (one read of the
    /// rest plus one byte, then until a read returns nothing).
    pub fn read_all(&mut self, out: &mut Vec<u8>) -> io::Result<usize> {
        let avail = self.avail();
        out.extend_from_slice(&self.buf[self.pos..self.pos + avail]);
        self.end = None;
        self.pos = 0;
        let mut want = match self.size.checked_sub(self.raw) {
            Some(rest) if self.size > 0 => rest as usize + 1,
            _ => 8192,
        };
        let mut got_all = 0;
        loop {
            if got_all >= want {
                want = got_all + (got_all + 256).max(8192);
            }
            let got = self.scratch.read(self.file, self.raw, want - got_all)?;
            out.extend_from_slice(self.scratch.last(got));
            self.raw += got as u64;
            if got == 0 {
                break;
            }
            got_all += got;
        }
        Ok(avail + got_all)
    }
}

/// glibc's `FILE` reading a descriptor whose offset is `at` (numpy's
/// `fromfile` on a `dup` of the Python file's descriptor): `fseek` to
/// `start`, `fseek(0, SEEK_CUR)`, one `fread` of `len` bytes.
pub fn c_fread(
    file: &mut dyn File,
    scratch: &mut Scratch,
    block: usize,
    start: u64,
    len: u64,
) -> io::Result<()> {
    let block = block.max(1) as u64;
    let from = start - start % block;
    let (mut at, mut want) = (start, len);
    if start > from {
        // fseek(start) on a fresh stream: back to the block boundary, then
        // exactly the bytes up to `start`.
        scratch.read(file, from, (start - from) as usize)?;
        // fseek(0, SEEK_CUR): `start` is not inside the stream's buffer (it
        // ends there), so a whole block is read from the boundary.
        let got = scratch.read(file, from, block as usize)? as u64;
        at = from + got;
        want = len.saturating_sub(at.saturating_sub(start));
    }
    while want > 0 {
        if want < block {
            let got = scratch.read(file, at, block as usize)? as u64;
            if got == 0 {
                break;
            }
            want = want.saturating_sub(got);
            at += got;
            continue;
        }
        let direct = want - want % block;
        let got = scratch.read(file, at, direct as usize)? as u64;
        if got == 0 {
            break;
        }
        want -= got;
        at += got;
    }
    Ok(())
}
