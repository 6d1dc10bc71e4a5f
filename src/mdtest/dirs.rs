//! The directories of a run: the `-d` roots, the test directories, the
//! trees ("Tree creation" and "Tree removal"), and the removal of whatever
//! of them this task created when a run fails. Directories are removed only
//! with `rmdir`: one that is not empty stays, with a warning. [`Dirs`]
//! holds the directories this task created; only this file changes it.

use std::path::{Path, PathBuf};

use super::layout::{test_dir, Tree};
use super::measure::Measure;
use super::results::{Op, Sample};
use super::sink::Out;
use super::task::Task;
use crate::backend::cpath::c_path;
use crate::comm::agree;
use crate::error::{Error, Result};
use crate::run::fs::Removal;
use crate::run::stop;
use crate::run::warnings::Warnings;

/// The directories this task created in this run.
#[derive(Debug, Default)]
pub(super) struct Dirs {
    root: Option<PathBuf>,
    test_dirs: Vec<PathBuf>,
    /// Tree directories, parents before children.
    tree_dirs: Vec<PathBuf>,
}

/// Where a directory that stays is told: the warnings and rank 0's outputs.
pub(super) struct Told<'t> {
    pub warnings: &'t mut Warnings,
    pub out: &'t mut Out,
}

impl Dirs {
    /// `-d`: creates each task's test root if it is missing and the run
    /// creates (tasks below the number of directories do it).
    pub fn create_root(&mut self, task: &Task<'_>) -> Result<()> {
        let (rank, p) = (task.rank(), task.p());
        let outcome = match p.phases.create && rank < p.dirs.len() {
            true => {
                let root = task.root_of(rank);
                task.fs().make_missing_dir(&root).map(|made| {
                    if made {
                        self.root = Some(root);
                    }
                })
            }
            false => Ok(()),
        };
        agree(task.comm(), outcome)
    }

    /// Removes the test roots this run created, at the end of a run that
    /// removes.
    pub fn remove_root(&mut self, task: &Task<'_>, told: Told<'_>) -> Result<()> {
        let outcome = match (self.root.take(), task.p().phases.remove) {
            (Some(root), true) => remove_dir(task, told, &root),
            (root, _) => {
                self.root = root;
                Ok(())
            }
        };
        agree(task.comm(), outcome)
    }

    /// Whether this run created the tree directory `dir`.
    pub fn made(&self, dir: &Path) -> bool {
        self.tree_dirs.iter().any(|d| d == dir)
    }

    /// Test directories (tasks below the number of `-d` directories), then
    /// the trees, timed as "Tree creation".
    pub fn create_trees(&mut self, task: &Task<'_>, measure: &mut Measure, j: u64) -> Result<()> {
        let comm = task.comm();
        let outcome = match task.rank() < task.p().dirs.len() {
            true => self.create_test_dirs(task, j),
            false => Ok(()),
        };
        agree(comm, outcome)?;
        comm.barrier()?;
        let start = comm.wtime();
        let retries = task.backend().retries();
        let outcome = my_trees(task, j)
            .iter()
            .try_for_each(|tree| self.create_tree(task, tree));
        agree(comm, outcome)?;
        tree_sample(task, measure, Op::TreeCreate, start, retries);
        Ok(())
    }

    fn create_test_dirs(&mut self, task: &Task<'_>, j: u64) -> Result<()> {
        let root = task.root_of(task.rank());
        for l in 0..task.layout().loops {
            let dir = test_dir(&root, j, l);
            if task.fs().make_missing_dir(&dir)? {
                self.test_dirs.push(dir);
            }
        }
        Ok(())
    }

