//! One test on one task: its set-up (backend, layout, file names, readers,
//! memory, report header), its repetitions, and the removal of what it
//! wrote. The phases are in [`super::phase`], the timed open/transfer/close in
//! [`super::timed`].

use super::data::TestData;
use super::files::{FileNames, TestFiles};
use super::layout::Layout;
use super::outputs::TestOutputs;
use super::params::IorParams;
use super::report::{OptionsEcho, ParametersEcho, RemoveTiming, Scale, TestReport};
use super::sink::Out;
use super::IorTest;
use crate::backend::cpath::c_path;
use crate::backend::{self, Access, Backend, Choice};
use crate::buffer::{AlignedBuffer, PAGE};
use crate::comm::{agree, broadcast_value, Comm, Topology};
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::memhog::{self, MemoryHog};
use crate::run::info::now_string;
use crate::run::seeds;
use crate::run::stop;
use crate::run::tally::WrongData;
use crate::run::warnings::Warnings;

/// How a test ended early: the error, and with it, when a signal stopped
/// the test, what the test measured until then.
pub(super) struct Stopped(pub Error, pub Option<Box<TestReport>>);

impl From<Error> for Stopped {
    fn from(e: Error) -> Stopped {
        Stopped(e, None)
    }
}

/// This task and its part in the test.
pub(super) struct Task {
    pub rank: usize,
    /// Whether it takes part (`-N`).
    pub active: bool,
    /// Where its own lines go (stdout unless it carries a document).
    pub lines: TaskLines,
}

/// One test on one task: what it runs with (the communicator, the test,
/// this task), and the parts that change as it runs, each changed only in
/// its own file: its files ([`TestFiles`]), its data ([`TestData`]) and
/// what it tells ([`TestOutputs`]).
pub(super) struct TestRun<'a> {
    pub comm: &'a dyn Comm,
    pub test: &'a IorTest,
    pub p: &'a IorParams,
    pub task: Task,
    pub files: TestFiles,
    pub data: TestData,
    pub out: TestOutputs<'a>,
    /// Memory held away from the page cache for the test (`-M`).
    _hog: MemoryHog,
}

