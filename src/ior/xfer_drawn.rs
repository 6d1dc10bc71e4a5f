//! The transfer loop of a drawn phase (see [`super::draws`]): each operation a
//! read or a write, at a drawn offset, of a drawn size. Writes are laid per
//! `-t` piece, each stamped for its own offset; reads are verified per `-t`
//! piece, so a read checks whatever sizes wrote the data, in this phase or
//! before. Reads and writes are counted and timed apart.
//!
//! Operations are drawn a block at a time ([`Block`]) and made in their
//! drawn order, a block as one batch ([`transfer_pieces`]: one call for a
//! backend that takes batches, one transfer each otherwise). While reads
//! and writes are timed apart ([`clock`]), and with `-Y`, a batch is one run
//! of one kind instead. The stop check (deadline, signal) and `-q` act
//! after each batch. Plain blocking calls (no request queue); collective
//! files are refused by the checks.

mod clock;

use std::path::Path;

use super::draws::{Block, MixPlan, BLOCK_OPS};
use super::xfer::{check, failure, Progress, XferOptions};
use crate::backend::{transfer_pieces, File, Piece, Retry};
use crate::latency::LatencyRecorder;
use crate::pattern::{PacketType, Pattern};
use crate::progress::Counter;
use clock::KindClock;

/// Per-kind latency recorders of a drawn phase.
#[derive(Default)]
pub struct KindLatency {
    pub read: LatencyRecorder,
    pub write: LatencyRecorder,
}

/// A walk over a task's drawn operations on an open file.
pub struct MixPass<'a> {
    pub file: &'a mut dyn File,
    pub plan: &'a MixPlan,
    pub path: &'a Path,
    pub pattern: &'a Pattern,
    /// A batch's bytes ([`MixPlan::batch_bytes`]), filled with the pattern
    /// per `-t` piece.
    pub write_buf: &'a mut [u8],
    pub read_buf: &'a mut [u8],
    pub options: XferOptions,
    pub latency: Option<&'a mut KindLatency>,
    pub progress: Option<&'a Counter>,
}

