//! The mdtest runner: sweep steps and iterations on this task. The trees
//! and test directories are in [`super::dirs`], the timed phases in
//! [`super::phase`], the item loops in [`super::items`].
//!
//! Every task runs this code against `&dyn Comm` and executes the same
//! collectives in the same order; tasks outside the current sweep step only
//! join the collectives. An iteration is: test directories and trees (`-C`),
//! the directory phases (create, stat, rename, remove), the file phases
//! (create, stat, read, remove), then the trees and test directories go
//! (`-r`). Each phase starts after a barrier and ends with one (unless `-B`);
//! that closing barrier is an [`agree`], so a failure on any task stops every
//! task at the same point, naming the task, the path and the system error.
//!
//! Safety: the runner records every directory and file it creates. After a
//! failure, every task removes what it created in this run (and only that);
//! the remove phases of a split run (`-r` without `-C`) remove exactly the
//! names of mdtest's layout, and directories only with `rmdir` (never
//! recursively), so files a user keeps under `-d` are never touched.

use super::dirs::{Dirs, Told};
use super::items::{self, Buffers, Items, Work};
use super::layout::Layout;
use super::measure::Measure;
use super::params::MdtestParams;
use super::report::{Interruption, IterationReport, MdtestReport, SweepReport};
use super::results::{reduce, summarize, Op, SummaryRow, TaskIteration, OPS};
use super::sink::{IterationDone, Out};
use super::steps::{self, Step};
use super::task::Task;
use super::verify::Verifier;
use super::MdtestRun;
use crate::backend::cpath::c_path;
use crate::backend::{self, Backend};
use crate::comm::{agree, gather_records, Comm};
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::latency::Percentiles;
use crate::run::info::timestamp;
use crate::run::seeds;
use crate::run::stop;
use crate::run::warnings::Warnings;
use crate::series::{Series, Timeline};
use crate::tool::Finished;
use hdrhistogram::Histogram;

/// Runs mdtest on this task. Rank 0's report is complete; every task ends
/// with the same outcome.
pub fn run(comm: &dyn Comm, m: &MdtestRun, out: &mut Out) -> Finished<MdtestReport> {
    let p = &m.params;
    let seeds = agree_seeds(comm, p);
    let (data_seed, random_seed) = seeds.as_ref().map_or((0, 0), |s| *s);
    let mut report = MdtestReport::new(comm, p, &m.command_line, data_seed, random_seed);
    let posix = m.backend.capabilities().posix_namespace;
    let data = p.dirs.first().map(std::path::Path::new).filter(|_| posix);
    report.header.pario.gather_system(comm, out.driven(), data);
    let setup = seeds.and_then(|seeds| Setup::new(comm, m, out.task_lines(), seeds));
    let setup = match setup {
        Ok(setup) => setup,
        Err(e) => {
            report.error = Some(e.to_string());
            return Finished {
                report,
                result: Err(e),
            };
        }
    };
    // Every step's communicator is made before the run, so that the run
    // can borrow them.
    let steps = match steps::split(comm, p) {
        Ok(steps) => steps,
        Err(e) => {
            report.error = Some(e.to_string());
            return Finished {
                report,
                result: Err(e),
            };
        }
    };
    let mut run = Run::new(comm, p, out, setup, report, &steps);
    let outcome = run.body();
    if let Err(e) = &outcome {
        if !matches!(e, Error::Data { .. }) {
            run.clean_up_after_failure();
        }
    }
    run.finish(&outcome);
    Finished {
        report: run.report,
        result: outcome,
    }
}

/// The data seed (`-G`) and the shuffle seed (`-R`), agreed by all tasks.
fn agree_seeds(comm: &dyn Comm, p: &MdtestParams) -> Result<(i64, i64)> {
    let data_seed = seeds::agreed(comm, p.data.data_seed, seeds::time_i32)?;
    let given = (!p.random_order() || p.order.random_seed != 0).then_some(p.order.random_seed);
    let random_seed = seeds::agreed(comm, given, seeds::time_i32)?;
    Ok((data_seed, random_seed))
}

/// What a run needs before its first directory: the backend, the layout,
/// the seeds and the buffers.
struct Setup {
    backend: Box<dyn Backend>,
    layout: Layout,
    seeds: (i64, i64),
    buffers: Buffers,
}

