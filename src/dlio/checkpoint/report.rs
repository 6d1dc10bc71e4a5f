//! The figures of a checkpoint run, typed (pario's JSON reads back through
//! these), and the pure functions that make them from per-rank times: the
//! duration of a save or load as the slowest rank's (MLPerf Storage's
//! rules) or rank 0's (DLIO's `mlperf_storage_v2.0` branch), GB/s as DLIO
//! divides its `checkpoint_size` by it, means and population deviations
//! over the checkpoints, stragglers. (Read back through these types once
//! the latency and page-cache types deserialize.)

use serde::{Deserialize, Serialize};

use crate::latency::Percentiles;
use crate::pagecache::CacheReport;

/// Whose time a save or load takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DurationRule {
    /// The slowest rank's (the rules: "the maximum over GPUs").
    #[default]
    Slowest,
    /// Rank 0's own (DLIO's branch).
    RankZero,
}

/// One save or load of a checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Step {
    /// `k` of `save_ckpt<k>` / `load_ckpt<k>`.
    pub index: u64,
    /// `global_epoch<E>_step<S>`.
    pub name: String,
    /// DLIO's time stamps of rank 0 (`%Y-%m-%dT%H:%M:%S.%f`).
    pub start: String,
    pub end: String,
    /// Seconds, by the run's rule, and by the other one.
    pub duration: f64,
    pub slowest: f64,
    pub rank0: f64,
    pub slowest_rank: usize,
    /// `checkpoint_size_GB / duration`, and the same over rank 0's time.
    pub throughput: f64,
    pub rank0_throughput: f64,
    /// Each rank's seconds.
    pub ranks: Vec<f64>,
    /// The page cache the load met (loads on a file system).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheReport>,
}

/// Mean and population deviation over the checkpoints.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize)]
pub struct Figures {
    pub duration_mean: f64,
    pub duration_stdev: f64,
    pub io_mean: f64,
    pub io_stdev: f64,
}

/// What one direction (saves or loads) did.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Direction {
    pub steps: Vec<Step>,
    /// By the run's rule (DLIO's `summary.json` keys carry these).
    pub figures: Figures,
    /// Over rank 0's times (DLIO's branch), beside.
    pub rank0: Figures,
    /// Requests, bytes, fsyncs over every rank and checkpoint.
    pub requests: u64,
    pub bytes: u64,
    pub fsyncs: u64,
    /// Seconds, summed over ranks, in requests and in fsync.
    pub io_seconds: f64,
    pub fsync_seconds: f64,
    /// Per-request latency over every rank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency: Option<Percentiles>,
    /// Ranks slower than 1.5 times the median in some step: (step, rank,
    /// seconds).
    pub stragglers: Vec<(u64, usize, f64)>,
}

/// A checkpoint run.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct CheckpointReport {
    pub model: String,
    pub ranks: usize,
    /// `default` or `subset`.
    pub mode: String,
    /// DLIO's `checkpoint_size` (GiB, all ranks).
    pub checkpoint_size_gb: f64,
    /// Files and bytes of one checkpoint, all ranks.
    pub files: u64,
    pub bytes: u64,
    pub fsync: bool,
    pub duration_rule: DurationRule,
    /// How requests are cut: `torch`, `torch (at most N bytes)`, `direct`.
    pub pattern: String,
    pub saves: Direction,
    pub loads: Direction,
    /// Whether the checkpoints stay on storage after the run.
    pub kept: bool,
    /// Lines worth reading: cache, free space not checked, single client.
    pub notes: Vec<String>,
}

/// The mean and population standard deviation (numpy's `std`).
pub fn mean_std(values: &[f64]) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    (mean, var.sqrt())
}

/// One step's figures from each rank's seconds.
pub fn step(index: u64, name: String, ranks: Vec<f64>, size_gb: f64, rule: DurationRule) -> Step {
    let (slowest_rank, slowest) =
        ranks
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, f64::MIN),
                |best, (r, d)| if d > best.1 { (r, d) } else { best },
            );
    let rank0 = ranks.first().copied().unwrap_or(0.0);
    let duration = match rule {
        DurationRule::Slowest => slowest,
        DurationRule::RankZero => rank0,
    };
    Step {
        index,
        name,
        start: String::new(),
        end: String::new(),
        duration,
        slowest,
        rank0,
        slowest_rank,
        throughput: size_gb / duration,
        rank0_throughput: size_gb / rank0,
        ranks,
        cache: None,
    }
}

