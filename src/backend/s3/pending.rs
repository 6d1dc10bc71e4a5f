//! Requests in flight (`--s3.max-pending=N`): a file's [`Queue`] served by
//! N threads, each making one blocking request at a time on its own
//! keep-alive connection from the client's pool. The transfer loop keeps
//! more requests submitted than the threads are making (up to 2N more, and
//! at most 16 MiB of them), so that a thread that finishes one finds the
//! next waiting instead of sleeping until the loop runs again: a sleep and
//! a wake-up per request cost as much CPU as a small request's own work.
//! The requests sent at once, to the server, stay at most N, and a
//! request's latency runs from when a thread sends it.
//!
//! The threads share one list of submitted requests: a thread that finishes
//! a request posts its completion and takes the next request itself, so it
//! sleeps only when none is waiting, and only a sleeping thread is woken
//! for a submission. The transfer loop waits for a batch of completions
//! (half the requests waiting) and is woken once for it, not once per
//! request; the other half keeps the threads busy while it refills, even
//! when it waits for a core behind them. A completion carries the time its
//! request finished, so the latency the runner records is the request's
//! own, from submission to completion, however late the batch is collected.
//!
//! A slot's buffer travels with its request and comes back with the
//! completion, so the queue hands out only buffers no request uses. In
//! ior's default run neither the slots' buffers nor their number cost
//! memory: writes that all send the same bytes (ior's unstamped pattern)
//! send them from one shared copy ([`Queue::send_from`]), and reads whose
//! bytes nobody checks (no `-R`) land in their thread's own buffer
//! ([`Queue::discard_reads`]), as a client's would; a slot's buffer is
//! allocated only when something uses it. At 1 MiB and depth 16, a buffer
//! per slot cost more in cache misses and page faults than the requests'
//! own work.

use std::collections::VecDeque;
use std::io;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Instant;

use crate::backend::{Access, Completion, Queue};

/// The buffers of requests submitted and waiting for a thread, at most
/// (they are touched only by stamped writes and checked reads).
const AHEAD_BYTES: usize = 16 << 20;

