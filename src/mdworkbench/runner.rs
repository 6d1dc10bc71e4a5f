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

use super::ops::{OpLog, OpTimes};
use super::params::MdwParams;
use super::report::MdwReport;
use super::results::{summarize, OpKind, OpPercentiles, Quantiles, RankPhase};
use super::sink::{MdwSink, PhaseTimes};
use super::MdwRun;
use crate::backend::cpath::c_path;
use crate::backend::{self, Backend};
use crate::buffer::{AlignedBuffer, PAGE};
use crate::comm::{agree, broadcast_value, gather_records, reduce_u64, Comm, ReduceOp};
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::output::Outputs;
use crate::run::info::local_time;
use crate::run::{seeds, stop};
use crate::series::{Series, Timeline};
use crate::tool::Finished;

pub(super) type Out = Outputs<dyn MdwSink>;

/// Runs md-workbench on this rank.
pub fn run(comm: &dyn Comm, m: &MdwRun, out: &mut Out) -> Finished<MdwReport> {
    let p = &m.params;
    let began = Instant::now();
    let mut report = MdwReport::new(comm, m);
    let data = m.backend.capabilities().posix_namespace;
    let data = data.then(|| std::path::Path::new(&p.prefix));
    report.pario.gather_system(comm, out.driven(), data);
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
    report.pario.set_backend(&*rank.backend);
    if comm.rank() == 0 {
        out.each(|s| s.run_started(&report));
    }
    let outcome = rank.body(p, out, &mut report);
    if outcome.is_err() {
        rank.clean_up_after_failure();
    }
    if comm.rank() == 0 {
        report.finished = local_time();
        report.runtime_s = began.elapsed().as_secs_f64();
        report.error = outcome.as_ref().err().map(|e| e.to_string());
        out.each(|s| s.run_done(&report));
    }
    Finished {
        report,
        result: outcome,
    }
}

