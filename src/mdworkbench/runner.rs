//! md-workbench's phases on one rank: precreate (`-1`), benchmark (`-2`,
//! `-R` times) and cleanup (`-3`), the start index they share through the
//! run-info file, and the gathering of each phase on rank 0.
//!
//! Safety as in mdtest: objects are created with `O_EXCL` (never a file the
//! run did not make), directories are removed with `rmdir` only, and after a
//! failure every rank removes the objects and directories this invocation
//! created that are still there.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::layout::{dataset_dir, item, object_path, read_rank, write_rank};
use super::params::MdwParams;
use super::report::{MdwReport, MdwSink};
use super::results::{summarize, OpKind, Quantiles, RankPhase};
use super::MdwRun;
use crate::backend::cpath::c_path;
use crate::backend::transfer::{write_fully, Retry};
use crate::backend::{self, Backend, CreateSpec};
use crate::buffer::{AlignedBuffer, PAGE};
use crate::comm::{agree, broadcast_value, gather_records, reduce_u64, Comm, ReduceOp};
use crate::error::{Error, Result};
use crate::output::Outputs;
use crate::pattern::Pattern;
use crate::run::info::timestamp;
use crate::run::{seeds, stop};
use crate::tool::Finished;

pub(super) type Out = Outputs<dyn MdwSink>;

/// Runs md-workbench on this rank.
pub fn run(comm: &dyn Comm, m: &MdwRun, out: &mut Out) -> Finished<MdwReport> {
    let p = &m.params;
    let mut report = MdwReport::new(comm, m);
    let setup = Rank::new(comm, m, out);
    let mut rank = match setup {
        Ok(rank) => rank,
        Err(e) => {
            report.error = Some(e.to_string());
            return Finished {
                report,
                result: Err(e),
            };
        }
    };
    report.seed = rank.seed;
    if comm.rank() == 0 {
        out.each(|s| s.run_started(&report));
    }
    let outcome = rank.body(p, out, &mut report);
    if outcome.is_err() {
        rank.clean_up_after_failure();
    }
    if comm.rank() == 0 {
        report.finished = timestamp();
        report.error = outcome.as_ref().err().map(|e| e.to_string());
        out.each(|s| s.run_done(&report));
    }
    Finished {
        report,
        result: outcome,
    }
}

/// One rank's state across the phases.
struct Rank<'a> {
    comm: &'a dyn Comm,
    p: &'a MdwParams,
    backend: Box<dyn Backend>,
    prefix: PathBuf,
    seed: i64,
    buffer: AlignedBuffer,
    /// The index of the oldest object of every dataset.
    start: u64,
    /// What this invocation created and has not removed itself.
    created_objects: Vec<PathBuf>,
    created_dirs: Vec<PathBuf>,
    created_prefix: bool,
    /// The current phase: the times of its operations, and its counters.
    times: [Vec<f32>; 4],
    now: RankPhase,
    /// When the current phase started, and the time spent waiting for the
    /// wear-out agreement (not the phase's).
    phase_start: Instant,
    excluded: Duration,
    /// The start of the last timed operation (the stonewall compares it).
    last_op: Instant,
    /// Benchmark iterations this rank completed in the current phase.
    done: u64,
    /// Iterations done, agreed over ranks, when a stonewall was set.
    stonewall_iter: Option<u64>,
    /// `-W`: when this rank joined the agreement (seconds into the phase),
    /// and the count agreed.
    wear_out_at: Option<(f64, u64)>,
}