impl Setup {
    fn new(comm: &dyn Comm, m: &MdtestRun, lines: TaskLines, seeds: (i64, i64)) -> Result<Setup> {
        let context = backend::Context {
            comm,
            active: true,
            collective: false,
            lines,
        };
        let backend = m.backend.build(&context).map_err(Error::usage)?;
        // Where the trees go takes writes (an object store's bucket),
        // before the header.
        let place = m.params.dirs.iter().try_for_each(|dir| {
            c_path(std::path::Path::new(dir)).and_then(|c| backend.check_place(&c, true))
        });
        agree(comm, place.map_err(|e| Error::usage(e.to_string())))?;
        let layout = Layout::new(&m.params).map_err(Error::usage)?;
        let buffers = items::buffers(&m.params, comm.rank())?;
        Ok(Setup {
            backend,
            layout,
            seeds,
            buffers,
        })
    }
}

/// One task's run: the task, and the parts that change as it goes, each
/// changed only by its own file: the directories it created ([`Dirs`]),
/// the items ([`Items`]), what the phases measure ([`Measure`]), what the
/// verification found ([`Verifier`]); and rank 0's outputs.
pub(super) struct Run<'a> {
    pub task: Task<'a>,
    steps: &'a [Step],
    pub out: &'a mut Out,
    pub warnings: Warnings,
    pub report: MdtestReport,
    pub dirs: Dirs,
    pub items: Items,
    pub measure: Measure,
    pub verifier: Verifier,
}

