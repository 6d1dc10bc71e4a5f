//! DLIO's training and evaluation metrics as its `mlperf_storage_v2.0`
//! branch computes them (utils/statscounter.py), as pure functions of a
//! rank's step timings.
//!
//! A block is a stretch of training steps (an epoch, unless step
//! checkpoints split it). Its wall time runs from before the first batch is
//! asked for to after the last step's barrier. Per step: `load` is the wait
//! for the batch, `compute` the emulated computation as measured, `proc` the
//! two with what lies between. With `S`/`E` the steps excluded at the start
//! and the end and `n` the configured steps of an epoch:
//! - `AU = 100 · Σ compute[S..n−E] / (wall − Σ proc[..S] − Σ proc[n−E..])`;
//! - throughput (samples/s of one rank): the rules' `steps · batch / wall`
//!   (`pario.throughput=rules`), or the branch's `(steps − 2) · batch / (the
//!   AU's denominator)`, the 2 fixed whatever `S` and `E` are;
//! - an epoch's values are the step-weighted means of its blocks'; across
//!   ranks, AU is the mean and throughput the sum; over epochs, the mean and
//!   the population standard deviation; MB/s is samples/s times the
//!   configured `record_length_bytes` over 2^20 (not the bytes read).
//!
//! Slices follow Python's (clamped, negative from the end), as the
//! branch's do when the window does not fit a block.

use std::ops::Range;

use serde::{Deserialize, Deserializer, Serialize};

use super::options::Follow;
use crate::stats::{Deviation, Stats};

/// A figure JSON wrote as `null` (serde's NaN and infinities) reads back
/// as NaN.
pub fn nan_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// The steps the metrics leave out (`output.metric.exclude_start_steps`,
/// `exclude_end_steps`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    pub exclude_start: i64,
    pub exclude_end: i64,
}

impl Default for Window {
    fn default() -> Self {
        Window {
            exclude_start: 1,
            exclude_end: 0,
        }
    }
}

/// One rank's timings of one block, in seconds.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Steps {
    pub load: Vec<f64>,
    pub proc: Vec<f64>,
    pub compute: Vec<f64>,
}

impl Steps {
    /// Steps taken.
    pub fn len(&self) -> usize {
        self.proc.len()
    }

    pub fn is_empty(&self) -> bool {
        self.proc.is_empty()
    }

    pub fn push(&mut self, load: f64, proc: f64, compute: f64) {
        self.load.push(load);
        self.proc.push(proc);
        self.compute.push(compute);
    }
}

/// A block's (or an epoch's) figures for one rank, or for all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Accelerator utilisation, percent.
    #[serde(deserialize_with = "nan_if_null")]
    pub au: f64,
    /// Samples per second.
    #[serde(deserialize_with = "nan_if_null")]
    pub throughput: f64,
}

/// Python's `len(v[start:stop])` range: negative bounds count from the end,
/// then both are clamped to `0..=len`.
fn py_slice(len: usize, start: i64, stop: i64) -> Range<usize> {
    let clamp = |i: i64| -> usize {
        let i = if i < 0 { i + len as i64 } else { i };
        i.clamp(0, len as i64) as usize
    };
    let (a, b) = (clamp(start), clamp(stop));
    a..b.max(a)
}

fn sum(v: &[f64], start: i64, stop: i64) -> f64 {
    v[py_slice(v.len(), start, stop)].iter().sum()
}

/// The window of an epoch of `steps` configured steps, as slice bounds:
/// the counted steps `S..n−E` (the branch's `metric_start_step` to
/// `metric_end_step + 1`).
fn counted(steps: usize, window: Window) -> (i64, i64) {
    (window.exclude_start, steps as i64 - window.exclude_end)
}

/// The AU's denominator: the block's wall time less the excluded steps'.
fn counted_time(times: &Steps, wall: f64, steps: usize, window: Window) -> f64 {
    let (first, stop) = counted(steps, window);
    wall - sum(&times.proc, 0, first) - sum(&times.proc, stop, i64::MAX)
}

/// AU (percent) of a block of `wall` seconds; 0 when nothing was computed.
fn au(times: &Steps, wall: f64, steps: usize, window: Window) -> f64 {
    let (first, stop) = counted(steps, window);
    let compute = sum(&times.compute, first, stop);
    if compute == 0.0 {
        return 0.0;
    }
    100.0 * compute / counted_time(times, wall, steps, window)
}

