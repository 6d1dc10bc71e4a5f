//! What a phase measured on one rank, and md-workbench's formulas: rates,
//! throughput, balance, and the quantiles of each operation's times.

use serde::{Deserialize, Serialize};

use crate::comm::Record;
use crate::latency::Percentiles;
use crate::series::Timeline;
use crate::stats::{Deviation, Stats};
use crate::units::{StaticName, MIB};

/// The timed operations, in the order the text lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Read,
    Stat,
    Create,
    Delete,
}

impl OpKind {
    pub const ALL: [OpKind; 4] = [OpKind::Read, OpKind::Stat, OpKind::Create, OpKind::Delete];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Stat => "stat",
            OpKind::Create => "create",
            OpKind::Delete => "delete",
        }
    }
}

/// The counters of one phase on one rank (or summed over ranks).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Counts {
    pub dsets_created: u64,
    pub dsets_removed: u64,
    pub objs_created: u64,
    pub objs_read: u64,
    pub objs_stat: u64,
    pub objs_deleted: u64,
    /// Failures, by what failed (md-workbench's six error counters).
    pub errors: Errors,
}

/// md-workbench's error counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Errors {
    pub dsets_create: u64,
    pub dsets_remove: u64,
    pub objs_create: u64,
    pub objs_read: u64,
    pub objs_stat: u64,
    pub objs_delete: u64,
}

impl Errors {
    pub fn all(&self) -> [u64; 6] {
        [
            self.dsets_create,
            self.dsets_remove,
            self.objs_create,
            self.objs_read,
            self.objs_stat,
            self.objs_delete,
        ]
    }

    pub fn total(&self) -> u64 {
        self.all().iter().sum()
    }

    fn from_all(v: &[u64]) -> Errors {
        Errors {
            dsets_create: v[0],
            dsets_remove: v[1],
            objs_create: v[2],
            objs_read: v[3],
            objs_stat: v[4],
            objs_delete: v[5],
        }
    }
}

impl Counts {
    /// The six counts, in md-workbench's order: datasets created and
    /// removed, objects created, read, stat'ed and deleted.
    pub fn all(&self) -> [u64; 6] {
        [
            self.dsets_created,
            self.dsets_removed,
            self.objs_created,
            self.objs_read,
            self.objs_stat,
            self.objs_deleted,
        ]
    }

    fn add(&mut self, o: &Counts) {
        self.dsets_created += o.dsets_created;
        self.dsets_removed += o.dsets_removed;
        self.objs_created += o.objs_created;
        self.objs_read += o.objs_read;
        self.objs_stat += o.objs_stat;
        self.objs_deleted += o.objs_deleted;
        let sum: Vec<u64> = self
            .errors
            .all()
            .iter()
            .zip(o.errors.all())
            .map(|(a, b)| a + b)
            .collect();
        self.errors = Errors::from_all(&sum);
    }
}

/// One rank's phase: its counters, its time and its longest operation.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct RankPhase {
    #[serde(flatten, deserialize_with = "crate::units::with_path")]
    pub counts: Counts,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub time_s: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub op_max_s: f64,
}

impl Record for RankPhase {
    const FIELDS: usize = 14;

    fn to_fields(&self) -> Vec<f64> {
        let c = &self.counts;
        c.all()
            .into_iter()
            .chain(c.errors.all())
            .map(|v| v as f64)
            .chain([self.time_s, self.op_max_s])
            .collect()
    }

    fn from_fields(f: &[f64]) -> RankPhase {
        RankPhase {
            counts: Counts {
                dsets_created: f[0] as u64,
                dsets_removed: f[1] as u64,
                objs_created: f[2] as u64,
                objs_read: f[3] as u64,
                objs_stat: f[4] as u64,
                objs_deleted: f[5] as u64,
                errors: Errors::from_all(&f[6..12].iter().map(|&v| v as u64).collect::<Vec<_>>()),
            },
            time_s: f[12],
            op_max_s: f[13],
        }
    }
}

