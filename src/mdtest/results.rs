//! mdtest's numbers: what each task measures per phase, and the formulas of
//! its summary.
//!
//! The rate of a phase in one iteration is the items handled by all tasks
//! divided by the longest task's time (times are taken after the barrier
//! that ends the phase). The summary gives the maximum, minimum and mean of
//! those rates over the iterations and their sample standard deviation
//! (0 for one iteration). Tree rows use task 0's time and count the
//! directories of one tree, as mdtest does.

use serde::{Deserialize, Serialize};

use crate::comm::Record;
use crate::latency::Percentiles;
use crate::series::Timeline;
use crate::stats::{Deviation, Stats};
use crate::units::StaticName;

/// The operations, in mdtest's table order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    DirCreate = 0,
    DirStat,
    DirRename,
    DirRemove,
    FileCreate,
    FileStat,
    FileRead,
    FileRemove,
    TreeCreate,
    TreeRemove,
}

/// Number of operations.
pub const OPS: usize = 10;

impl Op {
    pub const ALL: [Op; OPS] = [
        Op::DirCreate,
        Op::DirStat,
        Op::DirRename,
        Op::DirRemove,
        Op::FileCreate,
        Op::FileStat,
        Op::FileRead,
        Op::FileRemove,
        Op::TreeCreate,
        Op::TreeRemove,
    ];

    /// The row name mdtest prints.
    pub fn name(self) -> &'static str {
        match self {
            Op::DirCreate => "Directory creation",
            Op::DirStat => "Directory stat",
            Op::DirRename => "Directory rename",
            Op::DirRemove => "Directory removal",
            Op::FileCreate => "File creation",
            Op::FileStat => "File stat",
            Op::FileRead => "File read",
            Op::FileRemove => "File removal",
            Op::TreeCreate => "Tree creation",
            Op::TreeRemove => "Tree removal",
        }
    }

    pub fn is_tree(self) -> bool {
        matches!(self, Op::TreeCreate | Op::TreeRemove)
    }

    pub fn is_dir(self) -> bool {
        (self as usize) < Op::FileCreate as usize
    }
}

/// One task's measurement of one phase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Sample {
    /// Whether the phase ran.
    pub ran: bool,
    /// Seconds from the phase's start to the end of its closing barrier.
    pub time: f64,
    /// Seconds until this task finished its own work.
    pub time_before_barrier: f64,
    /// Items this task handled.
    pub items: u64,
    /// Requests this task sent again in the phase (S3's 500 and 503);
    /// `None` on backends that never send one again.
    pub retries: Option<u64>,
}

impl Sample {
    /// This task's own rate (before the barrier), as mdtest's per-rank
    /// statistics use it.
    pub fn own_rate(&self) -> f64 {
        if self.items == 0 || self.time_before_barrier <= 0.0 {
            0.0
        } else {
            self.items as f64 / self.time_before_barrier
        }
    }
}

/// Every phase of one task in one iteration.
pub type TaskIteration = [Sample; OPS];

impl Record for TaskIteration {
    const FIELDS: usize = 5 * OPS;

    fn to_fields(&self) -> Vec<f64> {
        self.iter()
            .flat_map(|s| {
                [
                    if s.ran { 1.0 } else { 0.0 },
                    s.time,
                    s.time_before_barrier,
                    s.items as f64,
                    s.retries.map_or(-1.0, |n| n as f64),
                ]
            })
            .collect()
    }

    fn from_fields(values: &[f64]) -> TaskIteration {
        let mut out = [Sample::default(); OPS];
        for (s, v) in out.iter_mut().zip(values.chunks_exact(5)) {
            *s = Sample {
                ran: v[0] != 0.0,
                time: v[1],
                time_before_barrier: v[2],
                items: v[3] as u64,
                retries: (v[4] >= 0.0).then_some(v[4] as u64),
            };
        }
        out
    }
}

/// One phase of one iteration, over all tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseResult {
    #[serde(deserialize_with = "operation")]
    pub operation: StaticName,
    /// Items handled by all tasks (tree rows: directories of one tree).
    pub items: u64,
    /// The longest task's time (tree rows: task 0's), seconds.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub time_s: f64,
    /// `items / time_s` (0 when no item was handled).
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub rate: f64,
    /// The merged distribution of the operations' latencies, seconds.
    #[serde(rename = "latencyPercentiles", skip_serializing_if = "Option::is_none")]
    pub latency: Option<Percentiles>,
    /// The signal that closed this phase early: its items are those handled
    /// until then.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_signal"
    )]
    pub interrupted: Option<StaticName>,
    /// Requests all tasks sent again in the phase (S3's 500 and 503): its
    /// time includes their waits. `None` on backends that never do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// Items over time, per task and in total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
}

/// An operation read back: one of [`Op::name`]'s.
pub fn operation<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    crate::units::one_of(d, &Op::ALL.map(Op::name))
}

/// The signal that stopped a phase, read back: one of the names of
/// [`crate::signals::SIGNALS`].
pub fn signal<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    let names = crate::signals::SIGNALS.map(crate::signals::name);
    crate::units::one_of(d, &names)
}

fn some_signal<'de, D>(d: D) -> Result<Option<&'static str>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    signal(d).map(Some)
}

fn ran() -> bool {
    true
}

