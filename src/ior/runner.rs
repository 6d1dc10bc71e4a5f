//! The IOR test runner: repetitions, phases, timers, checks and cleanup.
//!
//! Every task runs this code against `&dyn Comm`. A repetition is: write
//! (`-w`), write check (`-W`, untimed), read (`-r`, verifying with `-R`), then
//! removal of the files unless `-k`. Each timed phase starts with a barrier;
//! each task stamps open, transfer and close (with `-g`, barriers between
//! them); rank 0 gathers the stamps and computes the row.
//!
//! Failures travel to the next collective point ([`agree`]), so every task
//! stops together and rank 0 reports the lowest failing rank. Cleanup removes
//! only the files this run wrote and the directories it created.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::files::FileNames;
use super::layout::Layout;
use super::params::{IorParams, Ordering};
use super::reorder::{ReaderMap, Reorder};
use super::report::{
    OptionsEcho, ParametersEcho, RunReport, Scale, SummaryRow, TestReport, VerifyCounts,
};
use super::results::{access_name, outliers, reduce_phase, summarize, TaskTimes};
use super::sink::IorSink;
use super::stonewall::{read_status, write_status, CollectiveStop, Deadline, StonewallResult};
use super::xfer::{Pass, Progress, XferOptions};
use super::{IorRun, IorTest};
use crate::backend::cpath::c_path;
use crate::backend::{
    self, write_fully, Access, Backend, BlockView, Choice, File, OpenSpec, Retry,
};
use crate::buffer::{AlignedBuffer, PAGE};
use crate::comm::{agree, broadcast_value, gather_f64, Comm, ReduceOp, Topology};
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::latency::{self, LatencyRecorder, Percentiles};
use crate::memhog::{self, MemoryHog};
use crate::output::Outputs;
use crate::pagecache::{CacheReport, Residency};
use crate::pattern::Pattern;
use crate::progress;
use crate::run::info::{machine, now_string, version, ParioInfo};
use crate::tool::Finished;

/// Rank 0's outputs (none on other ranks).
type Out = Outputs<dyn IorSink>;

