//! Per-operation latency, recorded per task in an HDR histogram and merged
//! across tasks on rank 0.
//!
//! The clock is read once per group of operations, not twice per operation:
//! the end of one group is the start of the next. Operations slower than
//! [`GROUP_BELOW_NS`] form groups of one, so each is timed on its own; faster
//! ones (page-cache copies, the DUMMY backend) are timed in groups sized to
//! last about that long, and each operation of a group is recorded with the
//! group's mean. This keeps the tool's own cost per operation to a counter
//! increment, so recording can stay on by default.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};
use std::time::Instant;

use crate::comm::{Comm, CommError};

/// Operations faster than this are timed in groups (nanoseconds).
pub const GROUP_BELOW_NS: u64 = 32_000;
/// The largest group.
pub const MAX_GROUP: u32 = 1024;
/// Highest latency the histogram holds: one hour, in nanoseconds.
pub const HIGHEST_NS: u64 = 3_600_000_000_000;

// Two significant digits (values within 1 %) and a histogram that grows only
// as far as the slowest operation seen (about 14 KiB for millisecond
// latencies, 35 KiB at most), so that every task's memory stays its transfer
// buffer plus little more.

pub fn new_histogram() -> Histogram<u64> {
    let mut h = Histogram::new(2).expect("valid histogram precision");
    h.auto(true);
    h
}

/// Records the latency of a stream of operations.
pub struct LatencyRecorder {
    histogram: Histogram<u64>,
    group_start: Instant,
    /// Operations in the current group so far.
    pending: u32,
    /// Operations per group.
    group: u32,
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        LatencyRecorder::new()
    }
}

impl LatencyRecorder {
    pub fn new() -> LatencyRecorder {
        LatencyRecorder {
            histogram: new_histogram(),
            group_start: Instant::now(),
            pending: 0,
            group: 1,
        }
    }

    /// Marks the start of the first operation to come.
    pub fn start(&mut self) {
        self.group_start = Instant::now();
        self.pending = 0;
    }

    /// After each operation.
    #[inline]
    pub fn tick(&mut self) {
        self.pending += 1;
        if self.pending >= self.group {
            self.close_group();
        }
    }

    #[cold]
    fn close_group(&mut self) {
        let now = Instant::now();
        let elapsed = now.duration_since(self.group_start).as_nanos() as u64;
        let n = self.pending.max(1) as u64;
        let each = (elapsed / n).clamp(1, HIGHEST_NS);
        let _ = self.histogram.record_n(each, n);
        self.group = (GROUP_BELOW_NS / each.max(1)).clamp(1, MAX_GROUP as u64) as u32;
        self.group_start = now;
        self.pending = 0;
    }

    /// Records one operation timed by the caller (a queued transfer, from
    /// its submission to its completion).
    pub fn record(&mut self, took: std::time::Duration) {
        let ns = (took.as_nanos() as u64).clamp(1, HIGHEST_NS);
        let _ = self.histogram.record(ns);
    }

    /// Records `n` operations of `each_ns` nanoseconds each (a group timed
    /// by the caller).
    pub fn record_n(&mut self, each_ns: u64, n: u64) {
        if n > 0 {
            let _ = self.histogram.record_n(each_ns.clamp(1, HIGHEST_NS), n);
        }
    }

    /// Records the operations of an unfinished group.
    pub fn finish(&mut self) {
        if self.pending > 0 {
            self.close_group();
        }
    }

    pub fn histogram(&self) -> &Histogram<u64> {
        &self.histogram
    }
}

/// A histogram as (bucket value, count) pairs, for sending to rank 0.
pub fn encode(h: &Histogram<u64>) -> Vec<u8> {
    let mut bytes = Vec::new();
    for v in h.iter_recorded() {
        bytes.extend_from_slice(&v.value_iterated_to().to_le_bytes());
        bytes.extend_from_slice(&v.count_at_value().to_le_bytes());
    }
    bytes
}

/// Adds an encoded histogram into `into`.
pub fn add_encoded(into: &mut Histogram<u64>, bytes: &[u8]) {
    for pair in bytes.chunks_exact(16) {
        let value = u64::from_le_bytes(pair[..8].try_into().expect("8 bytes"));
        let count = u64::from_le_bytes(pair[8..].try_into().expect("8 bytes"));
        let _ = into.record_n(value, count);
    }
}

