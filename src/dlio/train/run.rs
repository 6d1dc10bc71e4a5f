//! The training loop of one rank, as DLIO's `main.py` runs it: per epoch a
//! block of steps (wait for the batch, one sleep of the computation time in
//! this thread while the readers read ahead, then a collective standing in
//! for the allreduce), checkpoints that end blocks or follow epochs, and
//! evaluations. Each step's collective also carries whether any rank failed
//! or was signalled, so that every rank leaves at the same step.

use std::io;
use std::thread::Scope;
use std::time::Instant;

use super::checkpoint::Checkpointer;
use super::compute::sleep;
use super::loader::{Source, TorchLoader};
use super::plan::{
    seconds_between, stamp, two_decimals, BlockEnd, BlockRecord, EpochRecord, EvalRecord, Reading,
    SaveRecord, TrainEvents, TrainPlan,
};
use super::read::FileNames;
use super::sampler::{stream_after_reconfigure, Sharding};
use super::stats::{ReaderStats, Shared};
use super::tf_loader::{TfLoader, TfPlan};
use crate::backend::Backend;
use crate::comm::{agree, Comm, ReduceOp};
use crate::dlio::metrics::{self, Figures, Steps};
use crate::dlio::random_state::RandomState;
use crate::error::{Error, Result};
use crate::progress::Counter;
use crate::run::stop;

/// What a rank did in a run.
#[derive(Debug, Clone, Default)]
pub struct RankTrain {
    pub epochs: Vec<EpochRecord>,
    pub train_reads: ReaderStats,
    pub eval_reads: ReaderStats,
}

/// What the loop reads and writes with.
pub struct Inputs<'r> {
    pub backend: &'r dyn Backend,
    pub train_files: &'r dyn FileNames,
    pub eval_files: &'r dyn FileNames,
    /// Whether the storage is a file system (reads at a file's end are
    /// sent, as DLIO's are).
    pub posix: bool,
}

/// A loader of either framework.
enum Batches<'s, 'r> {
    Torch(Box<TorchLoader<'s, 'r>>),
    Tf(Box<TfLoader<'s, 'r>>),
}

impl<'s, 'r: 's> Batches<'s, 'r> {
    fn new(source: Source<'r>, sharding: &Sharding, reading: &Reading) -> Self {
        match *reading {
            Reading::PyTorch {
                read_threads,
                prefetch_size,
                ..
            } => Batches::Torch(Box::new(TorchLoader::new(
                source,
                sharding.clone(),
                read_threads,
                prefetch_size,
            ))),
            Reading::TensorFlow {
                read_threads,
                transfer,
                shuffle_size,
                prefetch_size,
                computation_threads,
            } => {
                let (files, record_shard) = sharding.tf_files(source.rank);
                Batches::Tf(Box::new(TfLoader::new(
                    source,
                    TfPlan {
                        files,
                        record_shard,
                        ranks: sharding.ranks,
                        batch: sharding.batch,
                        read_threads,
                        transfer,
                        shuffle_size,
                        ahead: prefetch_size + computation_threads.max(1),
                    },
                )))
            }
        }
    }

    fn start(&mut self, scope: &'s Scope<'s, '_>, epoch: usize) -> io::Result<()> {
        match self {
            Batches::Torch(l) => l.start_epoch(scope, epoch),
            Batches::Tf(l) => l.start_epoch(scope),
        }
    }
}

impl Batches<'_, '_> {
    fn next(&mut self) -> io::Result<()> {
        match self {
            Batches::Torch(l) => l.next_batch(),
            Batches::Tf(l) => l.next_batch(),
        }
    }

    fn end(&mut self) -> io::Result<()> {
        match self {
            Batches::Torch(_) => Ok(()),
            Batches::Tf(l) => l.end_epoch(),
        }
    }

    fn finish(self) -> io::Result<ReaderStats> {
        match self {
            Batches::Torch(l) => l.finish(),
            Batches::Tf(l) => l.finish(),
        }
    }
}

/// The step's collective: whether any rank failed or was signalled.
fn step_end(comm: &dyn Comm, failed: bool) -> Result<Option<i32>> {
    let mut v = [failed as u64, stop::signal().unwrap_or(0) as u64];
    comm.all_reduce_u64(&mut v, ReduceOp::Max)?;
    match v {
        [0, 0] => Ok(None),
        [_, 0] => Ok(Some(0)),
        [_, s] => Ok(Some(s as i32)),
    }
}

