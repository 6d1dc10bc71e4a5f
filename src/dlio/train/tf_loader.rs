//! tf.data's TFRecord pipeline as DLIO builds it, for one rank:
//! `TFRecordDataset(files, buffer_size = transfer_size, num_parallel_reads
//! = read_threads)` → `shuffle(shuffle_size)` → record shard (fewer files
//! than ranks) → `batch(drop_remainder)` → `map` → `repeat` →
//! `prefetch(prefetch_size)`, iterated afresh every epoch.
//!
//! `read_threads` slots each stream their files (slot `k`: the rank's
//! files `k, k+W, ...`, as the deterministic interleave hands them out when
//! every file holds the same number of records), two records ahead; a
//! batcher takes one record from each slot in turn, keeps `shuffle_size`
//! of them back (the shuffle buffer's read-ahead; their order does not
//! matter, nothing is decoded), keeps every `ranks`-th under the record
//! shard, counts batches and keeps up to `prefetch_size +
//! computation_threads` of them ahead of the step (the prefetch buffer and
//! the parallel map's). At the end of the rank's files the partial batch
//! is dropped and the files start over (`repeat`). An epoch's end stops
//! the pipeline; what it had read ahead is lost, as TensorFlow's.

use std::ffi::CStr;
use std::io;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread::{Scope, ScopedJoinHandle};

use super::loader::Source;
use super::pyfile::Scratch;
use super::read::{at, open_read};
use super::stats::ReaderStats;
use super::tfrecord::{Record, RecordStream};

/// The pipeline's shape for one rank.
#[derive(Debug, Clone, PartialEq)]
pub struct TfPlan {
    /// The rank's files in reading order.
    pub files: Vec<usize>,
    /// Keep every `ranks`-th record only (fewer files than ranks).
    pub record_shard: bool,
    pub ranks: usize,
    pub batch: usize,
    pub read_threads: usize,
    pub transfer: usize,
    /// 0: no shuffle stage.
    pub shuffle_size: usize,
    /// Batches kept ahead of the step.
    pub ahead: usize,
}

/// An epoch's running pipeline.
struct Running<'s> {
    batches: Receiver<io::Result<()>>,
    cancel: Arc<AtomicBool>,
    batcher: ScopedJoinHandle<'s, io::Result<ReaderStats>>,
}

/// The TensorFlow loader of one rank and one dataset.
pub struct TfLoader<'s, 'r> {
    source: Source<'r>,
    plan: Arc<TfPlan>,
    running: Option<Running<'s>>,
    stats: ReaderStats,
}

impl<'s, 'r: 's> TfLoader<'s, 'r> {
    pub fn new(source: Source<'r>, plan: TfPlan) -> Self {
        TfLoader {
            source,
            plan: Arc::new(plan),
            running: None,
            stats: ReaderStats::default(),
        }
    }

    /// A fresh iterator: the pipeline starts from the first file.
    pub fn start_epoch(&mut self, scope: &'s Scope<'s, '_>) -> io::Result<()> {
        self.end_epoch()?;
        let (tx, rx) = sync_channel(self.plan.ahead.max(1));
        let cancel = Arc::new(AtomicBool::new(false));
        let (plan, source, stop) = (self.plan.clone(), self.source, cancel.clone());
        let batcher = scope.spawn(move || batcher(scope, source, &plan, tx, &stop));
        self.running = Some(Running {
            batches: rx,
            cancel,
            batcher,
        });
        Ok(())
    }
}

impl TfLoader<'_, '_> {
    /// Waits for the next batch.
    pub fn next_batch(&mut self) -> io::Result<()> {
        let running = self
            .running
            .as_ref()
            .ok_or_else(|| io::Error::other("the pipeline is not running"))?;
        running
            .batches
            .recv()
            .map_err(|_| io::Error::other("the readers stopped"))?
    }

    /// Stops the epoch's pipeline and keeps what it did.
    pub fn end_epoch(&mut self) -> io::Result<()> {
        let Some(running) = self.running.take() else {
            return Ok(());
        };
        running.cancel.store(true, Ordering::Relaxed);
        drop(running.batches);
        let stats = running
            .batcher
            .join()
            .map_err(|_| io::Error::other("a reader thread panicked"))??;
        self.stats.merge(&stats);
        Ok(())
    }

    pub fn finish(mut self) -> io::Result<ReaderStats> {
        self.end_epoch()?;
        Ok(self.stats)
    }
}

type Slot<'s> = (
    Receiver<io::Result<Record>>,
    ScopedJoinHandle<'s, ReaderStats>,
);

