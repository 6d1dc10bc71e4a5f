//! The work of md-workbench's phases on one rank: the loops over datasets
//! and objects, each operation timed (and waited after, with `-t`), the
//! stonewall and its wear-out agreement, and the `-v` traces.

use std::ffi::CStr;
use std::path::Path;
use std::time::{Duration, Instant};

use super::layout::{dataset_dir, item, read_rank, write_rank, ObjectNames};
use super::results::OpKind;
use super::runner::Rank;
use crate::backend::cpath::c_path;
use crate::backend::transfer::{write_fully, Retry};
use crate::backend::CreateSpec;
use crate::comm::{reduce_u64, ReduceOp};
use crate::error::{Error, Result};
use crate::pattern::Pattern;
use crate::run::stop;

impl Rank<'_> {
    /// Runs a timed operation; its time goes to `op`'s list, and `-t` waits
    /// that many times as long after it.
    fn timed<T>(&mut self, op: OpKind, call: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        if !self.log.record {
            return call(self);
        }
        let start = Instant::now();
        self.last_op = start;
        let outcome = call(self);
        let took = start.elapsed();
        let since = (start - self.phase_start).saturating_sub(self.excluded);
        self.log.add(op, since, took);
        self.series.add(since.as_secs_f64(), 1);
        self.wait_after(took);
        outcome
    }

    /// `-t`: busy for waits under 10 ms (a sleep would overshoot), else
    /// asleep.
    fn wait_after(&self, took: Duration) {
        if self.waiting <= 1e-9 {
            return;
        }
        let wait = took.mul_f64(self.waiting);
        if wait < Duration::from_millis(10) {
            let end = Instant::now() + wait;
            while Instant::now() < end {
                std::hint::spin_loop();
            }
        } else {
            stop::sleep(wait);
        }
    }

    pub(super) fn precreate(&mut self) -> Result<()> {
        let (rank, p) = (self.comm.rank(), self.p);
        for d in 0..p.data_sets {
            if stop::requested() {
                return Ok(());
            }
            let dir = dataset_dir(&self.prefix, rank, d);
            match c_path(&dir).and_then(|c| self.backend.namespace().mkdir(&c)) {
                Ok(()) => {
                    self.now.counts.dsets_created += 1;
                    self.created_dirs.push(dir);
                }
                Err(_) if p.ignore_precreate_errors => self.now.counts.errors.dsets_create += 1,
                Err(e) => return Err(Error::io(rank, "cannot create directory", &dir, &e)),
            }
        }
        let mut names = self.names()?;
        for f in self.start..p.precreate {
            for d in 0..p.data_sets {
                if stop::requested() {
                    return Ok(());
                }
                let c = names.name(rank, d, f);
                let made = self.timed(OpKind::Create, |s| s.create(c, rank, d, f));
                match made {
                    Ok(()) => {
                        self.now.counts.objs_created += 1;
                        let shown = || c.to_string_lossy();
                        self.trace(2, || {
                            format!("{rank}: write {} (0) pretend: {rank}", shown())
                        });
                        self.created_objects.push((rank, d, f));
                    }
                    Err(_) if p.ignore_precreate_errors => self.now.counts.errors.objs_create += 1,
                    Err(e) => return Err(e),
                }
            }
        }
        Ok(())
    }

    /// `-I` iterations, or fewer at a stonewall (`-w`); with `-W` every rank
    /// joins the agreement on the count once, also after a failure, so none
    /// is left waiting in it.
    pub(super) fn benchmark(&mut self) -> Result<()> {
        self.done = 0;
        let mut joined = None;
        let outcome = self.benchmark_iterations(&mut joined);
        if self.p.wear_out && joined.is_none() {
            self.join_wear_out(self.p.objects)?;
        }
        outcome
    }

    fn benchmark_iterations(&mut self, joined: &mut Option<u64>) -> Result<()> {
        let p = self.p;
        let mut f = 0;
        let mut names = self.names()?;
        while f < joined.unwrap_or(p.objects) {
            for d in 0..p.data_sets {
                if stop::requested() {
                    return Ok(());
                }
                self.bench_object(f, d, &mut names)?;
            }
            self.done = f + 1;
            if joined.is_none() && self.hit_wall() {
                match p.wear_out {
                    false => return Ok(()),
                    true => *joined = Some(self.join_wear_out(f + 1)?),
                }
            }
            f += 1;
        }
        Ok(())
    }

    /// Whether the last operation started after the `-w` seconds.
    fn hit_wall(&self) -> bool {
        let wall = self.p.stonewall;
        // Without operation times, the end of the iteration.
        let last = if self.log.record {
            self.last_op
        } else {
            Instant::now()
        };
        let at = (last - self.phase_start).saturating_sub(self.excluded);
        let hit = wall > 0 && at.as_secs_f64() >= wall as f64;
        if hit {
            let (rank, at) = (self.comm.rank(), at.as_secs_f64());
            self.trace(1, || {
                format!("{rank}: stonewall runtime {at:.6}s ({wall}s)")
            });
        }
        hit
    }

    /// md-workbench's `-v` lines (`-v -v`: one per operation), printed by
    /// each rank, outside the operations' times.
    fn trace(&self, level: u32, line: impl FnOnce() -> String) {
        if self.p.verbose >= level {
            self.lines.print(format_args!("{}", line()));
        }
    }

    /// `-W`: the largest iteration count any rank reached, agreed once by
    /// every rank; the wait is not the phase's time.
    fn join_wear_out(&mut self, count: u64) -> Result<u64> {
        let waited = Instant::now();
        let at = (waited - self.phase_start).saturating_sub(self.excluded);
        let total = reduce_u64(self.comm, count, ReduceOp::Max)?;
        self.wear_out_at = Some((at.as_secs_f64(), total));
        self.excluded += waited.elapsed();
        Ok(total)
    }

    /// One object of iteration `f`, dataset `d`: stat, read, delete, create.
    fn bench_object(&mut self, f: u64, d: u64, names: &mut ObjectNames) -> Result<()> {
        let (rank, n, p) = (self.comm.rank(), self.comm.size(), self.p);
        let prev = self.start + f;
        let owner = read_rank(rank, p.offset, d, n);
        let c = names.name(owner, d, prev);
        let shown = || c.to_string_lossy();
        let found = self.timed(OpKind::Stat, |s| Ok(s.backend.stat(c).is_ok()))?;
        self.trace(2, || {
            format!("{rank}: stat {} ({})", shown(), -i32::from(!found))
        });
        if !found {
            self.trace(1, || {
                format!("{rank}: Error while stating the obj: {}", shown())
            });
            self.now.counts.errors.objs_stat += 1;
            return Ok(());
        }
        self.now.counts.objs_stat += 1;
        self.trace(2, || format!("{rank}: read {} pretend: {owner}", shown()));
        let item = item(prev, p.data_sets, d);
        match self.timed(OpKind::Read, |s| s.read_object(c, owner, item))? {
            true => self.now.counts.objs_read += 1,
            false => self.now.counts.errors.objs_read += 1,
        }
        if p.read_only {
            return Ok(());
        }
        self.timed(OpKind::Delete, |s| Ok(s.backend.remove(c).is_ok()))?;
        self.trace(2, || format!("{rank}: delete {}", shown()));
        self.now.counts.objs_deleted += 1;
        let writer = write_rank(rank, p.offset, d, n);
        let index = p.precreate + prev;
        let c = names.name(writer, d, index);
        self.timed(OpKind::Create, |s| s.create(c, writer, d, index))?;
        self.now.counts.objs_created += 1;
        self.trace(2, || {
            format!(
                "{rank}: write {} (0) pretend: {writer}",
                c.to_string_lossy()
            )
        });
        self.created_objects.push((writer, d, index));
        Ok(())
    }

    pub(super) fn cleanup(&mut self) -> Result<()> {
        let (rank, p) = (self.comm.rank(), self.p);
        let mut names = self.names()?;
        for d in 0..p.data_sets {
            if stop::requested() {
                return Ok(());
            }
            for f in self.start..self.start + p.precreate {
                let c = names.name(rank, d, f);
                if !self.timed(OpKind::Delete, |s| Ok(s.backend.remove(c).is_ok()))?
                    && p.verbose > 0
                {
                    eprintln!("WARNING: Unable to remove {}", c.to_string_lossy());
                }
                self.trace(2, || format!("{rank}: delete {}", c.to_string_lossy()));
                self.now.counts.objs_deleted += 1;
            }
            let dir = dataset_dir(&self.prefix, rank, d);
            match c_path(&dir).and_then(|c| self.backend.namespace().rmdir(&c)) {
                Ok(()) => self.now.counts.dsets_removed += 1,
                Err(_) => eprintln!("Unable to remove directory {}", dir.display()),
            }
            self.trace(2, || format!("{rank}: delete dset {}", dir.display()));
        }
        self.created_objects.clear();
        self.created_dirs.clear();
        Ok(())
    }

    /// Creates object `c` (`index` of dataset `d` of `owner`), with
    /// `owner`'s data.
    fn create(&mut self, c: &CStr, owner: usize, d: u64, index: u64) -> Result<()> {
        let rank = self.comm.rank();
        let failed = |action: &str, e: std::io::Error| {
            Error::io(rank, action, Path::new(&*c.to_string_lossy()), &e)
        };
        let spec = CreateSpec {
            exclusive: true,
            read_back: false,
            rank,
        };
        let mut file = self
            .backend
            .create(c, &spec)
            .map_err(|e| failed("cannot create", e))?;
        let buf = self.buffer.as_mut_slice();
        let pattern = Pattern::new(self.p.packet, self.seed, owner);
        pattern.fill(buf);
        pattern.stamp(buf, item(index, self.p.data_sets, d));
        write_fully(file.as_mut(), buf, 0, Retry::Allowed)
            .map_err(|e| failed("cannot write", e))?;
        file.close().map_err(|e| failed("cannot close", e))
    }

    /// The object names of this rank's phase loops.
    fn names(&self) -> Result<ObjectNames> {
        ObjectNames::new(&self.prefix).ok_or_else(|| {
            Error::task(
                self.comm.rank(),
                format!("-o {}: a NUL byte in the name", self.p.prefix),
            )
        })
    }

    /// Reads an object (and with `-X` checks it): whether all was right.
    fn read_object(&mut self, c: &CStr, owner: usize, item: u64) -> Result<bool> {
        let rank = self.comm.rank();
        let buf = self.buffer.as_mut_slice();
        if self.backend.open_read_close(c, buf, rank).is_err() {
            return Ok(false);
        }
        if self.p.verify {
            let pattern = Pattern::new(self.p.packet, self.seed, owner);
            return Ok(pattern.verify(buf, item).wrong_words == 0);
        }
        Ok(true)
    }
}