impl<'a> TestRun<'a> {
    pub fn new(
        comm: &'a dyn Comm,
        out: &'a mut Out,
        id: usize,
        test: &'a IorTest,
    ) -> Result<TestRun<'a>> {
        let p = &test.params;
        let rank = comm.rank();
        let tasks = p.geometry.num_tasks.unwrap_or(comm.size());
        let task = Task {
            rank,
            active: rank < tasks,
            lines: out.task_lines(),
        };
        let choice = match p.transfers.dry_run {
            true => Choice::dummy(),
            false => test.backend.clone(),
        };
        let context = backend::Context {
            comm,
            active: task.active,
            collective: p.transfers.collective,
            lines: task.lines,
        };
        let backend = choice.build(&context).map_err(Error::usage)?;
        let together = match backend.opens_together() && !p.geometry.file_per_proc {
            true => comm.split(task.active)?,
            false => None,
        };
        let topology = comm.topology().first(tasks);
        let layout = layout_of(p, tasks, seeds::agreed(comm, random_seed(p), seeds::fresh)?);
        let names = FileNames::new(
            &p.files.test_file_name,
            p.geometry.file_per_proc,
            p.files.unique_dir,
            p.files.multi_file,
        );
        let place = names.path(rank, 0);
        let place = match task.active {
            true => c_path(&place)
                .and_then(|c| backend.check_place(&c, p.phases.write_file))
                .map_err(|e| Error::usage(e.to_string())),
            false => Ok(()),
        };
        agree(comm, place)?;
        stop::leave_in(
            FileNames::directory_of(&names.path(0, 0))
                .display()
                .to_string(),
        );
        let (hog, scale) = agree(comm, hog_memory(p, &topology, &task))?;
        let report = header(p, id, &*backend, &layout, &names, &scale, rank == 0);
        let buffer_len = if task.active {
            p.geometry.transfer_size
        } else {
            0
        };
        let buffer = AlignedBuffer::try_new(buffer_len, PAGE).map_err(|e| Error::task(rank, e))?;
        let warnings = Warnings::new("ior", rank, p.output.warning_as_errors);
        Ok(TestRun {
            comm,
            test,
            p,
            out: TestOutputs::new(out, warnings, report),
            task,
            files: TestFiles::new((choice, backend), together, names, rank),
            data: TestData::new(p, layout, topology, buffer),
            _hog: hog,
        })
    }

    /// Runs the test; its report (complete on rank 0). A test a signal
    /// stopped returns what it measured with the error.
    pub fn run(mut self) -> Result<TestReport, Stopped> {
        if self.task.rank == 0 {
            self.out.started();
            self.describe();
            let preload = std::env::var("LD_PRELOAD").ok();
            let unseen = crate::backend::aio::unseen_by_preload(preload.as_deref());
            if let Some(text) = unseen.filter(|_| self.files.backend().name() == "AIO") {
                self.out.advise(&text);
            }
        }
        let outcome = self.repetitions();
        if outcome.is_err() {
            self.clean_up_after_failure();
        } else if !self.p.files.keep_file {
            self.files.remove_dirs();
        }
        let report = self.out.finish();
        match outcome {
            Ok(()) => Ok(report),
            Err(e @ Error::Interrupted { .. }) => Err(Stopped(e, Some(Box::new(report)))),
            Err(e) => Err(Stopped(e, None)),
        }
    }

    /// Verbose notes about the test (rank 0).
    fn describe(&mut self) {
        let tasks = self.data.layout().tasks as usize;
        self.out.note(2, &format!("Participating tasks : {tasks}"));
        self.describe_readers();
        if self.p.geometry.random_offset > 0 {
            let seed = self.data.layout().seed;
            self.out.note(2, &format!("Random offset seed : {seed}"));
        }
        let listed = if self.p.geometry.file_per_proc { 64 } else { 1 };
        for rank in 0..tasks.min(listed) {
            let path = self.files.path(rank, 0);
            self.out
                .note(2, &format!("task {rank} file : {}", path.display()));
        }
        if self.p.output.verbose >= 3 {
            if let Ok(json) = serde_json::to_string_pretty(&self.out.report().parameters) {
                self.out.note(3, &format!("Parameters:\n{json}"));
            }
        }
    }

    /// Which task reads whose data (`-v -v`), and a note when the topology
    /// forces reads from the writer's node.
    pub fn describe_readers(&mut self) {
        let r = &self.p.reorder;
        if !(r.reorder_tasks || r.reorder_tasks_random > 0) {
            return;
        }
        let (topology, readers) = (self.data.topology(), self.data.readers());
        for (reader, writer) in readers.map.iter().enumerate().take(256) {
            let (rn, wn) = (topology.node_of(reader), topology.node_of(*writer));
            self.out.note(
                2,
                &format!("task {reader} (node {rn}) reads the data of task {writer} (node {wn})"),
            );
        }
        let same = readers.same_node(topology);
        if same > 0 && topology.num_nodes() > 1 {
            self.out.note(
                1,
                &format!("NOTE: {same} tasks read data written on their own node: the tasks are spread too unevenly over the nodes to avoid it"),
            );
        }
    }

    fn repetitions(&mut self) -> Result<()> {
        let start = self.comm.wtime();
        for rep in 0..self.p.phases.repetitions {
            if rep > 0 && self.out_of_time(start)? {
                let minutes = self.p.phases.max_time_duration;
                self.out.note(0, &format!("Stopping after {rep} repetitions: the maximum time (-T {minutes} minutes) has passed"));
                break;
            }
            self.repetition(rep)?;
        }
        Ok(())
    }

    /// `-T`: whether no repetition may start any more (rank 0 decides).
    fn out_of_time(&self, start: f64) -> Result<bool> {
        let minutes = self.p.phases.max_time_duration;
        if minutes == 0 {
            return Ok(false);
        }
        let over = self.comm.wtime() - start >= minutes as f64 * 60.0;
        Ok(broadcast_value(self.comm, 0, &over)?)
    }

    /// One repetition: write, `-W` check, read, then removal unless kept.
    fn repetition(&mut self, rep: u64) -> Result<()> {
        if self.data.reorder(self.p, rep) {
            self.describe_readers();
        }
        let signature = self.data.agree_signature(self.comm, self.p)?;
        self.out.note(
            1,
            &format!(
                "Using Time Stamp {signature} (0x{:x}) for Data Signature",
                signature as u32
            ),
        );
        let mut errors = WrongData::default();
        if self.p.phases.write_file {
            // A mixed write phase verifies its reads (-W, -R).
            errors.add(self.measured_phase(Access::Write, rep)?);
        }
        if self.p.phases.check_write {
            stop::check(self.comm)?;
            errors.add(self.check_phase(rep)?);
        }
        if self.p.reads() {
            errors.add(self.measured_phase(Access::Read, rep)?);
        }
        self.out.add_data_errors(errors);
        if let (true, Some(e)) = (self.p.verification.quit_on_error, errors.error("transfers")) {
            return Err(e);
        }
        let files = &self.p.files;
        if !(files.keep_file || (files.keep_file_with_error && errors.wrong > 0)) {
            self.timed_remove(rep)?;
        }
        Ok(())
    }

    /// Removes this repetition's files, timed like IOR's `remove` row.
    fn timed_remove(&mut self, rep: u64) -> Result<()> {
        self.comm.barrier()?;
        let start = self.comm.wtime();
        let removed = self.files.remove_written();
        agree(self.comm, removed)?;
        let seconds = self.comm.wtime() - start;
        if self.task.rank == 0 {
            self.out.each(|s| s.removed(seconds, rep));
            self.out.add_removal(RemoveTiming {
                iteration: rep,
                total: seconds,
            });
        }
        Ok(())
    }

    /// After a failure: remove what this run wrote (unless `-k`), quietly.
    fn clean_up_after_failure(&mut self) {
        // -K keeps files that held wrong data, also when -q ends the run on
        // them.
        let files = &self.p.files;
        let wrong = self.out.report().data_errors.wrong > 0;
        if files.keep_file || (files.keep_file_with_error && wrong) {
            return;
        }
        self.files.remove_all();
    }

    /// The task whose data this task handles in a phase.
    pub fn pretend(&self, access: Access) -> usize {
        self.data.pretend(access, self.task.rank, self.task.active)
    }

    /// Whether this task creates and removes its file: every task its own
    /// with `-F`, rank 0 the shared file.
    pub fn responsible(&self) -> bool {
        self.task.active && (self.p.geometry.file_per_proc || self.task.rank == 0)
    }
}

