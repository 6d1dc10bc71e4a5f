//! One task's timed open, transfers and close in a phase, stamped on the
//! shared clock; and `--randomPrefill`, untimed. With `-g` (and when
//! stonewalling makes tasks agree mid-phase) every step ends with an
//! agreement, so a failure stops all tasks at the same point.

use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

use super::draws::MixPlan;
use super::layout::Layout;
use super::params::Ordering;
use super::results::access_name;
use super::task_times::TaskTimes;
use super::test::TestRun;
use super::xfer::{Pass, Progress, XferOptions};
use super::xfer_drawn::{KindLatency, MixPass};
use super::xfer_queue::QueuedPass;
use crate::backend::{write_fully, Access, BlockView, File, OpenSpec, Retry};
use crate::buffer::{AlignedBuffer, PAGE};
use crate::comm::{agree, Comm};
use crate::error::{Error, Result};
use crate::latency::LatencyRecorder;
use crate::pattern::Pattern;
use crate::progress;
use crate::run::stonewall::{CollectiveStop, Deadline, Reached};
use crate::run::stop;
use crate::run::tally::WrongData;
use crate::series::{Series, Ticker};
use crate::units::MIB;

/// How a phase ends: at its last transfer, at a deadline, or at a count.
#[derive(Debug, Clone, Copy)]
pub(super) struct PhasePlan {
    /// Transfers per task in one pass.
    pub limit: u64,
    /// `-D`.
    pub deadline: Option<Duration>,
    /// `stoneWallingWearOut` (with `-D`).
    pub wear_out: bool,
    /// `minTimeDuration`, seconds.
    pub min_time: f64,
    /// Collective transfers: stop decisions (the deadline, a signal) are
    /// agreed at checkpoints.
    pub collective_checks: bool,
}

/// What one task brings back from a phase.
pub(super) struct PhaseOutcome {
    pub times: TaskTimes,
    pub errors: WrongData,
    pub latency: Option<LatencyRecorder>,
    /// A drawn phase: the latencies of its reads and writes apart.
    pub kind_latency: Option<KindLatency>,
    /// Transfers over time from the open.
    pub series: Series,
}

/// A transfer loop `walk_phase` drives: the layout's walk or a drawn one.
trait Walker {
    /// Transfers `from` to `to - 1`, counted over time by `ticker`, until
    /// `stop` says so after one of them.
    fn run_ops(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        ticker: &mut Ticker,
        stop: impl FnMut(u64) -> bool,
    ) -> u64;
}

impl Walker for Pass<'_> {
    #[inline]
    fn run_ops(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        ticker: &mut Ticker,
        mut stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        // A backend with a queue (AIO) keeps requests in flight together;
        // -Y (fsync after each write) makes them wait one by one anyway.
        // Its loop counts for the ticker after each transfer: chunks would
        // drain the queue.
        if !self.options.fsync_per_write {
            let mut counted = |n| {
                ticker.tick(n);
                stop(n)
            };
            if let Some(count) = QueuedPass::run_pass(self, from, to, progress, &mut counted) {
                return count;
            }
        }
        self.run(from, to, progress, ticker, stop)
    }
}

impl Walker for MixPass<'_> {
    #[inline]
    fn run_ops(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        ticker: &mut Ticker,
        mut stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        self.run(from, to, progress, |n| {
            ticker.tick(n);
            stop(n)
        })
    }
}

/// The collective side of a phase's transfer loop.
struct Walk<'c> {
    comm: &'c dyn Comm,
    plan: PhasePlan,
    /// Whether each step ends with an agreement.
    in_step: bool,
}

/// What a phase's transfers are measured with: their latencies (all
/// together, or a drawn phase's reads and writes apart) and the live
/// progress display.
struct Meters {
    recorder: Option<LatencyRecorder>,
    kind_latency: Option<KindLatency>,
    live: Option<progress::Progress>,
}

