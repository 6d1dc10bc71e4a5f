//! The item loops of mdtest's phases: create (with the stonewall and `-c`),
//! stat, read (with `-X`), rename and remove. Each loop makes one backend
//! call per item on names counted up in place, and records what it created
//! as it goes, so that a failure removes exactly that. [`Items`] holds what
//! the loops change: the item sets created, the directory the rename phase
//! moved aside, the file phases' layout and the data buffers.

use std::ffi::{CStr, CString};
use std::path::PathBuf;

use super::layout::{creation_order, ItemPaths, Kind, Layout, Owner, Role, Tree};
use super::measure::Measure;
use super::params::MdtestParams;
use super::sink::Out;
use super::task::Task;
use super::verify::Verifier;
use crate::backend::cpath::path_of;
use crate::backend::Backend;
use crate::buffer::{AlignedBuffer, PAGE};
use crate::error::{Error, Result};
use crate::pattern::Pattern;
use crate::random::Permutation;
use crate::run::stop;

mod create;

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

/// The data written to, read from and read back from each file.
pub(super) struct Buffers {
    write: AlignedBuffer,
    read: AlignedBuffer,
    check: AlignedBuffer,
}

/// The items of a run on this task.
pub(super) struct Items {
    /// The item sets this task created.
    created: Vec<ItemSet>,
    /// A directory moved aside by the rename phase (`<item>-XX`).
    renamed_aside: Option<PathBuf>,
    /// The layout of the file phases (their item count may come from the
    /// stonewall or from `-x`).
    file_layout: Layout,
    buffers: Buffers,
}

/// What an item phase works with besides the items: this task, what it
/// measures and verifies, and rank 0's outputs.
pub(super) struct Work<'w, 'a> {
    pub task: &'w Task<'a>,
    pub measure: &'w mut Measure,
    pub verifier: &'w mut Verifier,
    pub out: &'w mut Out,
}

/// What a visiting phase is called in traces and errors.
struct Visit {
    kind: Kind,
    /// `-vvv`'s name of the call: `mdtest_stat`.
    trace: &'static str,
    action: &'static str,
}

/// One item a visiting phase works on, with what the work may need.
struct Item<'i> {
    backend: &'i dyn Backend,
    buffers: &'i mut Buffers,
    verifier: &'i mut Verifier,
    path: &'i CStr,
    key: u64,
}

/// The buffers of a run's file data (`-w`, `-e`, `--verify-write`).
pub(super) fn buffers(p: &MdtestParams, rank: usize) -> Result<Buffers> {
    let d = &p.data;
    let buf = |n: u64| AlignedBuffer::try_new(n, PAGE).map_err(|e| Error::task(rank, e));
    Ok(Buffers {
        write: buf(d.write_bytes)?,
        read: buf(d.read_bytes)?,
        check: buf(if d.verify_write { d.write_bytes } else { 0 })?,
    })
}

impl Items {
    /// None created yet; the file phases on `layout`.
    pub fn new(layout: &Layout, buffers: Buffers) -> Items {
        Items {
            created: Vec::new(),
            renamed_aside: None,
            file_layout: layout.clone(),
            buffers,
        }
    }

    /// The layout of the file phases.
    pub fn file_layout(&self) -> &Layout {
        &self.file_layout
    }

    /// Sets the layout of the file phases: the run's at each iteration's
    /// start, or one with `-x`'s item count.
    pub fn set_file_layout(&mut self, layout: Layout) {
        self.file_layout = layout;
    }

    /// The remove phases of iteration `j` ran: none of its items is left.
    pub fn forget_iteration(&mut self, j: u64) {
        self.created.retain(|s| s.iteration != j);
    }

    /// The stat phase: each task stats the items of task `rank+N`.
    pub fn stat(&mut self, w: &mut Work<'_, '_>, j: u64, kind: Kind) -> Result<u64> {
        let task = w.task;
        let layout = match kind {
            Kind::File => self.file_layout.clone(),
            Kind::Dir => task.layout().clone(),
        };
        let (first, count, order) = visiting_order(task, &layout);
        let targets: Vec<_> = (0..layout.loops)
            .map(|l| task.target(Role::Stat, j, l))
            .collect();
        let keys = || (0..count).map(|i| first + order.as_ref().map_or(i, |o| o.at(i)));
        let visit = Visit {
            kind,
            trace: "mdtest_stat",
            action: "cannot stat",
        };
        let stat = |item: &mut Item<'_>| item.backend.stat(item.path).map(|_| ());
        self.visit(w, &visit, (&targets, &layout), keys, stat)
            .map(|(done, _)| done)
    }