/// A training block's figures on one rank (`compute_metrics_train`).
pub fn train_block(
    times: &Steps,
    wall: f64,
    steps: usize,
    window: Window,
    batch: usize,
    throughput: Follow,
) -> Figures {
    let throughput = match throughput {
        Follow::Rules => times.len() as f64 * batch as f64 / wall,
        Follow::Dlio => {
            (times.compute.len() as f64 - 2.0) * batch as f64
                / counted_time(times, wall, steps, window)
        }
    };
    Figures {
        au: au(times, wall, steps, window),
        throughput,
    }
}

/// An evaluation's figures on one rank (`compute_metrics_eval`): the same
/// AU over the evaluation's steps, throughput over every step and the
/// whole time (in the branch too).
pub fn eval_block(times: &Steps, wall: f64, steps: usize, window: Window, batch: usize) -> Figures {
    Figures {
        au: au(times, wall, steps, window),
        throughput: times.compute.len() as f64 * batch as f64 / wall,
    }
}

/// An epoch's figures from its blocks' and their step counts (`end_train`):
/// step-weighted means, 0 when no step was taken.
pub fn epoch(blocks: &[(Figures, usize)]) -> Figures {
    let steps: usize = blocks.iter().map(|(_, n)| n).sum();
    if steps == 0 {
        return Figures::default();
    }
    let weighted = |f: fn(&Figures) -> f64| {
        blocks.iter().map(|(b, n)| f(b) * *n as f64).sum::<f64>() / steps as f64
    };
    Figures {
        au: weighted(|b| b.au),
        throughput: weighted(|b| b.throughput),
    }
}

/// Per epoch across ranks (`end_run`): the mean AU and the summed
/// throughput. `per_rank[r][e]` is rank r's epoch e.
pub fn across_ranks(per_rank: &[Vec<Figures>]) -> Vec<Figures> {
    let ranks = per_rank.len().max(1) as f64;
    let epochs = per_rank.iter().map(Vec::len).max().unwrap_or(0);
    (0..epochs)
        .map(|e| {
            let at = |f: fn(&Figures) -> f64| {
                per_rank.iter().filter_map(|r| r.get(e)).map(f).sum::<f64>()
            };
            Figures {
                au: at(|f| f.au) / ranks,
                throughput: at(|f| f.throughput),
            }
        })
        .collect()
}

/// The run's figures over epochs, as `summary.json`'s `metric` has them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub au: Vec<f64>,
    #[serde(deserialize_with = "nan_if_null")]
    pub au_mean: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub au_stdev: f64,
    /// Whether the mean AU reached `metric.au` (`"success"`/`"fail"`).
    pub meets_expectation: bool,
    pub throughput: Vec<f64>,
    #[serde(deserialize_with = "nan_if_null")]
    pub throughput_mean: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub throughput_stdev: f64,
    /// MB/s (2^20 bytes) from the configured record length.
    #[serde(deserialize_with = "nan_if_null")]
    pub io_mean_mb: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub io_stdev_mb: f64,
}

/// The summary of epochs' figures (already across ranks), with the
/// workload's `record_length_bytes` and AU threshold (`metric.au`, a
/// fraction).
pub fn summary(epochs: &[Figures], record_length: f64, au_threshold: f64) -> Summary {
    let au: Vec<f64> = epochs.iter().map(|f| f.au).collect();
    let throughput: Vec<f64> = epochs.iter().map(|f| f.throughput).collect();
    let (a, t) = (mean_stdev(&au), mean_stdev(&throughput));
    let mb = record_length / 1024.0 / 1024.0;
    Summary {
        meets_expectation: a.0 >= au_threshold * 100.0,
        au,
        au_mean: a.0,
        au_stdev: a.1,
        throughput,
        throughput_mean: t.0,
        throughput_stdev: t.1,
        io_mean_mb: t.0 * mb,
        io_stdev_mb: t.1 * mb,
    }
}

/// numpy's `mean` and `std` (population); NaN for no values, as numpy's.
pub fn mean_stdev(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let s = Stats::of(values, Deviation::Population);
    (s.mean, s.stddev)
}

/// The computation time per step of a block's counted steps (mean and
/// population deviation), for the branch's block line.
pub fn compute_per_step(times: &Steps, steps: usize, window: Window) -> (f64, f64) {
    let (first, stop) = counted(steps, window);
    mean_stdev(&times.compute[py_slice(times.compute.len(), first, stop)])
}

#[cfg(test)]
mod tests;
