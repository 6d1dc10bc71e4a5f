//! Fixed-time runs for every tool: the deadline flag (`-D`, mdtest's `-W`),
//! checkpoints where tasks doing collective transfers agree to stop, the
//! agreement on how far the tasks got, and the status files that carry a
//! count from a stonewalled write to a later read.
//!
//! * The deadline: a timer thread raises a flag, so a loop pays one relaxed
//!   atomic load per operation.
//! * Collective transfers must stop at the same transfer on every task (at
//!   the deadline, or at a signal: [`super::stop`]).
//!   Instead of IOR's reduction after every transfer (hpc/ior#210), tasks
//!   agree at checkpoints spaced about [`CHECK_EVERY`] apart (the spacing
//!   itself is agreed at each checkpoint from the slowest task's rate).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::comm::{Comm, CommError, ReduceOp};

/// Target spacing of collective stonewall checkpoints, in seconds.
pub const CHECK_EVERY: f64 = 0.05;

/// A flag raised by a timer thread when the deadline passes.
pub struct Deadline {
    passed: Arc<AtomicBool>,
    cancel: Arc<(Mutex<bool>, Condvar)>,
    timer: Option<JoinHandle<()>>,
}

impl Deadline {
    pub fn start(after: Duration) -> Deadline {
        let passed = Arc::new(AtomicBool::new(false));
        let cancel = Arc::new((Mutex::new(false), Condvar::new()));
        let (flag, stop) = (Arc::clone(&passed), Arc::clone(&cancel));
        let timer = std::thread::Builder::new()
            .name("pario-deadline".into())
            .spawn(move || {
                let (lock, wake) = &*stop;
                let guard = lock.lock().unwrap_or_else(|p| p.into_inner());
                let (cancelled, _) = wake
                    .wait_timeout_while(guard, after, |cancelled| !*cancelled)
                    .unwrap_or_else(|p| p.into_inner());
                if !*cancelled {
                    flag.store(true, Ordering::Relaxed);
                }
            })
            .expect("cannot start the deadline timer");
        Deadline {
            passed,
            cancel,
            timer: Some(timer),
        }
    }

    #[inline]
    pub fn passed(&self) -> bool {
        self.passed.load(Ordering::Relaxed)
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        let (lock, wake) = &*self.cancel;
        *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
        wake.notify_all();
        if let Some(t) = self.timer.take() {
            let _ = t.join();
        }
    }
}

/// Checkpoints where every task (taking part or not) agrees whether to stop.
pub struct CollectiveStop<'a> {
    comm: &'a dyn Comm,
    /// `-D`'s deadline, if there is one (a signal also stops the tasks).
    deadline: Option<&'a Deadline>,
    /// Transfers planned in the phase; no checkpoint at or after it.
    limit: u64,
    next: u64,
    started: f64,
    /// Set when the tasks agreed to stop.
    pub stopped: bool,
    /// A communication failure, reported after the loop.
    pub error: Option<CommError>,
}

impl<'a> CollectiveStop<'a> {
    pub fn new(
        comm: &'a dyn Comm,
        deadline: Option<&'a Deadline>,
        limit: u64,
    ) -> CollectiveStop<'a> {
        CollectiveStop {
            comm,
            deadline,
            limit,
            next: 1,
            started: comm.wtime(),
            stopped: false,
            error: None,
        }
    }

    /// One checkpoint: agree on stopping and on the spacing to the next.
    fn agree(&mut self, expired: bool, rate_proposal: u64) -> bool {
        // [stop?, u64::MAX - interval]: MAX gives "anyone expired" and the
        // smallest interval proposed; idle tasks propose nothing (0).
        let mut v = [expired as u64, rate_proposal];
        if let Err(e) = self.comm.all_reduce_u64(&mut v, ReduceOp::Max) {
            self.error = Some(e);
            self.stopped = true;
            return true;
        }
        let interval = (u64::MAX - v[1]).clamp(1, 1 << 20);
        self.next += interval;
        self.stopped = v[0] == 1;
        self.stopped
    }

    /// Called after each transfer with the count so far; true to stop.
    pub fn check(&mut self, count: u64) -> bool {
        if count != self.next || count >= self.limit {
            return false;
        }
        let elapsed = (self.comm.wtime() - self.started).max(1e-9);
        let interval = ((count as f64 / elapsed) * CHECK_EVERY).max(1.0) as u64;
        let expired = self.deadline.is_some_and(|d| d.passed()) || super::stop::requested();
        self.agree(expired, u64::MAX - interval)
    }

    /// For a task that moves no data: take part in every checkpoint.
    pub fn idle(&mut self) {
        while self.next < self.limit && !self.stopped {
            self.agree(false, 0);
        }
    }
}

