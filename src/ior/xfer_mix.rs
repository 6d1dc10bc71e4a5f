//! The transfer loop of a drawn phase (see [`super::mix`]): each operation a
//! read or a write, at a drawn offset, of a drawn size. Writes are laid per
//! `-t` piece, each stamped for its own offset; reads are verified per `-t`
//! piece, so a read checks whatever sizes wrote the data, in this phase or
//! before. Reads and writes are counted and timed apart.
//!
//! Plain blocking calls, one per operation (no request queue); collective
//! files are refused by the checks.

use std::path::Path;
use std::time::Instant;

use super::mix::{MixPlan, Op};
use super::xfer::{check, failure, Progress, XferOptions};
use crate::backend::{read_fully, write_fully, File, Retry};
use crate::latency::LatencyRecorder;
use crate::pattern::{PacketType, Pattern};
use crate::progress::Counter;

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
    /// Filled with the pattern piece by piece (the largest size).
    pub write_buf: &'a mut [u8],
    pub read_buf: &'a mut [u8],
    pub options: XferOptions,
    pub latency: Option<&'a mut KindLatency>,
    pub progress: Option<&'a Counter>,
}

impl MixPass<'_> {
    /// Fills the write buffer: each `-t` piece as a transfer of its own.
    pub fn fill(pattern: &Pattern, buf: &mut [u8], unit: u64) {
        for piece in buf.chunks_mut(unit as usize) {
            pattern.fill(piece);
        }
    }

    /// Makes operations number `from` to `to - 1` (the ones before `from`
    /// are drawn and skipped); `stop(n)` after each may end the pass.
    pub fn run(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        mut stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        let retry = Retry::of(self.options.single_attempt, false);
        let stamp = self.pattern.packet() != PacketType::Timestamp;
        let mut ops = self.plan.ops();
        if from > 0 {
            ops.nth(from as usize - 1);
        }
        let mut count = from;
        let mut last = Instant::now();
        for op in ops.take(to.saturating_sub(from) as usize) {
            count += 1;
            if self.options.trace {
                let verb = if op.read { "read" } else { "write" };
                self.options.lines.print(format_args!(
                    "task {}: {verb} {} bytes at offset {} of {}",
                    self.options.rank,
                    op.size,
                    op.offset,
                    self.path.display()
                ));
            }
            let ok = match op.read {
                true => self.read(op, progress, retry),
                false => self.write(op, progress, retry, stamp),
            };
            if !ok {
                break;
            }
            let k = &mut progress.kinds;
            if op.read {
                k.read_ops += 1;
                k.read_bytes += op.size;
            } else {
                k.write_ops += 1;
                k.write_bytes += op.size;
            }
            progress.transfers += 1;
            progress.bytes += op.size;
            if let Some(l) = self.latency.as_deref_mut() {
                let now = Instant::now();
                let recorder = if op.read { &mut l.read } else { &mut l.write };
                recorder.record(now - last);
                last = now;
            }
            if let Some(c) = self.progress {
                if progress.transfers % 256 == 0 {
                    c.set(progress.bytes);
                }
            }
            if progress.quit || stop(count) {
                break;
            }
        }
        if let Some(c) = self.progress {
            c.set(progress.bytes);
        }
        count
    }

    fn write(&mut self, op: Op, progress: &mut Progress, retry: Retry, stamp: bool) -> bool {
        let unit = self.plan.region.unit;
        let buf = &mut self.write_buf[..op.size as usize];
        if stamp {
            for (k, piece) in buf.chunks_mut(unit as usize).enumerate() {
                self.pattern.stamp(piece, op.offset + k as u64 * unit);
            }
        }
        let rank = self.options.rank;
        let mut done = write_fully(self.file, buf, op.offset, retry)
            .map_err(|e| failure(rank, "cannot write", self.path, op.offset, e));
        if done.is_ok() && self.options.fsync_per_write {
            done = self
                .file
                .sync()
                .map_err(|e| failure(rank, "cannot fsync", self.path, op.offset, e));
        }
        match done {
            Ok(()) => true,
            Err(e) => {
                progress.failure = Some(e);
                false
            }
        }
    }

    fn read(&mut self, op: Op, progress: &mut Progress, retry: Retry) -> bool {
        let buf = &mut self.read_buf[..op.size as usize];
        if let Err(e) = read_fully(self.file, buf, op.offset, retry) {
            let why = failure(self.options.rank, "cannot read", self.path, op.offset, e);
            progress.failure = Some(why);
            return false;
        }
        if self.options.verify {
            let unit = self.plan.region.unit;
            let mut right = true;
            for (k, piece) in buf.chunks(unit as usize).enumerate() {
                let at = op.offset + k as u64 * unit;
                right &= check(self.pattern, piece, at, self.path, &self.options, progress);
            }
            if !right && self.options.quit_on_error {
                progress.quit = true;
            }
        }
        true
    }
}
