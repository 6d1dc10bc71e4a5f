//! The phases of a repetition: a timed write or read, the untimed `-W`
//! check, and what surrounds them (preparing the files, the page cache, the
//! stonewall status file, the row every task's times reduce to).

use std::time::Duration;

use hdrhistogram::Histogram;

use super::drawn_phase::{drawn_row, merge_kinds, Drawn};
use super::draws::MixPlan;
use super::params::Ordering;
use super::results::{access_name, outliers, reduce_phase, PhaseResult};
use super::sink::PhaseDone;
use super::stonewall_result::StonewallResult;
use super::task_times::TaskTimes;
use super::test::TestRun;
use super::timed::{PhaseOutcome, PhasePlan};
use crate::backend::cpath::c_path;
use crate::backend::Access;
use crate::comm::{agree, broadcast_value, gather_records, ReduceOp};
use crate::error::{Error, Result};
use crate::latency::{self, Percentiles};
use crate::pagecache::{CacheReport, Residency};
use crate::run::info::now_string;
use crate::run::stonewall::{read_status, write_status};
use crate::run::stop;
use crate::run::tally::WrongData;
use crate::series::{Series, Timeline};
use crate::units;

/// A timed phase as rank 0 reports it.
struct Phase<'d> {
    access: Access,
    rep: u64,
    plan: PhasePlan,
    /// A drawn phase: its plan and which one it is.
    drawn: Option<(&'d MixPlan, Drawn)>,
}

/// What the tasks of a phase bring together at its end: every task's times
/// and the merged latencies (rank 0's), the signal that stopped it and the
/// requests sent again (every task's).
struct Gathered {
    all: Vec<TaskTimes>,
    latency: Option<Histogram<u64>>,
    kinds: Option<[Histogram<u64>; 2]>,
    interrupted: Option<i32>,
    retries: Option<u64>,
    series: Vec<Series>,
}

