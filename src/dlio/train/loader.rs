//! PyTorch's `DataLoader` as DLIO configures it: `read_threads` workers
//! that live for the whole run (`persistent_workers`), batch `k` of an
//! epoch handed to worker `k mod W`, at most `W · ⌈prefetch_size / W⌉`
//! batches asked for ahead of the one the step waits for (2 a worker when
//! `prefetch_size` is 0), each worker reading its batch's samples one
//! after another; batches delivered in order, the last partial one
//! dropped. Batches asked for but not taken when an epoch ends are read at
//! the start of the next (PyTorch's iterator reset waits for them). With
//! no worker, the step reads its batch itself.

use std::collections::BTreeSet;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, sync_channel, Receiver, Sender, SyncSender};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use super::read::{FileNames, ReadOptions, SampleReader};
use super::sampler::Sharding;
use super::stats::{ReaderStats, Shared};
use crate::backend::Backend;

/// What a worker is asked for: one batch of (file, sample) pairs.
struct Job {
    epoch: usize,
    id: usize,
    samples: Vec<(usize, usize)>,
}

/// A finished batch (epoch, id), or why a worker stopped.
type Done = io::Result<(usize, usize)>;

/// Where the loader reads from.
#[derive(Clone, Copy)]
pub struct Source<'r> {
    pub backend: &'r dyn Backend,
    pub files: &'r dyn FileNames,
    pub options: ReadOptions,
    pub rank: usize,
    pub shared: &'r Shared,
    /// Reads at the end of a file go to the storage (file systems), or are
    /// answered without a request (object stores).
    pub sends_past_end: bool,
}

/// The PyTorch loader of one rank and one dataset (train or eval).
pub struct TorchLoader<'s, 'r> {
    source: Source<'r>,
    sharding: Sharding,
    workers: usize,
    ahead: usize,
    jobs: Vec<SyncSender<Job>>,
    /// Kept until the workers have theirs: once they stop, nothing is sent.
    done_tx: Option<Sender<Done>>,
    done: Receiver<Done>,
    handles: Vec<ScopedJoinHandle<'s, io::Result<ReaderStats>>>,
    cancel: Arc<AtomicBool>,
    /// The step's own reader (no workers).
    inline: Option<SampleReader<'r>>,
    epoch: usize,
    order: Vec<u64>,
    batches: usize,
    next: usize,
    asked: usize,
    /// Asked for and not yet back, of any epoch.
    outstanding: usize,
    ready: BTreeSet<usize>,
}

impl<'s, 'r: 's> TorchLoader<'s, 'r> {
    /// A loader whose workers start with its first epoch.
    pub fn new(
        source: Source<'r>,
        sharding: Sharding,
        read_threads: usize,
        prefetch_size: usize,
    ) -> Self {
        let factor = match (read_threads, prefetch_size) {
            (0, _) => 0,
            (w, 0) => 2 * w,
            (w, p) => w * p.div_ceil(w),
        };
        let (done_tx, done) = channel();
        TorchLoader {
            source,
            sharding,
            workers: read_threads,
            ahead: factor,
            jobs: Vec::new(),
            done_tx: Some(done_tx),
            done,
            handles: Vec::new(),
            cancel: Arc::new(AtomicBool::new(false)),
            inline: None,
            epoch: 0,
            order: Vec::new(),
            batches: 0,
            next: 0,
            asked: 0,
            outstanding: 0,
            ready: BTreeSet::new(),
        }
    }

    /// The files of this rank's samples, in their first epoch's order (what
    /// a reader loads the indexes of when it starts).
    fn files_of(&self, order: &[u64]) -> Vec<usize> {
        let mut seen = BTreeSet::new();
        order
            .iter()
            .map(|&s| self.sharding.locate(s).0)
            .filter(|f| seen.insert(*f))
            .collect()
    }

    fn start_workers(&mut self, scope: &'s Scope<'s, '_>, order: &[u64]) -> io::Result<()> {
        let files = self.files_of(order);
        if self.workers == 0 {
            let mut reader = SampleReader::new(
                self.source.backend,
                self.source.files,
                self.source.options,
                self.source.rank,
            );
            reader.scratch.sends_past_end = self.source.sends_past_end;
            reader.start(files)?;
            self.inline = Some(reader);
            return Ok(());
        }
        let Some(done_tx) = self.done_tx.take() else {
            return Ok(());
        };
        for _ in 0..self.workers {
            let (tx, rx) = sync_channel::<Job>(self.ahead.max(1));
            let (done, cancel, source) = (done_tx.clone(), self.cancel.clone(), self.source);
            let files = files.clone();
            self.jobs.push(tx);
            self.handles
                .push(scope.spawn(move || worker(source, files, rx, done, cancel)));
        }
        Ok(())
    }

    /// Starts an epoch: what the last one left asked for is read first.
    pub fn start_epoch(&mut self, scope: &'s Scope<'s, '_>, epoch: usize) -> io::Result<()> {
        let order = self.sharding.torch_order(self.source.rank, epoch);
        if self.epoch == 0 {
            self.start_workers(scope, &order)?;
        }
        while self.outstanding > 0 {
            self.receive()?;
        }
        self.epoch = epoch;
        self.batches = order.len() / self.sharding.batch.max(1);
        self.order = order;
        (self.next, self.asked) = (0, 0);
        self.ready.clear();
        while self.workers > 0 && self.asked < self.batches.min(self.ahead) {
            self.ask();
        }
        Ok(())
    }
}

