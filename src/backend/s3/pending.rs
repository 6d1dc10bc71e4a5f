//! Requests in flight (`--s3.max-pending=N`): a file's [`Queue`] of N
//! slots served by N threads, each making one blocking request at a time on
//! its own keep-alive connection from the client's pool. Slot n is thread
//! n's: a slot is submitted again only after its request completed, so its
//! thread is idle then, and a submission wakes exactly that thread (a queue
//! the threads shared would wake a second one per request, to wait next).
//! A slot's buffer travels with its request and comes back with the
//! completion, so the queue hands out only buffers no request uses. The
//! latency the runner records is a request's, from submission to
//! completion.

use std::io;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread::JoinHandle;

use crate::backend::{Access, Completion, Queue};

/// The request a worker makes: moves the bytes of `buf` at `offset`.
pub type Request = dyn Fn(Access, &mut [u8], u64) -> io::Result<usize> + Send + Sync;
pub type Op = Arc<Request>;

struct Job {
    slot: usize,
    access: Access,
    start: usize,
    len: usize,
    offset: u64,
    buf: Vec<u8>,
}

struct Done {
    slot: usize,
    buf: Vec<u8>,
    result: io::Result<usize>,
}

/// A queue of `depth` requests in flight for one open file.
pub struct Pending {
    /// Each slot's buffer; `None` while its request is in flight.
    buffers: Vec<Option<Vec<u8>>>,
    /// Each slot's thread.
    jobs: Vec<Sender<Job>>,
    done: Receiver<Done>,
    workers: Vec<JoinHandle<()>>,
    in_flight: usize,
}

impl Pending {
    /// `depth` slots of `len` bytes; `op` makes each request.
    pub fn new(depth: usize, len: usize, op: Op) -> io::Result<Pending> {
        let (finished, done) = mpsc::channel::<Done>();
        let mut workers = Vec::with_capacity(depth);
        let mut jobs = Vec::with_capacity(depth);
        for n in 0..depth {
            let (slot, queue) = mpsc::channel::<Job>();
            let (finished, op) = (finished.clone(), op.clone());
            let worker = std::thread::Builder::new()
                .name(format!("s3-request-{n}"))
                .spawn(move || serve(&queue, &finished, &*op))?;
            workers.push(worker);
            jobs.push(slot);
        }
        Ok(Pending {
            buffers: (0..depth).map(|_| Some(vec![0; len])).collect(),
            jobs,
            done,
            workers,
            in_flight: 0,
        })
    }

    /// The buffers' length.
    pub fn buffer_len(&self) -> usize {
        self.buffers
            .iter()
            .flatten()
            .map(Vec::len)
            .next()
            .unwrap_or(0)
    }
}

/// A worker: takes its slot's next job, makes its request, hands the slot
/// back.
fn serve(queue: &Receiver<Job>, finished: &Sender<Done>, op: &Request) {
    while let Ok(mut job) = queue.recv() {
        let result = op(
            job.access,
            &mut job.buf[job.start..job.start + job.len],
            job.offset,
        );
        let done = Done {
            slot: job.slot,
            buf: job.buf,
            result,
        };
        if finished.send(done).is_err() {
            return;
        }
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
        self.buffers[slot]
            .as_mut()
            .expect("a slot's buffer is handed out only while it is free")
    }

    fn submit(
        &mut self,
        access: Access,
        slot: usize,
        start: usize,
        len: usize,
        offset: u64,
    ) -> io::Result<()> {
        let buf = self.buffers[slot]
            .take()
            .expect("a slot is submitted only while it is free");
        let job = Job {
            slot,
            access,
            start,
            len,
            offset,
            buf,
        };
        self.jobs[slot]
            .send(job)
            .map_err(|_| io::Error::other("the S3 request threads have gone"))?;
        self.in_flight += 1;
        Ok(())
    }

    fn reap(&mut self, done: &mut Vec<Completion>) -> io::Result<()> {
        if self.in_flight == 0 {
            return Ok(());
        }
        let mut next = Some(
            self.done
                .recv()
                .map_err(|_| io::Error::other("the S3 request threads have gone"))?,
        );
        while let Some(d) = next {
            self.buffers[d.slot] = Some(d.buf);
            self.in_flight -= 1;
            done.push(Completion {
                slot: d.slot,
                result: d.result,
            });
            next = self.done.try_recv().ok();
        }
        Ok(())
    }
}

impl Drop for Pending {
    /// Lets the requests in flight finish, then ends the workers.
    fn drop(&mut self) {
        self.jobs.clear();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_complete_with_their_slots_buffers() {
        let op: Op = Arc::new(|access, buf: &mut [u8], offset| {
            if access == Access::Read {
                buf.fill(offset as u8);
            }
            Ok(buf.len())
        });
        let mut q = Pending::new(3, 8, op).unwrap();
        for slot in 0..3 {
            q.submit(Access::Read, slot, 0, 8, slot as u64 + 1).unwrap();
        }
        let mut done = Vec::new();
        while q.in_flight() > 0 {
            q.reap(&mut done).unwrap();
        }
        assert_eq!(done.len(), 3);
        for slot in 0..3 {
            assert_eq!(q.buffer(slot), &[slot as u8 + 1; 8]);
        }
    }
}