/// The means over the steps, by the rule and over rank 0's times.
pub fn figures(steps: &[Step]) -> (Figures, Figures) {
    let of = |d: Vec<f64>, io: Vec<f64>| {
        let (duration_mean, duration_stdev) = mean_std(&d);
        let (io_mean, io_stdev) = mean_std(&io);
        Figures {
            duration_mean,
            duration_stdev,
            io_mean,
            io_stdev,
        }
    };
    (
        of(
            steps.iter().map(|s| s.duration).collect(),
            steps.iter().map(|s| s.throughput).collect(),
        ),
        of(
            steps.iter().map(|s| s.rank0).collect(),
            steps.iter().map(|s| s.rank0_throughput).collect(),
        ),
    )
}

/// Ranks that took more than 1.5 times the step's median (and at least
/// a millisecond more).
pub fn stragglers(steps: &[Step]) -> Vec<(u64, usize, f64)> {
    let mut out = Vec::new();
    for s in steps {
        let median = crate::stats::median(&s.ranks);
        for (r, &d) in s.ranks.iter().enumerate() {
            if d > 1.5 * median && d - median > 1e-3 {
                out.push((s.index, r, d));
            }
        }
    }
    out
}

impl CheckpointReport {
    /// `summary.json`'s `metric` keys for checkpoints (statscounter.py
    /// `end_run`): saves always (NaN without any), loads when some ran.
    pub fn metric_keys(&self) -> Vec<(String, f64)> {
        let mut out = Vec::new();
        let mut put = |prefix: &str, f: &Figures| {
            out.push((
                format!("{prefix}_checkpoint_io_mean_GB_per_second"),
                f.io_mean,
            ));
            out.push((
                format!("{prefix}_checkpoint_io_stdev_GB_per_second"),
                f.io_stdev,
            ));
            out.push((
                format!("{prefix}_checkpoint_duration_mean_seconds"),
                f.duration_mean,
            ));
            out.push((
                format!("{prefix}_checkpoint_duration_stdev_seconds"),
                f.duration_stdev,
            ));
        };
        put("save", &self.saves.figures);
        if !self.loads.steps.is_empty() {
            put("load", &self.loads.figures);
        }
        out.push(("checkpoint_size_GB".into(), self.checkpoint_size_gb));
        out
    }

    /// DLIO's `[METRIC]` lines for checkpoints.
    pub fn metric_lines(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (what, d) in [("save", &self.saves), ("load", &self.loads)] {
            if d.steps.is_empty() {
                continue;
            }
            let f = &d.figures;
            out.push(format!(
                "[METRIC] Checkpoint {what} duration (seconds): {:.4} ({:.4})",
                f.duration_mean, f.duration_stdev
            ));
            out.push(format!(
                "[METRIC] Checkpoint {what} I/O Throughput (GB/second): {:.4} ({:.4})",
                f.io_mean, f.io_stdev
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slowest_rank_or_rank_zero() {
        let s = step(
            1,
            "x".into(),
            vec![2.0, 4.0, 3.0],
            8.0,
            DurationRule::Slowest,
        );
        assert_eq!((s.duration, s.slowest_rank, s.throughput), (4.0, 1, 2.0));
        assert_eq!((s.rank0, s.rank0_throughput), (2.0, 4.0));
        let s = step(1, "x".into(), vec![2.0, 4.0], 8.0, DurationRule::RankZero);
        assert_eq!((s.duration, s.throughput), (2.0, 4.0));
    }

    #[test]
    fn means_and_population_deviation() {
        let steps: Vec<Step> = [1.0, 3.0]
            .iter()
            .enumerate()
            .map(|(i, &d)| {
                step(
                    i as u64 + 1,
                    String::new(),
                    vec![d, d / 2.0],
                    6.0,
                    DurationRule::Slowest,
                )
            })
            .collect();
        let (rule, rank0) = figures(&steps);
        assert_eq!((rule.duration_mean, rule.duration_stdev), (2.0, 1.0));
        assert_eq!((rule.io_mean, rule.io_stdev), (4.0, 2.0));
        assert_eq!(rank0, rule);
        let report = CheckpointReport {
            saves: Direction {
                steps,
                figures: rule,
                ..Direction::default()
            },
            checkpoint_size_gb: 6.0,
            ..CheckpointReport::default()
        };
        let keys: Vec<String> = report.metric_keys().into_iter().map(|k| k.0).collect();
        assert_eq!(keys.len(), 5);
        assert_eq!(keys[0], "save_checkpoint_io_mean_GB_per_second");
        assert_eq!(
            report.metric_lines()[0],
            "[METRIC] Checkpoint save duration (seconds): 2.0000 (1.0000)"
        );
        let (m, _) = mean_std(&[]);
        assert!(m.is_nan());
    }

    #[test]
    fn a_rank_far_behind_the_median_is_a_straggler() {
        let s = step(
            3,
            String::new(),
            vec![1.0, 1.1, 0.9, 2.5],
            1.0,
            DurationRule::Slowest,
        );
        assert_eq!(stragglers(&[s]), [(3, 3, 2.5)]);
    }
}