/// Runs every test on this task. Rank 0's report is complete; every task
/// ends with the same outcome.
pub fn run(comm: &dyn Comm, run: &IorRun, out: &mut Out) -> Finished<RunReport> {
    let tests = &run.tests;
    let mut report = RunReport {
        version: version(),
        began: now_string(),
        command_line: run.command_line.clone(),
        machine: machine(tests[0].params.verbose),
        pario: ParioInfo::of(comm),
        tests: Vec::new(),
        summary: Vec::new(),
        finished: String::new(),
        error: None,
    };
    out.each(|s| s.run_started(&report));
    let lines = out.task_lines();
    let mut data_errors = VerifyCounts::default();
    let mut failure = None;
    for (id, test) in tests.iter().enumerate() {
        let outcome = TestRun::new(comm, out, id, test, lines).and_then(TestRun::run);
        match outcome {
            Ok(test) => {
                data_errors.add(test.data_errors);
                if comm.rank() == 0 {
                    out.each(|s| s.test_done(&test));
                    report.tests.push(test);
                }
            }
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    for test in &report.tests {
        for access in ["write", "read"] {
            let rows: Vec<_> = test.results.iter().filter(|r| r.access == access).collect();
            if !rows.is_empty() {
                let s = summarize(&rows, test.parameters.transfer_size);
                report.summary.push(SummaryRow::new(access, test, &s));
            }
        }
    }
    report.finished = now_string();
    report.error = failure.as_ref().map(|e| e.to_string());
    out.each(|s| s.run_done(&report));
    let result = match failure.or_else(|| data_errors.error()) {
        Some(e) => Err(e),
        None => Ok(()),
    };
    Finished { report, result }
}

/// What one task brings back from a phase.
struct PhaseOutcome {
    times: TaskTimes,
    errors: VerifyCounts,
    latency: Option<LatencyRecorder>,
}

/// How a phase ends: at its last transfer, at a deadline, or at a count.
#[derive(Debug, Clone, Copy)]
struct PhasePlan {
    /// Transfers per task in one pass.
    limit: u64,
    /// `-D`.
    deadline: Option<Duration>,
    /// `stoneWallingWearOut` (with `-D`).
    wear_out: bool,
    /// `minTimeDuration`, seconds.
    min_time: f64,
    /// Collective transfers with `-D`: stop decisions are agreed.
    collective_checks: bool,
}

/// One test on one task.
struct TestRun<'a> {
    comm: &'a dyn Comm,
    out: &'a mut Out,
    p: &'a IorParams,
    /// The checked backend (DUMMY for `--dryRun`) and the one built from it.
    choice: Choice,
    backend: Box<dyn Backend>,
    layout: Layout,
    names: FileNames,
    /// The tasks taking part and their nodes.
    topology: Topology,
    /// Whose data each task reads.
    readers: ReaderMap,
    rank: usize,
    active: bool,
    signature: i64,
    buffer: AlignedBuffer,
    /// Files this task wrote in this run and must remove.
    owned: Vec<PathBuf>,
    created_dirs: Vec<PathBuf>,
    report: TestReport,
    rank_details: Option<std::fs::File>,
    /// Memory held away from the page cache for the test (`-M`).
    _hog: MemoryHog,
    /// Transfers a read phase makes, from the stonewalling status file.
    status_count: Option<u64>,
    /// Where this task's own lines go (stdout unless it carries JSON or CSV).
    lines: TaskLines,
}

impl<'a> TestRun<'a> {
    fn new(
        comm: &'a dyn Comm,
        out: &'a mut Out,
        id: usize,
        test: &'a IorTest,
        lines: TaskLines,
    ) -> Result<TestRun<'a>> {
        let p = &test.params;
        let rank = comm.rank();
        let tasks = p.num_tasks.unwrap_or(comm.size());
        if tasks > comm.size() {
            return Err(Error::usage(format!(
                "-N {tasks}: only {} tasks are running",
                comm.size()
            )));
        }
        let active = rank < tasks;
        let choice = if p.dry_run {
            Choice::dummy()
        } else {
            test.backend.clone()
        };
        let context = backend::Context {
            comm,
            active,
            collective: p.collective,
            lines,
        };
        let backend = choice.build(&context).map_err(Error::usage)?;
        let topology = comm.topology().first(tasks);
        let seed = if p.random_offset_seed >= 0 {
            p.random_offset_seed as u64
        } else {
            broadcast_value(comm, 0, &fresh_seed())?
        };
        let layout = Layout {
            transfer: p.transfer_size,
            block: p.block_size,
            segments: p.segment_count,
            tasks: tasks as u64,
            file_per_proc: p.file_per_proc,
            ordering: p.ordering(),
            seed,
        };
        let names = FileNames::new(
            &p.test_file_name,
            p.file_per_proc,
            p.unique_dir,
            p.multi_file,
        );
        let readers = ReaderMap::new(&topology, reorder_for(p, 0));
        let path = names.path(0, 0);
        let signature = p.time_stamp_signature.unwrap_or(0);
        let start_time = now_string();
        let rank_details = match (&p.save_rank_details_csv, rank) {
            (Some(path), 0) => Some(open_rank_details(path)),
            _ => None,
        }
        .transpose();
        let rank_details = agree(comm, rank_details)?;
        let (hog, per_task, per_node) = agree(comm, hog_memory(p, &topology, rank, active))?;
        let scale = Scale {
            nodes: topology.num_nodes(),
            tasks,
            tasks_per_node: topology.tasks_per_node(),
            memory_per_task: per_task,
            memory_per_node: per_node,
        };
        let report = TestReport {
            test_id: id,
            start_time,
            path: path.display().to_string(),
            fs: if rank == 0 {
                c_path(&FileNames::directory_of(&path))
                    .ok()
                    .and_then(|dir| backend.namespace().fs_usage(&dir))
            } else {
                None
            },
            parameters: ParametersEcho::new(p, id, &scale, signature, seed),
            options: OptionsEcho::new(p, backend.version(), &scale, layout.aggregate_size()),
            results: Vec::new(),
            removes: Vec::new(),
            max: Default::default(),
            data_errors: VerifyCounts::default(),
            warnings: Vec::new(),
        };
        let buffer = AlignedBuffer::new(if active { p.transfer_size as usize } else { 0 }, PAGE);
        let run = TestRun {
            comm,
            out,
            p,
            choice,
            backend,
            layout,
            names,
            readers,
            topology,
            rank,
            active,
            signature,
            buffer,
            owned: Vec::new(),
            created_dirs: Vec::new(),
            report,
            rank_details,
            _hog: hog,
            status_count: None,
            lines,
        };
        Ok(run)
    }

    fn run(mut self) -> Result<TestReport> {
        if self.rank == 0 {
            let report = &self.report;
            self.out.each(|s| s.test_started(report));
            self.describe();
        }
        if let Err(e) = self.repetitions() {
            self.clean_up_after_failure();
            return Err(e);
        }
        if !self.p.keep_file {
            self.remove_created_dirs();
        }
        self.report.compute_max();
        Ok(self.report)
    }

    /// Verbose notes about the test (rank 0).
    fn describe(&mut self) {
        let tasks = self.layout.tasks as usize;
        self.out.note(2, &format!("Participating tasks : {tasks}"));
        self.describe_readers();
        if self.p.random_offset > 0 {
            self.out
                .note(2, &format!("Random offset seed : {}", self.layout.seed));
        }
        for rank in 0..tasks.min(if self.p.file_per_proc { 64 } else { 1 }) {
            self.out.note(
                2,
                &format!("task {rank} file : {}", self.names.path(rank, 0).display()),
            );
        }
        if self.p.verbose >= 3 {
            if let Ok(json) = serde_json::to_string_pretty(&self.report.parameters) {
                self.out.note(3, &format!("Parameters:\n{json}"));
            }
        }
    }

    /// Which task reads whose data (`-v -v`), and a warning when the
    /// topology forces reads from the writer's node.
    fn describe_readers(&mut self) {
        if !(self.p.reorder_tasks || self.p.reorder_tasks_random > 0) {
            return;
        }
        for (reader, writer) in self.readers.map.iter().enumerate().take(256) {
            let (rn, wn) = (
                self.topology.node_of(reader),
                self.topology.node_of(*writer),
            );
            self.out.note(
                2,
                &format!("task {reader} (node {rn}) reads the data of task {writer} (node {wn})"),
            );
        }
        let same = self.readers.same_node(&self.topology);
        if same > 0 && self.topology.num_nodes() > 1 {
            self.out.note(
                1,
                &format!("NOTE: {same} tasks read data written on their own node: the tasks are spread too unevenly over the nodes to avoid it"),
            );
        }
    }

    fn repetitions(&mut self) -> Result<()> {
        let start = self.comm.wtime();
        for rep in 0..self.p.repetitions {
            if rep > 0 && self.p.max_time_duration > 0 {
                let elapsed = self.comm.wtime() - start;
                let stop = broadcast_value(
                    self.comm,
                    0,
                    &(elapsed >= self.p.max_time_duration as f64 * 60.0),
                )?;
                if stop {
                    self.out.note(0, &format!("Stopping after {rep} repetitions: the maximum time (-T {} minutes) has passed", self.p.max_time_duration));
                    break;
                }
            }
            if rep > 0
                && Reorder::varies_by_repetition(
                    self.p.reorder_tasks_random_seed,
                    self.p.reorder_tasks_random,
                )
            {
                self.readers = ReaderMap::new(&self.topology, reorder_for(self.p, rep));
                self.describe_readers();
            }
            self.signature = match self.p.time_stamp_signature {
                Some(g) => g,
                None => broadcast_value(self.comm, 0, &time_stamp())?,
            };
            let signature = self.signature;
            self.out.note(
                1,
                &format!(
                    "Using Time Stamp {} (0x{:x}) for Data Signature",
                    signature, signature as u32
                ),
            );
            let mut errors = VerifyCounts::default();
            if self.p.write_file {
                self.measured_phase(Access::Write, rep)?;
            }
            if self.p.check_write {
                errors.add(self.check_phase(rep)?);
            }
            if self.p.reads() {
                errors.add(self.measured_phase(Access::Read, rep)?);
            }
            self.report.data_errors.add(errors);
            if let (true, Some(e)) = (self.p.quit_on_error, errors.error()) {
                return Err(e);
            }
            let keep = self.p.keep_file || (self.p.keep_file_with_error && errors.transfers > 0);
            if !keep {
                self.timed_remove(rep)?;
            }
        }
        Ok(())
    }

    /// The task whose data this task handles in a phase.
    fn pretend(&self, access: Access) -> usize {
        match access {
            Access::Write => self.rank,
            Access::Read if self.active => self.readers.writer_of(self.rank),
            Access::Read => self.rank,
        }
    }

    /// Whether this task creates and removes `path`: every task its own file
    /// with `-F`, rank 0 the shared file.
    fn responsible(&self) -> bool {
        self.active && (self.p.file_per_proc || self.rank == 0)
    }

    /// Before a write phase: the `-u` directory, and the old file out of the
    /// way unless `-E`.
    fn prepare_write(&mut self, rep: u64) -> Result<()> {
        if !self.active {
            return Ok(());
        }
        if let Some(dir) = self.names.unique_dir(self.rank) {
            let exists = c_path(&dir)
                .and_then(|c| self.backend.namespace().exists(&c))
                .map_err(|e| Error::io(self.rank, "cannot check", &dir, &e))?;
            if !exists {
                c_path(&dir)
                    .and_then(|c| self.backend.namespace().mkdir(&c))
                    .map_err(|e| Error::io(self.rank, "cannot create directory", &dir, &e))?;
                self.created_dirs.push(dir);
            }
        }
        if self.responsible() {
            let path = self.names.path(self.rank, rep);
            let existed = c_path(&path)
                .and_then(|c| self.backend.namespace().exists(&c))
                .map_err(|e| Error::io(self.rank, "cannot check", &path, &e))?;
            if existed && !self.p.use_existing_test_file {
                c_path(&path)
                    .and_then(|c| self.backend.remove(&c))
                    .map_err(|e| {
                        Error::io(self.rank, "cannot remove the old test file", &path, &e)
                    })?;
            }
            let ours = !(existed && self.p.use_existing_test_file);
            if ours && !self.owned.contains(&path) {
                self.owned.push(path);
            }
        }
        Ok(())
    }

    /// A timed write or read phase; returns the verification counts of all tasks.
    fn measured_phase(&mut self, access: Access, rep: u64) -> Result<VerifyCounts> {
        if self.p.inter_test_delay > 0 {
            std::thread::sleep(Duration::from_secs(self.p.inter_test_delay));
        }
        if access == Access::Write {
            let prepared = self.prepare_write(rep);
            agree(self.comm, prepared)?;
            if self.p.random_prefill > 0 {
                let filled = self.prefill(rep);
                agree(self.comm, filled)?;
            }
        }
        if access == Access::Read {
            if let Some(path) = &self.p.stonewalling_status_file {
                let count = if self.rank == 0 {
                    read_status(path).map_err(|e| Error::task(0, e))
                } else {
                    Ok(0)
                };
                let count = agree(self.comm, count)?;
                let count = broadcast_value(self.comm, 0, &count)?;
                self.out.note(
                    1,
                    &format!("Using stonewalling status file {path}: {count} transfers per task"),
                );
                self.status_count = Some(count);
            }
        }
        let cache = if access == Access::Read {
            self.page_cache_before_read(rep)?
        } else {
            None
        };
        let name = access_name(access);
        self.out.note(
            1,
            &format!("Commencing {name} performance test: {}", now_string()),
        );
        self.comm.barrier()?;
        let verify =
            access == Access::Read && self.p.check_read && self.choice.capabilities().stores_data;
        let plan = self.plan(access);
        let outcome = self.timed_io(access, rep, self.pretend(access), verify, plan);
        let outcome = agree(self.comm, outcome)?;
        let records = gather_f64(self.comm, 0, &outcome.times.to_record())?;
        let errors = self.sum_errors(outcome.errors)?;
        let merged = match &outcome.latency {
            Some(recorder) => Some(latency::merge(self.comm, 0, recorder.histogram())?),
            None => None,
        };
        let mut status = Ok(());
        if self.rank == 0 {
            let all: Vec<TaskTimes> = records.iter().map(|r| TaskTimes::from_record(r)).collect();
            let mut row = reduce_phase(access, rep, &all, self.p.block_size, self.p.transfer_size);
            if plan.deadline.is_some() {
                let wall = StonewallResult::of(&all);
                self.out.note(0, &wall.log_line());
                let verdict = if wall.hit {
                    format!(
                        "{name} phase {rep} stopped at the -D {} s deadline",
                        self.p.deadline_for_stonewalling
                    )
                } else {
                    format!(
                        "{name} phase {rep} finished all its transfers before the -D {} s deadline",
                        self.p.deadline_for_stonewalling
                    )
                };
                self.out.note(1, &verdict);
                if plan.wear_out && access == Access::Write {
                    if let Some(path) = &self.p.stonewalling_status_file {
                        status = write_status(path, wall.pairs_max).map_err(|e| Error::task(0, e));
                    }
                }
                row.stonewall = Some(wall);
            }
            row.latency_percentiles = merged.as_ref().and_then(Percentiles::of);
            if let (Some(h), Some(path)) = (&merged, &self.p.latency_file) {
                status = status.and(self.write_histogram(path, name, rep, h));
            }
            if let Some(mut cache) = cache {
                self.out
                    .note(1, &format!("{name}-{rep}: {}", cache.describe()));
                cache.assess();
                if let Some(w) = &cache.warning {
                    self.report.warnings.push(w.clone());
                }
                row.page_cache = Some(cache);
            }
            if self.p.outlier_threshold > 0 {
                for (task, total) in outliers(&all, self.p.outlier_threshold as f64) {
                    let mean = row.spread.as_ref().map_or(0.0, |s| s.total_mean);
                    let text = format!(
                        "WARNING: task {task} took {total:.6} s for {name} (open to close), more than {} s from the mean of {mean:.6} s",
                        self.p.outlier_threshold
                    );
                    self.out.note(0, &text);
                    self.report.warnings.push(text);
                }
            }
            self.out.each(|s| s.phase_done(&row));
            self.report.results.push(row);
            self.write_rank_details(name, rep, &all);
        }
        agree(self.comm, status)?;
        self.warn_wrong_data(name, errors)?;
        // A stonewalled or shortened phase leaves the files partly written.
        if access == Access::Write
            && plan.deadline.is_none()
            && plan.limit == self.layout.transfers_per_task()
        {
            self.check_file_size(rep)?;
        }
        Ok(errors)
    }

    /// Before a read: how much of the data each task is about to read is in
    /// its node's page cache, and, if asked, eviction and a second look.
    fn page_cache_before_read(&mut self, rep: u64) -> Result<Option<CacheReport>> {
        if !self.p.cache_check || !self.choice.capabilities().stores_data {
            return Ok(None);
        }
        let evict = self.p.evict_before_read || self.choice.evicts();
        let mine = if self.active {
            let pretend = self.pretend(Access::Read);
            let path = self.names.path(pretend, rep);
            let (ranges, total) = self.layout.task_ranges(pretend, 4096);
            let names = self.backend.namespace();
            let c = c_path(&path).map_err(|e| Error::io(self.rank, "cannot use", &path, &e))?;
            // A file that cannot be examined (it may not exist yet: the read
            // will say so) simply counts as examined-nothing.
            let look = |ranges: &[(u64, u64)]| match names.residency(&c, ranges) {
                Ok(Some(r)) => Residency { total, ..r },
                _ => Residency::default(),
            };
            let before = look(&ranges);
            let after = if evict && names.exists(&c).unwrap_or(false) {
                names.evict(&c, &ranges).map_err(|e| {
                    Error::io(self.rank, "cannot evict from the page cache", &path, &e)
                })?;
                Some(look(&ranges))
            } else {
                None
            };
            Ok((before, after))
        } else {
            Ok((Residency::default(), None))
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
        let readers_elsewhere = (0..self.topology.size())
            .filter(|&r| {
                self.topology.node_of(r) != self.topology.node_of(self.readers.writer_of(r))
            })
            .count();
        Ok(Some(CacheReport {
            before: Residency {
                resident: v[0],
                examined: v[1],
                total: v[2],
            },
            after_eviction: evict.then_some(Residency {
                resident: v[3],
                examined: v[4],
                total: v[5],
            }),
            cross_node: self.topology.num_nodes() > 1 && readers_elsewhere == self.topology.size(),
            direct: self.choice.alignment().is_some(),
            warning: None,
        }))
    }

    /// `-O latencyHistogramFile`: appends one phase's merged distribution.
    fn write_histogram(
        &self,
        path: &str,
        access: &str,
        rep: u64,
        h: &hdrhistogram::Histogram<u64>,
    ) -> Result<()> {
        let fresh = self.report.results.is_empty() && self.report.test_id == 0;
        let key = format!("{},{access},{rep}", self.report.test_id);
        latency::write_distribution(path, fresh, "test,access,iteration", &key, h)
            .map_err(|e| Error::io(0, "cannot write", Path::new(path), &e))
    }

    /// `-W`: reads back what this task wrote and verifies it, untimed.
    fn check_phase(&mut self, rep: u64) -> Result<VerifyCounts> {
        self.out.note(
            1,
            &format!(
                "Verifying contents of the file(s) just written.\n{}",
                now_string()
            ),
        );
        self.comm.barrier()?;
        let plan = self.plan(Access::Read);
        let outcome = self.timed_io(Access::Read, rep, self.rank, true, plan);
        let outcome = agree(self.comm, outcome)?;
        let errors = self.sum_errors(outcome.errors)?;
        self.warn_wrong_data("write", errors)?;
        Ok(errors)
    }

    fn sum_errors(&self, mine: VerifyCounts) -> Result<VerifyCounts> {
        let mut v = [mine.transfers, mine.bytes, mine.checked];
        self.comm.all_reduce_u64(&mut v, ReduceOp::Sum)?;
        Ok(VerifyCounts {
            transfers: v[0],
            bytes: v[1],
            checked: v[2],
        })
    }

    /// The warning about wrong data found in a phase (`-W` checks the write),
    /// if any.
    fn warn_wrong_data(&mut self, phase: &str, errors: VerifyCounts) -> Result<()> {
        if errors.transfers == 0 {
            return Ok(());
        }
        self.warn(&format!(
            "WARNING: incorrect data on {phase} ({} errors found: {} of {} transfers, {} bytes wrong)",
            errors.transfers, errors.transfers, errors.checked, errors.bytes
        ))
    }

    /// Prints a warning (rank 0); with `--warningAsErrors` it ends the run.
    fn warn(&mut self, text: &str) -> Result<()> {
        self.out.note(0, text);
        self.report.warnings.push(text.to_string());
        if self.p.warning_as_errors {
            return Err(Error::task(0, format!("{text} (--warningAsErrors)")));
        }
        Ok(())
    }

    /// Where `task`'s blocks lie, when they share a file with other tasks'.
    fn block_view(&self, task: usize) -> Option<BlockView> {
        (!self.p.file_per_proc).then_some(BlockView {
            block: self.layout.block,
            tasks: self.layout.tasks,
            task: task as u64,
        })
    }

    /// How a phase ends: its last transfer, a deadline, or a count.
    fn plan(&self, access: Access) -> PhasePlan {
        let mut limit = self.layout.transfers_per_task();
        if self.p.stonewalling_wear_out_iterations > 0 {
            limit = limit.min(self.p.stonewalling_wear_out_iterations);
        }
        if let (Access::Read, Some(count)) = (access, self.status_count) {
            limit = limit.min(count);
        }
        let deadline = (self.p.deadline_for_stonewalling > 0)
            .then(|| Duration::from_secs(self.p.deadline_for_stonewalling));
        PhasePlan {
            limit,
            deadline,
            wear_out: self.p.stonewalling_wear_out && deadline.is_some(),
            min_time: self.p.min_time_duration as f64,
            collective_checks: deadline.is_some() && self.p.collective,
        }
    }

    /// Open, transfer, close, with this task's time stamps. With `-g` (and
    /// when stonewalling makes tasks agree mid-phase) every step ends with an
    /// agreement, so a failure stops all tasks at the same point.
    fn timed_io(
        &mut self,
        access: Access,
        rep: u64,
        pretend: usize,
        verify: bool,
        plan: PhasePlan,
    ) -> Result<PhaseOutcome> {
        let in_step = self.p.intra_test_barriers || plan.wear_out || plan.collective_checks;
        let comm = self.comm;
        let mut t = TaskTimes {
            active: self.active,
            ..Default::default()
        };
        let path = self.names.path(pretend, rep);
        let pattern = Pattern::new(self.p.data_packet_type, self.signature, pretend);
        if self.active && access == Access::Write {
            pattern.fill(self.buffer.as_mut_slice());
        }
        let spec = OpenSpec {
            access,
            create: access == Access::Write,
            file_size: self.layout.file_size(),
            rank: self.rank,
            sequential: self.layout.ordering == Ordering::Sequential,
            blocks: self.block_view(pretend),
        };
        t.open_start = comm.wtime();
        let opened = if self.active {
            let action = if access == Access::Write {
                "cannot open for writing"
            } else {
                "cannot open for reading"
            };
            c_path(&path)
                .and_then(|c| self.backend.open(&c, &spec))
                .map(Some)
                .map_err(|e| Error::io(self.rank, action, &path, &e))
        } else {
            Ok(None)
        };
        t.open_end = comm.wtime();
        let mut file = step(comm, in_step, opened)?;
        t.xfer_start = comm.wtime();
        let options = XferOptions {
            rank: self.rank,
            size: self.p.transfer_size,
            single_attempt: self.p.single_xfer_attempt,
            fsync_per_write: self.p.fsync_per_write,
            verify,
            quit_on_error: self.p.quit_on_error,
            list_mismatches: self.p.verbose >= 3,
            trace: self.p.verbose >= 5,
            lines: self.lines,
        };
        let mut progress = Progress::default();
        let mut recorder = self.p.record_latency.then(LatencyRecorder::new);
        let live = (self.active && progress::wanted(self.p.progress, self.rank)).then(|| {
            progress::Progress::start(
                format!("{}-{rep}", access_name(access)),
                plan.limit * self.p.transfer_size,
                self.layout.tasks,
                "bytes",
                plan.deadline,
            )
        });
        let deadline = plan.deadline.map(Deadline::start);
        let mut collective = deadline
            .as_ref()
            .filter(|_| plan.collective_checks)
            .map(|d| CollectiveStop::new(comm, d, plan.limit));
        let mut reached = 0;
        // One pass over this task's transfers, reused by the wear-out below.
        let mut pass = file.as_mut().map(|f| Pass {
            file: f.as_mut(),
            access,
            layout: &self.layout,
            task: pretend,
            path: &path,
            pattern: &pattern,
            buf: self.buffer.as_mut_slice(),
            options,
            latency: recorder.as_mut(),
            progress: live.as_ref().map(|l| &l.counter),
        });
        if let Some(pass) = pass.as_mut() {
            loop {
                let count = match (deadline.as_ref(), collective.as_mut()) {
                    (_, Some(c)) => pass.run(0, plan.limit, &mut progress, |n| c.check(n)),
                    (Some(d), None) => pass.run(0, plan.limit, &mut progress, |_| d.passed()),
                    (None, None) => pass.run(0, plan.limit, &mut progress, |_| false),
                };
                reached += count;
                t.hit_deadline = count < plan.limit
                    && (collective.as_ref().is_some_and(|c| c.stopped)
                        || deadline.as_ref().is_some_and(|d| d.passed()));
                // -O minTimeDuration: start again from the first transfer until
                // the time has passed.
                let again = plan.min_time > 0.0 && comm.wtime() - t.xfer_start < plan.min_time;
                if t.hit_deadline || progress.failed() || progress.quit || plan.limit == 0 || !again
                {
                    break;
                }
            }
        } else if let Some(c) = collective.as_mut() {
            c.idle();
        }
        if let Some(e) = collective.and_then(|c| c.error) {
            progress.failure.get_or_insert(Error::from(e));
        }
        drop(deadline);
        t.stonewall_pairs = reached;
        t.stonewall_bytes = progress.bytes;
        t.stonewall_time = comm.wtime() - t.xfer_start;
        step(comm, in_step, progress.failure.take().map_or(Ok(()), Err))?;
        if plan.wear_out {
            // Every task makes as many transfers as the busiest one did.
            let target = crate::comm::reduce_u64(comm, reached, ReduceOp::Max)?;
            if let Some(pass) = pass.as_mut() {
                while reached < target && plan.limit > 0 && !progress.failed() {
                    let from = reached % plan.limit;
                    let to = (from + (target - reached)).min(plan.limit);
                    reached += pass.run(from, to, &mut progress, |_| false) - from;
                }
            }
            step(comm, in_step, progress.failure.take().map_or(Ok(()), Err))?;
        }
        t.xfer_end = comm.wtime();
        drop(live);
        t.close_start = comm.wtime();
        let closed = match file {
            Some(mut f) => {
                let synced = if access == Access::Write && self.p.fsync {
                    f.sync()
                } else {
                    Ok(())
                };
                synced
                    .map_err(|e| Error::io(self.rank, "cannot fsync", &path, &e))
                    .and_then(|_| {
                        f.close()
                            .map_err(|e| Error::io(self.rank, "cannot close", &path, &e))
                    })
            }
            None => Ok(()),
        };
        t.close_end = comm.wtime();
        step(comm, in_step, closed)?;
        t.bytes = progress.bytes;
        t.transfers = progress.transfers;
        Ok(PhaseOutcome {
            times: t,
            errors: progress.errors,
            latency: recorder,
        })
    }

    /// `--randomPrefill`: before a random write phase, every task writes its
    /// own region sequentially (untimed, and finished by all tasks before the
    /// timed random writes start), so no part of the file stays a hole.
    fn prefill(&mut self, rep: u64) -> Result<()> {
        if !self.active {
            return Ok(());
        }
        let pretend = self.rank;
        let path = self.names.path(pretend, rep);
        let spec = OpenSpec {
            access: Access::Write,
            create: true,
            file_size: self.layout.file_size(),
            rank: self.rank,
            sequential: true,
            blocks: self.block_view(pretend),
        };
        let mut file = c_path(&path)
            .and_then(|c| self.backend.open(&c, &spec))
            .map_err(|e| Error::io(self.rank, "cannot open for writing", &path, &e))?;
        let pattern = Pattern::new(self.p.data_packet_type, self.signature, pretend);
        self.prefill_region(file.as_mut(), pretend, &path, &pattern)?;
        file.close()
            .map_err(|e| Error::io(self.rank, "cannot close", &path, &e))
    }

    fn prefill_region(
        &mut self,
        file: &mut dyn File,
        pretend: usize,
        path: &Path,
        pattern: &Pattern,
    ) -> Result<()> {
        let size = self.p.random_prefill;
        let mut fill = AlignedBuffer::new(size as usize, PAGE);
        pattern.fill(fill.as_mut_slice());
        let per_task = Layout {
            transfer: size,
            ordering: Ordering::Sequential,
            ..self.layout.clone()
        };
        let retry = Retry::of(self.p.single_xfer_attempt, file.collective());
        let rank = self.rank;
        let flow = per_task.for_each_offset(pretend, |offset| {
            match write_fully(file, fill.as_slice(), offset, retry) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(Error::task(
                    rank,
                    format!("cannot prefill {} at offset {offset}: {e}", path.display()),
                )),
            }
        });
        match flow {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(e) => Err(e),
        }
    }

    /// After a write: the files should hold exactly what was written.
    fn check_file_size(&mut self, rep: u64) -> Result<()> {
        if !self.choice.capabilities().stores_data || self.layout.ordering == Ordering::Random {
            return Ok(());
        }
        let size = if self.responsible() {
            let path = self.names.path(self.rank, rep);
            c_path(&path)
                .and_then(|c| self.backend.namespace().size_of(&c))
                .map(|s| s.unwrap_or(0))
                .map_err(|e| Error::io(self.rank, "cannot stat", &path, &e))
        } else {
            Ok(0)
        };
        let size = agree(self.comm, size)?;
        let mut total = [size];
        self.comm.all_reduce_u64(&mut total, ReduceOp::Sum)?;
        let expected = self.layout.aggregate_size();
        if total[0] != expected {
            self.warn(&format!(
                "WARNING: Expected aggregate file size = {expected}; stat() of the file(s) reports {}",
                total[0]
            ))?;
        }
        Ok(())
    }

    /// Removes this repetition's files, timed like IOR's `remove` row.
    fn timed_remove(&mut self, rep: u64) -> Result<()> {
        self.comm.barrier()?;
        let start = self.comm.wtime();
        let removed = self.remove_owned();
        agree(self.comm, removed)?;
        let seconds = self.comm.wtime() - start;
        if self.rank == 0 {
            self.out.each(|s| s.removed(seconds, rep));
            self.report.removes.push(super::report::RemoveTiming {
                iteration: rep,
                total: seconds,
            });
        }
        Ok(())
    }

    /// Removes the files this task wrote (and forgets them); the first
    /// failure is the outcome.
    fn remove_owned(&mut self) -> Result<()> {
        let mut outcome = Ok(());
        for path in std::mem::take(&mut self.owned) {
            match c_path(&path).and_then(|c| self.backend.remove(&c)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => {
                    if outcome.is_ok() {
                        outcome = Err(Error::io(self.rank, "cannot remove", &path, &e));
                    }
                }
            }
        }
        outcome
    }

    fn remove_created_dirs(&mut self) {
        for dir in std::mem::take(&mut self.created_dirs).into_iter().rev() {
            // Only if empty: another run's files must survive.
            let _ = c_path(&dir).and_then(|c| self.backend.namespace().rmdir(&c));
        }
    }

    /// After a failure: remove what this run wrote (unless `-k`), quietly.
    fn clean_up_after_failure(&mut self) {
        // -K keeps files that held wrong data, also when -q ends the run on
        // them.
        let keep_for_errors = self.p.keep_file_with_error && self.report.data_errors.transfers > 0;
        if self.p.keep_file || keep_for_errors {
            return;
        }
        let _ = self.remove_owned();
        self.remove_created_dirs();
    }

    fn write_rank_details(&mut self, access: &str, rep: u64, all: &[TaskTimes]) {
        use std::io::Write;
        let Some(file) = self.rank_details.as_mut() else {
            return;
        };
        for (rank, t) in all.iter().enumerate().filter(|(_, t)| t.active) {
            let total = t.close_end - t.open_start;
            let _ = writeln!(
                file,
                "{access},{rep},{rank},{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{},{},{:.6}",
                t.open_start,
                t.open_end,
                t.xfer_start,
                t.xfer_end,
                t.close_start,
                t.close_end,
                t.bytes,
                t.transfers,
                t.bytes as f64 / crate::units::MIB as f64 / total
            );
        }
    }
}

