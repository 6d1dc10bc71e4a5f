//! A TFRecord file streamed as tf.data's `TFRecordDataset` reads it:
//! TensorFlow's buffered stream fills `transfer_size` bytes a request
//! (256 KiB by default) from the start of the file to its end, a short
//! read then one that returns nothing at the end; records are framed
//! (8-byte length, 4-byte CRC, the data, 4-byte CRC) and skipped, not
//! parsed. With a buffer of 0, every record is two requests (its header,
//! then its data and CRC), as TensorFlow's unbuffered stream.

use std::io;
use std::time::Instant;

use super::pyfile::Scratch;
use crate::backend::File;

const HEADER: usize = 12;

/// A record as the stream delivered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Record {
    /// Bytes of the record on storage, framing included.
    pub bytes: u64,
    /// Nanoseconds in the requests that brought its bytes.
    pub read_ns: u64,
}

/// One file's stream.
pub struct RecordStream {
    file: Box<dyn File>,
    /// The buffer (`transfer_size` bytes; empty: unbuffered).
    buf: Vec<u8>,
    len: usize,
    pos: usize,
    /// Where the next request starts.
    at: u64,
    /// The file said it ended (TensorFlow's OUT_OF_RANGE status).
    eof: bool,
    /// Time of the last request, for the record it starts.
    last_ns: u64,
}

impl RecordStream {
    /// A stream of a file of `size` bytes (what `scratch` needs to answer
    /// reads past its end on an object store).
    pub fn new(
        file: Box<dyn File>,
        transfer: usize,
        size: u64,
        scratch: &mut Scratch,
    ) -> RecordStream {
        scratch.file_size = size;
        RecordStream {
            file,
            buf: vec![0; transfer],
            len: 0,
            pos: 0,
            at: 0,
            eof: false,
            last_ns: 0,
        }
    }

    pub fn close(self) -> io::Result<()> {
        self.file.close()
    }

    /// A timed request; its time is added to `ns`.
    fn request(
        &mut self,
        scratch: &mut Scratch,
        into_buf: Option<usize>,
        len: usize,
        ns: &mut u64,
    ) -> io::Result<usize> {
        let began = Instant::now();
        let got = match into_buf {
            Some(start) => scratch.read_into(
                self.file.as_mut(),
                &mut self.buf[start..start + len],
                self.at,
            )?,
            None => scratch.read(self.file.as_mut(), self.at, len)?,
        };
        self.last_ns = began.elapsed().as_nanos() as u64;
        *ns += self.last_ns;
        self.at += got as u64;
        Ok(got)
    }

    /// TensorFlow's `RandomAccessFile::Read` into the buffer: until it is
    /// full or a request returns nothing.
    fn fill(&mut self, scratch: &mut Scratch, ns: &mut u64) -> io::Result<()> {
        let (mut filled, want) = (0, self.buf.len());
        while filled < want {
            let got = self.request(scratch, Some(filled), want - filled, ns)?;
            if got == 0 {
                self.eof = true;
                break;
            }
            filled += got;
        }
        (self.len, self.pos) = (filled, 0);
        Ok(())
    }

    /// `ReadNBytes(n)` through the buffer (or straight, unbuffered): bytes
    /// consumed, fewer at the end; the first `keep.len()` are copied out.
    fn consume(
        &mut self,
        scratch: &mut Scratch,
        n: u64,
        keep: &mut [u8],
        ns: &mut u64,
    ) -> io::Result<u64> {
        if self.buf.is_empty() {
            if self.eof {
                return Ok(0);
            }
            let began = Instant::now();
            let got = if keep.len() as u64 == n {
                scratch.read_into(self.file.as_mut(), keep, self.at)?
            } else {
                scratch.read(self.file.as_mut(), self.at, n as usize)?
            } as u64;
            self.last_ns = began.elapsed().as_nanos() as u64;
            *ns += self.last_ns;
            self.at += got;
            self.eof = got < n;
            return Ok(got);
        }
        let mut done = 0;
        while done < n {
            if self.pos == self.len {
                if self.eof {
                    break;
                }
                self.fill(scratch, ns)?;
                if self.len == 0 {
                    break;
                }
            }
            let take = ((self.len - self.pos) as u64).min(n - done) as usize;
            let kept = (done as usize).min(keep.len());
            let copy = take.min(keep.len() - kept);
            keep[kept..kept + copy].copy_from_slice(&self.buf[self.pos..self.pos + copy]);
            self.pos += take;
            done += take as u64;
        }
        Ok(done)
    }

