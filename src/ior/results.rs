//! The numbers, as IOR defines them.
//!
//! Each task records when it started and ended open, transfer and close. Start
//! stamps are reduced with MIN over tasks and end stamps with MAX:
//! `open = max(open end) - min(open start)`, likewise `wr/rd` and `close`;
//! `total = max(close end) - min(open start)`.
//! `bw = bytes moved / total`, `IOPS = transfers / wr/rd`, and `Latency` is
//! the mean over tasks of each task's transfer time per transfer (IOR 4 prints
//! rank 0's own value instead).
//! Over repetitions: max, min, mean and population standard deviation; the
//! summary OPs column divides by the total time, as IOR's does.

use serde::{Deserialize, Serialize};

use super::stonewall_result::StonewallResult;
use super::task_times::{KindTally, TaskTimes};
use crate::backend::Access;
use crate::latency::Percentiles;
use crate::pagecache::CacheReport;
use crate::series::Timeline;
use crate::stats::{Deviation, Stats};
use crate::units::{StaticName, KIB, MIB};

/// One row of the Results table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    #[serde(deserialize_with = "access")]
    pub access: StaticName,
    #[serde(rename = "bwMiB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_mib: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub iops: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub latency: f64,
    #[serde(rename = "blockKiB", deserialize_with = "crate::units::nan_if_null")]
    pub block_kib: f64,
    #[serde(rename = "xferKiB", deserialize_with = "crate::units::nan_if_null")]
    pub xfer_kib: f64,
    #[serde(rename = "openTime", deserialize_with = "crate::units::nan_if_null")]
    pub open: f64,
    #[serde(rename = "wrRdTime", deserialize_with = "crate::units::nan_if_null")]
    pub wr_rd: f64,
    #[serde(rename = "closeTime", deserialize_with = "crate::units::nan_if_null")]
    pub close: f64,
    #[serde(rename = "totalTime", deserialize_with = "crate::units::nan_if_null")]
    pub total: f64,
    pub iteration: u64,
    /// Bytes actually moved by all tasks.
    pub bytes: u64,
    /// Transfers made by all tasks.
    pub transfers: u64,
    pub tasks: usize,
    /// With `-D`: what stonewalling did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<StonewallResult>,
    /// The merged distribution of per-transfer latencies.
    #[serde(rename = "latencyPercentiles", skip_serializing_if = "Option::is_none")]
    pub latency_percentiles: Option<Percentiles>,
    /// The fastest and slowest task.
    #[serde(rename = "taskTimes", skip_serializing_if = "Option::is_none")]
    pub spread: Option<TaskSpread>,
    /// Read phases: the page cache before (and after eviction).
    #[serde(rename = "pageCache", skip_serializing_if = "Option::is_none")]
    pub page_cache: Option<CacheReport>,
    /// The signal that stopped the phase, if one did: the figures cover
    /// what was done until then.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<String>,
    /// A drawn phase (`rwmixRead`, `randomDistribution`,
    /// `transferSizeSplit`): its reads and writes, each on its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mix: Option<MixResult>,
    /// Requests the tasks sent again during the phase after a transient
    /// answer (S3's 500 and 503 SlowDown): the time includes their waits.
    /// `None` on backends that never send a request again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// Transfers over time, per task and in total (JSON `timeline`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
}

/// The figures of one kind of operation in a drawn phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct KindFigures {
    pub ops: u64,
    pub bytes: u64,
    /// Over the phase's total time, as the row's bandwidth.
    #[serde(rename = "bwMiB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_mib: f64,
    /// Over the phase's transfer time, as the row's IOPS.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub iops: f64,
    #[serde(rename = "latencyPercentiles", skip_serializing_if = "Option::is_none")]
    pub latency_percentiles: Option<Percentiles>,
}

/// A drawn phase, per kind, and what it was asked to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MixResult {
    pub read: KindFigures,
    pub write: KindFigures,
    /// The share of operations that read, in percent (rwmixRead counts
    /// operations), and of bytes.
    #[serde(
        rename = "readPercentOps",
        deserialize_with = "crate::units::nan_if_null"
    )]
    pub read_pct_ops: f64,
    #[serde(
        rename = "readPercentBytes",
        deserialize_with = "crate::units::nan_if_null"
    )]
    pub read_pct_bytes: f64,
    /// `rwmixRead` as asked.
    #[serde(rename = "rwmixRead")]
    pub asked_read_pct: u32,
    #[serde(rename = "randomDistribution", skip_serializing_if = "Option::is_none")]
    pub distribution: Option<String>,
    #[serde(rename = "transferSizeSplit", skip_serializing_if = "Option::is_none")]
    pub split: Option<String>,
}