/// With `in_step`, an agreement among all tasks (a barrier that carries
/// failures); otherwise the outcome as it is.
fn step<T>(comm: &dyn Comm, in_step: bool, outcome: Result<T>) -> Result<T> {
    if in_step {
        agree(comm, outcome)
    } else {
        outcome
    }
}

/// Takes this task's share of `-M`/`memoryPerTask`; returns the hog and the
/// per-task and per-node amounts (as rank 0 sees them, for the header).
fn hog_memory(
    p: &IorParams,
    topology: &Topology,
    rank: usize,
    active: bool,
) -> Result<(MemoryHog, u64, u64)> {
    let (per_task, per_node) = match (p.memory_per_task, p.memory_per_node) {
        (Some(t), _) => (t, 0),
        (None, Some(node)) => {
            let total = memhog::node_total().map_err(|e| Error::task(rank, e))?;
            let per_node = node.bytes(total);
            let node_of_rank = if active { topology.node_of(rank) } else { 0 };
            let here = topology.ranks_on(node_of_rank).len().max(1) as u64;
            (per_node / here, per_node)
        }
        (None, None) => return Ok((MemoryHog::default(), 0, 0)),
    };
    let hog = if active {
        MemoryHog::take(per_task).map_err(|e| Error::task(rank, e))?
    } else {
        MemoryHog::default()
    };
    Ok((hog, per_task, per_node))
}

/// The read-back reordering of a test in repetition `rep`.
fn reorder_for(p: &IorParams, rep: u64) -> Reorder {
    Reorder::from_params(
        p.reorder_tasks,
        p.reorder_tasks_random,
        p.task_per_node_offset,
        p.reorder_tasks_random_seed,
        rep,
    )
}

fn open_rank_details(path: &str) -> Result<std::fs::File> {
    use std::io::Write;
    let mut f = std::fs::File::create(path)
        .map_err(|e| Error::io(0, "cannot create", Path::new(path), &e))?;
    writeln!(f, "access,iteration,rank,open_start,open_end,xfer_start,xfer_end,close_start,close_end,bytes,transfers,bw_mib_s")
        .map_err(|e| Error::io(0, "cannot write", Path::new(path), &e))?;
    Ok(f)
}

/// IOR's default signature: the time in seconds, as an unsigned 32-bit value.
fn time_stamp() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as u32 as i64)
        .unwrap_or(0)
}

/// A seed for `-z` when none is given.
fn fresh_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0);
    crate::random::splitmix64(nanos ^ std::process::id() as u64) >> 1
}