impl TestRun<'_> {
    /// Open, transfer, close, with this task's time stamps.
    pub fn timed_io(
        &mut self,
        access: Access,
        rep: u64,
        pretend: usize,
        verify: bool,
        plan: PhasePlan,
        drawn: Option<&MixPlan>,
    ) -> Result<PhaseOutcome> {
        let comm = self.comm;
        let walk = Walk {
            comm,
            plan,
            in_step: self.p.phases.intra_test_barriers
                || plan.wear_out
                || (plan.collective_checks && plan.deadline.is_some()),
        };
        let mut t = TaskTimes {
            active: self.task.active,
            ..Default::default()
        };
        let path = self.files.path(pretend, rep);
        let pattern = Pattern::new(
            self.p.verification.data_packet_type,
            self.data.signature(),
            pretend,
        );
        if self.task.active && access == Access::Write && drawn.is_none() {
            pattern.fill(self.data.buffer_mut());
        }
        let mut buffers = match (drawn, self.task.active) {
            (Some(d), true) => Some(self.mix_buffers(d, &pattern)?),
            _ => None,
        };
        t.open_start = comm.wtime();
        let mut ticker = Ticker::new(Instant::now(), (MIB / self.p.geometry.transfer_size).max(1));
        let sequential = self.data.layout().ordering == Ordering::Sequential;
        let reads_too = access == Access::Write && drawn.is_some_and(|d| d.read_pct > 0);
        let opened = self.open_file(access, &path, pretend, sequential, reads_too);
        t.open_end = comm.wtime();
        let mut file = step(&walk, opened)?;
        t.xfer_start = comm.wtime();
        let mut progress = Progress::default();
        let mut meters = self.meters(access, rep, plan, drawn.is_some());
        let options = xfer_options(self, verify);
        let counter = meters.live.as_ref().map(|l| &l.counter);
        match (drawn, buffers.as_mut()) {
            (Some(d), Some((w, r))) => {
                let pass = file.as_mut().map(|f| MixPass {
                    file: f.as_mut(),
                    plan: d,
                    path: &path,
                    pattern: &pattern,
                    write_buf: w.as_mut_slice(),
                    read_buf: r.as_mut_slice(),
                    options,
                    latency: meters.kind_latency.as_mut(),
                    progress: counter,
                });
                walk_phase(&walk, pass, &mut progress, &mut t, &mut ticker)?;
            }
            (Some(_), None) => {
                walk_phase::<MixPass>(&walk, None, &mut progress, &mut t, &mut ticker)?
            }
            (None, _) => {
                let (layout, buf) = self.data.layout_and_buffer();
                let pass = file.as_mut().map(|f| Pass {
                    file: f.as_mut(),
                    access,
                    layout,
                    task: pretend,
                    path: &path,
                    pattern: &pattern,
                    buf,
                    options,
                    latency: meters.recorder.as_mut(),
                    progress: counter,
                });
                walk_phase(&walk, pass, &mut progress, &mut t, &mut ticker)?;
            }
        }
        // -e: IOR 4.1 flushes once after the last transfer, inside the
        // transfer time (so in wr/rd(s) and Latency(s), not close(s)).
        let synced = self.sync_written(file.as_mut(), access, &path);
        t.xfer_end = comm.wtime();
        step(&walk, synced)?;
        meters.live = None;
        t.close_start = comm.wtime();
        let closed = self.close_file(file, &path);
        t.close_end = comm.wtime();
        step(&walk, closed)?;
        (t.bytes, t.transfers, t.kinds) = (progress.bytes, progress.transfers, progress.kinds);
        Ok(PhaseOutcome {
            times: t,
            errors: progress.errors,
            latency: meters.recorder,
            kind_latency: meters.kind_latency,
            series: ticker.series(),
        })
    }

    /// A phase's meters: latencies when `-O latencyHistogramFile` or the
    /// like asks for them (a drawn phase's per kind), progress when shown.
    fn meters(&self, access: Access, rep: u64, plan: PhasePlan, drawn: bool) -> Meters {
        let record = self.p.measure.record_latency;
        let recorder = (record && !drawn).then(LatencyRecorder::new);
        let kind_latency = (record && drawn).then(KindLatency::default);
        let live = (self.task.active && progress::wanted(self.p.output.progress, self.task.rank))
            .then(|| {
                progress::Progress::start(
                    format!("{}-{rep}", access_name(access)),
                    plan.limit * self.p.geometry.transfer_size,
                    self.data.layout().tasks,
                    "bytes",
                    plan.deadline,
                )
            });
        Meters {
            recorder,
            kind_latency,
            live,
        }
    }

    /// A drawn phase's write buffer (the pattern laid per `-t` piece) and
    /// read buffer, each of a batch.
    fn mix_buffers(
        &self,
        drawn: &MixPlan,
        pattern: &Pattern,
    ) -> Result<(AlignedBuffer, AlignedBuffer)> {
        let len = drawn.batch_bytes();
        let rank = self.task.rank;
        let mut w = AlignedBuffer::try_new(len, PAGE).map_err(|e| Error::task(rank, e))?;
        let r = AlignedBuffer::try_new(len, PAGE).map_err(|e| Error::task(rank, e))?;
        if drawn.read_pct < 100 {
            MixPass::fill(pattern, w.as_mut_slice(), drawn.region.unit);
        }
        Ok((w, r))
    }

    /// Opens the file of task `pretend` (nothing on a task left out by `-N`);
    /// `sequential` says how it will be walked.
    fn open_file(
        &self,
        access: Access,
        path: &Path,
        pretend: usize,
        sequential: bool,
        reads_too: bool,
    ) -> Result<Option<Box<dyn File>>> {
        if !self.task.active {
            return Ok(None);
        }
        let spec = OpenSpec {
            access,
            create: access == Access::Write,
            reads_too,
            file_size: self.data.layout().file_size(),
            rank: self.task.rank,
            sequential,
            blocks: self.block_view(pretend),
            segment: self.segment_bytes(),
            transfer: self.p.geometry.transfer_size,
        };
        self.files.open(path, &spec).map(Some)
    }

    /// `-e`: one fsync of a written file after its last transfer.
    fn sync_written(
        &self,
        file: Option<&mut Box<dyn File>>,
        access: Access,
        path: &Path,
    ) -> Result<()> {
        match file {
            Some(f) if access == Access::Write && self.p.transfers.fsync => f
                .sync()
                .map_err(|e| Error::io(self.task.rank, "cannot fsync", path, &e)),
            _ => Ok(()),
        }
    }

    fn close_file(&self, file: Option<Box<dyn File>>, path: &Path) -> Result<()> {
        match file {
            Some(f) => self.files.close(f, path),
            None => Ok(()),
        }
    }

    /// One segment of a file: every task's block of a shared file, one block
    /// of a file per task.
    fn segment_bytes(&self) -> u64 {
        let layout = self.data.layout();
        match self.p.geometry.file_per_proc {
            true => layout.block,
            false => layout.block * layout.tasks,
        }
    }

    /// Where `task`'s blocks lie, when they share a file with other tasks'.
    fn block_view(&self, task: usize) -> Option<BlockView> {
        let layout = self.data.layout();
        (!self.p.geometry.file_per_proc).then_some(BlockView {
            block: layout.block,
            tasks: layout.tasks,
            task: task as u64,
        })
    }

    /// `--randomPrefill`: before a random write phase, every task writes its
    /// own region sequentially (untimed, and finished by all tasks before the
    /// timed random writes start), so no part of the file stays a hole.
    pub fn prefill(&mut self, rep: u64) -> Result<()> {
        if !self.task.active {
            return Ok(());
        }
        let pretend = self.task.rank;
        let path = self.files.path(pretend, rep);
        let mut file = self
            .open_file(Access::Write, &path, pretend, true, false)?
            .expect("an active task opens its file");
        let pattern = Pattern::new(
            self.p.verification.data_packet_type,
            self.data.signature(),
            pretend,
        );
        self.prefill_region(file.as_mut(), pretend, &path, &pattern)?;
        self.close_file(Some(file), &path)
    }

    fn prefill_region(
        &self,
        file: &mut dyn File,
        pretend: usize,
        path: &Path,
        pattern: &Pattern,
    ) -> Result<()> {
        let size = self.p.geometry.random_prefill;
        let mut fill =
            AlignedBuffer::try_new(size, PAGE).map_err(|e| Error::task(self.task.rank, e))?;
        pattern.fill(fill.as_mut_slice());
        let per_task = Layout {
            transfer: size,
            ordering: Ordering::Sequential,
            ..self.data.layout().clone()
        };
        let retry = Retry::of(self.p.transfers.single_xfer_attempt, file.collective());
        let rank = self.task.rank;
        let flow = per_task.for_each_offset(pretend, |offset| {
            match write_fully(file, fill.as_slice(), offset, retry) {
                Ok(()) => ControlFlow::Continue(()),
                Err(e) => ControlFlow::Break(Error::task(
                    rank,
                    format!("cannot prefill {} at offset {offset}: {e}", path.display()),
                )),
            }
        });
        match flow {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(e) => Err(e),
        }
    }
}

