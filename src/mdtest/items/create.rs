//! The create phase's loop: each item made (a directory, an empty file, a
//! node, or a file written, synced and read back), recorded as soon as it
//! exists; `-c` (task 0 makes every task's items) and the stonewall (`-W`:
//! the tasks agree on the count, then every task finishes that many).

use std::ffi::CStr;

use super::{kind_name, Buffers, ItemSet, Items, Work};
use crate::backend::cpath::path_of;
use crate::backend::{read_fully, write_fully, Access, Backend, CreateSpec, OpenSpec, Retry};
use crate::comm::agree;
use crate::error::{Error, Result};
use crate::mdtest::layout::{creation_order, Kind, Layout, Owner, Role, Tree};
use crate::mdtest::params::MdtestParams;
use crate::mdtest::report::Stonewall;
use crate::mdtest::task::Task;
use crate::mdtest::verify::Verifier;
use crate::pattern::Pattern;
use crate::run::stonewall::Reached;

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

impl Items {
    /// The create phase of directories or files.
    pub fn create(
        &mut self,
        w: &mut Work<'_, '_>,
        (j, kind): (u64, Kind),
        stonewall: Option<f64>,
    ) -> Result<u64> {
        let (task, comm) = (w.task, w.task.comm());
        let layout = task.layout();
        let per_task = layout.items_per_task();
        if task.p().order.collective_creates {
            // Task 0 makes every task's items; then (files) each task opens
            // its own and writes them.
            let outcome = match task.rank() == 0 {
                true => self.create_for_all(task, j, kind),
                false => Ok(()),
            };
            if kind == Kind::Dir {
                return outcome.map(|_| per_task);
            }
            agree(comm, outcome)?;
        }
        let start = comm.wtime();
        let deadline = stonewall.map(|s| start + s);
        let mut done = 0;
        let mut outcome = Ok(());
        for l in 0..layout.loops {
            let (tree, owner) = task.target(Role::Create, j, l);
            let count = layout.items_per_loop;
            match self.create_range(w, (j, kind), (&tree, owner), 0..count, deadline) {
                Ok(n) => done += n,
                Err(e) => {
                    outcome = Err(e);
                    break;
                }
            }
        }
        match stonewall {
            Some(_) => self.stonewall_wear_out(w, (j, kind), start, outcome.map(|_| done)),
            None => outcome.map(|_| done),
        }
    }

    /// The stonewall: tasks agree on the largest count reached and every
    /// task finishes that many, so later phases find the same items.
    fn stonewall_wear_out(
        &mut self,
        w: &mut Work<'_, '_>,
        (j, kind): (u64, Kind),
        start: f64,
        outcome: Result<u64>,
    ) -> Result<u64> {
        let (task, comm) = (w.task, w.task.comm());
        let done = agree(comm, outcome)?;
        let reached = Reached::agree(comm, Some(done))?;
        let (min, max, sum) = (reached.min, reached.max, reached.sum);
        w.measure.set_stonewall(Stonewall {
            time_s: comm.wtime() - start,
            items_min: min,
            items_max: max,
            items_sum: sum,
        });
        let tasks = task.tasks() as u64;
        if sum != task.layout().items_per_task() * tasks {
            let avg = sum as f64 / tasks as f64;
            let text = format!("Continue stonewall hit min: {min} max: {max} avg: {avg:.1} ");
            w.out.note(0, &text);
        }
        self.file_layout = task.layout().with_item_count(max).map_err(Error::usage)?;
        if done < max {
            let (tree, owner) = task.target(Role::Create, j, 0);
            // Short of `max` only when a signal stops the run.
            return self.create_range(w, (j, kind), (&tree, owner), done..max, None);
        }
        Ok(max)
    }

    /// `-c`: task 0 creates the items of every task (empty files).
    fn create_for_all(&mut self, task: &Task<'_>, j: u64, kind: Kind) -> Result<()> {
        let spec = CreateSpec {
            exclusive: true,
            read_back: false,
            rank: 0,
        };
        let (layout, backend) = (task.layout(), task.backend());
        for t in 0..task.tasks() {
            for l in 0..layout.loops {
                let (tree, owner) = task.target_of(t, Role::Create, j, l);
                let set = self.track(j, &tree, kind, owner, layout);
                let mut paths = task.item_paths(layout, &tree, kind, owner)?;
                for k in creation_order(layout, layout.items_per_loop) {
                    let path = paths.path(k);
                    match kind {
                        Kind::Dir => backend.namespace().mkdir(path),
                        Kind::File => backend.create(path, &spec).and_then(|f| f.close()),
                    }
                    .map_err(|e| Error::io(0, "cannot create", path_of(path), &e))?;
                    self.created[set].count += 1;
                }
            }
        }
        Ok(())
    }

    /// Starts recording a set of items this task creates; returns its index.
    fn track(&mut self, j: u64, tree: &Tree, kind: Kind, owner: Owner, layout: &Layout) -> usize {
        let same =
            |s: &ItemSet| s.iteration == j && s.tree == *tree && s.kind == kind && s.owner == owner;
        if let Some(i) = self.created.iter().position(same) {
            return i;
        }
        self.created.push(ItemSet {
            iteration: j,
            tree: tree.clone(),
            kind,
            owner,
            layout: layout.clone(),
            count: 0,
        });
        self.created.len() - 1
    }

    /// Creates the items at positions `range` (in creation order) of one
    /// tree; stops after the item that passes `deadline`. Returns the
    /// position reached.
    fn create_range(
        &mut self,
        w: &mut Work<'_, '_>,
        (j, kind): (u64, Kind),
        (tree, owner): (&Tree, Owner),
        range: std::ops::Range<u64>,
        deadline: Option<f64>,
    ) -> Result<u64> {
        let (task, measure, verifier) = (w.task, &mut *w.measure, &mut *w.verifier);
        let (layout, p) = (task.layout(), task.p());
        let collective = p.order.collective_creates;
        let set = (!collective).then(|| self.track(j, tree, kind, owner, layout));
        let rank = task.rank();
        let creator = Creator {
            backend: task.backend(),
            p,
            rank,
            kind,
            collective,
            pattern: Pattern::new(p.data.data_packet_type, task.data_seed(), rank),
            spec: CreateSpec {
                exclusive: !p.tree.shared_file,
                read_back: p.data.verify_write,
                rank,
            },
            write_spec: open_spec(Access::Write, rank, p.data.write_bytes),
        };
        if p.data.write_bytes > 0 {
            creator.pattern.fill(self.buffers.write.as_mut_slice());
        }
        let (comm, trace, lines) = (task.comm(), task.trace(), task.lines());
        let items = &mut self.created;
        let mut made = || {
            if let Some(s) = set {
                items[s].count += 1;
            }
        };
        let mut paths = task.item_paths(layout, tree, kind, owner)?;
        let mut position = range.start;
        for k in creation_order(layout, range.end).skip(range.start as usize) {
            let path = paths.path(k);
            if trace {
                let name = kind_name(kind);
                say!(
                    lines,
                    "V-3: Rank {rank:>3} create {name}: {}",
                    path_of(path).display()
                );
            }
            creator.create(path, k, &mut self.buffers, verifier, &mut made)?;
            position += 1;
            let stop = measure.item_done(position - range.start);
            if stop || deadline.is_some_and(|d| comm.wtime() > d) {
                break;
            }
        }
        Ok(position)
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
