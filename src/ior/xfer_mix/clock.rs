//! How a drawn phase's operations are timed, per kind, at a cost that stays
//! small against the fastest operations.
//!
//! As in [`crate::latency`], the clock is read once per span of operations
//! (the end of one span is the start of the next) and every operation of a
//! span is recorded with the span's mean, here in its own kind's histogram.
//! A span lasts about [`GROUP_BELOW_NS`]: operations slower than that are
//! timed one by one. Operations of at least [`SPLIT_NS`] (a clock reading
//! is then about 2 % of one) are timed in spans of one kind: each batch (a
//! run of reads or of writes, cut to one span's length) ends its span, so
//! reads and writes are timed apart. Faster operations (the page cache,
//! DUMMY) share spans of whole blocks, reads and writes together: both
//! kinds' histograms then hold the span's mean, their counts exact but
//! their speeds not told apart.

use std::time::Instant;

use super::KindLatency;
use crate::latency::{GROUP_BELOW_NS, HIGHEST_NS, MAX_GROUP};

/// Operations at least this long (nanoseconds) are timed per kind.
pub const SPLIT_NS: u64 = 1_000;

/// The spans of one pass.
pub struct KindClock {
    start: Instant,
    /// Writes and reads in the current span.
    ops: [u64; 2],
    /// Operations per span of each kind, while timed apart.
    group: [u64; 2],
    /// Operations per span of both kinds, while timed together.
    span: u64,
    /// Whether each batch is a span of its own.
    split: bool,
}

impl KindClock {
    /// The first span starts now, and holds one operation.
    pub fn start() -> KindClock {
        KindClock {
            start: Instant::now(),
            ops: [0; 2],
            group: [1; 2],
            span: 1,
            split: true,
        }
    }

    /// Whether each batch is timed on its own (one kind at a time).
    #[inline]
    pub fn split(&self) -> bool {
        self.split
    }

    /// The most operations the next batch of a kind may hold.
    #[inline]
    pub fn cap(&self, read: bool) -> usize {
        match self.split {
            true => self.group[read as usize] as usize,
            false => usize::MAX,
        }
    }

    /// After a batch of `writes` and `reads` (one kind when split).
    #[inline]
    pub fn batch(&mut self, l: &mut KindLatency, writes: u64, reads: u64) {
        self.ops[0] += writes;
        self.ops[1] += reads;
        if self.split {
            self.close(l, Some(reads > 0));
        }
    }

    /// After a block.
    #[inline]
    pub fn block(&mut self, l: &mut KindLatency) {
        if !self.split && self.ops[0] + self.ops[1] >= self.span {
            self.close(l, None);
        }
    }

    /// Records an unfinished span.
    pub fn finish(&mut self, l: &mut KindLatency) {
        if self.ops[0] + self.ops[1] > 0 {
            self.close(l, None);
        }
    }

    #[cold]
    fn close(&mut self, l: &mut KindLatency, kind: Option<bool>) {
        let now = Instant::now();
        let n = self.ops[0] + self.ops[1];
        let elapsed = now.duration_since(self.start).as_nanos() as u64;
        if let Some(each) = elapsed.checked_div(n) {
            let each = each.clamp(1, HIGHEST_NS);
            l.write.record_n(each, self.ops[0]);
            l.read.record_n(each, self.ops[1]);
            let group = (GROUP_BELOW_NS / each).clamp(1, MAX_GROUP as u64);
            match kind {
                Some(read) => self.group[read as usize] = group,
                None => self.group = [group; 2],
            }
            self.span = group;
            self.split = each >= SPLIT_NS;
        }
        self.ops = [0; 2];
        self.start = now;
    }
}