    /// The next record, or `None` at the end of the file.
    pub fn next(&mut self, scratch: &mut Scratch) -> io::Result<Option<Record>> {
        // The record's first byte came with the last request, if buffered.
        let mut ns = if self.pos < self.len { self.last_ns } else { 0 };
        let mut header = [0u8; HEADER];
        let got = self.consume(scratch, HEADER as u64, &mut header, &mut ns)?;
        if got == 0 {
            return Ok(None);
        }
        if got < HEADER as u64 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "truncated TFRecord header",
            ));
        }
        let length = u64::from_le_bytes(header[..8].try_into().expect("8 bytes"));
        let body = length.checked_add(4).ok_or_else(|| {
            io::Error::new(io::ErrorKind::InvalidData, "TFRecord length out of range")
        })?;
        if self.consume(scratch, body, &mut [], &mut ns)? < body {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "truncated TFRecord",
            ));
        }
        Ok(Some(Record {
            bytes: HEADER as u64 + body,
            read_ns: ns,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::posix::Posix;
    use crate::backend::{Access, Backend, OpenSpec};

    /// TFRecord framing around `sizes` bytes each (CRCs not computed: not
    /// checked here).
    fn tfrecords(sizes: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        for &n in sizes {
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&[0; 4]);
            out.resize(out.len() + n as usize + 4, 5);
        }
        out
    }

    fn stream(bytes: &[u8], transfer: usize) -> (tempfile::TempDir, RecordStream) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.tfrecord");
        std::fs::write(&path, bytes).unwrap();
        let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
        let spec = OpenSpec {
            access: Access::Read,
            create: false,
            reads_too: false,
            file_size: bytes.len() as u64,
            rank: 0,
            sequential: true,
            blocks: None,
            segment: 0,
            transfer: 0,
        };
        let file = Posix::new(false).open(&c, &spec).unwrap();
        (
            dir,
            RecordStream::new(file, transfer, bytes.len() as u64, &mut Scratch::new()),
        )
    }

    fn all(s: &mut RecordStream, scratch: &mut Scratch) -> Vec<u64> {
        std::iter::from_fn(|| s.next(scratch).unwrap())
            .map(|r| r.bytes)
            .collect()
    }

    #[test]
    fn requests_are_whole_buffers_then_a_short_one_and_an_empty_one() {
        let bytes = tfrecords(&[114_287; 5]);
        let (_dir, mut s) = stream(&bytes, 262_144);
        let mut scratch = Scratch::new();
        scratch.trace = Some(Vec::new());
        assert_eq!(all(&mut s, &mut scratch), vec![114_303; 5]);
        let f = bytes.len();
        let expected = vec![
            (0, 262_144, 262_144),
            (262_144, 262_144, 262_144),
            (524_288, 262_144, f - 524_288),
            (f as u64, 262_144 - (f - 524_288), 0),
        ];
        assert_eq!(scratch.trace.unwrap(), expected);
    }

    #[test]
    fn records_larger_than_the_buffer_and_an_exact_multiple() {
        let bytes = tfrecords(&[262_144 - 16, 262_144 - 16]);
        let (_dir, mut s) = stream(&bytes, 262_144);
        let mut scratch = Scratch::new();
        scratch.trace = Some(Vec::new());
        assert_eq!(all(&mut s, &mut scratch), vec![262_144; 2]);
        let reqs = scratch.trace.unwrap();
        assert_eq!(
            reqs.len(),
            3,
            "two full buffers and one at the end: {reqs:?}"
        );
        assert_eq!(reqs[2], (524_288, 262_144, 0));
    }

    #[test]
    fn unbuffered_is_two_requests_a_record() {
        let bytes = tfrecords(&[100, 50]);
        let (_dir, mut s) = stream(&bytes, 0);
        let mut scratch = Scratch::new();
        scratch.trace = Some(Vec::new());
        assert_eq!(all(&mut s, &mut scratch), vec![116, 66]);
        let reqs = scratch.trace.unwrap();
        assert_eq!(
            reqs[..4],
            [(0, 12, 12), (12, 104, 104), (116, 12, 12), (128, 54, 54)]
        );
    }

    #[test]
    fn a_truncated_record_is_an_error() {
        let mut bytes = tfrecords(&[1000]);
        bytes.truncate(500);
        let (_dir, mut s) = stream(&bytes, 4096);
        let mut scratch = Scratch::new();
        assert!(s.next(&mut scratch).is_err());
    }
}