impl MixResult {
    /// The kinds' figures from the tasks' tallies and the row's times.
    pub fn of(tasks: &[TaskTimes], row: &PhaseResult, asked_read_pct: u32) -> MixResult {
        let mut sum = KindTally::default();
        for t in tasks.iter().filter(|t| t.active) {
            sum.read_ops += t.kinds.read_ops;
            sum.read_bytes += t.kinds.read_bytes;
            sum.write_ops += t.kinds.write_ops;
            sum.write_bytes += t.kinds.write_bytes;
        }
        let figures = |ops: u64, bytes: u64| KindFigures {
            ops,
            bytes,
            bw_mib: bytes as f64 / MIB as f64 / row.total,
            iops: ops as f64 / row.wr_rd,
            latency_percentiles: None,
        };
        let pct = |part: u64, whole: u64| match whole {
            0 => 0.0,
            w => 100.0 * part as f64 / w as f64,
        };
        MixResult {
            read: figures(sum.read_ops, sum.read_bytes),
            write: figures(sum.write_ops, sum.write_bytes),
            read_pct_ops: pct(sum.read_ops, sum.read_ops + sum.write_ops),
            read_pct_bytes: pct(sum.read_bytes, sum.read_bytes + sum.write_bytes),
            asked_read_pct,
            distribution: None,
            split: None,
        }
    }
}

impl PhaseResult {
    /// The numbers of IOR's Results row (and of its CSV), in order: bw(MiB/s)
    /// to total(s).
    pub fn table_values(&self) -> [f64; 9] {
        [
            self.bw_mib,
            self.iops,
            self.latency,
            self.block_kib,
            self.xfer_kib,
            self.open,
            self.wr_rd,
            self.close,
            self.total,
        ]
    }
}

/// Per phase, the fastest and slowest task's open, transfer and close times
/// (seconds), and which task was slowest overall.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSpread {
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub open_min: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub open_max: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub xfer_min: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub xfer_max: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub close_min: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub close_max: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub total_min: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub total_max: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub total_mean: f64,
    /// The task with the longest open-to-close time.
    pub slowest: usize,
}

/// The spread of the tasks' times in one phase.
pub fn task_spread(tasks: &[TaskTimes]) -> Option<TaskSpread> {
    let active: Vec<(usize, &TaskTimes)> =
        tasks.iter().enumerate().filter(|(_, t)| t.active).collect();
    if active.is_empty() {
        return None;
    }
    let range = |f: &dyn Fn(&TaskTimes) -> f64| {
        active
            .iter()
            .map(|(_, t)| f(t))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            })
    };
    let total = |t: &TaskTimes| t.close_end - t.open_start;
    let (open_min, open_max) = range(&|t| t.open_end - t.open_start);
    let (xfer_min, xfer_max) = range(&|t| t.xfer_end - t.xfer_start);
    let (close_min, close_max) = range(&|t| t.close_end - t.close_start);
    let (total_min, total_max) = range(&total);
    let slowest = active
        .iter()
        .max_by(|a, b| total(a.1).total_cmp(&total(b.1)))
        .map(|(r, _)| *r)
        .unwrap_or(0);
    Some(TaskSpread {
        open_min,
        open_max,
        xfer_min,
        xfer_max,
        close_min,
        close_max,
        total_min,
        total_max,
        total_mean: active.iter().map(|(_, t)| total(t)).sum::<f64>() / active.len() as f64,
        slowest,
    })
}

/// Tasks whose open-to-close time is more than `threshold` seconds from the
/// mean (`-j`): (task, its time).
pub fn outliers(tasks: &[TaskTimes], threshold: f64) -> Vec<(usize, f64)> {
    let Some(spread) = task_spread(tasks) else {
        return Vec::new();
    };
    tasks
        .iter()
        .enumerate()
        .filter(|(_, t)| t.active)
        .map(|(r, t)| (r, t.close_end - t.open_start))
        .filter(|(_, total)| (total - spread.total_mean).abs() > threshold)
        .collect()
}

