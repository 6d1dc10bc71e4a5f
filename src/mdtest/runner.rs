//! The mdtest runner: sweep steps, iterations, phases, timers and cleanup.
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

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::options::sweep;
use super::params::MdtestParams;
use super::report::{
    IterationDone, IterationReport, MdtestReport, MdtestSink, Stonewall, SweepReport,
};
use super::results::{reduce, summarize, Op, Sample, TaskIteration, OPS};
use super::tree::{creation_order, test_dir, ItemPaths, Kind, Layout, Owner, Role, Tree};
use super::MdtestRun;
use crate::backend::cpath::{c_path, path_of};
use crate::backend::{self, read_fully, write_fully, Access, Backend, CreateSpec, OpenSpec, Retry};
use crate::buffer::{AlignedBuffer, PAGE};
use crate::comm::{agree, broadcast_value, gather_records, Comm, ReduceOp};
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::latency::{self, LatencyRecorder, Percentiles};
use crate::output::Outputs;
use crate::pattern::Pattern;
use crate::progress;
use crate::random::Permutation;
use crate::run::info::timestamp;
use crate::tool::Finished;
use hdrhistogram::Histogram;

/// After each item operation: its latency, and the count for the progress
/// display. A macro, because the item loops hold borrows of other fields.
macro_rules! item_done {
    ($run:expr, $count:expr) => {
        if let Some(l) = $run.recording.as_mut() {
            l.tick();
        }
        if let Some(live) = &$run.live {
            if $count % 64 == 0 {
                live.counter.set($count);
            }
        }
    };
}

/// A line from one task (traces, verification errors), where the run's
/// [`TaskLines`] send it.
macro_rules! say {
    ($lines:expr, $($arg:tt)*) => {
        $lines.print(format_args!($($arg)*))
    };
}

/// Rank 0's outputs (none on other ranks).
type Out = Outputs<dyn MdtestSink>;

/// Runs mdtest on this task. Rank 0's report is complete; every task ends
/// with the same outcome.
pub fn run(comm: &dyn Comm, m: &MdtestRun, out: &mut Out) -> Finished<MdtestReport> {
    let p = &m.params;
    let seeds = agree_seeds(comm, p);
    let (data_seed, random_seed) = seeds.as_ref().map_or((0, 0), |s| *s);
    let mut report = MdtestReport::new(comm, p, &m.command_line, data_seed, random_seed);
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
    let mut run = Run::new(comm, p, out, setup, report);
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
    let data_seed = match p.data.data_seed {
        Some(g) => g,
        None => broadcast_value(comm, 0, &time_seed())?,
    };
    let random_seed = if p.random_order() && p.order.random_seed == 0 {
        broadcast_value(comm, 0, &time_seed())?
    } else {
        p.order.random_seed
    };
    Ok((data_seed, random_seed))
}

/// What a run needs before its first directory: the backend, the layout and
/// the seeds.
struct Setup {
    backend: Box<dyn Backend>,
    layout: Layout,
    seeds: (i64, i64),
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
        let layout = Layout::new(&m.params).map_err(Error::usage)?;
        Ok(Setup {
            backend,
            layout,
            seeds,
        })
    }
}

/// The seed mdtest takes when none is given: the time in seconds (as C `int`).
fn time_seed() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i32 as i64)
        .unwrap_or(1)
}

/// Items this run created and must remove if it fails.
#[derive(Debug, Clone)]
struct ItemSet {
    iteration: u64,
    tree: Tree,
    kind: Kind,
    owner: Owner,
    layout: Layout,
    /// The first `count` items in creation order exist.
    count: u64,
}

/// Everything this task created in this run.
#[derive(Debug, Default)]
struct Created {
    root: Option<PathBuf>,
    test_dirs: Vec<PathBuf>,
    /// Tree directories, parents before children.
    tree_dirs: Vec<PathBuf>,
    items: Vec<ItemSet>,
    /// A directory moved aside by the rename phase (`<item>-XX`).
    renamed_aside: Option<PathBuf>,
}

/// This task's data verification (`-X`, `--verify-write`): the files and
/// bytes it found wrong in the current sweep step.
#[derive(Debug, Clone, Copy)]
struct Verifier {
    rank: usize,
    /// `-v`: name each wrong file.
    name_files: bool,
    lines: TaskLines,
    files: u64,
    bytes: u64,
}

impl Verifier {
    /// Checks the data of item `k`, read from `path`, against `pattern`.
    fn check(&mut self, pattern: &Pattern, data: &[u8], k: u64, path: &Path) {
        let found = pattern.verify(data, k);
        if found.wrong_words > 0 {
            self.files += 1;
            self.bytes += found.wrong_bytes;
            if self.name_files {
                say!(
                    self.lines,
                    "task {}: verification error in file: {}",
                    self.rank,
                    path.display()
                );
            }
        }
    }
}

/// One task's run.
struct Run<'a> {
    comm: &'a dyn Comm,
    p: &'a MdtestParams,
    out: &'a mut Out,
    backend: Box<dyn Backend>,
    layout: Layout,
    /// The layout of the file phases (their item count may come from the
    /// stonewall or from `-x`).
    file_layout: Layout,
    rank: usize,
    size: usize,
    /// Tasks of the current sweep step.
    tasks: usize,
    active: bool,
    /// `-N`, multiplied by the tasks per node on multi-node block placements.
    stride: usize,
    data_seed: i64,
    /// `-R`: this task's shuffle seed, `None` for numbered order.
    order_seed: Option<u64>,
    write_buf: AlignedBuffer,
    read_buf: AlignedBuffer,
    check_buf: AlignedBuffer,
    /// Trace every item (rank 0 at `-v -v -v`, every task at `-v` ×5).
    trace: bool,
    /// Where this task's own lines (traces, verification errors) go.
    lines: TaskLines,
    created: Created,
    /// With `-B`: a failure held until the end of the iteration.
    pending: Option<Error>,
    samples: TaskIteration,
    /// The latency of the current phase's operations, when recorded.
    recording: Option<LatencyRecorder>,
    /// Per operation of the current iteration: its latency recorder.
    recorders: Vec<Option<LatencyRecorder>>,
    /// The live progress display of the current phase (rank 0, terminal).
    live: Option<progress::Progress>,
    stonewall: Option<Stonewall>,
    /// Files with wrong data found by this task in this sweep step.
    wrong: Verifier,
    /// Files and bytes found wrong by all tasks, whole run.
    total_wrong: (u64, u64),
    report: MdtestReport,
}

