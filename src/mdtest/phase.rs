//! mdtest's timed phases: who handles whose items (`-N`), the commands
//! around a phase, its timing between barriers, and the directory and file
//! tests of an iteration with the stonewall status file of the create phase.

use std::time::Duration;

use super::layout::{creation_order, Kind, Role};
use super::results::{Op, Sample};
use super::runner::Run;
use crate::backend::cpath::{c_path, path_of};
use crate::comm::{agree, broadcast_value};
use crate::error::{Error, Result};
use crate::progress;
use crate::run::stonewall::{read_status, write_status};
use crate::run::stop;

impl Run<'_> {
    /// Runs a shell command between phases (`--run-cmd-*-phase`).
    fn run_command(&mut self, cmd: &str, what: &str) -> Result<()> {
        let rank = self.task.rank();
        if rank == 0 {
            self.out.note(0, &format!("calling {what}: \"{cmd}\""));
        }
        match std::process::Command::new("sh").arg("-c").arg(cmd).status() {
            Ok(status) if !status.success() && rank == 0 => {
                let text = format!("WARNING: the {what} \"{cmd}\" exited with {status}");
                self.out.note(0, &text);
                Ok(())
            }
            Ok(_) => Ok(()),
            Err(e) => Err(Error::task(
                rank,
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
        let start = self.phase_start(op)?;
        let retries_before = self.task.backend().retries();
        let mut outcome = match self.measure.holds_failure() {
            false => work(self),
            true => Ok(0),
        };
        let comm = self.task.comm();
        let own_end = comm.wtime();
        let retries = crate::backend::retries_since(self.task.backend(), retries_before);
        self.measure.end_phase(op);
        if outcome.is_ok() {
            outcome = self.phase_epilogue().and(outcome);
        }
        let p = self.task.p();
        let items = match p.order.no_barriers {
            false => agree(comm, outcome)?,
            true => outcome.unwrap_or_else(|e| {
                self.measure.hold(e);
                0
            }),
        };
        let end = comm.wtime();
        let sample = Sample {
            ran: true,
            time: end - start,
            time_before_barrier: own_end - start,
            items,
            retries,
        };
        self.measure.record(op, sample);
        match p.order.no_barriers {
            false => self.check_stop(Some(op)),
            // -B: tasks agree on a stop at the iteration's end.
            true => Ok(()),
        }
    }

    /// Stops here if a signal asked any task to (every task calls it at the
    /// same point), noting the phase it closed.
    pub fn check_stop(&mut self, op: Option<Op>) -> Result<()> {
        match stop::agreed(self.task.comm())? {
            Some(signal) => {
                self.measure.set_stopped(op, signal);
                Err(stop::interrupted(signal))
            }
            None => Ok(()),
        }
    }

    /// Up to the start of a phase's time: the prologue, the opening barrier,
    /// the latency recorder and the progress display. Returns the start.
    fn phase_start(&mut self, op: Op) -> Result<f64> {
        let (p, comm) = (self.task.p(), self.task.comm());
        if !self.measure.holds_failure() {
            if let Some(cmd) = &p.phases.run_cmd_before_phase {
                if let Err(e) = self.run_command(cmd, "prologue") {
                    self.measure.hold(e);
                }
            }
        }
        if !p.order.no_barriers {
            let held = self.measure.take_held().map_or(Ok(()), Err);
            agree(comm, held)?;
        }
        let mut start = comm.wtime();
        if p.tree.unique_dir && matches!(op, Op::DirCreate | Op::FileCreate) {
            // mdtest enters the unique directories behind a barrier; -t keeps
            // that in the phase's time.
            comm.barrier()?;
            if !p.order.time_unique_dir_overhead {
                start = comm.wtime();
            }
        }
        self.measure.start_phase(p.output.record_latency);
        let shown = progress::wanted(p.output.progress, self.task.rank());
        if shown && !op.is_tree() {
            let items = match op.is_dir() {
                true => self.task.layout().items_per_task(),
                false => self.items.file_layout().items_per_task(),
            };
            let tasks = self.task.tasks() as u64;
            let name = op.name().to_string();
            let live = progress::Progress::start(name, items, tasks, "items", None);
            self.measure.show(live);
        }
        Ok(start)
    }

    /// Inside a phase's time, after its work: `-Y` and the epilogue.
    fn phase_epilogue(&mut self) -> Result<()> {
        let p = self.task.p();
        if p.data.call_sync {
            let root = self.task.root_of(self.task.rank());
            c_path(&root)
                .and_then(|c| self.task.backend().sync_fs(&c))
                .map_err(|e| {
                    self.task
                        .fs()
                        .error("cannot sync the file system of", &root, &e)
                })?;
        }
        match &p.phases.run_cmd_after_phase {
            Some(cmd) => self.run_command(cmd, "epilogue"),
            None => Ok(()),
        }
    }

    fn pre_delay(&self) {
        let p = self.task.p();
        if p.phases.pre_delay > 0 {
            stop::sleep(Duration::from_secs(p.phases.pre_delay));
        }
    }

    pub fn directory_test(&mut self, j: u64) -> Result<()> {
        self.pre_delay();
        self.task.comm().barrier()?;
        let p = self.task.p();
        let dir = Kind::Dir;
        if p.phases.create {
            self.phase(Op::DirCreate, |s| {
                let (items, mut w) = s.at_work();
                items.create(&mut w, (j, dir), None)
            })?;
        }
        if p.phases.stat {
            self.phase(Op::DirStat, |s| {
                let (items, mut w) = s.at_work();
                items.stat(&mut w, j, dir)
            })?;
        }
        // mdtest's directory "read" phase does nothing and is not shown.
        let renames = self.task.backend().renames();
        if p.phases.rename && self.task.layout().items_per_task() > 1 && renames {
            self.phase(Op::DirRename, |s| {
                let (items, mut w) = s.at_work();
                items.rename_dirs(&mut w, j)
            })?;
        }
        if p.phases.remove {
            self.phase(Op::DirRemove, |s| {
                let (items, mut w) = s.at_work();
                items.remove(&mut w, j, dir)
            })?;
        }
        Ok(())
    }

    pub fn file_test(&mut self, j: u64) -> Result<()> {
        self.pre_delay();
        let comm = self.task.comm();
        comm.barrier()?;
        let p = self.task.p();
        let file = Kind::File;
        if p.phases.create {
            if p.tree.shared_file {
                let check = self.check_shared_files_absent(j);
                agree(comm, check)?;
            }
            let deadline = (p.stonewall.seconds > 0).then_some(p.stonewall.seconds as f64);
            self.phase(Op::FileCreate, |s| {
                let (items, mut w) = s.at_work();
                items.create(&mut w, (j, file), deadline)
            })?;
            self.write_stonewall_file()?;
        } else if let Some(path) = &p.stonewall.file {
            self.read_stonewall_file(path)?;
        }
        if p.phases.stat {
            self.phase(Op::FileStat, |s| {
                let (items, mut w) = s.at_work();
                items.stat(&mut w, j, file)
            })?;
        }
        if p.phases.read {
            self.phase(Op::FileRead, |s| {
                let (items, mut w) = s.at_work();
                items.read(&mut w, j)
            })?;
        }
        if p.phases.remove {
            self.phase(Op::FileRemove, |s| {
                let (items, mut w) = s.at_work();
                items.remove(&mut w, j, file)
            })?;
        }
        Ok(())
    }

    /// `-x` after the create phase: rank 0 stores the item count each task
    /// created.
    fn write_stonewall_file(&mut self) -> Result<()> {
        let Some(path) = &self.task.p().stonewall.file else {
            return Ok(());
        };
        let count = self.items.file_layout().items_per_task();
        let outcome = match self.task.rank() {
            0 => write_status(path, count).map_err(|e| Error::task(0, e)),
            _ => Ok(()),
        };
        agree(self.task.comm(), outcome)
    }

    /// `-x` in a run without the create phase: the item count of the run
    /// that created the files (a file that cannot be read is a warning, as
    /// in mdtest).
    fn read_stonewall_file(&mut self, path: &str) -> Result<()> {
        let count = match self.task.rank() {
            0 => read_status(path).ok(),
            _ => None,
        };
        let count: Option<u64> = broadcast_value(self.task.comm(), 0, &count)?;
        let Some(c) = count else {
            self.out
                .note(0, "WARNING: Could not read stonewall status file");
            return Ok(());
        };
        let layout = self.task.layout().with_item_count(c);
        let layout = layout.map_err(|e| Error::usage(format!("-x {path}: {e}")))?;
        self.items.set_file_layout(layout);
        self.out
            .note(1, &format!("Read stonewall status; items: {c}"));
        Ok(())
    }

    /// `-S` opens the shared files without `O_EXCL` (every task opens them);
    /// unless this run made the tree, task 0 first makes sure none of them
    /// exists, so no file the run did not create is ever written.
    fn check_shared_files_absent(&mut self, j: u64) -> Result<()> {
        let task = &self.task;
        if task.rank() != 0 {
            return Ok(());
        }
        let layout = task.layout();
        for l in 0..layout.loops {
            let (tree, owner) = task.target(Role::Create, j, l);
            if self.dirs.made(&tree.root) {
                continue;
            }
            let mut paths = task.item_paths(layout, &tree, Kind::File, owner)?;
            for k in creation_order(layout, layout.items_per_loop) {
                let path = paths.path(k);
                if task.backend().namespace().exists(path).unwrap_or(true) {
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
}
