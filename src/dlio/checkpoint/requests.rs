//! The `write(2)` calls a file's image becomes: what CPython 3.11's
//! `io.BufferedWriter` (`open(name, "wb")`, a buffer of the file system's
//! `st_blksize`) makes of `torch.save`'s write calls, with Linux's cap on
//! one write (`MAX_RW_COUNT`). Small pieces gather in the buffer; a piece
//! that does not fit flushes it, and one larger than the buffer goes to
//! the file directly (capped pieces looping), its tail buffered.
//!
//! pario's own pattern (`max_request`): the same, with no direct write
//! longer than a given size.

use super::container::{Image, Piece};

/// The most one `write(2)` moves on Linux (`INT_MAX & PAGE_MASK`).
pub const MAX_RW_COUNT: u64 = 0x7fff_f000;

/// Bytes of one piece of the image: `len` bytes from `start` of piece
/// `piece`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Segment {
    pub piece: usize,
    pub start: u64,
    pub len: u64,
}

/// One `write(2)`: at `offset`, the segments in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    pub offset: u64,
    pub len: u64,
    pub segments: Vec<Segment>,
}

impl Request {
    /// The one tensor piece the request writes from, when it writes from
    /// nothing else (no copy needed).
    pub fn tensor_only(&self, image: &Image) -> bool {
        self.segments.len() == 1
            && matches!(image.pieces[self.segments[0].piece], Piece::Tensor { .. })
    }
}

/// The requests of `image` through a buffer of `block` bytes; direct
/// writes of at most `max_request` bytes (and never more than Linux's
/// cap).
pub fn requests(image: &Image, block: u64, max_request: Option<u64>) -> Vec<Request> {
    let cap = max_request.unwrap_or(MAX_RW_COUNT).clamp(1, MAX_RW_COUNT);
    let mut b = Buffered {
        block: block.max(1),
        at: 0,
        held: Vec::new(),
        held_len: 0,
        out: Vec::new(),
    };
    for (i, piece) in image.pieces.iter().enumerate() {
        b.write(i, piece.len(), cap);
    }
    b.flush();
    b.out
}

/// pario's pattern under O_DIRECT: the file in consecutive requests of
/// `chunk` bytes (the last one shorter), whatever the pieces.
pub fn chunked(image: &Image, chunk: u64) -> Vec<Request> {
    let chunk = chunk.max(1);
    let mut out: Vec<Request> = Vec::new();
    let mut at = 0;
    for (i, piece) in image.pieces.iter().enumerate() {
        let mut start = 0;
        while start < piece.len() {
            if out.last().is_none_or(|r| r.len == chunk) {
                out.push(Request {
                    offset: at,
                    len: 0,
                    segments: Vec::new(),
                });
            }
            let r = out.last_mut().expect("a request");
            let n = (chunk - r.len).min(piece.len() - start);
            r.segments.push(Segment {
                piece: i,
                start,
                len: n,
            });
            r.len += n;
            start += n;
            at += n;
        }
    }
    out
}

struct Buffered {
    block: u64,
    /// File offset of the next request.
    at: u64,
    held: Vec<Segment>,
    held_len: u64,
    out: Vec<Request>,
}

impl Buffered {
    fn emit(&mut self, segments: Vec<Segment>) {
        let len = segments.iter().map(|s| s.len).sum();
        self.out.push(Request {
            offset: self.at,
            len,
            segments,
        });
        self.at += len;
    }

    fn hold(&mut self, piece: usize, start: u64, len: u64) {
        if len > 0 {
            self.held.push(Segment { piece, start, len });
            self.held_len += len;
        }
    }

    fn flush(&mut self) {
        if self.held_len > 0 {
            let held = std::mem::take(&mut self.held);
            self.held_len = 0;
            self.emit(held);
        }
    }

    /// `_io__Buffered_write_impl`.
    fn write(&mut self, piece: usize, len: u64, cap: u64) {
        if len <= self.block - self.held_len {
            self.hold(piece, 0, len);
            return;
        }
        self.flush();
        let mut start = 0;
        while len - start > self.block {
            let n = (len - start).min(cap);
            self.emit(vec![Segment {
                piece,
                start,
                len: n,
            }]);
            start += n;
        }
        self.hold(piece, start, len - start);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dlio::checkpoint::container::Piece;

    fn image(lens: &[(bool, u64)]) -> Image {
        let pieces = lens
            .iter()
            .map(|&(tensor, len)| match tensor {
                true => Piece::Tensor { len },
                false => Piece::Bytes {
                    at: 0,
                    len: len as usize,
                },
            })
            .collect();
        Image {
            blob: Vec::new(),
            pieces,
            storages: Vec::new(),
            records: Vec::new(),
            central: (0, 0),
            end64: 0,
        }
    }

    fn lens(r: &[Request]) -> Vec<u64> {
        r.iter().map(|r| r.len).collect()
    }

    #[test]
    fn small_pieces_gather_and_large_ones_go_direct() {
        // The pieces of the strace in ts3: headers, a 20000-byte tensor.
        let img = image(&[
            (false, 30),
            (false, 16),
            (false, 18),
            (false, 247),
            (false, 16),
            (false, 2000),
            (true, 20000),
            (false, 16),
            (false, 700),
        ]);
        let r = requests(&img, 4096, None);
        assert_eq!(lens(&r), [2327, 20000, 716]);
        assert_eq!(r[1].offset, 2327);
        assert!(r[1].tensor_only(&img));
        assert!(!r[0].tensor_only(&img));
        assert_eq!(r.iter().map(|r| r.len).sum::<u64>(), img.size());
    }

    #[test]
    fn a_piece_between_the_free_space_and_the_block_is_buffered_after_a_flush() {
        let img = image(&[(false, 3000), (true, 3000), (false, 10)]);
        assert_eq!(lens(&requests(&img, 4096, None)), [3000, 3010]);
    }

    #[test]
    fn writes_past_linux_cap_loop_and_a_short_tail_is_buffered() {
        let big = MAX_RW_COUNT + 100;
        let img = image(&[(false, 64), (true, big), (false, 16)]);
        let r = requests(&img, 4096, None);
        assert_eq!(lens(&r), [64, MAX_RW_COUNT, 116]);
        assert_eq!(r[2].segments.len(), 2);
        let huge = 2 * MAX_RW_COUNT + 5000;
        let img = image(&[(true, huge)]);
        assert_eq!(
            lens(&requests(&img, 4096, None)),
            [MAX_RW_COUNT, MAX_RW_COUNT, 5000]
        );
    }

    #[test]
    fn chunks_cut_across_pieces() {
        let img = image(&[(false, 100), (true, 10000), (false, 20)]);
        let r = chunked(&img, 4096);
        assert_eq!(lens(&r), [4096, 4096, 1928]);
        assert_eq!(r[0].segments.len(), 2);
        assert_eq!(
            r[1].segments,
            [Segment {
                piece: 1,
                start: 3996,
                len: 4096
            }]
        );
        assert_eq!(r[2].offset, 8192);
    }

    #[test]
    fn pario_pattern_caps_direct_writes() {
        let img = image(&[(false, 64), (true, 10 << 20), (false, 16)]);
        let r = requests(&img, 4096, Some(4 << 20));
        assert_eq!(lens(&r), [64, 4 << 20, 4 << 20, 2 << 20, 16]);
    }
}