/// The state of one rank's run.
struct Trainer<'a, 'r> {
    comm: &'a dyn Comm,
    plan: &'a TrainPlan,
    checkpointer: &'a mut dyn Checkpointer,
    events: &'a mut dyn TrainEvents,
    progress: Option<&'a Counter>,
    source: Source<'r>,
    eval_files: &'r dyn FileNames,
    /// This rank's failure, carried to the next collective.
    failure: Option<Error>,
    /// A stop every rank agreed on (0: a failure somewhere).
    stopped: Option<i32>,
    done_steps: u64,
    next_checkpoint_epoch: usize,
    next_eval_epoch: usize,
}

/// Trains on this rank; every rank returns the same outcome.
pub fn train(
    comm: &dyn Comm,
    plan: &TrainPlan,
    inputs: &Inputs<'_>,
    checkpointer: &mut dyn Checkpointer,
    events: &mut dyn TrainEvents,
    progress: Option<&Counter>,
) -> Result<RankTrain> {
    let shared = Shared::default();
    let source = Source {
        backend: inputs.backend,
        files: inputs.train_files,
        options: read_options(&plan.reading),
        rank: comm.rank(),
        shared: &shared,
        sends_past_end: inputs.posix,
    };
    let mut trainer = Trainer {
        comm,
        plan,
        checkpointer,
        events,
        progress,
        source,
        eval_files: inputs.eval_files,
        failure: None,
        stopped: None,
        done_steps: 0,
        next_checkpoint_epoch: plan.checkpoint.map_or(0, |c| c.after_epoch),
        next_eval_epoch: plan.eval.as_ref().map_or(0, |e| e.after_epoch),
    };
    let outcome = std::thread::scope(|scope| trainer.all_epochs(scope));
    let outcome = match (outcome, trainer.failure.take(), trainer.stopped) {
        (Err(e), _, _) | (Ok(_), Some(e), _) => Err(e),
        (Ok(_), None, Some(s)) if s > 0 => Err(stop::interrupted(s)),
        (Ok(run), None, _) => Ok(run),
    };
    agree(comm, outcome)
}

/// The per-sample options of a PyTorch reading (unused by TensorFlow's).
fn read_options(reading: &Reading) -> super::read::ReadOptions {
    match reading {
        Reading::PyTorch { options, .. } => *options,
        Reading::TensorFlow { .. } => super::read::ReadOptions {
            format: super::read::SampleFormat::Npz,
            odirect: false,
            block: 4096,
            reopen: true,
        },
    }
}