impl TestRun<'_> {
    /// A timed write or read phase; returns the verification counts of all
    /// tasks.
    pub fn measured_phase(&mut self, access: Access, rep: u64) -> Result<WrongData> {
        let cache = self.before_phase(access, rep)?;
        let which = match access {
            Access::Write => Drawn::Mixed,
            Access::Read => Drawn::Read,
        };
        let pretend = self.pretend(access);
        let drawn = self.drawn_plan(which, pretend);
        let phases = &self.p.phases;
        // A mixed write phase verifies its reads under -W or -R.
        let verify = match (access, &drawn) {
            (Access::Read, _) => phases.check_read,
            (Access::Write, Some(_)) => phases.check_write || phases.check_read,
            (Access::Write, None) => false,
        } && self.files.choice().capabilities().stores_data;
        if drawn.is_none() {
            let range = self.random_read_range(access, rep);
            self.data.set_read_range(range);
        }
        let plan = self.plan(access, drawn.as_ref());
        let retries_before = self.files.backend().retries();
        let outcome = self.timed_io(access, rep, pretend, verify, plan, drawn.as_ref());
        let outcome = agree(self.comm, outcome)?;
        let (gathered, errors) = self.gather(&outcome, retries_before)?;
        let mut status = Ok(());
        let mut name = access_name(access);
        if self.task.rank == 0 {
            let drawn = drawn.as_ref().map(|d| (d, which));
            let phase = Phase {
                access,
                rep,
                plan,
                drawn,
            };
            name = self.tell_phase(&phase, &gathered, cache, &mut status);
        }
        agree(self.comm, status)?;
        if let Some(signal) = gathered.interrupted {
            return Err(stop::interrupted(signal));
        }
        if drawn.as_ref().is_some_and(|d| d.read_pct > 0) && access == Access::Write {
            name = "mixed";
        }
        self.warn_wrong_data(name, errors)?;
        // A stonewalled or shortened phase leaves the files partly written.
        if access == Access::Write
            && plan.deadline.is_none()
            && plan.limit == self.data.layout().transfers_per_task()
        {
            self.check_file_size(rep)?;
        }
        Ok(errors)
    }

    /// Up to a phase's opening barrier: `-d`, a stop agreed, the files
    /// prepared (a write) or the status file and the page cache (a read).
    /// Returns what the page cache held before a read, when looked at.
    fn before_phase(&mut self, access: Access, rep: u64) -> Result<Option<CacheReport>> {
        if self.p.phases.inter_test_delay > 0.0 {
            stop::sleep(units::duration_of(self.p.phases.inter_test_delay));
        }
        stop::check(self.comm)?;
        let cache = match access {
            Access::Write => {
                self.prepare_write(rep)?;
                None
            }
            Access::Read => {
                self.read_status_file()?;
                self.page_cache_before_read(rep)?
            }
        };
        self.out.note(
            1,
            &format!(
                "Commencing {} performance test: {}",
                access_name(access),
                now_string()
            ),
        );
        self.comm.barrier()?;
        Ok(cache)
    }

    /// Every task's part of a phase's end (collective, in this order): the
    /// stop agreed, the retries summed, the times gathered, the wrong data
    /// summed, the latencies merged.
    fn gather(
        &mut self,
        outcome: &PhaseOutcome,
        retries_before: Option<u64>,
    ) -> Result<(Gathered, WrongData)> {
        let interrupted = stop::agreed(self.comm)?;
        let retries = self.phase_retries(retries_before)?;
        let all = gather_records(self.comm, 0, &outcome.times)?;
        let series = gather_records(self.comm, 0, &outcome.series)?;
        let errors = outcome.errors.sum(self.comm)?;
        let latency = match &outcome.latency {
            Some(recorder) => Some(latency::merge(self.comm, 0, recorder.histogram())?),
            None => None,
        };
        let kinds = merge_kinds(self.comm, outcome.kind_latency.as_ref())?;
        let gathered = Gathered {
            all,
            latency,
            kinds,
            interrupted,
            retries,
            series,
        };
        Ok((gathered, errors))
    }

    /// Rank 0: the phase's row, told to the sinks and added to the report;
    /// returns the phase's name (a drawn phase's may be "mixed").
    fn tell_phase(
        &mut self,
        phase: &Phase<'_>,
        g: &Gathered,
        cache: Option<CacheReport>,
        status: &mut Result<()>,
    ) -> &'static str {
        let (access, rep) = (phase.access, phase.rep);
        let mut name = access_name(access);
        let mut row = self.phase_row(access, rep, &g.all, phase.plan, status);
        row.latency_percentiles = g.latency.as_ref().and_then(Percentiles::of);
        row.timeline = Some(Timeline::of(&g.series, "transfers"));
        if let Some((d, which)) = phase.drawn {
            let m = &self.p.mix;
            let describe = (
                m.distribution.map(|d| d.describe()),
                m.split.as_ref().map(|s| s.describe()),
            );
            drawn_row(&mut row, d, &g.all, g.kinds.as_ref(), which, describe);
            name = row.access;
        }
        row.interrupted = g.interrupted.map(|s| stop::name(s).to_string());
        row.retries = g.retries;
        if let Some(cache) = cache {
            row.page_cache = Some(self.assess_cache(name, rep, cache));
        }
        self.report_outliers(name, &g.all, &row);
        let done = PhaseDone {
            test: self.out.report().test_id,
            row: &row,
            tasks: &g.all,
            latency: g.latency.as_ref(),
            kinds: g.kinds.as_ref(),
        };
        self.out.each(|s| s.phase_done(&done));
        self.tell_retries(name, rep, g.retries);
        self.out.add_result(row);
        name
    }

    /// Rank 0: the Results row of the phase, with what stonewalling did;
    /// a status file that cannot be written is put in `status`.
    fn phase_row(
        &mut self,
        access: Access,
        rep: u64,
        all: &[TaskTimes],
        plan: PhasePlan,
        status: &mut Result<()>,
    ) -> PhaseResult {
        let g = &self.p.geometry;
        let mut row = reduce_phase(access, rep, all, g.block_size, g.transfer_size);
        if plan.deadline.is_none() {
            return row;
        }
        let wall = StonewallResult::of(all);
        self.out.note(0, &wall.log_line());
        let name = access_name(access);
        let deadline = self.p.stonewall.deadline;
        let verdict = match wall.hit {
            true => format!("{name} phase {rep} stopped at the -D {deadline} s deadline"),
            false => format!(
                "{name} phase {rep} finished all its transfers before the -D {deadline} s deadline"
            ),
        };
        self.out.note(1, &verdict);
        if let (true, Access::Write, Some(path)) =
            (plan.wear_out, access, &self.p.stonewall.status_file)
        {
            *status = write_status(path, wall.pairs_max).map_err(|e| Error::task(0, e));
        }
        row.stonewall = Some(wall);
        row
    }

    /// The requests every task sent again during the phase (S3's 500 and
    /// 503), counted as reported by the backend; `None` when the backend
    /// never sends one again.
    fn phase_retries(&self, before: Option<u64>) -> Result<Option<u64>> {
        let mine = crate::backend::retries_since(self.files.backend(), before);
        let all = crate::comm::reduce_u64(self.comm, mine.unwrap_or(0), ReduceOp::Sum)?;
        Ok(mine.map(|_| all))
    }

    /// Rank 0: a line for a phase whose requests were sent again, so the
    /// waits in its time are never hidden.
    fn tell_retries(&mut self, name: &str, rep: u64, retries: Option<u64>) {
        if let Some(n @ 1..) = retries {
            let text = format!(
                "WARNING: {name} phase {rep}: {n} requests were sent again after HTTP 500 or \
                 503 (SlowDown); the phase's time includes their waits"
            );
            self.out.advise(&text);
        }
    }

    /// Rank 0: the page cache a read met, and the warning it deserves.
    fn assess_cache(&mut self, name: &str, rep: u64, mut cache: CacheReport) -> CacheReport {
        self.out
            .note(1, &format!("{name}-{rep}: {}", cache.describe()));
        cache.assess();
        if let Some(w) = &cache.warning {
            // The text shows it with the page cache, after the table.
            self.out.keep_warning(w.clone());
        }
        cache
    }

    /// Rank 0, `-j`: every task further than the threshold from the mean.
    fn report_outliers(&mut self, name: &str, all: &[TaskTimes], row: &PhaseResult) {
        let threshold = self.p.measure.outlier_threshold;
        if threshold == 0 {
            return;
        }
        let mean = row.spread.as_ref().map_or(0.0, |s| s.total_mean);
        for (task, total) in outliers(all, threshold as f64) {
            let text = format!(
                "WARNING: task {task} took {total:.6} s for {name} (open to close), more than {threshold} s from the mean of {mean:.6} s"
            );
            self.out.advise(&text);
        }
    }

    /// Before a write phase: the `-u` directory, and the old file out of the
    /// way unless `-E`; then `--randomPrefill`.
    fn prepare_write(&mut self, rep: u64) -> Result<()> {
        let prepared = self.prepare_files(rep);
        agree(self.comm, prepared)?;
        if self.p.geometry.random_prefill > 0 {
            let filled = self.prefill(rep);
            agree(self.comm, filled)?;
        }
        self.fill_for_mix(rep)?;
        Ok(())
    }

    fn prepare_files(&mut self, rep: u64) -> Result<()> {
        if !self.task.active {
            return Ok(());
        }
        let (responsible, reuse) = (self.responsible(), self.p.files.use_existing_test_file);
        self.files.prepare_write(rep, responsible, reuse)
    }

    /// Before a read phase: the transfer count of the stonewalling status
    /// file, if one is given.
    fn read_status_file(&mut self) -> Result<()> {
        let Some(path) = &self.p.stonewall.status_file else {
            return Ok(());
        };
        let count = match self.task.rank {
            0 => read_status(path).map_err(|e| Error::task(0, e)),
            _ => Ok(0),
        };
        let count = agree(self.comm, count)?;
        let count = broadcast_value(self.comm, 0, &count)?;
        self.out.note(
            1,
            &format!("Using stonewalling status file {path}: {count} transfers per task"),
        );
        self.data.set_status_count(count);
        Ok(())
    }

    /// Before a read: how much of the data each task is about to read is in
    /// its node's page cache, and, if asked, eviction and a second look.
    fn page_cache_before_read(&mut self, rep: u64) -> Result<Option<CacheReport>> {
        if !self.p.measure.cache_check || !self.files.choice().capabilities().stores_data {
            return Ok(None);
        }
        let evict = self.test.evicts();
        let mine = match self.task.active {
            true => self.residency(rep, evict),
            false => Ok((Residency::default(), None)),
        };
        let (before, after) = agree(self.comm, mine)?;
        let after = after.unwrap_or_default();
        let mut v = [
            before.resident,
            before.examined,
            before.total,
            after.resident,
            after.examined,
            after.total,
        ];
        self.comm.all_reduce_u64(&mut v, ReduceOp::Sum)?;
        let (topology, readers) = (self.data.topology(), self.data.readers());
        let readers_elsewhere = (0..topology.size())
            .filter(|&r| topology.node_of(r) != topology.node_of(readers.writer_of(r)))
            .count();
        let sum = |i: usize| Residency {
            resident: v[i],
            examined: v[i + 1],
            total: v[i + 2],
        };
        Ok(Some(CacheReport {
            before: sum(0),
            after_eviction: evict.then(|| sum(3)),
            cross_node: topology.num_nodes() > 1 && readers_elsewhere == topology.size(),
            direct: self.files.choice().alignment().is_some(),
            warning: None,
        }))
    }

    /// This task's share of the page cache before its read (and after
    /// eviction, when asked).
    fn residency(&self, rep: u64, evict: bool) -> Result<(Residency, Option<Residency>)> {
        let pretend = self.pretend(Access::Read);
        let path = self.files.path(pretend, rep);
        let (ranges, total) = self.data.layout().task_ranges(pretend, 4096);
        let names = self.files.backend().namespace();
        let fs = self.files.fs();
        let c = c_path(&path).map_err(|e| fs.error("cannot use", &path, &e))?;
        // A file that cannot be examined (it may not exist yet: the read
        // will say so) simply counts as examined-nothing.
        let look = |ranges: &[(u64, u64)]| match names.residency(&c, ranges) {
            Ok(Some(r)) => Residency { total, ..r },
            _ => Residency::default(),
        };
        let before = look(&ranges);
        if !(evict && names.exists(&c).unwrap_or(false)) {
            return Ok((before, None));
        }
        names
            .evict(&c, &ranges)
            .map_err(|e| fs.error("cannot evict from the page cache", &path, &e))?;
        Ok((before, Some(look(&ranges))))
    }

    /// `-W`: reads back what this task wrote and verifies it, untimed.
    pub fn check_phase(&mut self, rep: u64) -> Result<WrongData> {
        self.out.note(
            1,
            &format!(
                "Verifying contents of the file(s) just written.\n{}",
                now_string()
            ),
        );
        self.comm.barrier()?;
        let rank = self.task.rank;
        let drawn = self.drawn_plan(Drawn::Walk { read: true }, rank);
        let plan = self.plan(Access::Read, drawn.as_ref());
        let outcome = self.timed_io(Access::Read, rep, rank, true, plan, drawn.as_ref());
        let outcome = agree(self.comm, outcome)?;
        stop::check(self.comm)?;
        let errors = outcome.errors.sum(self.comm)?;
        self.warn_wrong_data("write", errors)?;
        Ok(errors)
    }

    /// The warning about wrong data found in a phase (`-W` checks the
    /// write), if any.
    fn warn_wrong_data(&mut self, phase: &str, errors: WrongData) -> Result<()> {
        if errors.wrong == 0 {
            return Ok(());
        }
        let text = format!(
            "WARNING: incorrect data on {phase} ({} errors found: {} of {} transfers, {} bytes wrong)",
            errors.wrong, errors.wrong, errors.checked, errors.bytes
        );
        self.out.warn_agreed(&text)
    }

    /// After a write: the files should hold exactly what was written.
    fn check_file_size(&mut self, rep: u64) -> Result<()> {
        let choice = self.files.choice();
        if !choice.capabilities().stores_data
            || !choice.exact_file_size()
            || self.data.layout().ordering == Ordering::Random
        {
            return Ok(());
        }
        let size = match self.responsible() {
            true => self
                .files
                .fs()
                .size_of(&self.files.path(self.task.rank, rep)),
            false => Ok(0),
        };
        let size = agree(self.comm, size)?;
        let mut total = [size];
        self.comm.all_reduce_u64(&mut total, ReduceOp::Sum)?;
        let expected = self.data.layout().aggregate_size();
        if total[0] == expected {
            return Ok(());
        }
        let text = format!(
            "WARNING: Expected aggregate file size = {expected}; stat() of the file(s) reports {}",
            total[0]
        );
        self.out.warn_agreed(&text)
    }

    /// How a phase ends: its last transfer, a deadline, or a count.
    /// `-z -z` reads, as IOR draws them: within the transfers the file
    /// holds, when it holds fewer than a full file (written with fewer
    /// segments, say). Said at `-v`.
    fn random_read_range(&mut self, access: Access, rep: u64) -> Option<u64> {
        let layout = self.data.layout();
        let random = layout.ordering == Ordering::Random;
        if access != Access::Read || !random || !self.task.active {
            return None;
        }
        let path = self.files.path(self.pretend(access), rep);
        let size = c_path(&path)
            .and_then(|c| self.files.backend().stat(&c))
            .ok()?
            .size;
        let (held, full) = (size / layout.transfer, layout.transfers_in_file());
        // An empty file fails the read as before, naming it.
        if held >= full || held == 0 {
            return None;
        }
        if self.task.rank == 0 {
            let text = format!(
                "random offsets of the read phase drawn within the file's size: \
                 {held} of {full} transfers ({size} bytes in {})",
                path.display()
            );
            self.out.note(1, &text);
        }
        Some(held)
    }

    pub fn plan(&self, access: Access, drawn: Option<&MixPlan>) -> PhasePlan {
        let wall = &self.p.stonewall;
        let mut limit = drawn.map_or(
            self.data.layout().transfers_per_task(),
            MixPlan::ops_per_pass,
        );
        if wall.wear_out_iterations > 0 {
            limit = limit.min(wall.wear_out_iterations);
        }
        if let (Access::Read, Some(count)) = (access, self.data.status_count()) {
            limit = limit.min(count);
        }
        let deadline = (wall.deadline > 0).then(|| Duration::from_secs(wall.deadline));
        PhasePlan {
            limit,
            deadline,
            wear_out: wall.wear_out && deadline.is_some(),
            min_time: wall.min_time as f64,
            // Collective transfers stop together: at agreed checkpoints.
            collective_checks: self.p.transfers.collective,
        }
    }
}