    fn create_tree(&mut self, task: &Task<'_>, tree: &Tree) -> Result<()> {
        let (layout, backend) = (task.layout(), task.backend());
        let created = &mut self.tree_dirs;
        let (rank, trace, lines) = (task.rank(), task.trace(), task.lines());
        layout.walk(
            &mut |d| {
                if stop::requested() {
                    // The rest of the tree is not made; the run stops after.
                    return Ok(());
                }
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
    pub fn remove_trees(
        &mut self,
        task: &Task<'_>,
        measure: &mut Measure,
        told: Told<'_>,
        j: u64,
    ) -> Result<()> {
        let Told { warnings, out } = told;
        let comm = task.comm();
        comm.barrier()?;
        let start = comm.wtime();
        let retries = task.backend().retries();
        let outcome = match task.p().phases.create {
            true => self.remove_created_tree_dirs(task, Told { warnings, out }),
            // A split run's remove part: the layout the create part made.
            false => my_trees(task, j)
                .iter()
                .try_for_each(|tree| remove_tree_layout(task, Told { warnings, out }, tree)),
        };
        agree(comm, outcome)?;
        tree_sample(task, measure, Op::TreeRemove, start, retries);
        let outcome = match task.rank() < task.p().dirs.len() {
            true => self.remove_test_dirs(task, Told { warnings, out }, j),
            false => Ok(()),
        };
        agree(comm, outcome)
    }

    /// Removes the tree directories this run created, children first.
    fn remove_created_tree_dirs(&mut self, task: &Task<'_>, told: Told<'_>) -> Result<()> {
        let Told { warnings, out } = told;
        while let Some(dir) = self.tree_dirs.pop() {
            trace_removal(task, &dir);
            if let Err(e) = remove_dir(task, Told { warnings, out }, &dir) {
                self.tree_dirs.push(dir);
                return Err(e);
            }
        }
        Ok(())
    }

    fn remove_test_dirs(&mut self, task: &Task<'_>, told: Told<'_>, j: u64) -> Result<()> {
        let Told { warnings, out } = told;
        let root = task.root_of(task.rank());
        for l in 0..task.layout().loops {
            let dir = test_dir(&root, j, l);
            // In a run that created, only what it created; in the remove part
            // of a split run, the test directory if it is there (and empty).
            let remove = match task.p().phases.create {
                true => self.test_dirs.contains(&dir),
                false => task.fs().exists(&dir).unwrap_or(false),
            };
            if remove {
                self.test_dirs.retain(|d| *d != dir);
                remove_dir(task, Told { warnings, out }, &dir)?;
            }
        }
        Ok(())
    }

    /// After a failure (and the items' removal): every task removes the
    /// directories it created in this run, and only those: tree
    /// directories, test directories and the `-d` directory, each only
    /// when empty. Best effort and quiet.
    pub fn clean_up(&mut self, task: &Task<'_>) {
        let (comm, fs) = (task.comm(), task.fs());
        // Items of other tasks may live in this task's directories.
        let _ = comm.barrier();
        while let Some(dir) = self.tree_dirs.pop() {
            trace_removal(task, &dir);
            let _ = fs.remove_dir(&dir);
        }
        let _ = comm.barrier();
        while let Some(dir) = self.test_dirs.pop() {
            let _ = fs.remove_dir(&dir);
        }
        let _ = comm.barrier();
        if let Some(root) = self.root.take() {
            let _ = fs.remove_dir(&root);
        }
    }
}

/// The trees this task creates and removes: its own with `-u` (all of
/// them on task 0 with `-c`), the shared one on task 0.
fn my_trees(task: &Task<'_>, j: u64) -> Vec<Tree> {
    let (rank, tasks, p) = (task.rank(), task.tasks(), task.p());
    let owners: Vec<Option<usize>> = match p.tree.unique_dir {
        true if p.order.collective_creates => match rank {
            0 => (0..tasks).map(Some).collect(),
            _ => Vec::new(),
        },
        true => vec![Some(rank)],
        false if rank == 0 => vec![None],
        false => Vec::new(),
    };
    let mut trees = Vec::new();
    for l in 0..task.layout().loops {
        for &owner in &owners {
            let root = task.root_of(owner.unwrap_or(0));
            trees.push(Tree::new(&test_dir(&root, j, l), owner));
        }
    }
    trees
}

/// The time of a tree phase (task 0's is the row) and this task's
/// retries in it since `retries_before` (summed over the tasks).
fn tree_sample(
    task: &Task<'_>,
    measure: &mut Measure,
    op: Op,
    start: f64,
    retries_before: Option<u64>,
) {
    let time = task.comm().wtime() - start;
    let retries = crate::backend::retries_since(task.backend(), retries_before);
    let sample = Sample {
        ran: true,
        time,
        time_before_barrier: time,
        items: task.layout().num_dirs,
        retries,
    };
    measure.record(op, sample);
}

fn trace_removal(task: &Task<'_>, dir: &Path) {
    if task.trace() {
        let rank = task.rank();
        say!(
            task.lines(),
            "V-2: Rank {rank:>3} Remove directory '{}'",
            dir.display()
        );
    }
}

/// Removes a directory of the layout with `rmdir`. One that is not empty
/// (someone put files there) stays, with a warning; other failures are
/// errors.
fn remove_dir(task: &Task<'_>, told: Told<'_>, dir: &Path) -> Result<()> {
    if task.fs().remove_dir(dir)? == Removal::NotEmpty {
        let text = format!(
            "WARNING: {} is not empty: pario leaves it and what it holds in place",
            dir.display()
        );
        told.warnings.warn(told.out, &text)?;
    }
    Ok(())
}

fn remove_tree_layout(task: &Task<'_>, told: Told<'_>, tree: &Tree) -> Result<()> {
    let Told { warnings, out } = told;
    let layout = task.layout();
    let mut dirs = Vec::new();
    let _ = layout.walk::<()>(&mut |_| Ok(()), &mut |d| {
        dirs.push(layout.dir_path(tree, d));
        Ok(())
    });
    dirs.iter()
        .try_for_each(|dir| remove_dir(task, Told { warnings, out }, dir))
}