impl<'a> Run<'a> {
    fn new(
        comm: &'a dyn Comm,
        p: &'a MdtestParams,
        out: &'a mut Out,
        setup: Setup,
        report: MdtestReport,
        steps: &'a [Step],
    ) -> Run<'a> {
        let rank = comm.rank();
        let lines = out.task_lines();
        let items = Items::new(&setup.layout, setup.buffers);
        let task = Task::new(comm, p, setup.backend, setup.layout, setup.seeds, lines);
        Run {
            task,
            steps,
            out,
            warnings: Warnings::new("mdtest", rank, p.output.warning_as_errors),
            report,
            dirs: Dirs::default(),
            items,
            measure: Measure::new(),
            verifier: Verifier::new(rank, p.output.verbose >= 1, lines),
        }
    }

    /// The items, at work on this task with what their phases measure,
    /// verify and tell.
    pub fn at_work(&mut self) -> (&mut Items, Work<'_, 'a>) {
        let work = Work {
            task: &self.task,
            measure: &mut self.measure,
            verifier: &mut self.verifier,
            out: &mut *self.out,
        };
        (&mut self.items, work)
    }

    /// The whole run.
    fn body(&mut self) -> Result<()> {
        self.dirs.create_root(&self.task)?;
        let p = self.task.p();
        for dir in &p.dirs {
            stop::leave_in(dir.as_str());
        }
        if self.task.rank() == 0 {
            let root = self.task.root_of(0);
            self.report.path = std::fs::canonicalize(&root)
                .unwrap_or(root.clone())
                .display()
                .to_string();
            let backend = self.task.backend();
            self.report.fs = c_path(&root)
                .ok()
                .and_then(|c| backend.namespace().fs_usage(&c));
            self.report.header.pario.set_backend(backend);
            let report = &self.report;
            self.out.each(|s| s.run_started(report));
            self.describe();
        }
        for step in self.steps {
            self.step(step)?;
        }
        let told = Told {
            warnings: &mut self.warnings,
            out: &mut *self.out,
        };
        self.dirs.remove_root(&self.task, told)?;
        match self.verifier.error() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Verbose notes about the run (rank 0).
    fn describe(&mut self) {
        let task = &self.task;
        if task.stride() > 0 {
            let stride = task.stride();
            self.out
                .note(0, &format!("Shifting ranks by {stride} for each phase."));
        }
        if let Some(seed) = task.order_seed() {
            self.out.note(0, &format!("random seed: {seed}"));
        }
        for (k, v) in settings(task) {
            self.out.note(1, &format!("V-1: Rank   0 {k:<24}: {v}"));
        }
    }

    /// Runs `step` on its members; every task ends it with the same outcome
    /// and the same count of wrong files.
    fn step(&mut self, step: &'a Step) -> Result<()> {
        let job = self.task.comm();
        if step.tasks >= job.size() {
            return self.sweep_step(step.tasks);
        }
        let outcome = match &step.comm {
            Some(members) => {
                self.task.use_comm(&**members);
                let outcome = self.sweep_step(step.tasks);
                self.task.use_comm(job);
                outcome
            }
            None => Ok(()),
        };
        job.idle_barrier()?;
        self.verifier.share_total(job)?;
        agree(job, outcome)
    }

    /// One step of the task-count sweep, on its members.
    fn sweep_step(&mut self, tasks: usize) -> Result<()> {
        self.task.set_step_tasks(tasks);
        self.verifier.start_step();
        let p = self.task.p();
        let total = self.task.layout().items_per_task() * tasks as u64;
        if self.task.rank() == 0 {
            self.out
                .each(|s| s.sweep_started(tasks, total, item_kind(p)));
            self.out.note(1, "");
            self.out
                .note(1, "   Operation               Duration              Rate");
            self.out
                .note(1, "   ---------               --------              ----");
        }
        let mut iterations = Vec::new();
        let mut interrupted = None;
        for j in 0..p.phases.iterations {
            match self.iteration(j) {
                Ok(()) => {}
                // Agreed by every task: what ran is still reported.
                Err(e @ Error::Interrupted { .. }) => interrupted = Some((j, e)),
                Err(e) => return Err(e),
            }
            iterations.extend(self.iteration_report(j)?);
            if interrupted.is_some() {
                break;
            }
        }
        let wrong = self.verifier.end_step(self.task.comm())?;
        if self.task.rank() == 0 {
            let mut sweep = self.sweep_report(tasks, iterations, wrong.wrong);
            sweep.interrupted = interrupted.as_ref().map(|(j, _)| self.interruption(*j));
            let report = &self.report;
            self.out.each(|s| s.sweep_done(&sweep, report));
            self.report.tests.push(sweep);
        }
        match interrupted {
            Some((_, e)) => Err(e),
            None => Ok(()),
        }
    }

    /// Where the signal stopped iteration `j`.
    fn interruption(&self, j: u64) -> Interruption {
        let (op, signal) = self.measure.stopped().unwrap_or((None, 0));
        Interruption {
            signal: stop::name(signal),
            iteration: j,
            operation: op.map(Op::name),
        }
    }

    /// Every task's samples and latencies of iteration `j`, on rank 0.
    fn iteration_report(&mut self, j: u64) -> Result<Option<IterationReport>> {
        let latencies = self.merge_latencies()?;
        let comm = self.task.comm();
        let all = gather_records(comm, 0, self.measure.samples())?;
        let series = gather_records(comm, 0, self.measure.series())?;
        if self.task.rank() != 0 {
            return Ok(None);
        }
        let tasks = self.task.tasks();
        let samples: Vec<TaskIteration> = all.into_iter().take(tasks).collect();
        let stopped = self.measure.stopped();
        let phases = Op::ALL
            .iter()
            .filter_map(|&op| {
                reduce(op, &samples).map(|mut r| {
                    r.latency = latencies[op as usize].as_ref().and_then(Percentiles::of);
                    let mine: Vec<Series> = series
                        .iter()
                        .take(tasks)
                        .map(|s| s.0[op as usize])
                        .collect();
                    r.timeline = (!op.is_tree()).then(|| Timeline::of(&mine, "items"));
                    if let Some((Some(stopped), signal)) = stopped {
                        r.interrupted = (stopped == op).then(|| stop::name(signal));
                    }
                    r
                })
            })
            .collect();
        let it = IterationReport {
            iteration: j,
            phases,
            stonewall: self.measure.stonewall(),
            tasks: samples,
        };
        let done = IterationDone {
            tasks,
            report: &it,
            latency: &latencies,
        };
        self.out.each(|s| s.iteration_done(&done));
        Ok(Some(it))
    }

    /// Merges every operation's latency histogram of this iteration on
    /// rank 0 (every task takes part in the same phases, so in the same
    /// gathers).
    fn merge_latencies(&mut self) -> Result<Vec<Option<Histogram<u64>>>> {
        let comm = self.task.comm();
        let mut merged = Vec::with_capacity(OPS);
        for recorder in self.measure.take_recorders() {
            merged.push(match recorder {
                Some(r) => Some(crate::latency::merge(comm, 0, r.histogram())?),
                None => None,
            });
        }
        Ok(merged)
    }

    /// Rank 0: the summary of a sweep step.
    fn sweep_report(
        &self,
        tasks: usize,
        iterations: Vec<IterationReport>,
        wrong: u64,
    ) -> SweepReport {
        let p = self.task.p();
        let samples: Vec<Vec<TaskIteration>> =
            iterations.iter().map(|it| it.tasks.clone()).collect();
        let all_rows = summarize(&samples);
        let shown = |op: Op| match (op.is_tree(), op.is_dir()) {
            (true, _) => true,
            (false, true) => p.directory_phases(),
            (false, false) => p.file_phases(),
        };
        let table: Vec<SummaryRow> = Op::ALL
            .iter()
            .zip(&all_rows)
            .filter(|(op, _)| shown(**op))
            .map(|(_, r)| *r)
            .collect();
        let per_task = self.task.layout().items_per_task();
        SweepReport {
            tasks,
            items_per_task: per_task,
            total_items: per_task * tasks as u64,
            item_kind: item_kind(p).to_string(),
            iterations,
            summary: all_rows.iter().filter(|r| r.ran).copied().collect(),
            table,
            verification_errors: wrong,
            interrupted: None,
        }
    }

    /// One iteration: trees, directory phases, file phases, tree removal.
    fn iteration(&mut self, j: u64) -> Result<()> {
        self.measure = Measure::new();
        self.items.set_file_layout(self.task.layout().clone());
        let p = self.task.p();
        if p.phases.create {
            self.dirs.create_trees(&self.task, &mut self.measure, j)?;
            self.check_stop(None)?;
        }
        if p.directory_phases() {
            self.directory_test(j)?;
        }
        if p.file_phases() {
            self.file_test(j)?;
        }
        let held = self.measure.take_held().map_or(Ok(()), Err);
        agree(self.task.comm(), held)?;
        self.check_stop(None)?;
        if p.phases.remove {
            // Every item of this iteration is gone.
            self.items.forget_iteration(j);
            let told = Told {
                warnings: &mut self.warnings,
                out: &mut *self.out,
            };
            self.dirs
                .remove_trees(&self.task, &mut self.measure, told, j)?;
        }
        Ok(())
    }

    /// After a failure: every task removes what it created in this run, and
    /// only that: items, then tree directories, test directories and the
    /// `-d` directory (directories only when empty). Best effort and quiet.
    fn clean_up_after_failure(&mut self) {
        self.items.clean_up(&self.task);
        self.dirs.clean_up(&self.task);
    }

    /// The end of the run: the finished stamp and the warnings, then the
    /// last event.
    fn finish(&mut self, outcome: &Result<()>) {
        if self.task.rank() != 0 {
            return;
        }
        self.report.finished = timestamp();
        self.report.error = match outcome {
            Err(Error::Data { .. }) | Ok(()) => None,
            Err(e) => Some(e.to_string()),
        };
        self.report.warnings.append(&mut self.warnings.list);
        let report = &self.report;
        self.out.each(|s| s.run_done(report));
    }
}

