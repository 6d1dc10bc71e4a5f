//! The transfer loop with requests in flight together (`-a AIO`): a
//! transfer takes a free slot of the queue (a write stamps its buffer), is
//! submitted, and its slot comes back when it completes; a read is checked
//! in its own slot's buffer then (`-R`/`-W`). A short transfer is
//! resubmitted for the rest, as the synchronous loop retries it. Stopping
//! early (stonewalling, a failure, a signal) ends the submissions; the
//! requests in flight are always completed and counted before the pass
//! returns, so no request outlives the pass.

use std::path::Path;
use std::time::Instant;

use super::layout::Layout;
use super::xfer::{check, Pass, Progress, XferOptions};
use crate::backend::transfer::{ended, short};
use crate::backend::{Access, Completion, Queue, Retry};
use crate::error::Error;
use crate::latency::LatencyRecorder;
use crate::pattern::{PacketType, Pattern};
use crate::progress::Counter;

/// A walk over some of one task's transfers with a queue.
pub struct QueuedPass<'a> {
    pub queue: &'a mut dyn Queue,
    pub access: Access,
    pub layout: &'a Layout,
    pub task: usize,
    pub path: &'a Path,
    pub pattern: &'a Pattern,
    /// The task's buffer, filled with its pattern: each slot starts as it.
    pub template: &'a [u8],
    pub options: XferOptions,
    pub latency: Option<&'a mut LatencyRecorder>,
    pub counter: Option<&'a Counter>,
    /// The failure of the earliest transfer that failed (requests complete
    /// out of order; the one reported is the one POSIX would have met).
    pub failed: Option<(u64, Error)>,
}

/// Where a slot's request stands.
#[derive(Clone, Copy)]
struct Slot {
    /// The transfer's place in the pass's order.
    seq: u64,
    offset: u64,
    done: usize,
    submitted: Instant,
}

/// The counts of a pass, stored in the progress at its end.
#[derive(Default)]
struct Tally {
    bytes: u64,
    transfers: u64,
}

