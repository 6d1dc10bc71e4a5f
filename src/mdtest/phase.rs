//! mdtest's timed phases: who handles whose items (`-N`), the commands
//! around a phase, its timing between barriers, and the directory and file
//! tests of an iteration with the stonewall status file of the create phase.

use std::time::Duration;

use super::items::item_paths;
use super::layout::{creation_order, test_dir, Kind, Owner, Role, Tree};
use super::results::{Op, Sample};
use super::runner::Run;
use crate::backend::cpath::{c_path, path_of};
use crate::comm::{agree, broadcast_value};
use crate::error::{Error, Result};
use crate::latency::LatencyRecorder;
use crate::progress;
use crate::run::stonewall::{read_status, write_status};
use crate::run::stop;

impl Run<'_> {
    /// The tree and item names a task handles in a phase: the items of task
    /// `rank + role·N`, in the tree of task `rank + (role+1)·N` (with `-u`).
    pub fn target(&self, role: Role, j: u64, l: u64) -> (Tree, Owner) {
        self.target_of(self.task.rank, role, j, l)
    }

    pub fn target_of(&self, rank: usize, role: Role, j: u64, l: u64) -> (Tree, Owner) {
        let items_of = self.shifted(rank, role);
        let tree_of = (rank + (role as usize + 1) * self.task.stride) % self.task.tasks;
        let tree = match self.p.tree.unique_dir {
            true => Tree::new(&test_dir(&self.root_of(tree_of), j, l), Some(tree_of)),
            false => Tree::new(&test_dir(&self.root_of(0), j, l), None),
        };
        let owner = match self.p.tree.shared_file {
            true => Owner::Shared,
            false => Owner::Task(items_of),
        };
        (tree, owner)
    }

    /// The task whose items `rank` handles in a phase: `rank + role·N`.
    pub fn shifted(&self, rank: usize, role: Role) -> usize {
        (rank + role as usize * self.task.stride) % self.task.tasks
    }

    /// Runs a shell command between phases (`--run-cmd-*-phase`).
    fn run_command(&mut self, cmd: &str, what: &str) -> Result<()> {
        let rank = self.task.rank;
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
        let retries_before = self.backend.retries();
        let mut outcome = match self.measure.pending {
            None => work(self),
            Some(_) => Ok(0),
        };
        let own_end = self.comm.wtime();
        let retries = crate::backend::retries_since(&*self.backend, retries_before);
        self.measure.live = None;
        if let Some(mut l) = self.measure.recording.take() {
            l.finish();
            self.measure.recorders[op as usize] = Some(l);
        }
        if outcome.is_ok() {
            outcome = self.phase_epilogue().and(outcome);
        }
        let items = match self.p.order.no_barriers {
            false => agree(self.comm, outcome)?,
            true => outcome.unwrap_or_else(|e| {
                self.measure.pending.get_or_insert(e);
                0
            }),
        };
        let end = self.comm.wtime();
        self.measure.samples[op as usize] = Sample {
            ran: true,
            time: end - start,
            time_before_barrier: own_end - start,
            items,
            retries,
        };
        match self.p.order.no_barriers {
            false => self.check_stop(Some(op)),
            // -B: tasks agree on a stop at the iteration's end.
            true => Ok(()),
        }
    }

    /// Stops here if a signal asked any task to (every task calls it at the
    /// same point), noting the phase it closed.
    pub fn check_stop(&mut self, op: Option<Op>) -> Result<()> {
        match stop::agreed(self.comm)? {
            Some(signal) => {
                self.measure.stopped = Some((op, signal));
                Err(stop::interrupted(signal))
            }
            None => Ok(()),
        }
    }

    /// Up to the start of a phase's time: the prologue, the opening barrier,
    /// the latency recorder and the progress display. Returns the start.
    fn phase_start(&mut self, op: Op) -> Result<f64> {
        let p = self.p;
        if self.measure.pending.is_none() {
            if let Some(cmd) = &p.phases.run_cmd_before_phase {
                if let Err(e) = self.run_command(cmd, "prologue") {
                    self.measure.pending = Some(e);
                }
            }
        }
        if !p.order.no_barriers {
            let held = self.measure.pending.take().map_or(Ok(()), Err);
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
        self.measure.recording = p.output.record_latency.then(LatencyRecorder::new);
        if let Some(l) = self.measure.recording.as_mut() {
            l.start();
        }
        let shown = progress::wanted(p.output.progress, self.task.rank);
        if shown && !op.is_tree() {
            let items = match op.is_dir() {
                true => self.layout.items_per_task(),
                false => self.file_layout.items_per_task(),
            };
            let tasks = self.task.tasks as u64;
            let name = op.name().to_string();
            self.measure.live = Some(progress::Progress::start(name, items, tasks, "items", None));
        }
        Ok(start)
    }

    /// Inside a phase's time, after its work: `-Y` and the epilogue.
    fn phase_epilogue(&mut self) -> Result<()> {
        if self.p.data.call_sync {
            let root = self.root_of(self.task.rank);
            c_path(&root)
                .and_then(|c| self.backend.sync_fs(&c))
                .map_err(|e| self.fs().error("cannot sync the file system of", &root, &e))?;
        }
        match &self.p.phases.run_cmd_after_phase {
            Some(cmd) => self.run_command(cmd, "epilogue"),
            None => Ok(()),
        }
    }

    fn pre_delay(&self) {
        if self.p.phases.pre_delay > 0 {
            stop::sleep(Duration::from_secs(self.p.phases.pre_delay));
        }
    }

    pub fn directory_test(&mut self, j: u64) -> Result<()> {
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
        if p.phases.rename && self.layout.items_per_task() > 1 && self.backend.renames() {
            self.phase(Op::DirRename, |s| s.rename_dirs(j))?;
        }
        if p.phases.remove {
            self.phase(Op::DirRemove, |s| s.remove_items(j, Kind::Dir))?;
        }
        Ok(())
    }

    pub fn file_test(&mut self, j: u64) -> Result<()> {
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
            self.write_stonewall_file()?;
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

    /// `-x` after the create phase: rank 0 stores the item count each task
    /// created.
    fn write_stonewall_file(&mut self) -> Result<()> {
        let Some(path) = &self.p.stonewall.file else {
            return Ok(());
        };
        let count = self.file_layout.items_per_task();
        let outcome = match self.task.rank {
            0 => write_status(path, count).map_err(|e| Error::task(0, e)),
            _ => Ok(()),
        };
        agree(self.comm, outcome)
    }

    /// `-x` in a run without the create phase: the item count of the run
    /// that created the files (a file that cannot be read is a warning, as
    /// in mdtest).
    fn read_stonewall_file(&mut self, path: &str) -> Result<()> {
        let count = match self.task.rank {
            0 => read_status(path).ok(),
            _ => None,
        };
        let count: Option<u64> = broadcast_value(self.comm, 0, &count)?;
        let Some(c) = count else {
            self.out
                .note(0, "WARNING: Could not read stonewall status file");
            return Ok(());
        };
        self.file_layout = self
            .layout
            .with_item_count(c)
            .map_err(|e| Error::usage(format!("-x {path}: {e}")))?;
        self.out
            .note(1, &format!("Read stonewall status; items: {c}"));
        Ok(())
    }

    /// `-S` opens the shared files without `O_EXCL` (every task opens them);
    /// unless this run made the tree, task 0 first makes sure none of them
    /// exists, so no file the run did not create is ever written.
    fn check_shared_files_absent(&mut self, j: u64) -> Result<()> {
        if self.task.rank != 0 {
            return Ok(());
        }
        for l in 0..self.layout.loops {
            let (tree, owner) = self.target(Role::Create, j, l);
            if self.created.tree_dirs.contains(&tree.root) {
                continue;
            }
            let layout = self.layout.clone();
            let mut paths = item_paths(self.task.rank, &layout, &tree, Kind::File, owner)?;
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
}