impl TorchLoader<'_, '_> {
    fn ask(&mut self) {
        let id = self.asked;
        let b = self.sharding.batch;
        let samples = self.order[id * b..(id + 1) * b]
            .iter()
            .map(|&s| self.sharding.locate(s))
            .collect();
        let job = Job {
            epoch: self.epoch,
            id,
            samples,
        };
        // A worker that stopped has reported why on the done channel.
        let _ = self.jobs[id % self.workers].send(job);
        self.asked += 1;
        self.outstanding += 1;
    }

    /// The next finished batch; a worker's failure is the loader's.
    fn receive(&mut self) -> io::Result<(usize, usize)> {
        let done = self
            .done
            .recv()
            .map_err(|_| io::Error::other("the readers stopped"))??;
        self.outstanding -= 1;
        Ok(done)
    }

    /// Waits for the epoch's next batch.
    pub fn next_batch(&mut self) -> io::Result<()> {
        if self.next >= self.batches {
            return Err(io::Error::other("no batch left in the epoch"));
        }
        if let Some(reader) = &mut self.inline {
            let b = self.sharding.batch;
            for &s in &self.order[self.next * b..(self.next + 1) * b] {
                let (file, sample) = self.sharding.locate(s);
                reader.read(file, sample)?;
                self.source.shared.sample_done();
            }
            self.next += 1;
            return Ok(());
        }
        while !self.ready.remove(&self.next) {
            let (epoch, id) = self.receive()?;
            if epoch == self.epoch {
                self.ready.insert(id);
            }
        }
        self.next += 1;
        if self.asked < self.batches {
            self.ask();
        }
        Ok(())
    }

    /// Stops the workers (what they were asked and have not begun is
    /// dropped, as PyTorch's shutdown does) and returns what they did.
    pub fn finish(mut self) -> io::Result<ReaderStats> {
        self.cancel.store(true, Ordering::Relaxed);
        self.jobs.clear();
        let mut stats = ReaderStats::default();
        if let Some(reader) = self.inline.take() {
            stats.add_reader(reader);
        }
        let mut failure = None;
        for handle in self.handles.drain(..) {
            match handle.join() {
                Ok(Ok(s)) => stats.merge(&s),
                Ok(Err(e)) => failure = failure.or(Some(e)),
                Err(_) => failure = failure.or(Some(io::Error::other("a reader thread panicked"))),
            }
        }
        failure.map_or(Ok(stats), Err)
    }
}

/// A worker: its reader, then each job's samples in order.
fn worker(
    source: Source<'_>,
    files: Vec<usize>,
    jobs: Receiver<Job>,
    done: Sender<Done>,
    cancel: Arc<AtomicBool>,
) -> io::Result<ReaderStats> {
    let mut reader = SampleReader::new(source.backend, source.files, source.options, source.rank);
    reader.scratch.sends_past_end = source.sends_past_end;
    if let Err(e) = reader.start(files) {
        let _ = done.send(Err(io::Error::new(e.kind(), e.to_string())));
        return Err(e);
    }
    for job in jobs {
        let mut outcome = Ok(());
        for &(file, sample) in &job.samples {
            if cancel.load(Ordering::Relaxed) {
                break;
            }
            outcome = reader.read(file, sample);
            if outcome.is_err() {
                break;
            }
            source.shared.sample_done();
        }
        if let Err(e) = outcome {
            let _ = done.send(Err(io::Error::new(e.kind(), e.to_string())));
            return Err(e);
        }
        if done.send(Ok((job.epoch, job.id))).is_err() {
            break;
        }
    }
    let mut stats = ReaderStats::default();
    stats.add_reader(reader);
    Ok(stats)
}