impl<'a> Run<'a> {
    fn new(
        comm: &'a dyn Comm,
        p: &'a MdtestParams,
        out: &'a mut Out,
        setup: Setup,
        report: MdtestReport,
    ) -> Run<'a> {
        let Setup {
            backend,
            layout,
            seeds: (data_seed, random_seed),
        } = setup;
        let rank = comm.rank();
        let topology = comm.topology();
        let node0 = topology.node_of(0);
        let mut stride = p.order.nstride;
        if stride > 0 && topology.num_nodes() > 1 && topology.is_block_mapped() {
            stride *= topology.ranks_on(node0).len();
        }
        let order_seed = p.random_order().then(|| (random_seed + rank as i64) as u64);
        let buf = |n: u64| AlignedBuffer::new(n as usize, PAGE);
        let lines = out.task_lines();
        Run {
            comm,
            p,
            out,
            backend,
            file_layout: layout.clone(),
            layout,
            rank,
            size: comm.size(),
            tasks: comm.size(),
            active: true,
            stride,
            data_seed,
            order_seed,
            write_buf: buf(p.data.write_bytes),
            read_buf: buf(p.data.read_bytes),
            check_buf: buf(if p.data.verify_write {
                p.data.write_bytes
            } else {
                0
            }),
            trace: p.output.verbose >= 5 || (rank == 0 && p.output.verbose >= 3),
            lines,
            created: Created::default(),
            pending: None,
            samples: [Sample::default(); OPS],
            recording: None,
            recorders: (0..OPS).map(|_| None).collect(),
            live: None,
            stonewall: None,
            wrong: Verifier {
                rank,
                name_files: p.output.verbose >= 1,
                lines,
                files: 0,
                bytes: 0,
            },
            total_wrong: (0, 0),
            report,
        }
    }

    /// The `-d` directory of task `t`.
    fn root_of(&self, t: usize) -> PathBuf {
        PathBuf::from(&self.p.dirs[t % self.p.dirs.len()])
    }

    fn io_error(&self, action: &str, path: &Path, e: std::io::Error) -> Error {
        Error::io(self.rank, action, path, &e)
    }

    /// The whole run.
    fn body(&mut self) -> Result<()> {
        self.create_root()?;
        if self.rank == 0 {
            let root = self.root_of(0);
            self.report.path = std::fs::canonicalize(&root)
                .unwrap_or(root.clone())
                .display()
                .to_string();
            self.report.fs = c_path(&root)
                .ok()
                .and_then(|c| self.backend.namespace().fs_usage(&c));
            let report = &self.report;
            self.out.each(|s| s.run_started(report));
            self.describe();
        }
        for tasks in sweep(self.p, self.size) {
            self.sweep_step(tasks)?;
        }
        self.remove_root()?;
        let (files, bytes) = self.total_wrong;
        if files > 0 {
            return Err(Error::Data {
                wrong: files,
                units: "files",
                bytes,
            });
        }
        Ok(())
    }

    /// Verbose notes about the run (rank 0).
    fn describe(&mut self) {
        let p = self.p;
        if self.stride > 0 {
            self.out.note(
                0,
                &format!("Shifting ranks by {} for each phase.", self.stride),
            );
        }
        if let Some(seed) = self.order_seed {
            self.out.note(0, &format!("random seed: {seed}"));
        }
        let yes = |b: bool| if b { "True" } else { "False" };
        let lines = [
            ("api", p.api.clone()),
            ("barriers", yes(!p.order.no_barriers).into()),
            ("collective_creates", yes(p.order.collective_creates).into()),
            ("create_only", yes(p.phases.create).into()),
            ("dirpath(s)", p.dirs.join("@")),
            ("dirs_only", yes(p.directory_phases()).into()),
            ("read_bytes", p.data.read_bytes.to_string()),
            ("read_only", yes(p.phases.read).into()),
            ("first", p.sweep.first.unwrap_or(self.size).to_string()),
            ("files_only", yes(p.file_phases()).into()),
            ("iterations", p.phases.iterations.to_string()),
            ("items_per_dir", self.layout.items_per_dir.to_string()),
            ("last", p.sweep.last.unwrap_or(self.size).to_string()),
            ("leaf_only", yes(p.tree.leaf_only).into()),
            ("items", self.layout.items_per_task().to_string()),
            ("nstride", self.stride.to_string()),
            ("pre_delay", p.phases.pre_delay.to_string()),
            ("remove_only", yes(p.phases.remove).into()),
            ("random_seed", p.order.random_seed.to_string()),
            ("stride", p.sweep.stride.to_string()),
            ("shared_file", yes(p.tree.shared_file).into()),
            (
                "time_unique_dir_overhead",
                yes(p.order.time_unique_dir_overhead).into(),
            ),
            ("stone_wall_timer_seconds", p.stonewall.seconds.to_string()),
            ("stat_only", yes(p.phases.stat).into()),
            ("unique_dir_per_task", yes(p.tree.unique_dir).into()),
            ("write_bytes", p.data.write_bytes.to_string()),
            ("sync_file", yes(p.data.sync_file).into()),
            ("call_sync", yes(p.data.call_sync).into()),
            ("depth", p.tree.depth.to_string()),
            ("make_node", (p.phases.make_node as u8).to_string()),
            ("tree directories", self.layout.num_dirs.to_string()),
            ("test directories", self.layout.loops.to_string()),
        ];
        for (k, v) in lines {
            self.out.note(1, &format!("V-1: Rank   0 {k:<24}: {v}"));
        }
    }

    /// `-d`: creates each task's test root if it is missing and the run
    /// creates (tasks below the number of directories do it).
    fn create_root(&mut self) -> Result<()> {
        let outcome = if self.p.phases.create && self.rank < self.p.dirs.len() {
            let root = self.root_of(self.rank);
            match c_path(&root).and_then(|c| self.backend.namespace().exists(&c)) {
                Ok(true) => Ok(()),
                Ok(false) => match c_path(&root).and_then(|c| self.backend.namespace().mkdir(&c)) {
                    Ok(()) => {
                        self.created.root = Some(root);
                        Ok(())
                    }
                    Err(e) => Err(self.io_error("cannot create directory", &root, e)),
                },
                Err(e) => Err(self.io_error("cannot check", &root, e)),
            }
        } else {
            Ok(())
        };
        agree(self.comm, outcome)
    }

    /// Removes the test roots this run created, at the end of a run that removes.
    fn remove_root(&mut self) -> Result<()> {
        let outcome = match (self.created.root.clone(), self.p.phases.remove) {
            (Some(root), true) => {
                self.created.root = None;
                self.remove_dir(&root).map(|_| ())
            }
            _ => Ok(()),
        };
        agree(self.comm, outcome)
    }

    /// One step of the task-count sweep.
    fn sweep_step(&mut self, tasks: usize) -> Result<()> {
        self.tasks = tasks;
        self.active = self.rank < tasks;
        self.wrong.files = 0;
        self.wrong.bytes = 0;
        let p = self.p;
        let per_task = self.layout.items_per_task();
        let total = per_task * tasks as u64;
        let kind = match (p.directory_phases(), p.file_phases()) {
            (true, true) => "files/directories",
            (false, true) if p.tree.shared_file => "1 file",
            (false, true) => "files",
            (true, false) => "directories",
            (false, false) => "items",
        };
        if self.rank == 0 {
            self.out.each(|s| s.sweep_started(tasks, total, kind));
            self.out.note(1, "");
            self.out
                .note(1, "   Operation               Duration              Rate");
            self.out
                .note(1, "   ---------               --------              ----");
        }
        let mut iterations = Vec::new();
        for j in 0..p.phases.iterations {
            self.iteration(j)?;
            let latencies = self.merge_latencies()?;
            let all = gather_records(self.comm, 0, &self.samples)?;
            let stonewall = self.stonewall;
            if self.rank == 0 {
                let tasks_samples: Vec<TaskIteration> = all.into_iter().take(tasks).collect();
                let phases = Op::ALL
                    .iter()
                    .filter_map(|&op| {
                        reduce(op, &tasks_samples).map(|mut r| {
                            r.latency = latencies[op as usize].as_ref().and_then(Percentiles::of);
                            r
                        })
                    })
                    .collect();
                let it = IterationReport {
                    iteration: j,
                    phases,
                    stonewall,
                    tasks: tasks_samples,
                };
                let done = IterationDone {
                    tasks,
                    report: &it,
                    latency: &latencies,
                };
                self.out.each(|s| s.iteration_done(&done));
                iterations.push(it);
            }
        }
        let mut wrong = [self.wrong.files, self.wrong.bytes];
        self.comm.all_reduce_u64(&mut wrong, ReduceOp::Sum)?;
        self.total_wrong.0 += wrong[0];
        self.total_wrong.1 += wrong[1];
        if self.rank == 0 {
            let samples: Vec<Vec<TaskIteration>> =
                iterations.iter().map(|it| it.tasks.clone()).collect();
            let all_rows = summarize(&samples);
            let shown = |op: Op| {
                if op.is_tree() {
                    true
                } else if op.is_dir() {
                    p.directory_phases()
                } else {
                    p.file_phases()
                }
            };
            let table = Op::ALL
                .iter()
                .zip(&all_rows)
                .filter(|(op, _)| shown(**op))
                .map(|(_, r)| *r)
                .collect();
            let summary = all_rows.iter().filter(|r| r.ran).copied().collect();
            let sweep = SweepReport {
                tasks,
                items_per_task: per_task,
                total_items: total,
                item_kind: kind.to_string(),
                iterations,
                summary,
                table,
                verification_errors: wrong[0],
            };
            let report = &self.report;
            self.out.each(|s| s.sweep_done(&sweep, report));
            self.report.tests.push(sweep);
        }
        Ok(())
    }

    /// One iteration: trees, directory phases, file phases, tree removal.
    fn iteration(&mut self, j: u64) -> Result<()> {
        self.samples = [Sample::default(); OPS];
        self.recorders = (0..OPS).map(|_| None).collect();
        self.stonewall = None;
        self.file_layout = self.layout.clone();
        if self.p.phases.create {
            self.create_trees(j)?;
        }
        if self.p.directory_phases() {
            self.directory_test(j)?;
        }
        if self.p.file_phases() {
            self.file_test(j)?;
        }
        let held = self.pending.take().map_or(Ok(()), Err);
        agree(self.comm, held)?;
        if self.p.phases.remove {
            // Every item of this iteration is gone.
            self.created.items.retain(|s| s.iteration != j);
            self.remove_trees(j)?;
        }
        Ok(())
    }

    // ----- trees -----

    /// The trees this task creates and removes: its own with `-u` (all of
    /// them on task 0 with `-c`), the shared one on task 0.
    fn my_trees(&self, j: u64) -> Vec<Tree> {
        if !self.active {
            return Vec::new();
        }
        let owners: Vec<Option<usize>> = if self.p.tree.unique_dir {
            if self.p.order.collective_creates {
                if self.rank == 0 {
                    (0..self.tasks).map(Some).collect()
                } else {
                    Vec::new()
                }
            } else {
                vec![Some(self.rank)]
            }
        } else if self.rank == 0 {
            vec![None]
        } else {
            Vec::new()
        };
        let mut trees = Vec::new();
        for l in 0..self.layout.loops {
            for &owner in &owners {
                let root = self.root_of(owner.unwrap_or(0));
                trees.push(Tree::new(&test_dir(&root, j, l), owner));
            }
        }
        trees
    }

    /// Test directories (tasks below the number of `-d` directories), then
    /// the trees, timed as "Tree creation".
    fn create_trees(&mut self, j: u64) -> Result<()> {
        let outcome = if self.active && self.rank < self.p.dirs.len() {
            self.create_test_dirs(j)
        } else {
            Ok(())
        };
        agree(self.comm, outcome)?;
        self.comm.barrier()?;
        let start = self.comm.wtime();
        let mut outcome = Ok(());
        for tree in self.my_trees(j) {
            outcome = self.create_tree(&tree);
            if outcome.is_err() {
                break;
            }
        }
        agree(self.comm, outcome)?;
        let end = self.comm.wtime();
        self.samples[Op::TreeCreate as usize] = Sample {
            ran: true,
            time: end - start,
            time_before_barrier: end - start,
            items: self.layout.num_dirs,
        };
        Ok(())
    }

    fn create_test_dirs(&mut self, j: u64) -> Result<()> {
        let root = self.root_of(self.rank);
        for l in 0..self.layout.loops {
            let dir = test_dir(&root, j, l);
            let exists = c_path(&dir)
                .and_then(|c| self.backend.namespace().exists(&c))
                .map_err(|e| self.io_error("cannot check", &dir, e))?;
            if !exists {
                c_path(&dir)
                    .and_then(|c| self.backend.namespace().mkdir(&c))
                    .map_err(|e| self.io_error("cannot create directory", &dir, e))?;
                self.created.test_dirs.push(dir);
            }
        }
        Ok(())
    }

    fn create_tree(&mut self, tree: &Tree) -> Result<()> {
        let layout = self.layout.clone();
        let backend = &*self.backend;
        let created = &mut self.created.tree_dirs;
        let rank = self.rank;
        let trace = self.trace;
        let lines = self.lines;
        layout.walk(
            &mut |d| {
                let dir = layout.dir_path(tree, d);
                if trace {
                    say!(
                        lines,
                        "V-2: Rank {rank:>3} Making directory '{}'",
                        dir.display()
                    );
                }
                match c_path(&dir).and_then(|c| backend.namespace().mkdir(&c)) {
                    Ok(()) => {
                        created.push(dir);
                        Ok(())
                    }
                    // Left by an earlier run: used, but not ours to remove.
                    Err(e)
                        if e.kind() == std::io::ErrorKind::AlreadyExists
                            && c_path(&dir)
                                .and_then(|c| backend.stat(&c))
                                .is_ok_and(|s| s.is_dir) =>
                    {
                        Ok(())
                    }
                    Err(e) => Err(Error::io(rank, "cannot create directory", &dir, &e)),
                }
            },
            &mut |_| Ok(()),
        )
    }

    /// Removes the trees ("Tree removal"), then the test directories.
    fn remove_trees(&mut self, j: u64) -> Result<()> {
        self.comm.barrier()?;
        let start = self.comm.wtime();
        let outcome = if self.p.phases.create {
            self.remove_created_tree_dirs(false)
        } else {
            // A split run's remove part: the layout the create part made.
            let mut outcome = Ok(());
            for tree in self.my_trees(j) {
                outcome = self.remove_tree_layout(&tree);
                if outcome.is_err() {
                    break;
                }
            }
            outcome
        };
        agree(self.comm, outcome)?;
        let end = self.comm.wtime();
        self.samples[Op::TreeRemove as usize] = Sample {
            ran: true,
            time: end - start,
            time_before_barrier: end - start,
            items: self.layout.num_dirs,
        };
        let outcome = if self.active && self.rank < self.p.dirs.len() {
            self.remove_test_dirs(j)
        } else {
            Ok(())
        };
        agree(self.comm, outcome)
    }

    /// Removes the tree directories this run created, children first.
    /// `quiet`: after a failure, ignore errors.
    fn remove_created_tree_dirs(&mut self, quiet: bool) -> Result<()> {
        while let Some(dir) = self.created.tree_dirs.pop() {
            if self.trace {
                say!(
                    self.lines,
                    "V-2: Rank {:>3} Remove directory '{}'",
                    self.rank,
                    dir.display()
                );
            }
            if quiet {
                let _ = c_path(&dir).and_then(|c| self.backend.namespace().rmdir(&c));
                continue;
            }
            if let Err(e) = self.remove_dir(&dir) {
                self.created.tree_dirs.push(dir);
                return Err(e);
            }
        }
        Ok(())
    }

    /// Removes a directory of the layout with `rmdir`. One that is not empty
    /// (someone put files there) stays, with a warning; other failures are
    /// errors. Returns whether it was removed.
    fn remove_dir(&mut self, dir: &Path) -> Result<bool> {
        match c_path(dir).and_then(|c| self.backend.namespace().rmdir(&c)) {
            Ok(()) => Ok(true),
            Err(e) if is_not_empty(&e) => {
                self.warn(&format!(
                    "WARNING: {} is not empty: pario leaves it and what it holds in place",
                    dir.display()
                ))?;
                Ok(false)
            }
            Err(e) => Err(self.io_error("cannot remove directory", dir, e)),
        }
    }

    /// A warning of this task (`--warningAsErrors` makes it a failure).
    fn warn(&mut self, text: &str) -> Result<()> {
        if self.p.output.warning_as_errors {
            return Err(Error::task(
                self.rank,
                format!("{text} (--warningAsErrors)"),
            ));
        }
        if self.rank == 0 {
            self.out.note(0, text);
        } else {
            eprintln!("mdtest: task {}: {text}", self.rank);
        }
        Ok(())
    }

    fn remove_tree_layout(&mut self, tree: &Tree) -> Result<()> {
        let layout = self.layout.clone();
        let mut dirs = Vec::new();
        let _ = layout.walk::<()>(&mut |_| Ok(()), &mut |d| {
            dirs.push(layout.dir_path(tree, d));
            Ok(())
        });
        for dir in dirs {
            self.remove_dir(&dir)?;
        }
        Ok(())
    }

    fn remove_test_dirs(&mut self, j: u64) -> Result<()> {
        let root = self.root_of(self.rank);
        for l in 0..self.layout.loops {
            let dir = test_dir(&root, j, l);
            let ours = self.created.test_dirs.contains(&dir);
            // In a run that created, only what it created; in the remove part
            // of a split run, the test directory if it is there (and empty).
            let remove = if self.p.phases.create {
                ours
            } else {
                c_path(&dir)
                    .and_then(|c| self.backend.namespace().exists(&c))
                    .unwrap_or(false)
            };
            if remove {
                self.created.test_dirs.retain(|d| *d != dir);
                self.remove_dir(&dir)?;
            }
        }
        Ok(())
    }

    // ----- phases -----

    /// The tree and item names a task handles in a phase: the items of task
    /// `rank + role·N`, in the tree of task `rank + (role+1)·N` (with `-u`).
    fn target(&self, role: Role, j: u64, l: u64) -> (Tree, Owner) {
        self.target_of(self.rank, role, j, l)
    }

    fn target_of(&self, rank: usize, role: Role, j: u64, l: u64) -> (Tree, Owner) {
        let items_of = self.shifted(rank, role);
        let tree_of = (rank + (role as usize + 1) * self.stride) % self.tasks;
        let tree = if self.p.tree.unique_dir {
            Tree::new(&test_dir(&self.root_of(tree_of), j, l), Some(tree_of))
        } else {
            Tree::new(&test_dir(&self.root_of(0), j, l), None)
        };
        let owner = if self.p.tree.shared_file {
            Owner::Shared
        } else {
            Owner::Task(items_of)
        };
        (tree, owner)
    }

    /// The task whose items `rank` handles in a phase: `rank + role·N`.
    fn shifted(&self, rank: usize, role: Role) -> usize {
        (rank + role as usize * self.stride) % self.tasks
    }

    /// Runs a shell command between phases (`--run-cmd-*-phase`).
    fn run_command(&mut self, cmd: &str, what: &str) -> Result<()> {
        if self.rank == 0 {
            self.out.note(0, &format!("calling {what}: \"{cmd}\""));
        }
        match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
            Ok(status) if !status.success() && self.rank == 0 => {
                self.out.note(
                    0,
                    &format!("WARNING: the {what} \"{cmd}\" exited with {status}"),
                );
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(e) => Err(Error::task(
                self.rank,
                format!("cannot run the {what} \"{cmd}\": {e}"),
            )),
        }
    }

    /// One timed phase: the command before (untimed), a barrier, the work,
    /// `-Y` and the command after (timed), a closing barrier that carries
    /// failures. `work` runs on every task (it does nothing on tasks outside
    /// the sweep step, but joins any collective it has) and returns the
    /// items this task handled.
    fn phase(&mut self, op: Op, work: impl FnOnce(&mut Self) -> Result<u64>) -> Result<()> {
        let p = self.p;
        let barriers = !p.order.no_barriers;
        if self.active && self.pending.is_none() {
            if let Some(cmd) = &p.phases.run_cmd_before_phase {
                if let Err(e) = self.run_command(cmd, "prologue") {
                    self.pending = Some(e);
                }
            }
        }
        if barriers {
            let held = self.pending.take().map_or(Ok(()), Err);
            agree(self.comm, held)?;
        }
        let mut start = self.comm.wtime();
        if p.tree.unique_dir && matches!(op, Op::DirCreate | Op::FileCreate) {
            // mdtest enters the unique directories behind a barrier; -t keeps
            // that in the phase's time.
            self.comm.barrier()?;
            if !p.order.time_unique_dir_overhead {
                start = self.comm.wtime();
            }
        }
        self.recording = p.output.record_latency.then(LatencyRecorder::new);
        if let Some(l) = self.recording.as_mut() {
            l.start();
        }
        if self.active && progress::wanted(p.output.progress, self.rank) && !op.is_tree() {
            let items = if op.is_dir() {
                self.layout.items_per_task()
            } else {
                self.file_layout.items_per_task()
            };
            self.live = Some(progress::Progress::start(
                op.name().to_string(),
                items,
                self.tasks as u64,
                "items",
                None,
            ));
        }
        let mut outcome = if self.pending.is_none() {
            work(self)
        } else {
            Ok(0)
        };
        let own_end = self.comm.wtime();
        self.live = None;
        if let Some(mut l) = self.recording.take() {
            l.finish();
            self.recorders[op as usize] = Some(l);
        }
        if self.active && outcome.is_ok() {
            if p.data.call_sync {
                let root = self.root_of(self.rank);
                if let Err(e) = c_path(&root).and_then(|c| self.backend.sync_fs(&c)) {
                    outcome = Err(self.io_error("cannot sync the file system of", &root, e));
                }
            }
            if let Some(cmd) = &p.phases.run_cmd_after_phase {
                if let Err(e) = self.run_command(cmd, "epilogue") {
                    outcome = Err(e);
                }
            }
        }
        let items = if barriers {
            agree(self.comm, outcome)?
        } else {
            match outcome {
                Ok(n) => n,
                Err(e) => {
                    self.pending.get_or_insert(e);
                    0
                }
            }
        };
        let end = self.comm.wtime();
        self.samples[op as usize] = Sample {
            ran: true,
            time: end - start,
            time_before_barrier: own_end - start,
            items,
        };
        Ok(())
    }

    /// Merges every operation's latency histogram of this iteration on
    /// rank 0 (every task takes part in the same phases, so in the same
    /// gathers).
    fn merge_latencies(&mut self) -> Result<Vec<Option<Histogram<u64>>>> {
        let mut merged = Vec::with_capacity(OPS);
        for recorder in std::mem::take(&mut self.recorders) {
            merged.push(match recorder {
                Some(r) => Some(latency::merge(self.comm, 0, r.histogram())?),
                None => None,
            });
        }
        Ok(merged)
    }

    fn pre_delay(&self) {
        if self.active && self.p.phases.pre_delay > 0 {
            std::thread::sleep(Duration::from_secs(self.p.phases.pre_delay));
        }
    }

    fn directory_test(&mut self, j: u64) -> Result<()> {
        self.pre_delay();
        self.comm.barrier()?;
        let p = self.p;
        if p.phases.create {
            self.phase(Op::DirCreate, |s| s.create_items(j, Kind::Dir, None))?;
        }
        if p.phases.stat {
            self.phase(Op::DirStat, |s| s.stat_items(j, Kind::Dir))?;
        }
        // mdtest's directory "read" phase does nothing and is not shown.
        if p.phases.rename && self.layout.items_per_task() > 1 {
            self.phase(Op::DirRename, |s| s.rename_dirs(j))?;
        }
        if p.phases.remove {
            self.phase(Op::DirRemove, |s| s.remove_items(j, Kind::Dir))?;
        }
        Ok(())
    }

    fn file_test(&mut self, j: u64) -> Result<()> {
        self.pre_delay();
        self.comm.barrier()?;
        let p = self.p;
        if p.phases.create {
            if p.tree.shared_file {
                let check = self.check_shared_files_absent(j);
                agree(self.comm, check)?;
            }
            let deadline = (p.stonewall.seconds > 0).then_some(p.stonewall.seconds as f64);
            self.phase(Op::FileCreate, |s| s.create_items(j, Kind::File, deadline))?;
            if let Some(path) = &p.stonewall.file {
                let count = self.file_layout.items_per_task();
                let outcome = if self.rank == 0 {
                    std::fs::write(path, count.to_string())
                        .map_err(|e| self.io_error("cannot write", Path::new(path), e))
                } else {
                    Ok(())
                };
                agree(self.comm, outcome)?;
            }
        } else if let Some(path) = &p.stonewall.file {
            self.read_stonewall_file(path)?;
        }
        if p.phases.stat {
            self.phase(Op::FileStat, |s| s.stat_items(j, Kind::File))?;
        }
        if p.phases.read {
            self.phase(Op::FileRead, |s| s.read_files(j))?;
        }
        if p.phases.remove {
            self.phase(Op::FileRemove, |s| s.remove_items(j, Kind::File))?;
        }
        Ok(())
    }

    /// `-x` in a run without the create phase: the item count of the run
    /// that created the files.
    fn read_stonewall_file(&mut self, path: &str) -> Result<()> {
        let count: Option<u64> = if self.rank == 0 {
            std::fs::read_to_string(path)
                .ok()
                .and_then(|t| t.split_whitespace().next()?.parse().ok())
        } else {
            None
        };
        let count: Option<u64> = broadcast_value(self.comm, 0, &count)?;
        match count {
            None => {
                if self.rank == 0 {
                    self.out
                        .note(0, "WARNING: Could not read stonewall status file");
                }
            }
            Some(c) => {
                self.file_layout = self
                    .layout
                    .with_item_count(c)
                    .map_err(|e| Error::usage(format!("-x {path}: {e}")))?;
                if self.rank == 0 {
                    self.out
                        .note(1, &format!("Read stonewall status; items: {c}"));
                }
            }
        }
        Ok(())
    }

    /// `-S` opens the shared files without `O_EXCL` (every task opens them);
    /// unless this run made the tree, task 0 first makes sure none of them
    /// exists, so no file the run did not create is ever written.
    fn check_shared_files_absent(&mut self, j: u64) -> Result<()> {
        if self.rank != 0 {
            return Ok(());
        }
        for l in 0..self.layout.loops {
            let (tree, owner) = self.target(Role::Create, j, l);
            if self.created.tree_dirs.contains(&tree.root) {
                continue;
            }
            let layout = self.layout.clone();
            let mut paths = item_paths(self.rank, &layout, &tree, Kind::File, owner)?;
            for k in creation_order(&layout, layout.items_per_loop) {
                let path = paths.path(k);
                if self.backend.namespace().exists(path).unwrap_or(true) {
                    return Err(Error::task(
                        0,
                        format!(
                            "{} exists already: -S would write into a file this run did not create",
                            path_of(path).display()
                        ),
                    ));
                }
            }
        }
        Ok(())
    }

    /// The create phase of directories or files.
    fn create_items(&mut self, j: u64, kind: Kind, stonewall: Option<f64>) -> Result<u64> {
        let per_task = self.layout.items_per_task();
        if self.p.order.collective_creates {
            // Task 0 makes every task's items; then (files) each task opens
            // its own and writes them.
            let outcome = if self.active && self.rank == 0 {
                self.create_for_all(j, kind)
            } else {
                Ok(())
            };
            if kind == Kind::Dir {
                return outcome.map(|_| if self.active { per_task } else { 0 });
            }
            agree(self.comm, outcome)?;
        }
        let start = self.comm.wtime();
        let deadline = stonewall.map(|s| start + s);
        let mut done = 0;
        let mut outcome = Ok(());
        if self.active {
            for l in 0..self.layout.loops {
                let (tree, owner) = self.target(Role::Create, j, l);
                let count = self.layout.items_per_loop;
                match self.create_range(j, kind, &tree, owner, 0, count, deadline) {
                    Ok(n) => done += n,
                    Err(e) => {
                        outcome = Err(e);
                        break;
                    }
                }
            }
        }
        let Some(_) = stonewall else {
            return outcome.map(|_| done);
        };
        // The stonewall: tasks agree on the largest count reached and every
        // task finishes that many, so later phases find the same items.
        let done = agree(self.comm, outcome.map(|_| done))?;
        let active = self.active;
        let mut v = [if active { done } else { 0 }];
        self.comm.all_reduce_u64(&mut v, ReduceOp::Max)?;
        let max = v[0];
        let mut v = [if active { done } else { u64::MAX }];
        self.comm.all_reduce_u64(&mut v, ReduceOp::Min)?;
        let min = v[0];
        let mut v = [if active { done } else { 0 }];
        self.comm.all_reduce_u64(&mut v, ReduceOp::Sum)?;
        let sum = v[0];
        let elapsed = self.comm.wtime() - start;
        self.stonewall = Some(Stonewall {
            time_s: elapsed,
            items_min: min,
            items_max: max,
            items_sum: sum,
        });
        if sum != per_task * self.tasks as u64 && self.rank == 0 {
            self.out.note(
                0,
                &format!(
                    "Continue stonewall hit min: {min} max: {max} avg: {:.1} ",
                    sum as f64 / self.tasks as f64
                ),
            );
        }
        self.file_layout = self.layout.with_item_count(max).map_err(Error::usage)?;
        if !active {
            return Ok(0);
        }
        if done < max {
            let (tree, owner) = self.target(Role::Create, j, 0);
            self.create_range(j, kind, &tree, owner, done, max, None)?;
        }
        Ok(max)
    }

    /// `-c`: task 0 creates the items of every task (empty files).
    fn create_for_all(&mut self, j: u64, kind: Kind) -> Result<()> {
        for t in 0..self.tasks {
            for l in 0..self.layout.loops {
                let (tree, owner) = self.target_of(t, Role::Create, j, l);
                let count = self.layout.items_per_loop;
                let layout = self.layout.clone();
                let set = self.track(j, &tree, kind, owner, &layout);
                let mut paths = item_paths(self.rank, &layout, &tree, kind, owner)?;
                for k in creation_order(&layout, count) {
                    let path = paths.path(k);
                    match kind {
                        Kind::Dir => self.backend.namespace().mkdir(path),
                        Kind::File => self
                            .backend
                            .create(
                                path,
                                &CreateSpec {
                                    exclusive: true,
                                    read_back: false,
                                    rank: 0,
                                },
                            )
                            .and_then(|f| f.close()),
                    }
                    .map_err(|e| Error::io(0, "cannot create", path_of(path), &e))?;
                    self.created.items[set].count += 1;
                }
            }
        }
        Ok(())
    }

    /// Starts recording a set of items this task creates; returns its index.
    fn track(&mut self, j: u64, tree: &Tree, kind: Kind, owner: Owner, layout: &Layout) -> usize {
        if let Some(i) =
            self.created.items.iter().position(|s| {
                s.iteration == j && s.tree == *tree && s.kind == kind && s.owner == owner
            })
        {
            return i;
        }
        self.created.items.push(ItemSet {
            iteration: j,
            tree: tree.clone(),
            kind,
            owner,
            layout: layout.clone(),
            count: 0,
        });
        self.created.items.len() - 1
    }

    /// Creates items `from..to` (in creation order) of one tree; stops after
    /// the item that passes `deadline`. Returns the position reached.
    #[allow(clippy::too_many_arguments)]
    fn create_range(
        &mut self,
        j: u64,
        kind: Kind,
        tree: &Tree,
        owner: Owner,
        from: u64,
        to: u64,
        deadline: Option<f64>,
    ) -> Result<u64> {
        let layout = self.layout.clone();
        let collective = self.p.order.collective_creates;
        let set = if collective {
            None
        } else {
            Some(self.track(j, tree, kind, owner, &layout))
        };
        let rank = self.rank;
        let p = self.p;
        let spec = CreateSpec {
            exclusive: !p.tree.shared_file,
            read_back: p.data.verify_write,
            rank,
        };
        let pattern = Pattern::new(p.data.data_packet_type, self.data_seed, rank);
        if p.data.write_bytes > 0 {
            pattern.fill(self.write_buf.as_mut_slice());
        }
        let write_spec = open_spec(Access::Write, rank, p.data.write_bytes);
        let backend = &*self.backend;
        let names = backend.namespace();
        let comm = self.comm;
        let trace = self.trace;
        let lines = self.lines;
        let mut paths = item_paths(self.rank, &layout, tree, kind, owner)?;
        let mut position = from;
        for k in creation_order(&layout, to).skip(from as usize) {
            let path = paths.path(k);
            if trace {
                say!(
                    lines,
                    "V-3: Rank {rank:>3} create {}: {}",
                    kind_name(kind),
                    path_of(path).display()
                );
            }
            let failed =
                |action: &str, e: std::io::Error| Error::io(rank, action, path_of(path), &e);
            match kind {
                Kind::Dir => {
                    names
                        .mkdir(path)
                        .map_err(|e| failed("cannot create directory", e))?;
                    if let Some(s) = set {
                        self.created.items[s].count += 1;
                    }
                }
                Kind::File if p.phases.make_node => {
                    backend.mknod(path).map_err(|e| failed("cannot mknod", e))?;
                    if let Some(s) = set {
                        self.created.items[s].count += 1;
                    }
                }
                Kind::File if p.data.write_bytes == 0 && !collective => {
                    backend
                        .create_empty(path, &spec)
                        .map_err(|e| failed("cannot create", e))?;
                    if let Some(s) = set {
                        self.created.items[s].count += 1;
                    }
                }
                Kind::File => {
                    let mut file = if collective {
                        backend
                            .open(path, &write_spec)
                            .map_err(|e| failed("cannot open for writing", e))?
                    } else {
                        let f = backend
                            .create(path, &spec)
                            .map_err(|e| failed("cannot create", e))?;
                        if let Some(s) = set {
                            self.created.items[s].count += 1;
                        }
                        f
                    };
                    if p.data.write_bytes > 0 {
                        let buf = self.write_buf.as_mut_slice();
                        pattern.stamp(buf, k);
                        write_fully(file.as_mut(), buf, 0, Retry::Allowed)
                            .map_err(|e| failed("cannot write", e))?;
                        if p.data.sync_file {
                            file.sync().map_err(|e| failed("cannot fsync", e))?;
                        }
                        if p.data.verify_write {
                            let check = self.check_buf.as_mut_slice();
                            read_fully(file.as_mut(), check, 0, Retry::Allowed)
                                .map_err(|e| failed("cannot read back", e))?;
                            self.wrong.check(&pattern, check, k, path_of(path));
                        }
                    }
                    file.close().map_err(|e| failed("cannot close", e))?;
                }
            }
            position += 1;
            item_done!(self, position - from);
            if let Some(d) = deadline {
                if comm.wtime() > d {
                    break;
                }
            }
        }
        Ok(position)
    }

    /// The stat phase: each task stats the items of task `rank+N`, in item
    /// order (shuffled with `-R`).
    fn stat_items(&mut self, j: u64, kind: Kind) -> Result<u64> {
        if !self.active {
            return Ok(0);
        }
        let layout = match kind {
            Kind::File => self.file_layout.clone(),
            Kind::Dir => self.layout.clone(),
        };
        let count = layout.items_per_loop;
        let first = layout.first_item();
        let order = self.order_seed.map(|seed| Permutation::new(count, seed));
        let backend = &*self.backend;
        let rank = self.rank;
        for l in 0..layout.loops {
            let (tree, owner) = self.target(Role::Stat, j, l);
            let mut paths = item_paths(self.rank, &layout, &tree, kind, owner)?;
            for i in 0..count {
                let k = first + order.as_ref().map_or(i, |o| o.at(i));
                let path = paths.path(k);
                if self.trace {
                    say!(
                        self.lines,
                        "V-3: Rank {rank:>3} mdtest_stat {}: {}",
                        kind_name(kind),
                        path_of(path).display()
                    );
                }
                backend
                    .stat(path)
                    .map_err(|e| Error::io(rank, "cannot stat", path_of(path), &e))?;
                item_done!(self, l * count + i + 1);
            }
        }
        Ok(layout.loops * count)
    }

    /// The read phase: open, read `-e` bytes (verified with `-X`), close.
    fn read_files(&mut self, j: u64) -> Result<u64> {
        if !self.active {
            return Ok(0);
        }
        let p = self.p;
        let layout = self.file_layout.clone();
        let count = layout.items_per_loop;
        let first = layout.first_item();
        let order = self.order_seed.map(|seed| Permutation::new(count, seed));
        let rank = self.rank;
        // The task whose files these are (with -S, every task's own data).
        let writer = if p.tree.shared_file {
            rank
        } else {
            self.shifted(rank, Role::Read)
        };
        let pattern = Pattern::new(p.data.data_packet_type, self.data_seed, writer);
        let backend = &*self.backend;
        for l in 0..layout.loops {
            let (tree, owner) = self.target(Role::Read, j, l);
            let mut paths = item_paths(self.rank, &layout, &tree, Kind::File, owner)?;
            for i in 0..count {
                let k = first + order.as_ref().map_or(i, |o| o.at(i));
                let path = paths.path(k);
                if self.trace {
                    say!(
                        self.lines,
                        "V-3: Rank {rank:>3} mdtest_read file: {}",
                        path_of(path).display()
                    );
                }
                let buf = self.read_buf.as_mut_slice();
                backend
                    .open_read_close(path, buf, rank)
                    .map_err(|e| Error::io(rank, "cannot read", path_of(path), &e))?;
                if p.data.verify_read {
                    self.wrong.check(&pattern, buf, k, path_of(path));
                }
                item_done!(self, l * count + i + 1);
            }
        }
        Ok(layout.loops * count)
    }

    /// The rename phase (`-U`): mdtest's rotation. Item 0 moves aside to
    /// `<item>-XX`, each next item takes the name of the one before it, and
    /// the one aside takes the last free name: every name exists again at the
    /// end, and `count` renames were made.
    fn rename_dirs(&mut self, j: u64) -> Result<u64> {
        if !self.active {
            return Ok(0);
        }
        let layout = self.layout.clone();
        let count = layout.items_per_loop;
        if count <= 1 {
            return Ok(0);
        }
        let first = layout.first_item();
        let rank = self.rank;
        for l in 0..layout.loops {
            let (tree, owner) = self.target(Role::Stat, j, l);
            let mut paths = item_paths(self.rank, &layout, &tree, Kind::Dir, owner)?;
            let mut aside = paths.path(first).to_bytes().to_vec();
            aside.extend_from_slice(b"-XX");
            let aside = CString::new(aside).expect("a path from ItemPaths holds no NUL");
            let mut last = aside.clone();
            for i in 0..count {
                let item = paths.path(first + i).to_owned();
                let (from, to) = if i == count - 1 {
                    (aside.clone(), last.clone())
                } else {
                    (item.clone(), last.clone())
                };
                if self.trace {
                    say!(
                        self.lines,
                        "V-3: Rank {rank:>3} mdtest_rename dir: {}",
                        path_of(&from).display()
                    );
                }
                self.backend.rename(&from, &to).map_err(|e| {
                    Error::task(
                        rank,
                        format!(
                            "cannot rename {} to {}: {e}",
                            path_of(&from).display(),
                            path_of(&to).display()
                        ),
                    )
                })?;
                if i == 0 {
                    self.created.renamed_aside = Some(path_of(&aside).to_path_buf());
                } else if i == count - 1 {
                    self.created.renamed_aside = None;
                }
                last = item;
                item_done!(self, l * count + i + 1);
            }
        }
        Ok(layout.loops * count)
    }

    /// The remove phase: each task removes the items of task `rank+3N`
    /// (task 0 removes all with `-c`, and the shared files with `-S`).
    fn remove_items(&mut self, j: u64, kind: Kind) -> Result<u64> {
        if !self.active {
            return Ok(0);
        }
        let layout = match kind {
            Kind::File => self.file_layout.clone(),
            Kind::Dir => self.layout.clone(),
        };
        let count = layout.items_per_loop;
        let mut targets = Vec::new();
        if self.p.order.collective_creates {
            if self.rank == 0 {
                for t in 0..self.tasks {
                    for l in 0..layout.loops {
                        targets.push(self.target_of(t, Role::Remove, j, l));
                    }
                }
            }
        } else if !self.p.tree.shared_file || self.rank == 0 {
            for l in 0..layout.loops {
                targets.push(self.target(Role::Remove, j, l));
            }
        }
        let backend = &*self.backend;
        let rank = self.rank;
        let mut done = 0u64;
        for (tree, owner) in targets {
            let mut paths = item_paths(self.rank, &layout, &tree, kind, owner)?;
            for k in creation_order(&layout, count) {
                let path = paths.path(k);
                if self.trace {
                    say!(
                        self.lines,
                        "V-3: Rank {rank:>3} remove {}: {}",
                        kind_name(kind),
                        path_of(path).display()
                    );
                }
                match kind {
                    Kind::File => backend.remove(path),
                    Kind::Dir => backend.namespace().rmdir(path),
                }
                .map_err(|e| Error::io(rank, "cannot remove", path_of(path), &e))?;
                done += 1;
                item_done!(self, done);
            }
        }
        Ok(layout.loops * count)
    }

    // ----- failure -----

    /// After a failure: every task removes what it created in this run, and
    /// only that: items, then tree directories, test directories and the
    /// `-d` directory (directories only when empty). Best effort and quiet.
    fn clean_up_after_failure(&mut self) {
        if let Some(aside) = self.created.renamed_aside.take() {
            let _ = c_path(&aside).and_then(|c| self.backend.namespace().rmdir(&c));
        }
        for set in std::mem::take(&mut self.created.items) {
            let Ok(mut paths) = ItemPaths::new(&set.layout, &set.tree, set.kind, set.owner) else {
                continue;
            };
            for k in creation_order(&set.layout, set.count) {
                let path = paths.path(k);
                let _ = match set.kind {
                    Kind::File => self.backend.remove(path),
                    Kind::Dir => self.backend.namespace().rmdir(path),
                };
            }
        }
        // Items of other tasks may live in this task's directories.
        let _ = self.comm.barrier();
        let _ = self.remove_created_tree_dirs(true);
        let _ = self.comm.barrier();
        while let Some(dir) = self.created.test_dirs.pop() {
            let _ = c_path(&dir).and_then(|c| self.backend.namespace().rmdir(&c));
        }
        let _ = self.comm.barrier();
        if let Some(root) = self.created.root.take() {
            let _ = c_path(&root).and_then(|c| self.backend.namespace().rmdir(&c));
        }
    }

    /// The end of the run: the finished stamp and the machine-readable outputs.
    fn finish(&mut self, outcome: &Result<()>) {
        if self.rank != 0 {
            return;
        }
        self.report.finished = timestamp();
        self.report.error = match outcome {
            Err(Error::Data { .. }) | Ok(()) => None,
            Err(e) => Some(e.to_string()),
        };
        let report = &self.report;
        self.out.each(|s| s.run_done(report));
    }
}

/// Whether an error says a directory is not empty.
/// The item paths of one tree, or the error naming the tree's directory.
fn item_paths<'a>(
    rank: usize,
    layout: &'a Layout,
    tree: &'a Tree,
    kind: Kind,
    owner: Owner,
) -> Result<ItemPaths<'a>> {
    ItemPaths::new(layout, tree, kind, owner)
        .map_err(|e| Error::io(rank, "cannot use", &layout.dir_path(tree, 0), &e))
}

fn is_not_empty(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(rustix::io::Errno::NOTEMPTY.raw_os_error())
        || e.raw_os_error() == Some(rustix::io::Errno::EXIST.raw_os_error())
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "file",
        Kind::Dir => "dir",
    }
}

/// How a phase opens an existing file.
fn open_spec(access: Access, rank: usize, bytes: u64) -> OpenSpec {
    OpenSpec {
        access,
        create: false,
        file_size: bytes,
        rank,
        sequential: true,
        blocks: None,
    }
}