/// What the items of a run are called in its header line.
fn item_kind(p: &MdtestParams) -> &'static str {
    match (p.directory_phases(), p.file_phases()) {
        (true, true) => "files/directories",
        (false, true) if p.tree.shared_file => "1 file",
        (false, true) => "files",
        (true, false) => "directories",
        (false, false) => "items",
    }
}

/// The settings mdtest lists at `-v` (as its `V-1` lines).
fn settings(task: &Task<'_>) -> Vec<(&'static str, String)> {
    let (p, layout) = (task.p(), task.layout());
    let yes = |b: bool| if b { "True" } else { "False" }.to_string();
    vec![
        ("api", p.api.clone()),
        ("barriers", yes(!p.order.no_barriers)),
        ("collective_creates", yes(p.order.collective_creates)),
        ("create_only", yes(p.phases.create)),
        ("dirpath(s)", p.dirs.join("@")),
        ("dirs_only", yes(p.directory_phases())),
        ("read_bytes", p.data.read_bytes.to_string()),
        ("read_only", yes(p.phases.read)),
        ("first", p.sweep.first.unwrap_or(task.size()).to_string()),
        ("files_only", yes(p.file_phases())),
        ("iterations", p.phases.iterations.to_string()),
        ("items_per_dir", layout.items_per_dir.to_string()),
        ("last", p.sweep.last.unwrap_or(task.size()).to_string()),
        ("leaf_only", yes(p.tree.leaf_only)),
        ("items", layout.items_per_task().to_string()),
        ("nstride", task.stride().to_string()),
        ("pre_delay", p.phases.pre_delay.to_string()),
        ("remove_only", yes(p.phases.remove)),
        ("random_seed", p.order.random_seed.to_string()),
        ("stride", p.sweep.stride.to_string()),
        ("shared_file", yes(p.tree.shared_file)),
        (
            "time_unique_dir_overhead",
            yes(p.order.time_unique_dir_overhead),
        ),
        ("stone_wall_timer_seconds", p.stonewall.seconds.to_string()),
        ("stat_only", yes(p.phases.stat)),
        ("unique_dir_per_task", yes(p.tree.unique_dir)),
        ("write_bytes", p.data.write_bytes.to_string()),
        ("sync_file", yes(p.data.sync_file)),
        ("call_sync", yes(p.data.call_sync)),
        ("depth", p.tree.depth.to_string()),
        ("make_node", (p.phases.make_node as u8).to_string()),
        ("tree directories", layout.num_dirs.to_string()),
        ("test directories", layout.loops.to_string()),
    ]
}