/// Reduces one iteration's samples of `op` (tasks in rank order; only the
/// tasks that took part).
pub fn reduce(op: Op, tasks: &[TaskIteration]) -> Option<PhaseResult> {
    let i = op as usize;
    if !tasks.iter().any(|t| t[i].ran) {
        return None;
    }
    let (items, time) = if op.is_tree() {
        let s = tasks[0][i];
        (s.items, s.time)
    } else {
        (
            tasks.iter().map(|t| t[i].items).sum(),
            tasks.iter().map(|t| t[i].time).fold(0.0, f64::max),
        )
    };
    Some(PhaseResult {
        operation: op.name(),
        items,
        time_s: time,
        rate: if items == 0 || time <= 0.0 {
            0.0
        } else {
            items as f64 / time
        },
        latency: None,
        interrupted: None,
        timeline: None,
        retries: tasks
            .iter()
            .filter_map(|t| t[i].retries)
            .reduce(|a, b| a + b),
    })
}

/// One row of the summary.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    #[serde(deserialize_with = "operation")]
    pub operation: StaticName,
    /// Whether the phase ran in any iteration (rows that did not run print
    /// zeros in the text table and are left out of JSON: a row read back
    /// ran).
    #[serde(skip, default = "ran")]
    pub ran: bool,
    /// Rates (operations per second) over the iterations; the deviation is
    /// the sample one, as mdtest's.
    pub rate: Stats,
    /// Phase times (seconds) over the iterations.
    pub time_s: Stats,
    /// Each task's own rate before the closing barrier, over tasks and
    /// iterations (`--showRankStatistics`; not for tree rows).
    pub task_rate: Stats,
    /// Each task's own time before the closing barrier, seconds.
    pub task_time_s: Stats,
}

/// The summary of `iterations` (each: the samples of the tasks that took
/// part, in rank order).
pub fn summarize(iterations: &[Vec<TaskIteration>]) -> Vec<SummaryRow> {
    Op::ALL
        .iter()
        .map(|&op| {
            let phases: Vec<PhaseResult> = iterations
                .iter()
                .map(|tasks| {
                    reduce(op, tasks).unwrap_or(PhaseResult {
                        operation: op.name(),
                        items: 0,
                        time_s: 0.0,
                        rate: 0.0,
                        latency: None,
                        interrupted: None,
                        retries: None,
                        timeline: None,
                    })
                })
                .collect();
            let ran = iterations
                .iter()
                .any(|tasks| tasks.iter().any(|t| t[op as usize].ran));
            let rates: Vec<f64> = phases.iter().map(|p| p.rate).collect();
            let times: Vec<f64> = phases.iter().map(|p| p.time_s).collect();
            let samples: Vec<&Sample> = iterations
                .iter()
                .flat_map(|tasks| tasks.iter().map(move |t| &t[op as usize]))
                .collect();
            let own_rates: Vec<f64> = samples.iter().map(|s| s.own_rate()).collect();
            let own_times: Vec<f64> = samples.iter().map(|s| s.time_before_barrier).collect();
            SummaryRow {
                operation: op.name(),
                ran,
                rate: Stats::of(&rates, Deviation::Sample),
                time_s: Stats::of(&times, Deviation::Sample),
                task_rate: Stats::of(&own_rates, Deviation::Zero),
                task_time_s: Stats::of(&own_times, Deviation::Zero),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(time: f64, items: u64) -> Sample {
        Sample {
            ran: true,
            time,
            time_before_barrier: time,
            items,
            retries: None,
        }
    }

    #[test]
    fn rate_is_all_items_over_the_longest_time() {
        let mut a = [Sample::default(); OPS];
        let mut b = [Sample::default(); OPS];
        a[Op::FileCreate as usize] = sample(2.0, 100);
        b[Op::FileCreate as usize] = sample(4.0, 100);
        let r = reduce(Op::FileCreate, &[a, b]).unwrap();
        assert_eq!((r.items, r.time_s, r.rate), (200, 4.0, 50.0));
        assert_eq!(r.retries, None);
        a[Op::FileCreate as usize].retries = Some(2);
        b[Op::FileCreate as usize].retries = Some(1);
        assert_eq!(reduce(Op::FileCreate, &[a, b]).unwrap().retries, Some(3));
        assert!(reduce(Op::FileStat, &[a, b]).is_none());
    }

    #[test]
    fn tree_rows_use_task_zero() {
        let mut a = [Sample::default(); OPS];
        let mut b = [Sample::default(); OPS];
        a[Op::TreeCreate as usize] = sample(0.5, 7);
        b[Op::TreeCreate as usize] = sample(9.0, 7);
        let r = reduce(Op::TreeCreate, &[a, b]).unwrap();
        assert_eq!((r.items, r.rate), (7, 14.0));
    }

    #[test]
    fn summary_uses_the_sample_deviation() {
        let s = Stats::of(&[264208.126, 72713.631], Deviation::Sample);
        assert!((s.mean - 168460.8785).abs() < 1e-3);
        assert!((s.stddev - 135407.056).abs() < 1e-2, "{}", s.stddev);
        assert_eq!(Stats::of(&[5.0], Deviation::Sample).stddev, 0.0);
    }

    #[test]
    fn samples_survive_the_trip_to_rank_zero() {
        let mut a = [Sample::default(); OPS];
        a[3] = Sample {
            ran: true,
            time: 1.5,
            time_before_barrier: 1.25,
            items: 42,
            retries: None,
        };
        a[4].retries = Some(7);
        assert_eq!(TaskIteration::from_fields(&a.to_fields()), a);
    }
}