/// md-workbench's seven quantiles of an operation's times: min, q1,
/// median, q3, q90, q99, max.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Quantiles {
    pub op: OpKind,
    pub count: usize,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub min: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub q1: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub median: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub q3: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub q90: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub q99: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub max: f64,
}

impl Quantiles {
    /// Of `times` (sorted here), as md-workbench picks them: the median is
    /// the middle value or the mean of the two middle ones; the others are
    /// `a[round(q(n-1) + 0.49)]`. `None` for no times.
    pub fn of(op: OpKind, times: &mut [f32]) -> Option<Quantiles> {
        if times.is_empty() {
            return None;
        }
        times.sort_by(f32::total_cmp);
        let n = times.len();
        let at = |q: f64| times[((q * (n - 1) as f64 + 0.49).round() as usize).min(n - 1)] as f64;
        let median = match n % 2 {
            1 => times[n / 2] as f64,
            _ => (times[n / 2 - 1] as f64 + times[n / 2] as f64) / 2.0,
        };
        Some(Quantiles {
            op,
            count: n,
            min: times[0] as f64,
            q1: at(0.25),
            median,
            q3: at(0.75),
            q90: at(0.90),
            q99: at(0.99),
            max: times[n - 1] as f64,
        })
    }
}

/// A phase over all ranks: what the text line and the JSON say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PhaseSummary {
    #[serde(deserialize_with = "phase")]
    pub phase: StaticName,
    /// Summed over ranks.
    #[serde(flatten, deserialize_with = "crate::units::with_path")]
    pub counts: Counts,
    /// The longest rank's time, and the shortest and mean.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub max_s: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub min_s: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub mean_s: f64,
    /// `min / max × 100`.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub balance: f64,
    /// Sample deviation of the ranks' times (NaN for one rank).
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub stddev_s: f64,
    /// Operations per second, md-workbench's `rate`.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub rate: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub objects_per_s: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub dsets_per_s: f64,
    /// MiB/s of object data created and read.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub throughput_mib: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub op_max_s: f64,
    pub quantiles: Vec<Quantiles>,
    pub ranks: Vec<RankPhase>,
    /// Each rank's own quantiles (`--process-reports`).
    #[serde(skip)]
    pub rank_quantiles: Vec<Vec<Quantiles>>,
    /// With `-w`: the benchmark iterations done (the most of any rank).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stonewall_iter: Option<u64>,
    /// The benchmark's `-R` iteration (with `-T`, eight phases share one).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iteration: Option<u64>,
    /// `-t`, or `-T`'s factor of this phase (0 outside the benchmark).
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub waiting_factor: f64,
    /// pario's percentiles of each operation, from every rank's histogram.
    #[serde(
        rename = "latencyPercentiles",
        default,
        skip_serializing_if = "Vec::is_empty"
    )]
    pub latency: Vec<OpPercentiles>,
    /// Requests all ranks sent again in the phase (S3's 500 and 503): its
    /// time includes their waits. `None` on backends that never do.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retries: Option<u64>,
    /// The timed operations over time, per rank and in total.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeline: Option<Timeline>,
}

/// An operation kind's percentiles.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct OpPercentiles {
    pub op: OpKind,
    #[serde(flatten, deserialize_with = "crate::units::with_path")]
    pub p: Percentiles,
}

/// md-workbench's phases, in the order they run (the runner's names).
pub const PHASES: [&str; 3] = ["precreate", "benchmark", "cleanup"];

/// A phase read back: one of [`PHASES`].
fn phase<'de, D: serde::Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    crate::units::one_of(d, &PHASES)
}

