//! Timeline over time inside a phase: how much one task did in each
//! fixed-width time bin since the phase began.
//!
//! A [`Series`] holds [`BINS`] bins whatever the run's length: when a
//! moment falls past the last bin, neighbouring bins merge pairwise and the
//! width doubles (from [`FIRST_WIDTH`]), so a millisecond phase keeps
//! millisecond bins and an hour's phase a minute's. Every task starts from
//! the same width, so any two series line up once brought to the wider
//! width, and the job's total is their sum. A [`Ticker`] feeds a series
//! from a loop's running count, reading the clock only every `stride`
//! operations: a loop either compares its count after each operation or
//! runs in chunks up to [`Ticker::due`] (ior's transfer loop: nothing per
//! transfer).

use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::comm::Record;

/// Bins per series (even, so that they merge pairwise).
pub const BINS: usize = 64;

/// The width of a bin before any merge, seconds.
pub const FIRST_WIDTH: f64 = 0.001;

/// Counts per time bin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Series {
    width: f64,
    /// Bins in use (the last one counted into, plus one).
    used: usize,
    counts: [u64; BINS],
}

impl Default for Series {
    fn default() -> Self {
        Series {
            width: FIRST_WIDTH,
            used: 0,
            counts: [0; BINS],
        }
    }
}

impl Series {
    /// Counts `n` at `at` seconds from the start.
    pub fn add(&mut self, at: f64, n: u64) {
        let at = if at.is_finite() { at.max(0.0) } else { 0.0 };
        let mut bin = (at / self.width) as usize;
        while bin >= BINS {
            self.merge();
            bin = (at / self.width) as usize;
        }
        self.counts[bin] += n;
        self.used = self.used.max(bin + 1);
    }

    /// Neighbours merged pairwise: half the bins, twice the width.
    fn merge(&mut self) {
        for i in 0..BINS / 2 {
            self.counts[i] = self.counts[2 * i] + self.counts[2 * i + 1];
        }
        self.counts[BINS / 2..].fill(0);
        self.used = self.used.div_ceil(2);
        self.width *= 2.0;
    }

    /// Seconds per bin.
    pub fn width(&self) -> f64 {
        self.width
    }

    /// The bins from the start to the last one counted into.
    pub fn counts(&self) -> &[u64] {
        &self.counts[..self.used]
    }

    /// Everything counted.
    pub fn sum(&self) -> u64 {
        self.counts().iter().sum()
    }

    /// The series with bins at least `width` wide (merged as it would
    /// have been).
    pub fn widened(mut self, width: f64) -> Series {
        while self.width < width * (1.0 - 1e-9) {
            self.merge();
        }
        self
    }
}

impl Record for Series {
    const FIELDS: usize = BINS + 2;

    fn to_fields(&self) -> Vec<f64> {
        let mut f = vec![self.width, self.used as f64];
        f.extend(self.counts.iter().map(|&c| c as f64));
        f
    }

    fn from_fields(f: &[f64]) -> Series {
        let mut counts = [0; BINS];
        for (c, v) in counts.iter_mut().zip(&f[2..]) {
            *c = *v as u64;
        }
        let width = if f[0].is_finite() && f[0] > 0.0 {
            f[0]
        } else {
            FIRST_WIDTH
        };
        Series {
            width,
            used: (f[1] as usize).min(BINS),
            counts,
        }
    }
}

/// Feeds a series from a loop's running count.
#[derive(Debug, Clone)]
pub struct Ticker {
    origin: Instant,
    series: Series,
    stride: u64,
    last: u64,
    next: u64,
}

impl Ticker {
    /// Bins from `origin`; the clock read every `stride` operations.
    pub fn new(origin: Instant, stride: u64) -> Ticker {
        let stride = stride.max(1);
        Ticker {
            origin,
            series: Series::default(),
            stride,
            last: 0,
            next: stride,
        }
    }

    /// A pass of the loop starts counting at `from`.
    pub fn begin(&mut self, from: u64) {
        self.last = from;
        self.next = from.saturating_add(self.stride);
    }

    /// The count at which the clock is next read: a loop may run up to it
    /// unchecked and then call [`Ticker::tick`].
    pub fn due(&self) -> u64 {
        self.next
    }

    /// The loop's count is now `count`.
    #[inline(always)]
    pub fn tick(&mut self, count: u64) {
        if count >= self.next {
            self.sample(count);
        }
    }

    /// The pass ended at `count`: what is left is counted now.
    pub fn end(&mut self, count: u64) {
        if count > self.last {
            self.sample(count);
        }
    }

    #[inline(never)]
    fn sample(&mut self, count: u64) {
        let at = self.origin.elapsed().as_secs_f64();
        self.series.add(at, count.saturating_sub(self.last));
        self.last = count;
        self.next = count.saturating_add(self.stride);
    }

    pub fn series(&self) -> Series {
        self.series
    }
}

/// A phase's counts over time for the JSON: each task's bins and their sum,
/// at one width.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timeline {
    /// Seconds per bin; the first bin starts at the phase's start.
    #[serde(rename = "binSeconds")]
    pub bin_seconds: f64,
    /// What each bin counts (`transfers`, `items`, `operations`).
    pub unit: String,
    /// Every task's bins summed.
    pub total: Vec<u64>,
    /// Each task's bins, in rank order.
    pub tasks: Vec<Vec<u64>>,
}

impl Timeline {
    /// Every task's series at the widest width among them.
    pub fn of(all: &[Series], unit: &'static str) -> Timeline {
        let width = all.iter().map(|s| s.width).fold(FIRST_WIDTH, f64::max);
        let wide: Vec<Series> = all.iter().map(|s| s.widened(width)).collect();
        let used = wide.iter().map(|s| s.used).max().unwrap_or(0);
        let mut total = vec![0; used];
        for s in &wide {
            for (t, c) in total.iter_mut().zip(s.counts()) {
                *t += c;
            }
        }
        Timeline {
            bin_seconds: width,
            unit: unit.into(),
            total,
            tasks: wide.iter().map(|s| s.counts().to_vec()).collect(),
        }
    }
}

#[cfg(test)]
mod tests;
