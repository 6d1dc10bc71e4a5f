//! What a rank's readers did: requests, bytes, opens, samples, the time
//! spent in requests, and the latency of each request and each sample.

use std::sync::atomic::{AtomicU64, Ordering};

use hdrhistogram::Histogram;

use super::read::SampleReader;
use crate::latency::new_histogram;

/// Counts the step loop reads while readers run (progress, per-epoch
/// figures): samples delivered to the batches so far.
#[derive(Default)]
pub struct Shared {
    samples: AtomicU64,
}

impl Shared {
    #[inline]
    pub fn sample_done(&self) {
        self.samples.fetch_add(1, Ordering::Relaxed);
    }

    pub fn samples(&self) -> u64 {
        self.samples.load(Ordering::Relaxed)
    }
}

/// The sum of a rank's reader threads.
#[derive(Debug, Clone)]
pub struct ReaderStats {
    pub requests: u64,
    pub bytes: u64,
    pub opens: u64,
    /// Seconds in requests, summed over the threads.
    pub busy: f64,
    pub request_latency: Histogram<u64>,
    pub sample_latency: Histogram<u64>,
}

impl Default for ReaderStats {
    fn default() -> Self {
        ReaderStats {
            requests: 0,
            bytes: 0,
            opens: 0,
            busy: 0.0,
            request_latency: new_histogram(),
            sample_latency: new_histogram(),
        }
    }
}

impl ReaderStats {
    pub fn merge(&mut self, other: &ReaderStats) {
        self.requests += other.requests;
        self.bytes += other.bytes;
        self.opens += other.opens;
        self.busy += other.busy;
        let _ = self.request_latency.add(&other.request_latency);
        let _ = self.sample_latency.add(&other.sample_latency);
    }

    /// Adds what a per-sample reader did.
    pub fn add_reader(&mut self, reader: SampleReader<'_>) {
        let s = &reader.scratch;
        self.requests += s.requests;
        self.bytes += s.bytes;
        self.busy += s.busy;
        self.opens += reader.opens;
        let _ = self.request_latency.add(s.latency.histogram());
        let _ = self.sample_latency.add(reader.latency.histogram());
    }
}