/// A batch that stopped at piece `.0`: the action and its error.
type Failed = (usize, &'static str, std::io::Error);

impl MixPass<'_> {
    /// Fills the write buffer: each `-t` piece as a transfer of its own.
    pub fn fill(pattern: &Pattern, buf: &mut [u8], unit: u64) {
        for piece in buf.chunks_mut(unit as usize) {
            pattern.fill(piece);
        }
    }

    /// Makes operations number `from` to `to - 1` (the ones before `from`
    /// are drawn and skipped); `stop(n)` after each batch may end the pass.
    pub fn run(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        mut stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        let mut ops = self.plan.ops();
        if from > 0 {
            ops.nth(from as usize - 1);
        }
        // Reads that are not checked and writes that are not stamped may
        // all use one place of their buffer: blocks of 64 whatever the size.
        let shared = !self.options.verify && self.pattern.packet() == PacketType::Timestamp;
        let max_bytes = (!shared).then(|| self.plan.batch_bytes());
        let one_each = self.options.fsync_per_write;
        let mut clock = self.latency.is_some().then(KindClock::start);
        let mut block = Block::default();
        let mut count = from;
        'blocks: while count < to {
            let max_ops = (to - count).min(BLOCK_OPS as u64) as usize;
            if !ops.fill_block(&mut block, max_ops, max_bytes) {
                break;
            }
            let mut k = 0;
            while k < block.len {
                let end = match (&clock, one_each) {
                    (_, true) => k + 1,
                    (Some(c), false) if c.split() => {
                        let cap = c.cap(block.reads_at(k));
                        block.run_end(k).min(k.saturating_add(cap))
                    }
                    _ => block.len,
                };
                let done = self.batch(&block, k, end, progress);
                count += done as u64;
                if let (Some(c), Some(l)) = (clock.as_mut(), self.latency.as_deref_mut()) {
                    let reads = block.reads_in(k, k + done).count_ones() as u64;
                    c.batch(l, done as u64 - reads, reads);
                }
                if done < end - k || progress.quit || stop(count) {
                    break 'blocks;
                }
                k = end;
            }
            if let (Some(c), Some(l)) = (clock.as_mut(), self.latency.as_deref_mut()) {
                c.block(l);
            }
            if let Some(c) = self.progress {
                c.set(progress.bytes);
            }
        }
        if let (Some(c), Some(l)) = (clock.as_mut(), self.latency.as_deref_mut()) {
            c.finish(l);
        }
        if let Some(c) = self.progress {
            c.set(progress.bytes);
        }
        count
    }

    /// Makes operations `k..end` of the block as one batch, and counts
    /// them; returns how many completed (on a failure, the ones before it,
    /// and the failure is in the progress).
    fn batch(&mut self, b: &Block, k: usize, end: usize, progress: &mut Progress) -> usize {
        let pieces = &b.pieces[k..end];
        let reads = b.reads_in(k, end);
        if self.options.trace {
            self.trace(pieces, reads);
        }
        if self.pattern.packet() != PacketType::Timestamp {
            self.stamp(pieces, reads);
        }
        let done = match self.transfer(pieces, reads) {
            Ok(()) => pieces.len(),
            Err((i, what, e)) => {
                let why = failure(self.options.rank, what, self.path, pieces[i].offset, e);
                progress.failure = Some(why);
                i
            }
        };
        if self.options.verify {
            self.verify(&pieces[..done], reads, progress);
        }
        let (moved, read_bytes) = b.bytes(k, k + done);
        let read_ops = u64::from(b.reads_in(k, k + done).count_ones());
        let kinds = &mut progress.kinds;
        kinds.read_ops += read_ops;
        kinds.read_bytes += read_bytes;
        kinds.write_ops += done as u64 - read_ops;
        kinds.write_bytes += moved - read_bytes;
        progress.transfers += done as u64;
        progress.bytes += moved;
        done
    }

    fn trace(&self, pieces: &[Piece], reads: u64) {
        for (k, p) in pieces.iter().enumerate() {
            let verb = if reads >> k & 1 == 1 { "read" } else { "write" };
            self.options.lines.print(format_args!(
                "task {}: {verb} {} bytes at offset {} of {}",
                self.options.rank,
                p.len,
                p.offset,
                self.path.display()
            ));
        }
    }

    /// Stamps each write of a batch, per `-t` piece, for its own offset.
    fn stamp(&mut self, pieces: &[Piece], reads: u64) {
        let unit = self.plan.region.unit as usize;
        for (k, p) in pieces.iter().enumerate() {
            if reads >> k & 1 == 0 {
                let op = &mut self.write_buf[p.bytes()];
                for (j, piece) in op.chunks_mut(unit).enumerate() {
                    self.pattern.stamp(piece, p.offset + (j * unit) as u64);
                }
            }
        }
    }

    fn transfer(&mut self, pieces: &[Piece], reads: u64) -> Result<(), Failed> {
        let retry = Retry::of(self.options.single_attempt, false);
        let (w, r) = (&*self.write_buf, &mut *self.read_buf);
        transfer_pieces(self.file, w, r, pieces, reads, retry).map_err(|(i, e)| {
            let what = match reads >> i & 1 {
                1 => "cannot read",
                _ => "cannot write",
            };
            (i, what, e)
        })?;
        if self.options.fsync_per_write && reads == 0 {
            // -Y: batches of one, each write synced.
            self.file.sync().map_err(|e| (0, "cannot fsync", e))?;
        }
        Ok(())
    }

    /// Verifies the reads of a batch (the ones that completed), per `-t`
    /// piece; `-q` ends the pass after a wrong one.
    fn verify(&self, pieces: &[Piece], reads: u64, progress: &mut Progress) {
        let unit = self.plan.region.unit as usize;
        let mut right = true;
        for (k, p) in pieces.iter().enumerate() {
            if reads >> k & 1 == 0 {
                continue;
            }
            let op = &self.read_buf[p.bytes()];
            for (j, piece) in op.chunks(unit).enumerate() {
                let offset = p.offset + (j * unit) as u64;
                right &= check(
                    self.pattern,
                    piece,
                    offset,
                    self.path,
                    &self.options,
                    progress,
                );
            }
        }
        if !right && self.options.quit_on_error {
            progress.quit = true;
        }
    }
}