/// The batcher: passes over the rank's files until stopped.
fn batcher<'s>(
    scope: &'s Scope<'s, '_>,
    source: Source<'s>,
    plan: &TfPlan,
    batches: SyncSender<io::Result<()>>,
    cancel: &Arc<AtomicBool>,
) -> io::Result<ReaderStats> {
    let mut stats = ReaderStats::default();
    let slots = plan.read_threads.max(1);
    while !cancel.load(Ordering::Relaxed) && !plan.files.is_empty() {
        let mut streams: Vec<Slot<'s>> = (0..slots.min(plan.files.len()))
            .map(|k| {
                let files: Vec<usize> = plan.files.iter().copied().skip(k).step_by(slots).collect();
                let (tx, rx) = sync_channel(2);
                let (transfer, stop) = (plan.transfer, cancel.clone());
                (
                    rx,
                    scope.spawn(move || slot(source, &files, transfer, tx, &stop)),
                )
            })
            .collect();
        let outcome = one_pass(plan, &mut streams, &batches, source);
        cancel.store(
            cancel.load(Ordering::Relaxed) || outcome.is_err(),
            Ordering::Relaxed,
        );
        for (rx, handle) in streams {
            drop(rx);
            if let Ok(s) = handle.join() {
                stats.merge(&s);
            }
        }
        if let Err(e) = outcome {
            // The step learns it at its next batch.
            let _ = batches.send(Err(io::Error::new(e.kind(), e.to_string())));
            return Err(e);
        }
    }
    Ok(stats)
}

/// One pass over the files: records in turn from the slots, through the
/// shuffle buffer and the shard, counted into batches. `Ok` also when the
/// step stopped listening.
fn one_pass(
    plan: &TfPlan,
    streams: &mut [Slot<'_>],
    batches: &SyncSender<io::Result<()>>,
    source: Source<'_>,
) -> io::Result<()> {
    let mut active: Vec<usize> = (0..streams.len()).collect();
    let (mut turn, mut held, mut emitted, mut in_batch) = (0, 0usize, 0usize, 0usize);
    loop {
        let incoming = if active.is_empty() {
            false
        } else {
            let k = active[turn % active.len()];
            match streams[k].0.recv() {
                Ok(record) => {
                    record?;
                    turn += 1;
                    true
                }
                Err(_) => {
                    active.retain(|&a| a != k);
                    continue;
                }
            }
        };
        if incoming {
            held += 1;
            if held < plan.shuffle_size {
                continue;
            }
        }
        if held == 0 {
            return Ok(());
        }
        held -= 1;
        let index = emitted;
        emitted += 1;
        if plan.record_shard && index % plan.ranks != source.rank {
            continue;
        }
        source.shared.sample_done();
        in_batch += 1;
        if in_batch == plan.batch {
            in_batch = 0;
            if batches.send(Ok(())).is_err() {
                return Ok(());
            }
        }
    }
}

/// A slot: its files one after another, records sent two ahead.
fn slot(
    source: Source<'_>,
    files: &[usize],
    transfer: usize,
    records: SyncSender<io::Result<Record>>,
    cancel: &AtomicBool,
) -> ReaderStats {
    let mut scratch = Scratch::new();
    scratch.sends_past_end = source.sends_past_end;
    let mut stats = ReaderStats::default();
    for &file in files {
        if cancel.load(Ordering::Relaxed) {
            break;
        }
        let path = source.files.path(file);
        let streamed = stream_file(
            source,
            &path,
            transfer,
            &mut scratch,
            &records,
            &mut stats,
            cancel,
        );
        match streamed {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let _ = records.send(Err(at(&path, e)));
                break;
            }
        }
    }
    stats.requests += scratch.requests;
    stats.bytes += scratch.bytes;
    stats.busy += scratch.busy;
    let _ = stats.request_latency.add(scratch.latency.histogram());
    stats
}

/// Streams one file; `false` when the batcher stopped listening.
fn stream_file(
    source: Source<'_>,
    path: &CStr,
    transfer: usize,
    scratch: &mut Scratch,
    records: &SyncSender<io::Result<Record>>,
    stats: &mut ReaderStats,
    cancel: &AtomicBool,
) -> io::Result<bool> {
    let (file, size) = open_read(source.backend, path, source.rank)?;
    stats.opens += 1;
    let mut stream = RecordStream::new(file, transfer, size, scratch);
    let mut listening = true;
    while listening && !cancel.load(Ordering::Relaxed) {
        match stream.next(scratch)? {
            Some(record) => {
                let _ = stats.sample_latency.record(record.read_ns.max(1));
                listening = records.send(Ok(record)).is_ok();
            }
            None => break,
        }
    }
    stream.close()?;
    Ok(listening)
}