/// Reads a status file: the count a stonewalled write or create stored (its
/// first word; mdtest's may say more after it).
pub fn read_status(path: &str) -> Result<u64, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the stonewalling status file {path}: {e}"))?;
    let first = text.split_whitespace().next().unwrap_or("");
    first.parse::<u64>().map_err(|_| {
        format!(
            "the stonewalling status file {path} does not hold a transfer count ('{}')",
            text.trim()
        )
    })
}

/// Writes a status file (the count alone, as IOR writes it).
pub fn write_status(path: &str, count: u64) -> Result<(), String> {
    std::fs::write(path, count.to_string())
        .map_err(|e| format!("cannot write the stonewalling status file {path}: {e}"))
}

/// How far the tasks got when a stonewall stopped them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reached {
    pub min: u64,
    pub max: u64,
    pub sum: u64,
}

impl Reached {
    /// Agreed by every task; `mine` is `None` on a task that takes no part.
    pub fn agree(comm: &dyn Comm, mine: Option<u64>) -> Result<Reached, CommError> {
        // MAX of n and of MAX - n gives the largest and the smallest count.
        let mut high = [mine.unwrap_or(0), mine.map_or(0, |n| u64::MAX - n)];
        comm.all_reduce_u64(&mut high, ReduceOp::Max)?;
        let mut sum = [mine.unwrap_or(0)];
        comm.all_reduce_u64(&mut sum, ReduceOp::Sum)?;
        Ok(Reached {
            min: u64::MAX - high[1],
            max: high[0],
            sum: sum[0],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::comm::{local, Topology};

    #[test]
    fn deadline_fires_and_cancels() {
        let d = Deadline::start(Duration::from_millis(1));
        let start = std::time::Instant::now();
        while !d.passed() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the deadline never passed"
            );
            std::thread::yield_now();
        }
        drop(d);
        let long = Deadline::start(Duration::from_secs(3600));
        assert!(!long.passed());
        drop(long); // must not wait an hour
    }

    #[test]
    fn status_files_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("stonewall");
        let p = path.to_str().unwrap();
        write_status(p, 12345).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "12345");
        assert_eq!(read_status(p), Ok(12345));
        std::fs::write(&path, "12\n").unwrap();
        assert_eq!(read_status(p), Ok(12));
        std::fs::write(&path, "many").unwrap();
        assert!(read_status(p)
            .unwrap_err()
            .contains("does not hold a transfer count"));
        assert!(read_status("/nonexistent/sw")
            .unwrap_err()
            .contains("cannot read"));
    }

    #[test]
    fn collective_checkpoints_agree_on_the_same_transfer() {
        // Task 2 takes no part; task 0 "expires" at its second checkpoint.
        let stops = local::run(Topology::single_node(3), |comm| {
            let deadline = Deadline::start(Duration::from_secs(3600));
            let mut stop = CollectiveStop::new(comm, Some(&deadline), 8_000_000);
            if comm.rank() == 2 {
                stop.idle();
                return None;
            }
            let mut checkpoints = 0;
            for count in 1..8_000_000u64 {
                if count == stop.next && count < stop.limit {
                    checkpoints += 1;
                    if comm.rank() == 0 && checkpoints == 2 {
                        deadline.passed.store(true, Ordering::Relaxed);
                    }
                }
                if stop.check(count) {
                    return Some(count);
                }
            }
            None
        });
        let stops: Vec<Option<u64>> = stops.into_iter().map(|r| r.unwrap()).collect();
        assert!(stops[0].is_some());
        assert_eq!(
            stops[0], stops[1],
            "both tasks stop after the same transfer"
        );
        assert_eq!(stops[2], None);
    }

    #[test]
    fn counts_are_agreed_without_the_idle_tasks() {
        let got = local::run(Topology::single_node(4), |comm| {
            let mine = (comm.rank() != 3).then_some(10 * comm.rank() as u64 + 5);
            Reached::agree(comm, mine).unwrap()
        });
        for r in got {
            let r = r.unwrap();
            assert_eq!((r.min, r.max, r.sum), (5, 25, 45));
        }
    }
}
