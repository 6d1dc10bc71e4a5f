//! This task in an mdtest run: its communicator (the current sweep step's),
//! the parameters, the backend, the layout, its rank and `-N` stride, and
//! the seeds; and from those, the trees and items it handles in each phase
//! (`-N`, `-u`, `-S`). Fixed for the run but for the sweep step's
//! communicator and task count, which the runner sets.

use std::path::PathBuf;

use super::layout::{test_dir, ItemPaths, Kind, Layout, Owner, Role, Tree};
use super::params::MdtestParams;
use crate::backend::Backend;
use crate::comm::Comm;
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::run::fs::Fs;

/// This task, and its place in the current sweep step.
pub(super) struct Task<'a> {
    /// The tasks of the current sweep step.
    comm: &'a dyn Comm,
    p: &'a MdtestParams,
    backend: Box<dyn Backend>,
    layout: Layout,
    rank: usize,
    /// Tasks of the run.
    size: usize,
    /// Tasks of the current sweep step (which this task is part of: the
    /// others do not run it).
    tasks: usize,
    /// `-N`, multiplied by the tasks per node on multi-node block placements.
    stride: usize,
    /// Where its own lines (traces, verification errors) go.
    lines: TaskLines,
    /// Trace every item (rank 0 at `-v -v -v`, every task at `-v` ×5).
    trace: bool,
    /// `-G`, agreed.
    data_seed: i64,
    /// `-R`: this task's shuffle seed, `None` for numbered order.
    order_seed: Option<u64>,
}

impl<'a> Task<'a> {
    /// The task on `comm`, with the agreed seeds (data, shuffle).
    pub fn new(
        comm: &'a dyn Comm,
        p: &'a MdtestParams,
        backend: Box<dyn Backend>,
        layout: Layout,
        (data_seed, random_seed): (i64, i64),
        lines: TaskLines,
    ) -> Task<'a> {
        let rank = comm.rank();
        let topology = comm.topology();
        let mut stride = p.order.nstride;
        if stride > 0 && topology.num_nodes() > 1 && topology.is_block_mapped() {
            stride *= topology.ranks_on(topology.node_of(0)).len();
        }
        Task {
            comm,
            p,
            backend,
            layout,
            rank,
            size: comm.size(),
            tasks: comm.size(),
            stride,
            lines,
            trace: p.output.verbose >= 5 || (rank == 0 && p.output.verbose >= 3),
            data_seed,
            order_seed: p.random_order().then(|| (random_seed + rank as i64) as u64),
        }
    }

    /// Runs the collectives that follow on `comm` (a sweep step's, or the
    /// whole job's again).
    pub fn use_comm(&mut self, comm: &'a dyn Comm) {
        self.comm = comm;
    }

    /// The tasks of the sweep step about to run.
    pub fn set_step_tasks(&mut self, tasks: usize) {
        self.tasks = tasks;
    }

    pub fn comm(&self) -> &'a dyn Comm {
        self.comm
    }

    pub fn p(&self) -> &'a MdtestParams {
        self.p
    }

    pub fn backend(&self) -> &dyn Backend {
        &*self.backend
    }

    /// The layout of the directory phases (and of the file phases unless
    /// the stonewall or `-x` changes their item count).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Tasks of the run.
    pub fn size(&self) -> usize {
        self.size
    }

    /// Tasks of the current sweep step.
    pub fn tasks(&self) -> usize {
        self.tasks
    }

    pub fn stride(&self) -> usize {
        self.stride
    }

    pub fn lines(&self) -> TaskLines {
        self.lines
    }

    pub fn trace(&self) -> bool {
        self.trace
    }

    pub fn data_seed(&self) -> i64 {
        self.data_seed
    }

    pub fn order_seed(&self) -> Option<u64> {
        self.order_seed
    }

    /// The `-d` directory of task `t`.
    pub fn root_of(&self, t: usize) -> PathBuf {
        PathBuf::from(&self.p.dirs[t % self.p.dirs.len()])
    }

    /// This task's view of the backend's names.
    pub fn fs(&self) -> Fs<'_> {
        Fs::new(&*self.backend, self.rank)
    }

    /// The tree and item names a task handles in a phase: the items of task
    /// `rank + role·N`, in the tree of task `rank + (role+1)·N` (with `-u`).
    pub fn target(&self, role: Role, j: u64, l: u64) -> (Tree, Owner) {
        self.target_of(self.rank, role, j, l)
    }

    pub fn target_of(&self, rank: usize, role: Role, j: u64, l: u64) -> (Tree, Owner) {
        let items_of = self.shifted(rank, role);
        let tree_of = (rank + (role as usize + 1) * self.stride) % self.tasks;
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
        (rank + role as usize * self.stride) % self.tasks
    }

    /// The item paths of one tree, or the error naming the tree's directory.
    pub fn item_paths<'l>(
        &self,
        layout: &'l Layout,
        tree: &'l Tree,
        kind: Kind,
        owner: Owner,
    ) -> Result<ItemPaths<'l>> {
        ItemPaths::new(layout, tree, kind, owner)
            .map_err(|e| Error::io(self.rank, "cannot use", &layout.dir_path(tree, 0), &e))
    }
}