impl<'a> Rank<'a> {
    fn new(comm: &'a dyn Comm, m: &'a MdwRun, out: &Out) -> Result<Rank<'a>> {
        let p = &m.params;
        let seed = seeds::agreed(comm, p.seed, seeds::time_i32)?;
        let context = backend::Context {
            comm,
            active: true,
            collective: false,
            lines: out.task_lines(),
        };
        let backend = m.backend.build(&context).map_err(Error::usage)?;
        let buffer =
            AlignedBuffer::try_new(p.object_size, PAGE).map_err(|e| Error::task(comm.rank(), e))?;
        Ok(Rank {
            comm,
            p,
            backend,
            prefix: PathBuf::from(&p.prefix),
            seed,
            buffer,
            start: 0,
            created_objects: Vec::new(),
            created_dirs: Vec::new(),
            created_prefix: false,
            times: Default::default(),
            now: RankPhase::default(),
            phase_start: Instant::now(),
            excluded: Duration::ZERO,
            last_op: Instant::now(),
            done: 0,
            stonewall_iter: None,
            wear_out_at: None,
        })
    }

    fn body(&mut self, p: &MdwParams, out: &mut Out, report: &mut MdwReport) -> Result<()> {
        let phases = p.effective_phases();
        self.start = self.start_index(out)?;
        if phases.benchmark && !phases.precreate && p.stonewall > 0 && !p.wear_out {
            out.note(
                0,
                "WARNING: Dangerous option combination: -w without -W leaves each rank at its own \
                 position, so a later -2 or -3 run misses objects and leaves some behind",
            );
        }
        stop::leave_in(p.prefix.as_str());
        if phases.precreate {
            self.make_prefix(out)?;
            self.phase("precreate", out, report, Self::precreate)?;
        }
        if phases.benchmark {
            for _ in 0..p.iterations {
                self.phase("benchmark", out, report, Self::benchmark)?;
                if !p.read_only {
                    // With a stonewall: the iterations done (md-workbench
                    // advances one fewer, and its next phase misses objects).
                    self.start += self.stonewall_iter.unwrap_or(p.objects);
                }
            }
        }
        if phases.cleanup {
            self.phase("cleanup", out, report, Self::cleanup)?;
            self.remove_prefix();
        } else if p.phases.chosen() {
            self.write_run_info()?;
        }
        Ok(())
    }

    /// 0, or (`-2`/`-3` without `-1`) the run-info file's; `--start-item`
    /// overrides either.
    fn start_index(&mut self, out: &mut Out) -> Result<u64> {
        let p = self.p;
        let from_file = p.phases.chosen() && !p.phases.precreate;
        let mut start = match (from_file, self.comm.rank()) {
            (true, 0) => read_run_info(&p.run_info_file).map(Some),
            _ => Ok(None),
        };
        start = agree(self.comm, start);
        let start: Option<u64> = broadcast_value(self.comm, 0, &start?)?;
        let start = p.start_item.or(start).unwrap_or(0);
        if p.start_item.is_some() || from_file {
            out.note(0, &format!("Using start position {start}"));
        }
        Ok(start)
    }

    fn write_run_info(&self) -> Result<()> {
        let outcome = match self.comm.rank() {
            0 => std::fs::write(&self.p.run_info_file, format!("pos: {}\n", self.start))
                .map_err(|e| Error::io(0, "cannot write", Path::new(&self.p.run_info_file), &e)),
            _ => Ok(()),
        };
        agree(self.comm, outcome)
    }

    /// Rank 0 makes the prefix directory (an existing one is used).
    fn make_prefix(&mut self, out: &mut Out) -> Result<()> {
        let outcome = match self.comm.rank() {
            0 => match c_path(&self.prefix).and_then(|c| self.backend.namespace().mkdir(&c)) {
                Ok(()) => {
                    self.created_prefix = true;
                    Ok(())
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let text =
                        format!("WARNING: Unable to create test directory {}", self.p.prefix);
                    out.note(0, &text);
                    Ok(())
                }
                Err(e) => Err(Error::io(0, "cannot create directory", &self.prefix, &e)),
            },
            _ => Ok(()),
        };
        agree(self.comm, outcome)
    }

    /// One phase: its work between barriers, then its summary on rank 0.
    fn phase(
        &mut self,
        name: &'static str,
        out: &mut Out,
        report: &mut MdwReport,
        work: fn(&mut Self) -> Result<()>,
    ) -> Result<()> {
        if name != "cleanup" {
            self.comm.barrier()?;
        }
        self.times = Default::default();
        self.now = RankPhase::default();
        self.excluded = Duration::ZERO;
        self.phase_start = Instant::now();
        self.wear_out_at = None;
        let outcome = work(self);
        self.now.time_s = (self.phase_start.elapsed() - self.excluded).as_secs_f64();
        if let (Some((at, total)), 0) = (self.wear_out_at, self.comm.rank()) {
            out.note(0, &format!("stonewall wear out {at:.6}s ({total} iter)"));
        }
        agree(self.comm, outcome)?;
        stop::check(self.comm)?;
        self.stonewall_iter = match (name, self.p.stonewall) {
            ("benchmark", 1..) => Some(reduce_u64(self.comm, self.done, ReduceOp::Max)?),
            _ => None,
        };
        let ranks = gather_records(self.comm, 0, &self.now)?;
        let per_rank = self.gather_times()?;
        if self.comm.rank() == 0 {
            let all = quantiles_of(per_rank.iter().flatten().cloned().collect());
            let mut summary = summarize(name, ranks, all, self.p.object_size, self.p.read_only);
            summary.rank_quantiles = per_rank.into_iter().map(quantiles_of).collect();
            summary.stonewall_iter = self.stonewall_iter;
            out.each(|s| s.phase_done(&summary, report));
            report.phases.push(summary);
        }
        Ok(())
    }

    /// Every rank's operation times on rank 0: per rank, per operation.
    fn gather_times(&self) -> Result<Vec<Vec<OpTimes>>> {
        let mut per_rank = vec![Vec::new(); self.comm.size()];
        for (i, op) in OpKind::ALL.iter().enumerate() {
            let bytes: Vec<u8> = self.times[i].iter().flat_map(|t| t.to_le_bytes()).collect();
            let all = self.comm.gather(0, &bytes)?;
            for (rank, b) in all.iter().enumerate() {
                let times = b
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                per_rank[rank].push((*op, times));
            }
        }
        Ok(per_rank)
    }

    /// Runs a timed operation; its time goes to `op`'s list, and `-t` waits
    /// that many times as long after it.
    fn timed<T>(&mut self, op: OpKind, call: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let start = Instant::now();
        self.last_op = start;
        let outcome = call(self);
        let took = start.elapsed();
        self.times[op as usize].push(took.as_secs_f32());
        self.now.op_max_s = self.now.op_max_s.max(took.as_secs_f64());
        self.wait_after(took);
        outcome
    }

    /// `-t`: busy for waits under 10 ms (a sleep would overshoot), else
    /// asleep.
    fn wait_after(&self, took: Duration) {
        if self.p.waiting_factor <= 1e-9 {
            return;
        }
        let wait = took.mul_f64(self.p.waiting_factor);
        if wait < Duration::from_millis(10) {
            let end = Instant::now() + wait;
            while Instant::now() < end {
                std::hint::spin_loop();
            }
        } else {
            stop::sleep(wait);
        }
    }

    fn precreate(&mut self) -> Result<()> {
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
        for f in self.start..p.precreate {
            for d in 0..p.data_sets {
                if stop::requested() {
                    return Ok(());
                }
                let made = self.timed(OpKind::Create, |s| s.create(rank, d, f));
                match made {
                    Ok(()) => {
                        self.now.counts.objs_created += 1;
                        self.created_objects
                            .push(object_path(&self.prefix, rank, d, f));
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
    fn benchmark(&mut self) -> Result<()> {
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
        while f < joined.unwrap_or(p.objects) {
            for d in 0..p.data_sets {
                if stop::requested() {
                    return Ok(());
                }
                self.bench_object(f, d)?;
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
        let at = (self.last_op - self.phase_start).saturating_sub(self.excluded);
        wall > 0 && at.as_secs_f64() >= wall as f64
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
    fn bench_object(&mut self, f: u64, d: u64) -> Result<()> {
        let (rank, n, p) = (self.comm.rank(), self.comm.size(), self.p);
        {
            {
                let prev = self.start + f;
                let owner = read_rank(rank, p.offset, d, n);
                let path = object_path(&self.prefix, owner, d, prev);
                let c = c_path(&path).map_err(|e| Error::io(rank, "bad path", &path, &e))?;
                if self.timed(OpKind::Stat, |s| Ok(s.backend.stat(&c).is_ok()))? {
                    self.now.counts.objs_stat += 1;
                } else {
                    self.now.counts.errors.objs_stat += 1;
                    return Ok(());
                }
                match self.timed(OpKind::Read, |s| {
                    s.read_object(&c, owner, item(prev, p.data_sets, d))
                })? {
                    true => self.now.counts.objs_read += 1,
                    false => self.now.counts.errors.objs_read += 1,
                }
                if p.read_only {
                    return Ok(());
                }
                self.timed(OpKind::Delete, |s| Ok(s.backend.remove(&c).is_ok()))?;
                self.now.counts.objs_deleted += 1;
                let writer = write_rank(rank, p.offset, d, n);
                let index = p.precreate + prev;
                self.timed(OpKind::Create, |s| s.create(writer, d, index))?;
                self.now.counts.objs_created += 1;
                self.created_objects
                    .push(object_path(&self.prefix, writer, d, index));
            }
        }
        Ok(())
    }

    fn cleanup(&mut self) -> Result<()> {
        let (rank, p) = (self.comm.rank(), self.p);
        for d in 0..p.data_sets {
            if stop::requested() {
                return Ok(());
            }
            for f in self.start..self.start + p.precreate {
                let path = object_path(&self.prefix, rank, d, f);
                let c = c_path(&path).map_err(|e| Error::io(rank, "bad path", &path, &e))?;
                if !self.timed(OpKind::Delete, |s| Ok(s.backend.remove(&c).is_ok()))?
                    && p.verbose > 0
                {
                    eprintln!("WARNING: Unable to remove {}", path.display());
                }
                self.now.counts.objs_deleted += 1;
            }
            let dir = dataset_dir(&self.prefix, rank, d);
            match c_path(&dir).and_then(|c| self.backend.namespace().rmdir(&c)) {
                Ok(()) => self.now.counts.dsets_removed += 1,
                Err(_) => eprintln!("Unable to remove directory {}", dir.display()),
            }
        }
        self.created_objects.clear();
        self.created_dirs.clear();
        Ok(())
    }

    /// Creates object `index` of dataset `d` of `owner`, with `owner`'s data.
    fn create(&mut self, owner: usize, d: u64, index: u64) -> Result<()> {
        let rank = self.comm.rank();
        let path = object_path(&self.prefix, owner, d, index);
        let failed = |action: &str, e: std::io::Error| Error::io(rank, action, &path, &e);
        let c = c_path(&path).map_err(|e| failed("bad path", e))?;
        let spec = CreateSpec {
            exclusive: true,
            read_back: false,
            rank,
        };
        let mut file = self
            .backend
            .create(&c, &spec)
            .map_err(|e| failed("cannot create", e))?;
        let buf = self.buffer.as_mut_slice();
        let pattern = Pattern::new(self.p.packet, self.seed, owner);
        pattern.fill(buf);
        pattern.stamp(buf, item(index, self.p.data_sets, d));
        write_fully(file.as_mut(), buf, 0, Retry::Allowed)
            .map_err(|e| failed("cannot write", e))?;
        file.close().map_err(|e| failed("cannot close", e))
    }

    /// Reads an object (and with `-X` checks it): whether all was right.
    fn read_object(&mut self, c: &std::ffi::CStr, owner: usize, item: u64) -> Result<bool> {
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

    /// Rank 0 removes the prefix once cleanup emptied it.
    fn remove_prefix(&mut self) {
        let _ = self.comm.barrier();
        if self.comm.rank() == 0 {
            let _ = c_path(&self.prefix).and_then(|c| self.backend.namespace().rmdir(&c));
        }
    }

    /// After a failure: what this invocation created and still exists.
    fn clean_up_after_failure(&mut self) {
        for path in self.created_objects.drain(..) {
            let _ = c_path(&path).and_then(|c| self.backend.remove(&c));
        }
        for dir in self.created_dirs.drain(..).rev() {
            let _ = c_path(&dir).and_then(|c| self.backend.namespace().rmdir(&c));
        }
        if self.created_prefix {
            let _ = c_path(&self.prefix).and_then(|c| self.backend.namespace().rmdir(&c));
        }
    }
}

/// The start index in a run-info file (`pos: N`).
fn read_run_info(path: &str) -> Result<u64> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::task(
            0,
            format!(
                "cannot read the run-info file {path}: {e} (run -1 first, or give --run-info-file)"
            ),
        )
    })?;
    text.trim()
        .strip_prefix("pos:")
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| {
            Error::task(
                0,
                format!("{path}: not a run-info file (expected 'pos: N')"),
            )
        })
}

/// An operation's times on one rank.
type OpTimes = (OpKind, Vec<f32>);

fn quantiles_of(ops: Vec<OpTimes>) -> Vec<Quantiles> {
    let mut merged: Vec<OpTimes> = Vec::new();
    for (op, mut times) in ops {
        match merged.iter_mut().find(|(o, _)| *o == op) {
            Some((_, all)) => all.append(&mut times),
            None => merged.push((op, times)),
        }
    }
    merged
        .into_iter()
        .filter_map(|(op, mut times)| Quantiles::of(op, &mut times))
        .collect()
}
