//! The item loops of mdtest's phases: create (with the stonewall and `-c`),
//! stat, read (with `-X`), rename and remove. Each loop makes one backend
//! call per item on names counted up in place, and records what it created
//! as it goes, so that a failure removes exactly that.

use std::ffi::{CStr, CString};
use std::path::Path;

use super::layout::{creation_order, ItemPaths, Kind, Layout, Owner, Role, Tree};
use super::params::MdtestParams;
use super::report::Stonewall;
use super::runner::{Buffers, Run};
use crate::backend::cpath::path_of;
use crate::backend::{read_fully, write_fully, Access, Backend, CreateSpec, OpenSpec, Retry};
use crate::comm::agree;
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::pattern::Pattern;
use crate::random::Permutation;
use crate::run::stonewall::Reached;
use crate::run::stop;
use crate::run::tally::WrongData;

/// Items this run created and must remove if it fails.
#[derive(Debug, Clone)]
pub(super) struct ItemSet {
    pub iteration: u64,
    pub tree: Tree,
    pub kind: Kind,
    pub owner: Owner,
    pub layout: Layout,
    /// The first `count` items in creation order exist.
    pub count: u64,
}

/// This task's data verification (`-X`, `--verify-write`): the files and
/// bytes it found wrong in the current sweep step.
#[derive(Debug, Clone, Copy)]
pub(super) struct Verifier {
    rank: usize,
    /// `-v`: name each wrong file.
    name_files: bool,
    lines: TaskLines,
    /// Files checked and found wrong.
    pub found: WrongData,
}

impl Verifier {
    pub fn new(rank: usize, name_files: bool, lines: TaskLines) -> Verifier {
        Verifier {
            rank,
            name_files,
            lines,
            found: WrongData::default(),
        }
    }

    /// Checks the data of item `k`, read from `path`, against `pattern`.
    fn check(&mut self, pattern: &Pattern, data: &[u8], k: u64, path: &Path) {
        self.found.checked += 1;
        let found = pattern.verify(data, k);
        if found.wrong_words == 0 {
            return;
        }
        self.found.wrong += 1;
        self.found.bytes += found.wrong_bytes;
        if self.name_files {
            let rank = self.rank;
            say!(
                self.lines,
                "task {rank}: verification error in file: {}",
                path.display()
            );
        }
    }
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

/// How one range of items is created.
struct Creator<'r> {
    backend: &'r dyn Backend,
    p: &'r MdtestParams,
    rank: usize,
    kind: Kind,
    /// `-c`: task 0 created the files; this task opens and writes them.
    collective: bool,
    pattern: Pattern,
    /// How files are created, and (with `-c`) opened.
    spec: CreateSpec,
    write_spec: OpenSpec,
}

impl Creator<'_> {
    /// The error of a call on `path`.
    fn failed(&self, action: &str, path: &CStr, e: std::io::Error) -> Error {
        Error::io(self.rank, action, path_of(path), &e)
    }

    /// Creates item `k` at `path` and writes its data; `made` is called as
    /// soon as the item exists, so that a later failure still removes it.
    fn create(
        &self,
        path: &CStr,
        k: u64,
        buffers: &mut Buffers,
        verifier: &mut Verifier,
        made: &mut impl FnMut(),
    ) -> Result<()> {
        let failed = |action: &str, e| self.failed(action, path, e);
        let (data, b, spec) = (&self.p.data, self.backend, &self.spec);
        match self.kind {
            Kind::Dir => b
                .namespace()
                .mkdir(path)
                .map_err(|e| failed("cannot create directory", e))?,
            Kind::File if self.p.phases.make_node => {
                b.mknod(path).map_err(|e| failed("cannot mknod", e))?
            }
            Kind::File if data.write_bytes == 0 && !self.collective => {
                b.create_empty(path, spec)
                    .map_err(|e| failed("cannot create", e))?
            }
            Kind::File => return self.create_file(path, k, buffers, verifier, made),
        }
        made();
        Ok(())
    }

    /// A file with data: created (or opened, with `-c`), written, synced
    /// (`-y`), read back (`--verify-write`) and closed.
    fn create_file(
        &self,
        path: &CStr,
        k: u64,
        buffers: &mut Buffers,
        verifier: &mut Verifier,
        made: &mut impl FnMut(),
    ) -> Result<()> {
        let failed = |action: &str, e| self.failed(action, path, e);
        let data = &self.p.data;
        let mut file = if self.collective {
            self.backend
                .open(path, &self.write_spec)
                .map_err(|e| failed("cannot open for writing", e))?
        } else {
            let f = self
                .backend
                .create(path, &self.spec)
                .map_err(|e| failed("cannot create", e))?;
            made();
            f
        };
        if data.write_bytes > 0 {
            let buf = buffers.write.as_mut_slice();
            self.pattern.stamp(buf, k);
            write_fully(file.as_mut(), buf, 0, Retry::Allowed)
                .map_err(|e| failed("cannot write", e))?;
            if data.sync_file {
                file.sync().map_err(|e| failed("cannot fsync", e))?;
            }
            if data.verify_write {
                let check = buffers.check.as_mut_slice();
                read_fully(file.as_mut(), check, 0, Retry::Allowed)
                    .map_err(|e| failed("cannot read back", e))?;
                verifier.check(&self.pattern, check, k, path_of(path));
            }
        }
        file.close().map_err(|e| failed("cannot close", e))
    }
}

