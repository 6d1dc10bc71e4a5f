//! Bodies moved between pario's buffers and the HTTP client's in pieces of
//! 2 KiB.
//!
//! ureq copies a request body into its output buffer with one `read`, and a
//! response body from its input buffer with each `read` it is given. For a
//! copy over about 2 KiB glibc's `memcpy` uses `rep movsb`, which the AMD
//! EPYC cores of the test machine run 20 to 30 times slower when the
//! destination lies 1 to 31 bytes past the source's place in a cache line
//! (4 KiB: 2.2 µs against 0.08; 64 KiB: 36 µs against 2). Where ureq's
//! buffers lie against ior's transfer buffer is chance (the buffers'
//! alignment, the length of the response's headers): a 1 MiB PUT from a
//! page-aligned buffer spent 560 µs of CPU in that copy against 78 from a
//! `Vec`. Copies of 2 KiB stay under glibc's threshold for `rep movsb`
//! (2,048 bytes or more by default), so they run at full speed whatever
//! the alignment, on every CPU.

use std::io::{self, Read};

const PIECE: usize = 2048;

/// The bytes of a body, read in pieces.
pub struct Pieces<'a> {
    rest: &'a [u8],
}

impl<'a> Pieces<'a> {
    pub fn new(bytes: &'a [u8]) -> Pieces<'a> {
        Pieces { rest: bytes }
    }
}

impl Read for Pieces<'_> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let n = out.len().min(self.rest.len());
        let (now, rest) = self.rest.split_at(n);
        for (to, from) in out[..n].chunks_mut(PIECE).zip(now.chunks(PIECE)) {
            to.copy_from_slice(from);
        }
        self.rest = rest;
        Ok(n)
    }
}

/// Reads `reader` into `buf` until it is full or the body ends, asking for
/// a piece at a time; the bytes read.
pub fn read_into(reader: &mut impl Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        let end = buf.len().min(got + PIECE);
        match reader.read(&mut buf[got..end])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_arrives_in_order_whatever_the_reads() {
        let body: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let mut pieces = Pieces::new(&body);
        let (mut got, mut out) = (Vec::new(), [0u8; 4099]);
        loop {
            let n = pieces.read(&mut out[..(got.len() % 4099).max(1)]).unwrap();
            if n == 0 {
                break;
            }
            got.extend_from_slice(&out[..n]);
        }
        assert_eq!(got, body);
    }

    #[test]
    fn a_body_is_read_until_the_buffer_is_full_or_it_ends() {
        let body: Vec<u8> = (0..5000u32).map(|i| (i % 13) as u8).collect();
        let mut buf = vec![0; 4500];
        assert_eq!(read_into(&mut &body[..], &mut buf).unwrap(), 4500);
        assert_eq!(buf, body[..4500]);
        let mut buf = vec![0; 6000];
        assert_eq!(read_into(&mut &body[..], &mut buf).unwrap(), 5000);
        assert_eq!(buf[..5000], body);
    }
}