/// Summarises a phase from every rank's record (rank order); `object_size`
/// for the throughput, `read_only` doubling nothing but the benchmark rate's
/// weight as md-workbench does.
pub fn summarize(
    phase: &'static str,
    ranks: Vec<RankPhase>,
    quantiles: Vec<Quantiles>,
    object_size: u64,
    read_only: bool,
) -> PhaseSummary {
    let mut counts = Counts::default();
    for r in &ranks {
        counts.add(&r.counts);
    }
    let times: Vec<f64> = ranks.iter().map(|r| r.time_s).collect();
    let time = Stats::of(&times, Deviation::SampleAsC);
    let (max, min) = (time.max.max(0.0), time.min);
    let one = RankPhase {
        counts,
        time_s: max,
        op_max_s: ranks.iter().map(|r| r.op_max_s).fold(0.0, f64::max),
    };
    let (rate, objects_per_s, dsets_per_s, throughput_mib) =
        rates(phase, &one, object_size, read_only);
    PhaseSummary {
        phase,
        counts,
        max_s: max,
        min_s: min,
        mean_s: time.mean,
        balance: if max > 0.0 { min / max * 100.0 } else { 100.0 },
        stddev_s: time.stddev,
        rate,
        objects_per_s,
        dsets_per_s,
        throughput_mib,
        op_max_s: one.op_max_s,
        quantiles,
        ranks,
        rank_quantiles: Vec::new(),
        stonewall_iter: None,
        iteration: None,
        waiting_factor: 0.0,
        latency: Vec::new(),
        retries: None,
        timeline: None,
    }
}

/// md-workbench's formulas for a phase (over all ranks, or one rank's own):
/// (rate, objects/s, datasets/s, throughput MiB/s).
pub fn rates(
    phase: &str,
    r: &RankPhase,
    object_size: u64,
    read_only: bool,
) -> (f64, f64, f64, f64) {
    let c = &r.counts;
    let t = r.time_s;
    let per_s = |v: u64| if t > 0.0 { v as f64 / t } else { 0.0 };
    let tp = per_s(c.objs_created + c.objs_read) * object_size as f64 / MIB as f64;
    match phase {
        "precreate" => (
            per_s(c.dsets_created + c.objs_created),
            per_s(c.objs_created),
            per_s(c.dsets_created),
            tp,
        ),
        "cleanup" => (
            per_s(c.objs_deleted + c.dsets_removed),
            per_s(c.objs_deleted),
            per_s(c.dsets_removed),
            tp,
        ),
        _ => {
            let ops = if read_only { 2 } else { 4 };
            (per_s(c.objs_read * ops), per_s(c.objs_read), 0.0, tp)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_pick_md_workbenchs_elements() {
        let mut t: Vec<f32> = (1..=10).map(|v| v as f32).collect();
        let q = Quantiles::of(OpKind::Stat, &mut t).unwrap();
        assert_eq!((q.min, q.max), (1.0, 10.0));
        assert_eq!(q.median, 5.5);
        // round(0.25 * 9 + 0.49) = round(2.74) = 3: the fourth value.
        assert_eq!(q.q1, 4.0);
        assert_eq!(q.q3, 8.0); // round(7.24) = 7
        assert_eq!(q.q90, 10.0); // round(8.59) = 9
        assert_eq!(q.q99, 10.0);
        let mut odd = vec![3.0f32, 1.0, 2.0];
        assert_eq!(Quantiles::of(OpKind::Read, &mut odd).unwrap().median, 2.0);
        assert!(Quantiles::of(OpKind::Read, &mut []).is_none());
    }

    #[test]
    fn benchmark_rate_counts_four_operations_per_object_read() {
        let r = RankPhase {
            counts: Counts {
                objs_read: 100,
                objs_created: 100,
                ..Default::default()
            },
            time_s: 2.0,
            op_max_s: 0.0,
        };
        let (rate, objs, _, tp) = rates("benchmark", &r, MIB, false);
        assert_eq!((rate, objs, tp), (200.0, 50.0, 100.0));
        assert_eq!(rates("benchmark", &r, 1, true).0, 100.0);
    }
}
