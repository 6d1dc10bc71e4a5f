//! The directories of a run: the `-d` roots, the test directories, the
//! trees ("Tree creation" and "Tree removal"), and the removal of whatever
//! this task created when a run fails. Directories are removed only with
//! `rmdir`: one that is not empty stays, with a warning.

use std::path::{Path, PathBuf};

use super::items::ItemSet;
use super::layout::{creation_order, test_dir, ItemPaths, Kind, Tree};
use super::results::{Op, Sample};
use super::runner::Run;
use crate::backend::cpath::c_path;
use crate::comm::agree;
use crate::error::{Error, Result};
use crate::run::fs::{Fs, Removal};
use crate::run::stop;

/// Everything this task created in this run.
#[derive(Debug, Default)]
pub(super) struct Created {
    pub root: Option<PathBuf>,
    pub test_dirs: Vec<PathBuf>,
    /// Tree directories, parents before children.
    pub tree_dirs: Vec<PathBuf>,
    pub items: Vec<ItemSet>,
    /// A directory moved aside by the rename phase (`<item>-XX`).
    pub renamed_aside: Option<PathBuf>,
}

impl Run<'_> {
    /// `-d`: creates each task's test root if it is missing and the run
    /// creates (tasks below the number of directories do it).
    pub fn create_root(&mut self) -> Result<()> {
        let rank = self.task.rank;
        let outcome = match self.p.phases.create && rank < self.p.dirs.len() {
            true => {
                let root = self.root_of(rank);
                self.fs().make_missing_dir(&root).map(|made| {
                    if made {
                        self.created.root = Some(root);
                    }
                })
            }
            false => Ok(()),
        };
        agree(self.comm, outcome)
    }

    /// Removes the test roots this run created, at the end of a run that
    /// removes.
    pub fn remove_root(&mut self) -> Result<()> {
        let outcome = match (self.created.root.take(), self.p.phases.remove) {
            (Some(root), true) => self.remove_dir(&root),
            (root, _) => {
                self.created.root = root;
                Ok(())
            }
        };
        agree(self.comm, outcome)
    }

    /// The trees this task creates and removes: its own with `-u` (all of
    /// them on task 0 with `-c`), the shared one on task 0.
    pub fn my_trees(&self, j: u64) -> Vec<Tree> {
        let (rank, tasks) = (self.task.rank, self.task.tasks);
        let owners: Vec<Option<usize>> = match self.p.tree.unique_dir {
            true if self.p.order.collective_creates => match rank {
                0 => (0..tasks).map(Some).collect(),
                _ => Vec::new(),
            },
            true => vec![Some(rank)],
            false if rank == 0 => vec![None],
            false => Vec::new(),
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
    pub fn create_trees(&mut self, j: u64) -> Result<()> {
        let outcome = match self.task.rank < self.p.dirs.len() {
            true => self.create_test_dirs(j),
            false => Ok(()),
        };
        agree(self.comm, outcome)?;
        self.comm.barrier()?;
        let start = self.comm.wtime();
        let retries = self.backend.retries();
        let outcome = self
            .my_trees(j)
            .iter()
            .try_for_each(|tree| self.create_tree(tree));
        agree(self.comm, outcome)?;
        self.tree_sample(Op::TreeCreate, start, retries);
        Ok(())
    }

    /// The time of a tree phase (task 0's is the row) and this task's
    /// retries in it since `retries_before` (summed over the tasks).
    fn tree_sample(&mut self, op: Op, start: f64, retries_before: Option<u64>) {
        let time = self.comm.wtime() - start;
        let retries = crate::backend::retries_since(&*self.backend, retries_before);
        self.measure.samples[op as usize] = Sample {
            ran: true,
            time,
            time_before_barrier: time,
            items: self.layout.num_dirs,
            retries,
        };
    }

    fn create_test_dirs(&mut self, j: u64) -> Result<()> {
        let root = self.root_of(self.task.rank);
        for l in 0..self.layout.loops {
            let dir = test_dir(&root, j, l);
            if self.fs().make_missing_dir(&dir)? {
                self.created.test_dirs.push(dir);
            }
        }
        Ok(())
    }

    fn create_tree(&mut self, tree: &Tree) -> Result<()> {
        let layout = self.layout.clone();
        let backend = &*self.backend;
        let created = &mut self.created.tree_dirs;
        let (rank, trace, lines) = (self.task.rank, self.task.trace, self.task.lines);
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
    pub fn remove_trees(&mut self, j: u64) -> Result<()> {
        self.comm.barrier()?;
        let start = self.comm.wtime();
        let retries = self.backend.retries();
        let outcome = match self.p.phases.create {
            true => self.remove_created_tree_dirs(),
            // A split run's remove part: the layout the create part made.
            false => self
                .my_trees(j)
                .iter()
                .try_for_each(|tree| self.remove_tree_layout(tree)),
        };
        agree(self.comm, outcome)?;
        self.tree_sample(Op::TreeRemove, start, retries);
        let outcome = match self.task.rank < self.p.dirs.len() {
            true => self.remove_test_dirs(j),
            false => Ok(()),
        };
        agree(self.comm, outcome)
    }

    /// Removes the tree directories this run created, children first.
    fn remove_created_tree_dirs(&mut self) -> Result<()> {
        while let Some(dir) = self.created.tree_dirs.pop() {
            self.trace_removal(&dir);
            if let Err(e) = self.remove_dir(&dir) {
                self.created.tree_dirs.push(dir);
                return Err(e);
            }
        }
        Ok(())
    }

    fn trace_removal(&self, dir: &Path) {
        if self.task.trace {
            let rank = self.task.rank;
            say!(
                self.task.lines,
                "V-2: Rank {rank:>3} Remove directory '{}'",
                dir.display()
            );
        }
    }

    /// Removes a directory of the layout with `rmdir`. One that is not empty
    /// (someone put files there) stays, with a warning; other failures are
    /// errors.
    fn remove_dir(&mut self, dir: &Path) -> Result<()> {
        if self.fs().remove_dir(dir)? == Removal::NotEmpty {
            let text = format!(
                "WARNING: {} is not empty: pario leaves it and what it holds in place",
                dir.display()
            );
            self.warnings.warn(self.out, &text)?;
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
        dirs.iter().try_for_each(|dir| self.remove_dir(dir))
    }

    fn remove_test_dirs(&mut self, j: u64) -> Result<()> {
        let root = self.root_of(self.task.rank);
        for l in 0..self.layout.loops {
            let dir = test_dir(&root, j, l);
            // In a run that created, only what it created; in the remove part
            // of a split run, the test directory if it is there (and empty).
            let remove = match self.p.phases.create {
                true => self.created.test_dirs.contains(&dir),
                false => self.fs().exists(&dir).unwrap_or(false),
            };
            if remove {
                self.created.test_dirs.retain(|d| *d != dir);
                self.remove_dir(&dir)?;
            }
        }
        Ok(())
    }

    /// After a failure: every task removes what it created in this run, and
    /// only that: items, then tree directories, test directories and the
    /// `-d` directory (directories only when empty). Best effort and quiet.
    pub fn clean_up_after_failure(&mut self) {
        let fs = Fs::new(&*self.backend, self.task.rank);
        if let Some(aside) = self.created.renamed_aside.take() {
            let _ = fs.remove_dir(&aside);
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
        while let Some(dir) = self.created.tree_dirs.pop() {
            self.trace_removal(&dir);
            let _ = fs.remove_dir(&dir);
        }
        let _ = self.comm.barrier();
        while let Some(dir) = self.created.test_dirs.pop() {
            let _ = fs.remove_dir(&dir);
        }
        let _ = self.comm.barrier();
        if let Some(root) = self.created.root.take() {
            let _ = fs.remove_dir(&root);
        }
    }
}