/// The settings of a phase's transfer loop.
fn xfer_options(run: &TestRun<'_>, verify: bool) -> XferOptions {
    let p = run.p;
    XferOptions {
        rank: run.task.rank,
        size: p.geometry.transfer_size,
        single_attempt: p.transfers.single_xfer_attempt,
        fsync_per_write: p.transfers.fsync_per_write,
        verify,
        quit_on_error: p.verification.quit_on_error,
        list_mismatches: p.output.verbose >= 3,
        trace: p.output.verbose >= 5,
        lines: run.task.lines,
    }
}

/// The transfers of a phase: passes until the plan says stop (the deadline,
/// the count, or `minTimeDuration` passed), then the wear-out. A task that
/// moves nothing still takes part in the collective checkpoints.
fn walk_phase<W: Walker>(
    walk: &Walk<'_>,
    mut pass: Option<W>,
    progress: &mut Progress,
    t: &mut TaskTimes,
    ticker: &mut Ticker,
) -> Result<()> {
    let (comm, plan) = (walk.comm, walk.plan);
    let deadline = plan.deadline.map(Deadline::start);
    let mut collective = plan
        .collective_checks
        .then(|| CollectiveStop::new(comm, deadline.as_ref(), plan.limit));
    let mut reached = 0;
    if let Some(pass) = pass.as_mut() {
        loop {
            // After each transfer: the deadline, or a signal (one load each).
            ticker.begin(0);
            let (limit, tk) = (plan.limit, &mut *ticker);
            let count = match (deadline.as_ref(), collective.as_mut()) {
                (_, Some(c)) => pass.run_ops(0, limit, progress, tk, |n| c.check(n)),
                (Some(d), None) => {
                    pass.run_ops(0, limit, progress, tk, |_| d.passed() || stop::requested())
                }
                (None, None) => pass.run_ops(0, limit, progress, tk, |_| stop::requested()),
            };
            ticker.end(count);
            reached += count;
            let stopped = collective.as_ref().is_some_and(|c| c.stopped)
                || deadline.as_ref().is_some_and(|d| d.passed());
            t.hit_deadline = count < plan.limit && deadline.is_some() && stopped;
            // -O minTimeDuration: start again from the first transfer until
            // the time has passed.
            let again = plan.min_time > 0.0 && comm.wtime() - t.xfer_start < plan.min_time;
            let ended = progress.failed() || progress.quit || stop::requested();
            if t.hit_deadline || ended || plan.limit == 0 || !again {
                break;
            }
        }
    } else if let Some(c) = collective.as_mut() {
        c.idle();
    }
    if let Some(e) = collective.and_then(|c| c.error) {
        progress.failure.get_or_insert(Error::from(e));
    }
    drop(deadline);
    t.stonewall_pairs = reached;
    t.stonewall_bytes = progress.bytes;
    t.stonewall_time = comm.wtime() - t.xfer_start;
    step(walk, progress.failure.take().map_or(Ok(()), Err))?;
    if plan.wear_out {
        wear_out(walk, pass.as_mut(), progress, reached, ticker)?;
    }
    Ok(())
}

/// After the deadline: every task makes as many transfers as the busiest
/// one did (the count runs across segments), so the files are complete.
fn wear_out<W: Walker>(
    walk: &Walk<'_>,
    pass: Option<&mut W>,
    progress: &mut Progress,
    mut reached: u64,
    ticker: &mut Ticker,
) -> Result<()> {
    let limit = walk.plan.limit;
    let mine = pass.as_ref().map(|_| reached);
    let target = Reached::agree(walk.comm, mine)?.max;
    if let Some(pass) = pass {
        while reached < target && limit > 0 && !progress.failed() && !stop::requested() {
            let from = reached % limit;
            let to = (from + (target - reached)).min(limit);
            ticker.begin(from);
            let count = pass.run_ops(from, to, progress, ticker, |_| stop::requested());
            ticker.end(count);
            reached += count - from;
        }
    }
    step(walk, progress.failure.take().map_or(Ok(()), Err))
}

/// With the walk in step, an agreement among all tasks (a barrier that
/// carries failures); otherwise the outcome as it is.
fn step<T>(walk: &Walk<'_>, outcome: Result<T>) -> Result<T> {
    match walk.in_step {
        true => agree(walk.comm, outcome),
        false => outcome,
    }
}