impl Run<'_> {
    /// The create phase of directories or files.
    pub fn create_items(&mut self, j: u64, kind: Kind, stonewall: Option<f64>) -> Result<u64> {
        let per_task = self.layout.items_per_task();
        if self.p.order.collective_creates {
            // Task 0 makes every task's items; then (files) each task opens
            // its own and writes them.
            let outcome = match self.task.rank == 0 {
                true => self.create_for_all(j, kind),
                false => Ok(()),
            };
            if kind == Kind::Dir {
                return outcome.map(|_| per_task);
            }
            agree(self.comm, outcome)?;
        }
        let start = self.comm.wtime();
        let deadline = stonewall.map(|s| start + s);
        let mut done = 0;
        let mut outcome = Ok(());
        for l in 0..self.layout.loops {
            let (tree, owner) = self.target(Role::Create, j, l);
            let count = self.layout.items_per_loop;
            match self.create_range(j, kind, (&tree, owner), 0..count, deadline) {
                Ok(n) => done += n,
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        match stonewall {
            Some(_) => self.stonewall_wear_out(j, kind, start, outcome.map(|_| done)),
            None => outcome.map(|_| done),
        }
    }

    /// The stonewall: tasks agree on the largest count reached and every
    /// task finishes that many, so later phases find the same items.
    fn stonewall_wear_out(
        &mut self,
        j: u64,
        kind: Kind,
        start: f64,
        outcome: Result<u64>,
    ) -> Result<u64> {
        let done = agree(self.comm, outcome)?;
        let reached = Reached::agree(self.comm, Some(done))?;
        let (min, max, sum) = (reached.min, reached.max, reached.sum);
        self.measure.stonewall = Some(Stonewall {
            time_s: self.comm.wtime() - start,
            items_min: min,
            items_max: max,
            items_sum: sum,
        });
        let tasks = self.task.tasks as u64;
        if sum != self.layout.items_per_task() * tasks {
            let avg = sum as f64 / tasks as f64;
            let text = format!("Continue stonewall hit min: {min} max: {max} avg: {avg:.1} ");
            self.out.note(0, &text);
        }
        self.file_layout = self.layout.with_item_count(max).map_err(Error::usage)?;
        if done < max {
            let (tree, owner) = self.target(Role::Create, j, 0);
            // Short of `max` only when a signal stops the run.
            return self.create_range(j, kind, (&tree, owner), done..max, None);
        }
        Ok(max)
    }

    /// `-c`: task 0 creates the items of every task (empty files).
    fn create_for_all(&mut self, j: u64, kind: Kind) -> Result<()> {
        let spec = CreateSpec {
            exclusive: true,
            read_back: false,
            rank: 0,
        };
        let layout = self.layout.clone();
        for t in 0..self.task.tasks {
            for l in 0..layout.loops {
                let (tree, owner) = self.target_of(t, Role::Create, j, l);
                let set = self.track(j, &tree, kind, owner, &layout);
                let mut paths = item_paths(self.task.rank, &layout, &tree, kind, owner)?;
                for k in creation_order(&layout, layout.items_per_loop) {
                    let path = paths.path(k);
                    match kind {
                        Kind::Dir => self.backend.namespace().mkdir(path),
                        Kind::File => self.backend.create(path, &spec).and_then(|f| f.close()),
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
        let same =
            |s: &ItemSet| s.iteration == j && s.tree == *tree && s.kind == kind && s.owner == owner;
        if let Some(i) = self.created.items.iter().position(same) {
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

    /// Creates the items at positions `range` (in creation order) of one
    /// tree; stops after the item that passes `deadline`. Returns the
    /// position reached.
    fn create_range(
        &mut self,
        j: u64,
        kind: Kind,
        (tree, owner): (&Tree, Owner),
        range: std::ops::Range<u64>,
        deadline: Option<f64>,
    ) -> Result<u64> {
        let layout = self.layout.clone();
        let collective = self.p.order.collective_creates;
        let set = (!collective).then(|| self.track(j, tree, kind, owner, &layout));
        let (rank, p) = (self.task.rank, self.p);
        let creator = Creator {
            backend: &*self.backend,
            p,
            rank,
            kind,
            collective,
            pattern: Pattern::new(p.data.data_packet_type, self.data_seed, rank),
            spec: CreateSpec {
                exclusive: !p.tree.shared_file,
                read_back: p.data.verify_write,
                rank,
            },
            write_spec: open_spec(Access::Write, rank, p.data.write_bytes),
        };
        if self.p.data.write_bytes > 0 {
            creator.pattern.fill(self.buffers.write.as_mut_slice());
        }
        let (comm, trace, lines) = (self.comm, self.task.trace, self.task.lines);
        let items = &mut self.created.items;
        let mut made = || {
            if let Some(s) = set {
                items[s].count += 1;
            }
        };
        let mut paths = item_paths(rank, &layout, tree, kind, owner)?;
        let mut position = range.start;
        for k in creation_order(&layout, range.end).skip(range.start as usize) {
            let path = paths.path(k);
            if trace {
                let name = kind_name(kind);
                say!(
                    lines,
                    "V-3: Rank {rank:>3} create {name}: {}",
                    path_of(path).display()
                );
            }
            creator.create(path, k, &mut self.buffers, &mut self.verifier, &mut made)?;
            position += 1;
            let stop = self.measure.item_done(position - range.start);
            if stop || deadline.is_some_and(|d| comm.wtime() > d) {
                break;
            }
        }
        Ok(position)
    }

    /// The items a stat or read phase visits, in item order (shuffled with
    /// `-R`): (first item, items per test directory, the shuffle).
    fn visiting_order(&self, layout: &Layout) -> (u64, u64, Option<Permutation>) {
        let count = layout.items_per_loop;
        let order = self.order_seed.map(|seed| Permutation::new(count, seed));
        (layout.first_item(), count, order)
    }

    /// The stat phase: each task stats the items of task `rank+N`.
    pub fn stat_items(&mut self, j: u64, kind: Kind) -> Result<u64> {
        let layout = match kind {
            Kind::File => self.file_layout.clone(),
            Kind::Dir => self.layout.clone(),
        };
        let (first, count, order) = self.visiting_order(&layout);
        let targets: Vec<_> = (0..layout.loops)
            .map(|l| self.target(Role::Stat, j, l))
            .collect();
        let keys = || (0..count).map(|i| first + order.as_ref().map_or(i, |o| o.at(i)));
        let visit = Visit {
            kind,
            trace: "mdtest_stat",
            action: "cannot stat",
        };
        let stat = |item: &mut Item<'_>| item.backend.stat(item.path).map(|_| ());
        self.visit(&visit, &targets, &layout, keys, stat)
            .map(|(done, _)| done)
    }

    /// The read phase: open, read `-e` bytes (verified with `-X`), close.
    pub fn read_files(&mut self, j: u64) -> Result<u64> {
        let p = self.p;
        let layout = self.file_layout.clone();
        let (first, count, order) = self.visiting_order(&layout);
        let rank = self.task.rank;
        // The task whose files these are (with -S, every task's own data).
        let writer = match p.tree.shared_file {
            true => rank,
            false => self.shifted(rank, Role::Read),
        };
        let pattern = Pattern::new(p.data.data_packet_type, self.data_seed, writer);
        let targets: Vec<_> = (0..layout.loops)
            .map(|l| self.target(Role::Read, j, l))
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
        self.visit(&visit, &targets, &layout, keys, read)
            .map(|(done, _)| done)
    }

    /// The loop of the stat, read and remove phases: `op` on each item of
    /// each target tree, in the order `keys` gives, traced with `-vvv`,
    /// until the items run out or a stop comes. Returns the items done and
    /// whether a stop came.
    fn visit<I: Iterator<Item = u64>>(
        &mut self,
        visit: &Visit,
        targets: &[(Tree, Owner)],
        layout: &Layout,
        keys: impl Fn() -> I,
        mut op: impl FnMut(&mut Item<'_>) -> std::io::Result<()>,
    ) -> Result<(u64, bool)> {
        let (rank, trace, lines) = (self.task.rank, self.task.trace, self.task.lines);
        let name = kind_name(visit.kind);
        let mut done = 0;
        for (tree, owner) in targets {
            let mut paths = item_paths(rank, layout, tree, visit.kind, *owner)?;
            for key in keys() {
                let path = paths.path(key);
                if trace {
                    let shown = path_of(path).display();
                    say!(lines, "V-3: Rank {rank:>3} {} {name}: {shown}", visit.trace);
                }
                let mut item = Item {
                    backend: &*self.backend,
                    buffers: &mut self.buffers,
                    verifier: &mut self.verifier,
                    path,
                    key,
                };
                op(&mut item).map_err(|e| Error::io(rank, visit.action, path_of(path), &e))?;
                done += 1;
                if self.measure.item_done(done) {
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
    pub fn rename_dirs(&mut self, j: u64) -> Result<u64> {
        let layout = self.layout.clone();
        let count = layout.items_per_loop;
        if count <= 1 {
            return Ok(0);
        }
        let mut done = 0;
        for l in 0..layout.loops {
            let (tree, owner) = self.target(Role::Stat, j, l);
            let mut paths = item_paths(self.task.rank, &layout, &tree, Kind::Dir, owner)?;
            done = self.rotate(&mut paths, layout.first_item(), count, done)?;
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
        paths: &mut ItemPaths<'_>,
        first: u64,
        count: u64,
        done: u64,
    ) -> Result<u64> {
        let rank = self.task.rank;
        let mut aside = paths.path(first).to_bytes().to_vec();
        aside.extend_from_slice(b"-XX");
        let aside = CString::new(aside).expect("a path from ItemPaths holds no NUL");
        let mut last = aside.clone();
        for i in 0..count {
            let item = paths.path(first + i).to_owned();
            let from = if i == count - 1 { &aside } else { &item };
            if self.task.trace {
                let shown = path_of(from).display();
                say!(
                    self.task.lines,
                    "V-3: Rank {rank:>3} mdtest_rename dir: {shown}"
                );
            }
            self.backend.rename(from, &last).map_err(|e| {
                let (from, to) = (path_of(from).display(), path_of(&last).display());
                Error::task(rank, format!("cannot rename {from} to {to}: {e}"))
            })?;
            if i == 0 {
                self.created.renamed_aside = Some(path_of(&aside).to_path_buf());
            } else if i == count - 1 {
                self.created.renamed_aside = None;
            }
            last = item;
            if self.measure.item_done(done + i + 1) {
                return Ok(done + i + 1);
            }
        }
        Ok(done + count)
    }

    /// The remove phase: each task removes the items of task `rank+3N`
    /// (task 0 removes all with `-c`, and the shared files with `-S`).
    pub fn remove_items(&mut self, j: u64, kind: Kind) -> Result<u64> {
        let layout = match kind {
            Kind::File => self.file_layout.clone(),
            Kind::Dir => self.layout.clone(),
        };
        let count = layout.items_per_loop;
        let targets = self.removal_targets(j, layout.loops);
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
        let (done, stopped) = self.visit(&visit, &targets, &layout, keys, remove)?;
        // Each task counts its share (task 0 removes every task's with -c).
        Ok(if stopped { done } else { layout.loops * count })
    }

    /// The trees and item sets this task removes.
    fn removal_targets(&self, j: u64, loops: u64) -> Vec<(Tree, Owner)> {
        let (rank, collective) = (self.task.rank, self.p.order.collective_creates);
        match (collective, self.p.tree.shared_file) {
            (true, _) if rank == 0 => (0..self.task.tasks)
                .flat_map(|t| (0..loops).map(move |l| (t, l)))
                .map(|(t, l)| self.target_of(t, Role::Remove, j, l))
                .collect(),
            (true, _) => Vec::new(),
            (false, true) if rank != 0 => Vec::new(),
            (false, _) => (0..loops)
                .map(|l| self.target(Role::Remove, j, l))
                .collect(),
        }
    }
}

/// The item paths of one tree, or the error naming the tree's directory.
pub(super) fn item_paths<'a>(
    rank: usize,
    layout: &'a Layout,
    tree: &'a Tree,
    kind: Kind,
    owner: Owner,
) -> Result<ItemPaths<'a>> {
    ItemPaths::new(layout, tree, kind, owner)
        .map_err(|e| Error::io(rank, "cannot use", &layout.dir_path(tree, 0), &e))
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
        reads_too: false,
        file_size: bytes,
        rank,
        sequential: true,
        blocks: None,
        segment: bytes,
        transfer: bytes,
    }
}