/// A row's access read back: one of the names [`access_name`] gives, or
/// a drawn phase's `mixed`.
fn access<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let names = [
        access_name(Access::Write),
        access_name(Access::Read),
        "mixed",
    ];
    crate::units::one_of(d, &names)
}

pub fn access_name(access: Access) -> &'static str {
    match access {
        Access::Write => "write",
        Access::Read => "read",
    }
}

/// Reduces the tasks' records of one phase into its table row.
pub fn reduce_phase(
    access: Access,
    iteration: u64,
    tasks: &[TaskTimes],
    block_size: u64,
    transfer_size: u64,
) -> PhaseResult {
    let active: Vec<&TaskTimes> = tasks.iter().filter(|t| t.active).collect();
    let min = |f: fn(&TaskTimes) -> f64| active.iter().map(|t| f(t)).fold(f64::INFINITY, f64::min);
    let max = |f: fn(&TaskTimes) -> f64| {
        active
            .iter()
            .map(|t| f(t))
            .fold(f64::NEG_INFINITY, f64::max)
    };
    let span = |a: f64, b: f64| if active.is_empty() { 0.0 } else { b - a };
    let open = span(min(|t| t.open_start), max(|t| t.open_end));
    let wr_rd = span(min(|t| t.xfer_start), max(|t| t.xfer_end));
    let close = span(min(|t| t.close_start), max(|t| t.close_end));
    let total = span(min(|t| t.open_start), max(|t| t.close_end));
    let bytes: u64 = active.iter().map(|t| t.bytes).sum();
    let transfers: u64 = active.iter().map(|t| t.transfers).sum();
    let latencies: Vec<f64> = active
        .iter()
        .filter(|t| t.transfers > 0)
        .map(|t| t.xfer_time() / t.transfers as f64)
        .collect();
    let latency = if latencies.is_empty() {
        0.0
    } else {
        latencies.iter().sum::<f64>() / latencies.len() as f64
    };
    PhaseResult {
        access: access_name(access),
        bw_mib: bytes as f64 / MIB as f64 / total,
        iops: (bytes as f64 / transfer_size as f64) / wr_rd,
        latency,
        block_kib: block_size as f64 / KIB as f64,
        xfer_kib: transfer_size as f64 / KIB as f64,
        open,
        wr_rd,
        close,
        total,
        iteration,
        bytes,
        transfers,
        tasks: active.len(),
        stonewall: None,
        latency_percentiles: None,
        spread: task_spread(tasks),
        page_cache: None,
        interrupted: None,
        mix: None,
        retries: None,
        timeline: None,
    }
}

/// The "Summary of all tests" numbers of one operation over repetitions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OperationSummary {
    /// Bandwidth in MiB/s.
    pub bw: Stats,
    /// Transfers per second over the total time (IOR's summary OPs).
    pub ops: Stats,
    /// Mean total time in seconds.
    pub mean_time: f64,
    /// Largest bytes moved in a repetition.
    pub bytes: u64,
    /// With `-D`: mean stonewall time and bandwidth (MiB/s) over repetitions.
    pub stonewall: Option<(f64, f64)>,
}

