//! A test's drawn phases (`rwmixRead`, `randomDistribution`,
//! `transferSizeSplit`): which plan each phase draws from, the untimed fill
//! that makes every read meet written data, and the per-kind figures of the
//! phase's row.

use hdrhistogram::Histogram;

use super::draws::{Distribution, MixPlan, Region, Shape, Visit};
use super::params::Ordering;
use super::results::{MixResult, PhaseResult};
use super::task_times::TaskTimes;
use super::test::TestRun;
use super::timed::PhasePlan;
use super::xfer_drawn::KindLatency;
use crate::backend::Access;
use crate::comm::agree;
use crate::error::Result;
use crate::latency::{self, Percentiles};

/// Which drawn phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Drawn {
    /// The write phase: `rwmixRead` of its operations read.
    Mixed,
    /// The read phase: every operation reads.
    Read,
    /// `-W` and the fill: every unit once, in order.
    Walk { read: bool },
}

impl TestRun<'_> {
    /// The plan of a drawn phase of `task`'s data; `None` without a mix.
    pub(super) fn drawn_plan(&self, which: Drawn, task: usize) -> Option<MixPlan> {
        let m = &self.p.mix;
        if !m.active() {
            return None;
        }
        let l = self.data.layout();
        let region = Region {
            first: if l.file_per_proc {
                0
            } else {
                task as u64 * l.block
            },
            stride: if l.file_per_proc {
                l.block
            } else {
                l.block * l.tasks
            },
            block: l.block,
            segments: l.segments,
            unit: l.transfer,
        };
        let visit = match (m.distribution, l.ordering) {
            (Some(d), _) => Visit::Drawn(d),
            (None, Ordering::Random) => Visit::Drawn(Distribution {
                shape: Shape::Uniform,
                center: None,
            }),
            (None, Ordering::Shuffled) => Visit::Shuffled,
            (None, Ordering::Sequential) => Visit::Sequential,
        };
        let (read_pct, visit, split) = match which {
            Drawn::Mixed => (m.read_pct.unwrap_or(0), visit, m.split.clone()),
            Drawn::Read => (100, visit, m.split.clone()),
            Drawn::Walk { read } => (if read { 100 } else { 0 }, Visit::Sequential, None),
        };
        Some(MixPlan {
            read_pct,
            visit,
            split,
            region,
            seed: l.seed,
            task: task as u64,
        })
    }

    /// Before a mixed write phase whose reads or drawn offsets would meet
    /// holes: every task writes its own data once, in order, untimed (fio
    /// lays its files out first). Not with `-E`: the data is there.
    pub(super) fn fill_for_mix(&mut self, rep: u64) -> Result<()> {
        let Some(mixed) = self.drawn_plan(Drawn::Mixed, self.task.rank) else {
            return Ok(());
        };
        let holes = matches!(mixed.visit, Visit::Drawn(_));
        if self.p.files.use_existing_test_file || !(mixed.read_pct > 0 || holes) {
            return Ok(());
        }
        let fill = self
            .drawn_plan(Drawn::Walk { read: false }, self.task.rank)
            .expect("a mix");
        let plan = PhasePlan {
            limit: fill.ops_per_pass(),
            deadline: None,
            wear_out: false,
            min_time: 0.0,
            collective_checks: false,
        };
        self.out
            .note(1, "Filling the test data before the mixed phase (untimed)");
        let rank = self.task.rank;
        let filled = self.timed_io(Access::Write, rep, rank, false, plan, Some(&fill));
        agree(self.comm, filled).map(|_| ())
    }
}

/// Each task's read and write latencies merged on rank 0 (every task
/// calls it, in the same order).
pub(super) fn merge_kinds(
    comm: &dyn crate::comm::Comm,
    kinds: Option<&KindLatency>,
) -> Result<Option<[Histogram<u64>; 2]>> {
    let Some(k) = kinds else {
        return Ok(None);
    };
    let read = latency::merge(comm, 0, k.read.histogram())?;
    let write = latency::merge(comm, 0, k.write.histogram())?;
    Ok(Some([read, write]))
}

/// Rank 0: the row of a drawn phase, with its kinds apart.
pub(super) fn drawn_row(
    row: &mut PhaseResult,
    plan: &MixPlan,
    all: &[TaskTimes],
    kinds: Option<&[Histogram<u64>; 2]>,
    which: Drawn,
    describe: (Option<String>, Option<String>),
) {
    if which == Drawn::Mixed && plan.read_pct > 0 {
        row.access = "mixed";
    }
    // IOPS in operations: with a split the sizes differ.
    row.iops = row.transfers as f64 / row.wr_rd;
    let mut mix = MixResult::of(all, row, plan.read_pct);
    if let Some([read, write]) = kinds {
        mix.read.latency_percentiles = Percentiles::of(read);
        mix.write.latency_percentiles = Percentiles::of(write);
        let mut both = read.clone();
        let _ = both.add(write);
        row.latency_percentiles = Percentiles::of(&both);
    }
    (mix.distribution, mix.split) = describe;
    row.mix = Some(mix);
}