/// Merges every task's histogram on `root` (others get an empty one).
pub fn merge(
    comm: &dyn Comm,
    root: usize,
    mine: &Histogram<u64>,
) -> Result<Histogram<u64>, CommError> {
    let all = comm.gather(root, &encode(mine))?;
    let mut merged = new_histogram();
    for bytes in &all {
        add_encoded(&mut merged, bytes);
    }
    Ok(merged)
}

/// The percentiles reported per phase, in seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Percentiles {
    pub count: u64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub min: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub p50: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub p90: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub p99: f64,
    #[serde(rename = "p99.9", deserialize_with = "crate::units::nan_if_null")]
    pub p999: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub max: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub mean: f64,
}

impl Percentiles {
    pub fn of(h: &Histogram<u64>) -> Option<Percentiles> {
        if h.is_empty() {
            return None;
        }
        let s = |ns: u64| ns as f64 / 1e9;
        Some(Percentiles {
            count: h.len(),
            min: s(h.min()),
            p50: s(h.value_at_quantile(0.50)),
            p90: s(h.value_at_quantile(0.90)),
            p99: s(h.value_at_quantile(0.99)),
            p999: s(h.value_at_quantile(0.999)),
            max: s(h.max()),
            mean: h.mean() / 1e9,
        })
    }
}

/// The full distribution, one line per recorded bucket: value (seconds),
/// cumulative fraction, count.
pub fn distribution_lines(h: &Histogram<u64>) -> Vec<(f64, f64, u64)> {
    let total = h.len().max(1) as f64;
    let mut seen = 0u64;
    h.iter_recorded()
        .map(|v| {
            seen += v.count_at_value();
            (
                v.value_iterated_to() as f64 / 1e9,
                seen as f64 / total,
                v.count_at_value(),
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{local, Topology};

    #[test]
    fn merging_four_tasks_equals_one_histogram_of_all_samples() {
        let sample = |rank: usize, i: u64| 1_000 + (rank as u64 * 7919 + i * 104_729) % 5_000_000;
        let merged = local::run(Topology::single_node(4), |comm| {
            let mut mine = new_histogram();
            for i in 0..1000 {
                mine.record(sample(comm.rank(), i)).unwrap();
            }
            merge(comm, 0, &mine).unwrap()
        });
        let mut all = new_histogram();
        for rank in 0..4 {
            for i in 0..1000 {
                all.record(sample(rank, i)).unwrap();
            }
        }
        let merged = merged[0].as_ref().unwrap();
        assert_eq!(merged.len(), 4000);
        assert_eq!(*merged, all);
        assert_eq!(Percentiles::of(merged), Percentiles::of(&all));
    }

    #[test]
    fn slow_operations_are_timed_one_by_one() {
        let mut r = LatencyRecorder::new();
        r.start();
        for _ in 0..5 {
            std::thread::sleep(std::time::Duration::from_millis(2));
            r.tick();
        }
        r.finish();
        let p = Percentiles::of(r.histogram()).unwrap();
        assert_eq!(p.count, 5);
        assert!(p.min >= 0.002, "sleep(2 ms) takes at least 2 ms: {p:?}");
    }

    #[test]
    fn fast_operations_are_counted_in_groups() {
        let mut r = LatencyRecorder::new();
        r.start();
        for _ in 0..100_000 {
            r.tick();
        }
        r.finish();
        assert_eq!(r.histogram().len(), 100_000, "every operation is counted");
    }

    #[test]
    fn percentiles_and_distribution() {
        let mut h = new_histogram();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap();
        }
        let p = Percentiles::of(&h).unwrap();
        // Within the histogram's 1 % precision.
        assert!((p.p50 - 500e-6).abs() <= 5e-6, "{p:?}");
        assert!((p.p99 - 990e-6).abs() <= 10e-6, "{p:?}");
        assert_eq!(p.count, 1000);
        let d = distribution_lines(&h);
        assert_eq!(d.last().unwrap().1, 1.0);
        assert_eq!(d.iter().map(|l| l.2).sum::<u64>(), 1000);
        assert!(Percentiles::of(&new_histogram()).is_none());
    }
}