    /// The read phase: open, read `-e` bytes (verified with `-X`), close.
    pub fn read(&mut self, w: &mut Work<'_, '_>, j: u64) -> Result<u64> {
        let task = w.task;
        let p = task.p();
        let layout = self.file_layout.clone();
        let (first, count, order) = visiting_order(task, &layout);
        let rank = task.rank();
        // The task whose files these are (with -S, every task's own data).
        let writer = match p.tree.shared_file {
            true => rank,
            false => task.shifted(rank, Role::Read),
        };
        let pattern = Pattern::new(p.data.data_packet_type, task.data_seed(), writer);
        let targets: Vec<_> = (0..layout.loops)
            .map(|l| task.target(Role::Read, j, l))
            .collect();
        let keys = || (0..count).map(|i| first + order.as_ref().map_or(i, |o| o.at(i)));
        let visit = Visit {
            kind: Kind::File,
            trace: "mdtest_read",
            action: "cannot read",
        };
        let read = |item: &mut Item<'_>| {
            let buf = item.buffers.read.as_mut_slice();
            item.backend.open_read_close(item.path, buf, rank)?;
            if p.data.verify_read {
                item.verifier
                    .check(&pattern, buf, item.key, path_of(item.path));
            }
            Ok(())
        };
        self.visit(w, &visit, (&targets, &layout), keys, read)
            .map(|(done, _)| done)
    }

    /// The loop of the stat, read and remove phases: `op` on each item of
    /// each target tree, in the order `keys` gives, traced with `-vvv`,
    /// until the items run out or a stop comes. Returns the items done and
    /// whether a stop came.
    fn visit<I: Iterator<Item = u64>>(
        &mut self,
        w: &mut Work<'_, '_>,
        visit: &Visit,
        (targets, layout): (&[(Tree, Owner)], &Layout),
        keys: impl Fn() -> I,
        mut op: impl FnMut(&mut Item<'_>) -> std::io::Result<()>,
    ) -> Result<(u64, bool)> {
        let (task, measure, verifier) = (w.task, &mut *w.measure, &mut *w.verifier);
        let (rank, trace, lines) = (task.rank(), task.trace(), task.lines());
        let backend = task.backend();
        let name = kind_name(visit.kind);
        let mut done = 0;
        for (tree, owner) in targets {
            let mut paths = task.item_paths(layout, tree, visit.kind, *owner)?;
            for key in keys() {
                let path = paths.path(key);
                if trace {
                    let shown = path_of(path).display();
                    say!(lines, "V-3: Rank {rank:>3} {} {name}: {shown}", visit.trace);
                }
                let mut item = Item {
                    backend,
                    buffers: &mut self.buffers,
                    verifier: &mut *verifier,
                    path,
                    key,
                };
                op(&mut item).map_err(|e| Error::io(rank, visit.action, path_of(path), &e))?;
                done += 1;
                if measure.item_done(done) {
                    return Ok((done, true));
                }
            }
        }
        Ok((done, false))
    }

    /// The rename phase (`-U`): mdtest's rotation. Item 0 moves aside to
    /// `<item>-XX`, each next item takes the name of the one before it, and
    /// the one aside takes the last free name: every name exists again at the
    /// end, and `count` renames were made.
    pub fn rename_dirs(&mut self, w: &mut Work<'_, '_>, j: u64) -> Result<u64> {
        let task = w.task;
        let layout = task.layout();
        let count = layout.items_per_loop;
        if count <= 1 {
            return Ok(0);
        }
        let mut done = 0;
        for l in 0..layout.loops {
            let (tree, owner) = task.target(Role::Stat, j, l);
            let mut paths = task.item_paths(layout, &tree, Kind::Dir, owner)?;
            done = self.rotate(w, &mut paths, (layout.first_item(), count), done)?;
            if stop::requested() {
                break;
            }
        }
        Ok(done)
    }

    /// One test directory's rotation of `count` names from item `first`;
    /// `done` renames were made before it. Returns the renames made so far
    /// (a signal stops it between two: every directory still has a name,
    /// the one moved aside included, which cleanup knows).
    fn rotate(
        &mut self,
        w: &mut Work<'_, '_>,
        paths: &mut ItemPaths<'_>,
        (first, count): (u64, u64),
        done: u64,
    ) -> Result<u64> {
        let (task, measure) = (w.task, &mut *w.measure);
        let rank = task.rank();
        let mut aside = paths.path(first).to_bytes().to_vec();
        aside.extend_from_slice(b"-XX");
        let aside = CString::new(aside).expect("a path from ItemPaths holds no NUL");
        let mut last = aside.clone();
        for i in 0..count {
            let item = paths.path(first + i).to_owned();
            let from = if i == count - 1 { &aside } else { &item };
            if task.trace() {
                let shown = path_of(from).display();
                say!(
                    task.lines(),
                    "V-3: Rank {rank:>3} mdtest_rename dir: {shown}"
                );
            }
            task.backend().rename(from, &last).map_err(|e| {
                let (from, to) = (path_of(from).display(), path_of(&last).display());
                Error::task(rank, format!("cannot rename {from} to {to}: {e}"))
            })?;
            if i == 0 {
                self.renamed_aside = Some(path_of(&aside).to_path_buf());
            } else if i == count - 1 {
                self.renamed_aside = None;
            }
            last = item;
            if measure.item_done(done + i + 1) {
                return Ok(done + i + 1);
            }
        }
        Ok(done + count)
    }

    /// The remove phase: each task removes the items of task `rank+3N`
    /// (task 0 removes all with `-c`, and the shared files with `-S`).
    pub fn remove(&mut self, w: &mut Work<'_, '_>, j: u64, kind: Kind) -> Result<u64> {
        let layout = match kind {
            Kind::File => self.file_layout.clone(),
            Kind::Dir => w.task.layout().clone(),
        };
        let count = layout.items_per_loop;
        let targets = removal_targets(w.task, j, layout.loops);
        let keys = || creation_order(&layout, count);
        let visit = Visit {
            kind,
            trace: "remove",
            action: "cannot remove",
        };
        let remove = |item: &mut Item<'_>| match kind {
            Kind::File => item.backend.remove(item.path),
            Kind::Dir => item.backend.namespace().rmdir(item.path),
        };
        let (done, stopped) = self.visit(w, &visit, (&targets, &layout), keys, remove)?;
        // Each task counts its share (task 0 removes every task's with -c).
        Ok(if stopped { done } else { layout.loops * count })
    }

    /// After a failure: removes the items this task created in this run,
    /// and only those, and the directory the rename phase moved aside.
    /// Best effort and quiet.
    pub fn clean_up(&mut self, task: &Task<'_>) {
        let (fs, backend) = (task.fs(), task.backend());
        if let Some(aside) = self.renamed_aside.take() {
            let _ = fs.remove_dir(&aside);
        }
        for set in std::mem::take(&mut self.created) {
            let Ok(mut paths) = ItemPaths::new(&set.layout, &set.tree, set.kind, set.owner) else {
                continue;
            };
            for k in creation_order(&set.layout, set.count) {
                let path = paths.path(k);
                let _ = match set.kind {
                    Kind::File => backend.remove(path),
                    Kind::Dir => backend.namespace().rmdir(path),
                };
            }
        }
    }
}

/// The items a stat or read phase visits, in item order (shuffled with
/// `-R`): (first item, items per test directory, the shuffle).
fn visiting_order(task: &Task<'_>, layout: &Layout) -> (u64, u64, Option<Permutation>) {
    let count = layout.items_per_loop;
    let order = task.order_seed().map(|seed| Permutation::new(count, seed));
    (layout.first_item(), count, order)
}

/// The trees and item sets this task removes.
fn removal_targets(task: &Task<'_>, j: u64, loops: u64) -> Vec<(Tree, Owner)> {
    let p = task.p();
    let (rank, collective) = (task.rank(), p.order.collective_creates);
    match (collective, p.tree.shared_file) {
        (true, _) if rank == 0 => (0..task.tasks())
            .flat_map(|t| (0..loops).map(move |l| (t, l)))
            .map(|(t, l)| task.target_of(t, Role::Remove, j, l))
            .collect(),
        (true, _) => Vec::new(),
        (false, true) if rank != 0 => Vec::new(),
        (false, _) => (0..loops)
            .map(|l| task.target(Role::Remove, j, l))
            .collect(),
    }
}

fn kind_name(kind: Kind) -> &'static str {
    match kind {
        Kind::File => "file",
        Kind::Dir => "dir",
    }
}