impl<'a, 'r> Trainer<'a, 'r> {
    fn all_epochs<'s>(&mut self, scope: &'s Scope<'s, '_>) -> Result<RankTrain>
    where
        'r: 's,
    {
        let plan = self.plan;
        let mut train = Batches::new(self.source, &plan.train, &plan.reading);
        let mut eval = plan.eval.as_ref().map(|e| {
            let source = Source {
                files: self.eval_files,
                ..self.source
            };
            Batches::new(source, &e.sharding, &plan.reading)
        });
        let mut run = RankTrain::default();
        for epoch in 1..=plan.epochs {
            if self.stopped.is_some() {
                break;
            }
            let mut stream = self.stream(epoch);
            let record = self.epoch(scope, epoch, &mut train, &mut stream);
            let mut record = record?;
            if let Some(e) = eval.as_mut() {
                record.eval = self.maybe_eval(scope, epoch, e, &mut stream)?;
            }
            record.closed = stamp();
            run.epochs.push(record);
        }
        let rank = self.source.rank;
        let finished = |e: io::Error| Error::task(rank, e.to_string());
        run.train_reads = train.finish().map_err(finished)?;
        if let Some(e) = eval {
            run.eval_reads = e.finish().map_err(finished)?;
        }
        Ok(run)
    }

    /// numpy's global stream for the epoch's draws: as DLIO leaves it, or
    /// seeded per rank where DLIO's comes from the system.
    fn stream(&self, epoch: usize) -> RandomState {
        let train = &self.plan.train;
        let eval = self.plan.eval.as_ref().map_or(train, |e| &e.sharding);
        let rank = self.source.rank;
        stream_after_reconfigure(train, eval, rank, epoch).unwrap_or_else(|| {
            let seed = train
                .epoch_seed(epoch)
                .wrapping_add((rank as u32).wrapping_mul(7919));
            RandomState::new(seed)
        })
    }

    /// Records a local failure; the next collective tells every rank.
    fn fail(&mut self, e: impl Into<Error>) {
        if self.failure.is_none() {
            self.failure = Some(e.into());
        }
    }

    /// One training step; `false` when the ranks agreed to stop.
    fn step(
        &mut self,
        batches: &mut Batches<'_, '_>,
        stream: &mut RandomState,
        steps: &mut Steps,
    ) -> Result<bool> {
        let loading = Instant::now();
        if self.failure.is_none() {
            if let Err(e) = batches.next() {
                self.fail(Error::task(self.source.rank, e.to_string()));
            }
        }
        let computing = Instant::now();
        if self.failure.is_none() {
            sleep(self.plan.computation.seconds(stream));
        }
        let done = Instant::now();
        steps.push(
            (computing - loading).as_secs_f64(),
            (done - loading).as_secs_f64(),
            (done - computing).as_secs_f64(),
        );
        self.stopped = step_end(self.comm, self.failure.is_some())?;
        self.done_steps += 1;
        if let Some(c) = self.progress {
            c.set(self.done_steps);
        }
        Ok(self.stopped.is_none())
    }

    fn epoch<'s>(
        &mut self,
        scope: &'s Scope<'s, '_>,
        epoch: usize,
        batches: &mut Batches<'s, 'r>,
        stream: &mut RandomState,
    ) -> Result<EpochRecord>
    where
        'r: 's,
    {
        let plan = self.plan;
        let mut record = EpochRecord {
            epoch,
            start: stamp(),
            meminfo: crate::dlio::host::meminfo(),
            ..Default::default()
        };
        self.events
            .epoch_started(epoch, plan.steps, plan.steps_overridden);
        let by_steps = plan.checkpoint.filter(|c| c.every_steps >= 0);
        let mut next_step_checkpoint = by_steps.map_or(0, |c| c.every_steps as usize);
        let mut block = Block::start(1, self.events);
        if let Err(e) = batches.start(scope, epoch) {
            self.fail(Error::task(self.source.rank, e.to_string()));
        }
        let mut block_step = 1;
        for overall in 1..=plan.steps {
            if !self.step(batches, stream, &mut block.steps)? {
                break;
            }
            if by_steps.is_some() && overall == next_step_checkpoint {
                record.blocks.push(block.end(self, epoch, block_step));
                let save = self.save(epoch, record.blocks.len(), overall, overall);
                record.saves.extend(save);
                next_step_checkpoint += by_steps.map_or(0, |c| c.every_steps as usize);
                block_step = 1;
                if overall < plan.steps {
                    block = Block::start(record.blocks.len() + 1, self.events);
                }
            } else {
                block_step += 1;
            }
        }
        if block_step != 1 || self.plan.checkpoint.is_none() {
            record.blocks.push(block.end(self, epoch, block_step - 1));
        }
        if let Err(e) = batches.end() {
            self.fail(Error::task(self.source.rank, e.to_string()));
        }
        self.after_epoch(epoch, &mut record)?;
        record.figures = metrics::epoch(
            &record
                .blocks
                .iter()
                .map(|b| (b.figures, b.steps.len()))
                .collect::<Vec<_>>(),
        );
        record.end = stamp();
        record.duration = two_decimals(seconds_between(&record.start, &record.end));
        let steps = record.blocks.iter().map(|b| b.steps.len()).sum();
        self.events.epoch_ended(epoch, steps, &record.duration);
        Ok(record)
    }

    /// The barrier after the steps, then the checkpoint that follows the
    /// epoch when one is due (the branch closes the block again first,
    /// taking its figures up to now).
    fn after_epoch(&mut self, epoch: usize, record: &mut EpochRecord) -> Result<()> {
        if self.stopped.is_some() {
            return Ok(());
        }
        self.stopped = step_end(self.comm, self.failure.is_some())?;
        let Some(c) = self.plan.checkpoint.filter(|c| c.every_steps < 0) else {
            return Ok(());
        };
        if self.stopped.is_some() || epoch != self.next_checkpoint_epoch {
            return Ok(());
        }
        if let Some(last) = record.blocks.last_mut() {
            let wall = last.began.map_or(0.0, |b| b.elapsed().as_secs_f64());
            last.figures = self.block_figures(&last.steps, wall);
        }
        let step = self.plan.steps;
        let save = self.save(epoch, record.blocks.len(), step, step + 1);
        record.saves.extend(save);
        self.next_checkpoint_epoch += c.every_epochs;
        Ok(())
    }

    fn block_figures(&self, steps: &Steps, wall: f64) -> Figures {
        let p = self.plan;
        metrics::train_block(steps, wall, p.steps, p.window, p.train.batch, p.throughput)
    }

    /// Saves a checkpoint, timed on this rank (no collective around it, as
    /// DLIO's training checkpoints).
    fn save(
        &mut self,
        epoch: usize,
        block: usize,
        shown_step: usize,
        step: usize,
    ) -> Option<SaveRecord> {
        if self.failure.is_some() {
            return None;
        }
        self.events.checkpoint_started(epoch, block, shown_step);
        let start = stamp();
        if let Err(e) = self.checkpointer.save(epoch, step) {
            self.fail(Error::task(self.source.rank, format!("checkpoint: {e}")));
            return None;
        }
        let end = stamp();
        let duration = seconds_between(&start, &end);
        let throughput = self.checkpointer.size_gib() / duration;
        self.events
            .checkpoint_ended(epoch, block, duration, throughput);
        Some(SaveRecord {
            block,
            start,
            end,
            duration,
            throughput,
        })
    }

    fn maybe_eval<'s>(
        &mut self,
        scope: &'s Scope<'s, '_>,
        epoch: usize,
        batches: &mut Batches<'s, 'r>,
        stream: &mut RandomState,
    ) -> Result<Option<EvalRecord>>
    where
        'r: 's,
    {
        let Some(plan) = self.plan.eval.as_ref() else {
            return Ok(None);
        };
        if self.stopped.is_some() || epoch < self.next_eval_epoch {
            return Ok(None);
        }
        self.next_eval_epoch += plan.every;
        self.events.eval_started(plan.steps);
        let (start, began) = (stamp(), Instant::now());
        let mut steps = Steps::default();
        if let Err(e) = batches.start(scope, epoch) {
            self.fail(Error::task(self.source.rank, e.to_string()));
        }
        // No collective between evaluation steps (DLIO has none).
        for _ in 0..plan.steps {
            if self.failure.is_some() {
                break;
            }
            let loading = Instant::now();
            if let Err(e) = batches.next() {
                self.fail(Error::task(self.source.rank, e.to_string()));
                break;
            }
            let computing = Instant::now();
            sleep(plan.time.seconds(stream));
            let done = Instant::now();
            let (load, proc) = (
                (computing - loading).as_secs_f64(),
                (done - loading).as_secs_f64(),
            );
            steps.push(load, proc, (done - computing).as_secs_f64());
        }
        let wall = began.elapsed().as_secs_f64();
        if let Err(e) = batches.end() {
            self.fail(Error::task(self.source.rank, e.to_string()));
        }
        let end = stamp();
        let figures = metrics::eval_block(
            &steps,
            wall,
            plan.steps,
            self.plan.window,
            plan.sharding.batch,
        );
        let duration = two_decimals(seconds_between(&start, &end));
        self.events
            .eval_ended(epoch, plan.steps, &duration, figures);
        Ok(Some(EvalRecord {
            start,
            end,
            duration,
            steps,
            figures,
        }))
    }
}

/// A block being run.
struct Block {
    number: usize,
    start: String,
    began: Instant,
    steps: Steps,
}

impl Block {
    fn start(number: usize, events: &mut dyn TrainEvents) -> Block {
        events.block_started(number);
        Block {
            number,
            start: stamp(),
            began: Instant::now(),
            steps: Steps::default(),
        }
    }

    /// Closes the block after `taken` steps.
    fn end(&mut self, trainer: &mut Trainer<'_, '_>, epoch: usize, taken: usize) -> BlockRecord {
        let wall = self.began.elapsed().as_secs_f64();
        let end = stamp();
        let duration = two_decimals(seconds_between(&self.start, &end));
        let figures = trainer.block_figures(&self.steps, wall);
        let p = trainer.plan;
        trainer.events.block_ended(&BlockEnd {
            epoch,
            block: self.number,
            steps: taken,
            duration: &duration,
            figures,
            compute: metrics::compute_per_step(&self.steps, p.steps, p.window),
            set: &p.computation,
        });
        BlockRecord {
            start: std::mem::take(&mut self.start),
            end,
            duration,
            steps: std::mem::take(&mut self.steps),
            figures,
            began: Some(self.began),
        }
    }
}

#[cfg(test)]
mod tests;
