//! A pass's operations drawn a block at a time: the same operations, in the
//! same order, as [`Ops`]' iterator gives one by one, but with the
//! directions of a block as one word of bits (one comparison per draw) and
//! sequential offsets counted on without a division, so a block costs a few
//! instructions per operation and its runs of reads and of writes can go to
//! the backend as batches.

use super::{Ops, Order};
use crate::backend::Piece;

/// Operations per block at most: one word of directions.
pub const BLOCK_OPS: usize = 64;

/// Up to [`BLOCK_OPS`] consecutive operations of a pass.
pub struct Block {
    pub len: usize,
    /// Bit `k`: operation `k` reads.
    pub reads: u64,
    /// Each operation, its bytes in a batch's buffer one after another, or
    /// all at its start when the block shares a place.
    pub pieces: [Piece; BLOCK_OPS],
    /// Every operation is one `-t` long.
    pub uniform: bool,
}

impl Default for Block {
    fn default() -> Block {
        Block {
            len: 0,
            reads: 0,
            pieces: [Piece::default(); BLOCK_OPS],
            uniform: true,
        }
    }
}

impl Block {
    /// Whether operation `k` reads.
    #[inline]
    pub fn reads_at(&self, k: usize) -> bool {
        self.reads >> k & 1 == 1
    }

    /// The directions of operations `k..end`, bit 0 for operation `k`.
    #[inline]
    pub fn reads_in(&self, k: usize, end: usize) -> u64 {
        let n = end - k;
        let below = if n == BLOCK_OPS {
            u64::MAX
        } else {
            (1u64 << n) - 1
        };
        self.reads.checked_shr(k as u32).unwrap_or(0) & below
    }

    /// The bytes operations `k..end` move, and the reads among them.
    #[inline]
    pub fn bytes(&self, k: usize, end: usize) -> (u64, u64) {
        let reads = self.reads_in(k, end);
        if self.uniform {
            let len = self.pieces[0].len;
            return ((end - k) as u64 * len, u64::from(reads.count_ones()) * len);
        }
        let pieces = self.pieces[k..end].iter().enumerate();
        pieces.fold((0, 0), |(all, read), (i, p)| {
            (
                all + p.len,
                read + (p.len & 0u64.wrapping_sub(reads >> i & 1)),
            )
        })
    }

    /// The end of the run of operations of one kind that starts at `k`.
    #[inline]
    pub fn run_end(&self, k: usize) -> usize {
        let same = if self.reads_at(k) {
            self.reads
        } else {
            !self.reads
        };
        let run = (!(same >> k)).trailing_zeros() as usize;
        (k + run).min(self.len)
    }
}

impl Ops<'_> {
    /// Draws the next operations into `block`: at most `max_ops` (up to
    /// [`BLOCK_OPS`]) and, after the first, only while the largest
    /// operation would still fit in `max_bytes`, or all at the buffer's
    /// start with `max_bytes` `None` (shared). False at the end of the pass.
    pub fn fill_block(
        &mut self,
        block: &mut Block,
        max_ops: usize,
        max_bytes: Option<u64>,
    ) -> bool {
        let max_ops = max_ops.min(BLOCK_OPS);
        block.len = 0;
        block.reads = 0;
        if max_ops == 0 || self.bytes_left == 0 {
            return false;
        }
        let len = match (&self.order, &self.plan.split) {
            (Order::Cursor { .. }, None) => self.sequential(block, max_ops, max_bytes),
            _ => self.one_by_one(block, max_ops, max_bytes),
        };
        block.len = len;
        block.reads = self.directions_of(len);
        true
    }

    /// Sequential `-t` units: offsets counted on from the cursor.
    fn sequential(&mut self, block: &mut Block, max_ops: usize, max_bytes: Option<u64>) -> usize {
        let r = self.plan.region;
        let unit = r.unit;
        let Order::Cursor { unit: cursor } = &mut self.order else {
            unreachable!("a sequential visit")
        };
        let fit = max_bytes.map_or(u64::MAX, |b| (b / unit).max(1));
        let step = max_bytes.map_or(0, |_| unit as usize);
        let n = (self.bytes_left / unit).min(fit).min(max_ops as u64) as usize;
        let per_block = r.block / unit;
        let mut k = 0;
        while k < n {
            // The rest of this block of the file, or of the batch.
            let (segment, j) = (*cursor / per_block, *cursor % per_block);
            let base = r.first + segment * r.stride + j * unit;
            let m = ((per_block - j) as usize).min(n - k);
            let pieces = &mut block.pieces[k..k + m];
            for (i, p) in pieces.iter_mut().enumerate() {
                *p = Piece {
                    offset: base + i as u64 * unit,
                    len: unit,
                    at: (k + i) * step,
                };
            }
            k += m;
            *cursor += m as u64;
        }
        block.uniform = true;
        self.bytes_left -= n as u64 * unit;
        n
    }

    /// Any visit: each operation placed as the iterator places it.
    fn one_by_one(&mut self, block: &mut Block, max_ops: usize, max_bytes: Option<u64>) -> usize {
        let room = max_bytes.map_or(u64::MAX, |b| b.saturating_sub(self.plan.largest()));
        let shared = max_bytes.is_none();
        block.uniform = false;
        let mut used = 0u64;
        let mut n = 0;
        while n < max_ops && (n == 0 || used <= room) {
            let Some((offset, len)) = self.place_next() else {
                break;
            };
            let at = if shared { 0 } else { used as usize };
            block.pieces[n] = Piece { offset, len, at };
            used += len;
            n += 1;
        }
        n
    }

    /// The directions of `n` operations, bit `k` set for a read: each the
    /// iterator's draw (`percent() <= pct`), as one comparison of the raw
    /// number against `pct` hundredths of 2^64.
    fn directions_of(&mut self, n: usize) -> u64 {
        let all = if n == BLOCK_OPS {
            u64::MAX
        } else {
            (1u64 << n) - 1
        };
        match self.plan.read_pct {
            0 => 0,
            100 => all,
            _ => {
                let below = self.read_below;
                let mut bits = 0u64;
                for k in 0..n {
                    bits |= u64::from(self.directions.next_u64() < below) << k;
                }
                bits
            }
        }
    }
}

/// The raw draws below which a direction draw reads, for `pct` from 1 to
/// 99: `percent() = floor(r·100 / 2^64) + 1 <= pct` exactly when
/// `r < ceil(pct·2^64 / 100)`.
pub(super) fn read_below(pct: u32) -> u64 {
    let pct = u128::from(pct.min(99));
    (pct << 64).div_ceil(100) as u64
}