pub fn summarize(results: &[&PhaseResult], transfer_size: u64) -> OperationSummary {
    let bw: Vec<f64> = results.iter().map(|r| r.bw_mib).collect();
    let ops: Vec<f64> = results
        .iter()
        .map(|r| r.bytes as f64 / transfer_size as f64 / r.total)
        .collect();
    let times: Vec<f64> = results.iter().map(|r| r.total).collect();
    let stats = |values: &[f64]| Stats::of(values, Deviation::Population);
    OperationSummary {
        bw: stats(&bw),
        ops: stats(&ops),
        mean_time: stats(&times).mean,
        bytes: results.iter().map(|r| r.bytes).max().unwrap_or(0),
        stonewall: {
            let walls: Vec<&StonewallResult> = results
                .iter()
                .filter_map(|r| r.stonewall.as_ref())
                .collect();
            (!walls.is_empty()).then(|| {
                let n = walls.len() as f64;
                (
                    walls.iter().map(|w| w.time).sum::<f64>() / n,
                    walls.iter().map(|w| w.bw_mib).sum::<f64>() / n,
                )
            })
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(
        open: (f64, f64),
        xfer: (f64, f64),
        close: (f64, f64),
        bytes: u64,
        transfers: u64,
    ) -> TaskTimes {
        TaskTimes {
            active: true,
            open_start: open.0,
            open_end: open.1,
            xfer_start: xfer.0,
            xfer_end: xfer.1,
            close_start: close.0,
            close_end: close.1,
            bytes,
            transfers,
            ..Default::default()
        }
    }

    #[test]
    fn phase_row_from_fixed_timers() {
        // Two tasks, 32 MiB each in 1 MiB transfers.
        let tasks = [
            task((10.0, 10.5), (10.5, 12.5), (12.5, 13.0), 32 << 20, 32),
            task((10.25, 10.75), (10.75, 14.0), (14.0, 14.0), 32 << 20, 32),
            TaskTimes::default(), // a task left out by -N
        ];
        let r = reduce_phase(Access::Write, 0, &tasks, 16 << 20, 1 << 20);
        assert_eq!(r.open, 0.75);
        assert_eq!(r.wr_rd, 3.5);
        assert_eq!(r.close, 1.5);
        assert_eq!(r.total, 4.0);
        assert_eq!(r.bw_mib, 16.0);
        assert_eq!(r.iops, 64.0 / 3.5);
        assert_eq!(r.latency, (2.0 / 32.0 + 3.25 / 32.0) / 2.0);
        assert_eq!(r.block_kib, 16384.0);
        assert_eq!(r.xfer_kib, 1024.0);
        assert_eq!(r.tasks, 2);
        assert_eq!(r.transfers, 64);
    }

    #[test]
    fn the_sample_output_row() {
        // IOR's sample: 64 MiB in 0.018132 s total, 0.018105 s transferring
        // (unrounded: 0.01813198 and 0.01810505).
        let tasks = [task(
            (0.0, 0.000026),
            (0.000027, 0.01810505 + 0.000027),
            (0.01813198 - 0.003534, 0.01813198),
            64 << 20,
            64,
        )];
        let r = reduce_phase(Access::Write, 0, &tasks, 16 << 20, 1 << 20);
        assert_eq!(crate::units::table_cell(r.bw_mib), "3529.68   ");
        assert_eq!(crate::units::table_cell(r.iops), "3534.93   ");
    }

    #[test]
    fn spread_names_the_slowest_task() {
        let tasks = [
            task((0.0, 1.0), (1.0, 3.0), (3.0, 3.5), 10, 1),
            task((0.0, 0.5), (0.5, 6.0), (6.0, 7.0), 10, 1),
            TaskTimes::default(),
            task((0.0, 0.25), (0.25, 1.0), (1.0, 1.5), 10, 1),
        ];
        let s = task_spread(&tasks).unwrap();
        assert_eq!((s.open_min, s.open_max), (0.25, 1.0));
        assert_eq!((s.xfer_min, s.xfer_max), (0.75, 5.5));
        assert_eq!((s.close_min, s.close_max), (0.5, 1.0));
        assert_eq!((s.total_min, s.total_max, s.slowest), (1.5, 7.0, 1));
        assert_eq!(s.total_mean, 4.0);
        assert_eq!(outliers(&tasks, 2.4), vec![(1, 7.0), (3, 1.5)]);
        assert!(outliers(&tasks, 3.5).is_empty());
        assert!(task_spread(&[TaskTimes::default()]).is_none());
    }

    #[test]
    fn stored_mib_bandwidth_gives_the_same_figures() {
        // Max Write/Read and the summary use the rows' bw_mib instead of
        // bytes / total: dividing by 2^20 first or last, and scaling back,
        // is exact, so the figures are bit for bit the same.
        let mut x = 1u64;
        for _ in 0..10_000 {
            x = crate::random::splitmix64(x);
            let bytes = (x >> 20) as f64;
            let total = (crate::random::splitmix64(x) >> 11) as f64 / (1u64 << 40) as f64;
            let bw_mib = bytes / MIB as f64 / total;
            assert_eq!(bw_mib, bytes / total / MIB as f64);
            let mb = crate::units::MB;
            assert_eq!(bw_mib * MIB as f64 / mb, bytes / total / mb);
        }
    }

    #[test]
    fn records_round_trip() {
        use crate::comm::Record;
        let mut t = task((1.0, 2.0), (3.0, 4.0), (5.0, 6.0), 1 << 40, 12345);
        t.stonewall_pairs = 77;
        t.stonewall_bytes = 1 << 33;
        t.stonewall_time = 1.5;
        t.hit_deadline = true;
        assert_eq!(TaskTimes::from_fields(&t.to_fields()), t);
    }
}