/// `--random-offset-seed`, unless it asks rank 0 to pick one (-1).
fn random_seed(p: &IorParams) -> Option<u64> {
    let seed = p.geometry.random_offset_seed;
    (seed >= 0).then_some(seed as u64)
}

/// Which offsets each task touches.
fn layout_of(p: &IorParams, tasks: usize, seed: u64) -> Layout {
    Layout {
        transfer: p.geometry.transfer_size,
        block: p.geometry.block_size,
        segments: p.geometry.segment_count,
        tasks: tasks as u64,
        file_per_proc: p.geometry.file_per_proc,
        ordering: p.ordering(),
        seed,
        random_range: None,
    }
}

/// The report of a test about to start: its echoes, no results yet.
fn header(
    p: &IorParams,
    id: usize,
    backend: &dyn Backend,
    layout: &Layout,
    names: &FileNames,
    scale: &Scale,
    rank0: bool,
) -> TestReport {
    let path = names.path(0, 0);
    let fs = match rank0 {
        true => c_path(&FileNames::directory_of(&path))
            .ok()
            .and_then(|dir| backend.namespace().fs_usage(&dir)),
        false => None,
    };
    let signature = p.verification.time_stamp_signature.unwrap_or(0);
    TestReport {
        test_id: id,
        start_time: now_string(),
        path: path.display().to_string(),
        fs,
        parameters: ParametersEcho::new(p, id, scale, signature, layout.seed),
        options: OptionsEcho::new(p, backend.version(), scale, layout.aggregate_size()),
        results: Vec::new(),
        removes: Vec::new(),
        max: Default::default(),
        data_errors: WrongData::default(),
        warnings: Vec::new(),
        sweep: None,
        object_store: backend
            .object_client()
            .map(|client| format!("{} ({client})", backend.name())),
    }
}

/// Takes this task's share of `-M`/`memoryPerTask`; returns the hog and the
/// scale of the test (the per-task and per-node amounts as rank 0 sees them).
fn hog_memory(p: &IorParams, topology: &Topology, task: &Task) -> Result<(MemoryHog, Scale)> {
    let rank = task.rank;
    let (per_task, per_node) = match (p.memory.per_task, p.memory.per_node) {
        (Some(t), _) => (t, 0),
        (None, Some(node)) => {
            let total = memhog::node_total().map_err(|e| Error::task(rank, e))?;
            let per_node = node.bytes(total);
            let node_of_rank = if task.active {
                topology.node_of(rank)
            } else {
                0
            };
            let here = topology.ranks_on(node_of_rank).len().max(1) as u64;
            (per_node / here, per_node)
        }
        (None, None) => (0, 0),
    };
    let hog = if task.active && per_task > 0 {
        MemoryHog::take(per_task).map_err(|e| Error::task(rank, e))?
    } else {
        MemoryHog::default()
    };
    let scale = Scale {
        nodes: topology.num_nodes(),
        tasks: topology.size(),
        tasks_per_node: topology.tasks_per_node(),
        memory_per_task: per_task,
        memory_per_node: per_node,
    };
    Ok((hog, scale))
}