impl QueuedPass<'_> {
    /// [`Pass::run`] through the file's queue, if it has one (`None`: it
    /// has none).
    pub fn run_pass(
        pass: &mut Pass<'_>,
        from: u64,
        to: u64,
        progress: &mut Progress,
        stop: &mut impl FnMut(u64) -> bool,
    ) -> Option<u64> {
        let len = pass.buf.len();
        let Pass {
            file,
            access,
            layout,
            task,
            path,
            pattern,
            buf,
            options,
            latency,
            progress: counter,
        } = pass;
        let queue = match file.queue(len)? {
            Ok(queue) => queue,
            Err(e) => {
                let why = format!(
                    "cannot set up requests in flight for {}: {e}",
                    path.display()
                );
                progress.failure = Some(Error::task(options.rank, why));
                return Some(from);
            }
        };
        let mut queued = QueuedPass {
            queue,
            access: *access,
            layout,
            task: *task,
            path,
            pattern,
            template: buf,
            options: *options,
            latency: latency.as_deref_mut(),
            counter: *counter,
            failed: None,
        };
        Some(queued.run(from, to, progress, stop))
    }

    /// As [`super::xfer::Pass::run`]: transfers `from` to `to - 1`, `stop`
    /// after each submission; returns the count reached.
    pub fn run(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        mut stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        let depth = self.queue.depth();
        let size = self.options.size as usize;
        let now = Instant::now();
        let mut slots = vec![
            Slot {
                seq: 0,
                offset: 0,
                done: 0,
                submitted: now
            };
            depth
        ];
        let mut free: Vec<usize> = (0..depth).rev().collect();
        let stamp = self.pattern.packet() != PacketType::Timestamp;
        match self.access {
            Access::Write => self.fill_slots(depth, size, stamp),
            Access::Read => self.queue.discard_reads(!self.options.verify),
        }
        let mut tally = Tally::default();
        let mut done = Vec::with_capacity(depth);
        let mut count = from;
        for offset in self.layout.offsets_in(self.task, from, to) {
            while free.is_empty() && self.failed.is_none() {
                self.reap(&mut done, &mut slots, &mut free, progress, &mut tally);
            }
            if self.failed.is_some() || progress.failed() || progress.quit {
                break;
            }
            let slot = free.pop().expect("a free slot");
            if self.access == Access::Write && stamp {
                self.pattern
                    .stamp(&mut self.queue.buffer(slot)[..size], offset);
            }
            self.trace(offset);
            slots[slot] = Slot {
                seq: count,
                offset,
                done: 0,
                submitted: Instant::now(),
            };
            if let Err(e) = self.queue.submit(self.access, slot, 0, size, offset) {
                self.fail(count, offset, e);
                break;
            }
            count += 1;
            if stop(count) {
                break;
            }
        }
        while self.queue.in_flight() > 0 {
            self.reap(&mut done, &mut slots, &mut free, progress, &mut tally);
        }
        if let Some((_, e)) = self.failed.take() {
            progress.failure.get_or_insert(e);
        }
        progress.bytes += tally.bytes;
        progress.transfers += tally.transfers;
        if let Some(c) = self.counter {
            c.set(progress.bytes);
        }
        count
    }

    /// Gives the slots the task's bytes, or the queue one copy of them for
    /// every write when no transfer is stamped and it can send from one.
    fn fill_slots(&mut self, depth: usize, size: usize, stamp: bool) {
        let template = &self.template[..size];
        if !stamp && self.queue.send_from(Some(template)) {
            return;
        }
        self.queue.send_from(None);
        for slot in 0..depth {
            self.queue.buffer(slot)[..size].copy_from_slice(template);
        }
    }

    /// Waits for completions and handles each.
    fn reap(
        &mut self,
        done: &mut Vec<Completion>,
        slots: &mut [Slot],
        free: &mut Vec<usize>,
        progress: &mut Progress,
        tally: &mut Tally,
    ) {
        if let Err(e) = self.queue.reap(done) {
            let path = self.path.display();
            let why = format!("cannot wait for the requests in flight on {path}: {e}");
            self.failed
                .get_or_insert((0, Error::task(self.options.rank, why)));
            return;
        }
        for c in done.drain(..) {
            let slot = c.slot;
            if self.complete(c, slots, progress, tally) {
                free.push(slot);
            }
        }
    }

    /// One completion: finished (the slot is free again), or resubmitted
    /// for the rest of a short transfer.
    fn complete(
        &mut self,
        c: Completion,
        slots: &mut [Slot],
        progress: &mut Progress,
        tally: &mut Tally,
    ) -> bool {
        let size = self.options.size as usize;
        let s = &mut slots[c.slot];
        let n = match c.result {
            Ok(0) if self.access == Access::Read => {
                let e = ended(s.offset + s.done as u64, size, s.offset);
                return self.fail(s.seq, s.offset, e);
            }
            Ok(0) => {
                let e =
                    std::io::Error::new(std::io::ErrorKind::WriteZero, "write returned 0 bytes");
                return self.fail(s.seq, s.offset, e);
            }
            Ok(n) => n,
            Err(e) => return self.fail(s.seq, s.offset, e),
        };
        s.done += n;
        if s.done < size {
            let retry = Retry::of(self.options.single_attempt, false);
            if let Retry::Forbidden(why) = retry {
                let e = short(self.verb(), s.done, size, s.offset, why);
                return self.fail(s.seq, s.offset, e);
            }
            let (start, at) = (s.done, s.offset + s.done as u64);
            match self
                .queue
                .submit(self.access, c.slot, start, size - start, at)
            {
                Ok(()) => return false,
                Err(e) => return self.fail(s.seq, s.offset, e),
            }
        }
        if let Some(l) = self.latency.as_deref_mut() {
            let finished = c.finished.unwrap_or_else(Instant::now);
            let started = c.started.unwrap_or(s.submitted);
            l.record(finished.saturating_duration_since(started));
        }
        tally.bytes += size as u64;
        tally.transfers += 1;
        if let Some(c) = self.counter.filter(|_| tally.transfers % 256 == 0) {
            c.set(progress.bytes + tally.bytes);
        }
        if self.access == Access::Read && self.options.verify {
            let buf = &self.queue.buffer(c.slot)[..size];
            let right = check(
                self.pattern,
                buf,
                s.offset,
                self.path,
                &self.options,
                progress,
            );
            if !right && self.options.quit_on_error {
                progress.quit = true;
            }
        }
        true
    }

    /// Keeps the failure of the earliest transfer; the slot is free again.
    fn fail(&mut self, seq: u64, offset: u64, e: std::io::Error) -> bool {
        if self.failed.as_ref().is_none_or(|(first, _)| seq < *first) {
            self.failed = Some((seq, self.failure(offset, e)));
        }
        true
    }

    fn verb(&self) -> &'static str {
        match self.access {
            Access::Write => "write",
            Access::Read => "read",
        }
    }

    fn failure(&self, offset: u64, e: std::io::Error) -> Error {
        let what = match self.access {
            Access::Write => "cannot write",
            Access::Read => "cannot read",
        };
        super::xfer::failure(self.options.rank, what, self.path, offset, e)
    }

    fn trace(&self, offset: u64) {
        if self.options.trace {
            self.options.lines.print(format_args!(
                "task {}: {} {} bytes at offset {offset} of {} (queued)",
                self.options.rank,
                self.verb(),
                self.options.size,
                self.path.display()
            ));
        }
    }
}
