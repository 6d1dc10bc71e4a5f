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
        self.close_at(l, kind, Instant::now());
    }

    fn close_at(&mut self, l: &mut KindLatency, kind: Option<bool>, now: Instant) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    fn min_max(r: &crate::latency::LatencyRecorder) -> (u64, u64, u64) {
        let h = r.histogram();
        (h.len(), h.min(), h.max())
    }

    #[test]
    fn slow_operations_are_timed_one_kind_at_a_time() {
        let mut l = KindLatency::default();
        let mut c = KindClock::start();
        let t0 = c.start;
        assert!(c.split() && c.cap(true) == 1 && c.cap(false) == 1);
        c.ops = [0, 1];
        c.close_at(&mut l, Some(true), t0 + us(100));
        c.ops = [1, 0];
        c.close_at(&mut l, Some(false), t0 + us(400));
        let (n, lo, hi) = min_max(&l.read);
        assert!(n == 1 && lo.abs_diff(100_000) < 1_000 && hi.abs_diff(100_000) < 1_000);
        let (n, lo, _) = min_max(&l.write);
        assert!(n == 1 && lo.abs_diff(300_000) < 3_000);
        // Still slow: batches of one.
        assert!(c.split() && c.cap(true) == 1 && c.cap(false) == 1);
    }

    #[test]
    fn fast_operations_share_spans_of_whole_blocks() {
        let mut l = KindLatency::default();
        let mut c = KindClock::start();
        let t0 = c.start;
        c.ops = [1, 0];
        c.close_at(&mut l, Some(false), t0 + Duration::from_nanos(50));
        // 50 ns each: spans of both kinds, about 32 us long.
        assert!(!c.split());
        assert_eq!(c.cap(true), usize::MAX);
        assert_eq!(c.span, GROUP_BELOW_NS / 50);
        c.batch(&mut l, 20, 44);
        assert_eq!(c.ops, [20, 44], "no span closed inside a block");
        c.batch(&mut l, 300, 300);
        c.block(&mut l);
        assert_eq!(c.ops, [0, 0], "a full span closed after its block");
        assert_eq!(l.read.histogram().len(), 344);
        assert_eq!(l.write.histogram().len(), 321);
    }
}