/// One rank's state across the phases.
pub(super) struct Rank<'a> {
    pub(super) comm: &'a dyn Comm,
    pub(super) p: &'a MdwParams,
    pub(super) backend: Box<dyn Backend>,
    pub(super) prefix: PathBuf,
    pub(super) seed: i64,
    pub(super) buffer: AlignedBuffer,
    /// The index of the oldest object of every dataset.
    pub(super) start: u64,
    /// What this invocation created and has not removed itself.
    /// (owner, dataset, index) of each object.
    pub(super) created_objects: Vec<(usize, u64, u64)>,
    pub(super) created_dirs: Vec<PathBuf>,
    pub(super) created_prefix: bool,
    /// The current phase: its operations' times, and its counters.
    pub(super) log: OpLog,
    pub(super) now: RankPhase,
    /// md-workbench's waiting factor (`-t`, or `-T`'s current one), and the
    /// one applied in the current phase (the benchmark's only).
    pub(super) factor: f64,
    pub(super) waiting: f64,
    /// The benchmark iteration (`-R`), for the latency files' names.
    pub(super) iteration: u64,
    pub(super) lines: TaskLines,
    /// When the current phase started, and the time spent waiting for the
    /// wear-out agreement (not the phase's).
    pub(super) phase_start: Instant,
    /// The phase's operations over time (timed ones only).
    pub(super) series: Series,
    pub(super) excluded: Duration,
    /// The start of the last timed operation (the stonewall compares it).
    pub(super) last_op: Instant,
    /// Benchmark iterations this rank completed in the current phase.
    pub(super) done: u64,
    /// Iterations done, agreed over ranks, when a stonewall was set.
    pub(super) stonewall_iter: Option<u64>,
    /// `-W`: when this rank joined the agreement (seconds into the phase),
    /// and the count agreed.
    pub(super) wear_out_at: Option<(f64, u64)>,
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
        // Where the objects go takes writes (an object store's bucket),
        // before the header.
        let place = c_path(Path::new(&p.prefix)).and_then(|c| backend.check_place(&c, true));
        agree(comm, place.map_err(|e| Error::usage(e.to_string())))?;
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
            log: OpLog::new(p.record_latency, p.latency_prefix.is_some()),
            now: RankPhase::default(),
            factor: p.waiting_factor,
            waiting: 0.0,
            iteration: 0,
            lines: out.task_lines(),
            phase_start: Instant::now(),
            series: Series::default(),
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
            self.benchmark_phases(out, report)?;
        }
        if phases.cleanup {
            self.phase("cleanup", out, report, Self::cleanup)?;
            self.remove_prefix();
        } else if p.phases.chosen() {
            self.write_run_info()?;
        }
        Ok(())
    }

    /// `-R` iterations of one benchmark phase, or with `-T` of eight.
    fn benchmark_phases(&mut self, out: &mut Out, report: &mut MdwReport) -> Result<()> {
        let p = self.p;
        for iteration in 0..p.iterations {
            self.iteration = iteration;
            for factor in p.waiting_factors() {
                self.factor = factor;
                self.phase("benchmark", out, report, Self::benchmark)?;
                if !p.read_only {
                    // With a stonewall: the iterations done (md-workbench
                    // advances one fewer, and its next phase misses objects).
                    self.start += self.stonewall_iter.unwrap_or(p.objects);
                }
            }
        }
        // As md-workbench: cleanup's latency files carry the iteration count
        // and, after `-T`, the factor doubled once more (8).
        self.iteration = p.iterations;
        if p.adaptive_waiting {
            self.factor = 8.0;
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
        self.log.reset();
        self.now = RankPhase::default();
        self.waiting = if name == "benchmark" {
            self.factor
        } else {
            0.0
        };
        self.excluded = Duration::ZERO;
        self.phase_start = Instant::now();
        self.series = Series::default();
        self.wear_out_at = None;
        let retries_before = self.backend.retries();
        let outcome = work(self);
        let retries = backend::retries_since(&*self.backend, retries_before);
        self.now.time_s = (self.phase_start.elapsed() - self.excluded).as_secs_f64();
        self.now.op_max_s = self.log.op_max_s;
        if let (Some((at, total)), 0) = (self.wear_out_at, self.comm.rank()) {
            out.note(0, &format!("stonewall wear out {at:.6}s ({total} iter)"));
        }
        agree(self.comm, outcome)?;
        stop::check(self.comm)?;
        let all_retries = reduce_u64(self.comm, retries.unwrap_or(0), ReduceOp::Sum)?;
        self.stonewall_iter = match (name, self.p.stonewall) {
            ("benchmark", 1..) => Some(reduce_u64(self.comm, self.done, ReduceOp::Max)?),
            _ => None,
        };
        let ranks = gather_records(self.comm, 0, &self.now)?;
        let series = gather_records(self.comm, 0, &self.series)?;
        let keep_times = self.p.latency_prefix.is_some();
        let times = self.log.gather(self.comm, 0, keep_times)?;
        let latency = self.log.percentiles(self.comm, 0)?;
        if keep_times && self.comm.rank() == 0 {
            let phase_times = PhaseTimes {
                phase: name,
                read_only: self.p.read_only,
                waiting_factor: self.factor,
                iteration: self.iteration,
                times: &times,
            };
            out.each(|s| s.phase_times(&phase_times));
        }
        if self.comm.rank() == 0 {
            let all = quantiles_of(times.iter());
            let mut summary = summarize(name, ranks, all, self.p.object_size, self.p.read_only);
            summary.rank_quantiles = times
                .iter()
                .map(|t| quantiles_of([t].into_iter()))
                .collect();
            summary.stonewall_iter = self.stonewall_iter;
            summary.waiting_factor = self.waiting;
            summary.iteration = (name == "benchmark").then_some(self.iteration);
            summary.retries = retries.map(|_| all_retries);
            summary.timeline = self.log.record.then(|| Timeline::of(&series, "operations"));
            summary.latency = latency
                .into_iter()
                .map(|(op, p)| OpPercentiles { op, p })
                .collect();
            out.each(|s| s.phase_done(&summary, report));
            report.phases.push(summary);
        }
        Ok(())
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
        if let Some(mut names) = super::layout::ObjectNames::new(&self.prefix) {
            for (owner, d, index) in self.created_objects.drain(..) {
                let _ = self.backend.remove(names.name(owner, d, index));
            }
        }
        // Tasks create objects in each other's data sets: every object is
        // gone before any data set can be.
        let _ = self.comm.barrier();
        for dir in self.created_dirs.drain(..).rev() {
            let _ = c_path(&dir).and_then(|c| self.backend.namespace().rmdir(&c));
        }
        // Every task's data sets are gone before the prefix can be.
        let _ = self.comm.barrier();
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

/// md-workbench's quantiles of each operation kind over these ranks.
fn quantiles_of<'a>(ranks: impl Iterator<Item = &'a [OpTimes; 4]> + Clone) -> Vec<Quantiles> {
    OpKind::ALL
        .iter()
        .filter_map(|&op| {
            let mut all: Vec<f32> = ranks
                .clone()
                .flat_map(|r| r[op as usize].durations.iter().copied())
                .collect();
            Quantiles::of(op, &mut all)
        })
        .collect()
}