/// What a request moves: the bytes it sends, or the buffer it fills.
pub enum Transfer<'a> {
    Write(&'a [u8]),
    Read(&'a mut [u8]),
}

/// The request a worker makes: one transfer at `offset`.
pub type Request = dyn Fn(Transfer<'_>, u64) -> io::Result<usize> + Send + Sync;
pub type Op = Arc<Request>;

struct Job {
    slot: usize,
    access: Access,
    start: usize,
    len: usize,
    offset: u64,
    buf: Vec<u8>,
    /// The bytes a write sends instead of its slot's.
    same: Option<Arc<[u8]>>,
    /// A read the worker makes into its own buffer (nobody looks at it).
    discard: bool,
}

struct Done {
    slot: usize,
    buf: Vec<u8>,
    result: io::Result<usize>,
    started: Instant,
    finished: Instant,
}

/// What the transfer loop and the workers share, under one lock.
#[derive(Default)]
struct State {
    /// Submitted requests no worker has taken yet.
    jobs: VecDeque<Job>,
    /// Completions the loop has not collected yet.
    done: Vec<Done>,
    /// Workers asleep, waiting for a job.
    idle: usize,
    /// The completions the loop waits for; 0 while it is not waiting.
    wanted: usize,
    /// The queue is dropped: workers end once no job is left.
    closing: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Wakes a sleeping worker.
    work: Condvar,
    /// Wakes the loop when the completions it wants are there.
    done: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // The lock is never held across a request or a panic.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A queue of requests in flight for one open file.
pub struct Pending {
    /// Each slot's buffer (empty until used); `None` while its request is
    /// in flight.
    buffers: Vec<Option<Vec<u8>>>,
    /// The buffers' length.
    len: usize,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    in_flight: usize,
    /// The completions the loop waits for: half the requests waiting.
    batch: usize,
    /// The completions collected last, swapped with the shared list (no
    /// allocation per batch).
    collected: Vec<Done>,
    /// What every write sends, when the writer said they all send the same.
    same: Option<Arc<[u8]>>,
    /// Reads land in the workers' own buffers ([`Queue::discard_reads`]).
    discard: bool,
}

impl Pending {
    /// `threads` requests sent at once, from slots of `len` bytes for them
    /// and for those waiting; `op` makes each request.
    pub fn new(threads: usize, len: usize, op: Op) -> io::Result<Pending> {
        let shared = Arc::new(Shared::default());
        let waiting = (2 * threads).min((AHEAD_BYTES / len.max(1)).max(1));
        let slots = threads + waiting;
        let mut pending = Pending {
            buffers: vec![Some(Vec::new()); slots],
            len,
            shared: shared.clone(),
            workers: Vec::with_capacity(threads),
            in_flight: 0,
            batch: (waiting / 2).max(1),
            collected: Vec::with_capacity(slots),
            same: None,
            discard: false,
        };
        for n in 0..threads {
            let (shared, op) = (shared.clone(), op.clone());
            let worker = std::thread::Builder::new()
                .name(format!("s3-request-{n}"))
                .spawn(move || serve(&shared, &*op))?;
            pending.workers.push(worker);
        }
        Ok(pending)
    }

    /// The buffers' length.
    pub fn buffer_len(&self) -> usize {
        self.len
    }

    /// A free slot's buffer, allocated on first use.
    fn slot(&mut self, slot: usize) -> &mut Vec<u8> {
        let buf = self.buffers[slot]
            .as_mut()
            .expect("a slot's buffer is handed out only while it is free");
        if buf.is_empty() {
            *buf = vec![0; self.len];
        }
        buf
    }
}

/// A worker: takes the next job, makes its request, posts the completion,
/// and sleeps only when no job is waiting. Threads are woken after the
/// lock is released, so that a woken one does not block on it at once.
fn serve(shared: &Shared, op: &Request) {
    let mut own = Vec::new();
    let mut state = shared.lock();
    loop {
        let Some(job) = state.jobs.pop_front() else {
            if state.closing {
                return;
            }
            state.idle += 1;
            state = shared.work.wait(state).unwrap_or_else(|e| e.into_inner());
            state.idle -= 1;
            continue;
        };
        drop(state);
        let done = make(job, op, &mut own);
        state = shared.lock();
        state.done.push(done);
        if state.wanted > 0 && state.done.len() >= state.wanted {
            state.wanted = 0;
            drop(state);
            shared.done.notify_one();
            state = shared.lock();
        }
    }
}

/// One job's request, a discarded read into `own` (the worker's buffer);
/// a panic in it becomes the request's error.
fn make(mut job: Job, op: &Request, own: &mut Vec<u8>) -> Done {
    if job.discard && own.len() < job.len {
        *own = vec![0; job.len];
    }
    let started = Instant::now();
    let range = job.start..job.start + job.len;
    let transfer = match (job.access, &job.same) {
        (Access::Write, Some(bytes)) => Transfer::Write(&bytes[range]),
        (Access::Write, None) => Transfer::Write(&job.buf[range]),
        (Access::Read, _) if job.discard => Transfer::Read(&mut own[..job.len]),
        (Access::Read, _) => Transfer::Read(&mut job.buf[range]),
    };
    let result = catch_unwind(AssertUnwindSafe(|| op(transfer, job.offset)))
        .unwrap_or_else(|_| Err(io::Error::other("an S3 request thread panicked")));
    Done {
        slot: job.slot,
        buf: job.buf,
        result,
        started,
        finished: Instant::now(),
    }
}

impl Queue for Pending {
    fn depth(&self) -> usize {
        self.buffers.len()
    }

    fn in_flight(&self) -> usize {
        self.in_flight
    }

    fn buffer(&mut self, slot: usize) -> &mut [u8] {
        self.slot(slot)
    }

    fn submit(
        &mut self,
        access: Access,
        slot: usize,
        start: usize,
        len: usize,
        offset: u64,
    ) -> io::Result<()> {
        let same = match access {
            Access::Write => self.same.clone(),
            Access::Read => None,
        };
        let discard = self.discard && access == Access::Read;
        if same.is_none() && !discard {
            self.slot(slot);
        }
        let job = Job {
            slot,
            access,
            start,
            len,
            offset,
            buf: self.buffers[slot]
                .take()
                .expect("a slot is submitted only while it is free"),
            same,
            discard,
        };
        let mut state = self.shared.lock();
        state.jobs.push_back(job);
        // A worker that is busy takes the job when it finishes, unless one
        // asleep is woken for it; wake one per job not already spoken for.
        let wake = state.idle >= state.jobs.len();
        drop(state);
        if wake {
            self.shared.work.notify_one();
        }
        self.in_flight += 1;
        Ok(())
    }

    /// Waits for a batch of completions (half the requests that may wait,
    /// at least one, at most those in flight), then collects every
    /// completion there.
    fn reap(&mut self, done: &mut Vec<Completion>) -> io::Result<()> {
        if self.in_flight == 0 {
            return Ok(());
        }
        let wanted = self.batch.min(self.in_flight);
        let mut state = self.shared.lock();
        while state.done.len() < wanted {
            state.wanted = wanted;
            state = self
                .shared
                .done
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        state.wanted = 0;
        std::mem::swap(&mut state.done, &mut self.collected);
        drop(state);
        for d in self.collected.drain(..) {
            self.buffers[d.slot] = Some(d.buf);
            self.in_flight -= 1;
            done.push(Completion {
                slot: d.slot,
                result: d.result,
                finished: Some(d.finished),
                started: Some(d.started),
            });
        }
        Ok(())
    }

    fn send_from(&mut self, bytes: Option<&[u8]>) -> bool {
        self.same = bytes.map(Arc::from);
        true
    }

    fn discard_reads(&mut self, discard: bool) {
        self.discard = discard;
    }
}

impl Drop for Pending {
    /// Lets the requests in flight finish, then ends the workers.
    fn drop(&mut self) {
        self.shared.lock().closing = true;
        self.shared.work.notify_all();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A request that fills a read with its offset's low byte and takes
    /// every write.
    fn fills_with_offset() -> Op {
        Arc::new(|t: Transfer<'_>, offset| match t {
            Transfer::Read(buf) => {
                buf.fill(offset as u8);
                Ok(buf.len())
            }
            Transfer::Write(bytes) => Ok(bytes.len()),
        })
    }

    /// Collects completions until no request is in flight.
    fn wait_all(q: &mut Pending, done: &mut Vec<Completion>) {
        while q.in_flight() > 0 {
            q.reap(done).unwrap();
        }
    }

    #[test]
    fn requests_complete_with_their_slots_buffers() {
        let mut q = Pending::new(3, 8, fills_with_offset()).unwrap();
        for slot in 0..3 {
            q.submit(Access::Read, slot, 0, 8, slot as u64 + 1).unwrap();
        }
        let mut done = Vec::new();
        wait_all(&mut q, &mut done);
        assert_eq!(done.len(), 3);
        for slot in 0..3 {
            assert_eq!(q.buffer(slot), &[slot as u8 + 1; 8]);
        }
    }

    #[test]
    fn slots_are_used_again_until_every_request_completed() {
        let mut q = Pending::new(4, 4, fills_with_offset()).unwrap();
        let (mut offsets, mut free) = ([0u64; 4], vec![0, 1, 2, 3]);
        let (mut next, mut seen, mut done) = (0u64, 0, Vec::new());
        while seen < 64 {
            while next < 64 {
                let Some(slot) = free.pop() else { break };
                offsets[slot] = next;
                q.submit(Access::Read, slot, 0, 4, next).unwrap();
                next += 1;
            }
            q.reap(&mut done).unwrap();
            for c in done.drain(..) {
                assert_eq!(c.result.unwrap(), 4);
                assert!(c.finished.is_some());
                assert_eq!(q.buffer(c.slot), &[offsets[c.slot] as u8; 4]);
                free.push(c.slot);
                seen += 1;
            }
        }
        assert_eq!(q.in_flight(), 0);
    }

    #[test]
    fn a_request_that_panics_completes_with_an_error() {
        let op: Op = Arc::new(|_: Transfer<'_>, _| panic!("the request's own bug"));
        let mut q = Pending::new(2, 4, op).unwrap();
        q.submit(Access::Write, 1, 0, 4, 0).unwrap();
        let mut done = Vec::new();
        q.reap(&mut done).unwrap();
        let e = done.pop().unwrap().result.unwrap_err();
        assert!(e.to_string().contains("panicked"), "{e}");
        assert_eq!(q.in_flight(), 0);
    }

    #[test]
    fn discarded_reads_leave_their_slots_alone_until_told_otherwise() {
        let mut q = Pending::new(2, 4, fills_with_offset()).unwrap();
        let mut done = Vec::new();
        let mut read = |q: &mut Pending, offset| {
            q.submit(Access::Read, 0, 0, 4, offset).unwrap();
            wait_all(q, &mut done);
            assert!(done.drain(..).all(|c| c.result.unwrap() == 4));
        };
        q.discard_reads(true);
        read(&mut q, 7);
        assert_eq!(q.buffer(0), &[0; 4], "a discarded read landed in its slot");
        q.discard_reads(false);
        read(&mut q, 9);
        assert_eq!(q.buffer(0), &[9; 4]);
    }

    #[test]
    fn writes_send_the_shared_bytes_once_told_and_their_slots_again_after() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let log = sent.clone();
        let op: Op = Arc::new(move |t: Transfer<'_>, offset| match t {
            Transfer::Write(bytes) => {
                log.lock().unwrap().push((offset, bytes.to_vec()));
                Ok(bytes.len())
            }
            Transfer::Read(_) => unreachable!("writes only"),
        });
        let mut q = Pending::new(2, 4, op).unwrap();
        q.buffer(0).copy_from_slice(&[9; 4]);
        assert!(q.send_from(Some(&[1, 2, 3, 4])));
        q.submit(Access::Write, 0, 1, 3, 10).unwrap();
        let mut done = Vec::new();
        wait_all(&mut q, &mut done);
        q.send_from(None);
        q.submit(Access::Write, 0, 0, 4, 20).unwrap();
        wait_all(&mut q, &mut done);
        let sent = sent.lock().unwrap();
        assert_eq!(*sent, [(10, vec![2, 3, 4]), (20, vec![9; 4])]);
    }
}
