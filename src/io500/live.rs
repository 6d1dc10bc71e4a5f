//! The live line on a terminal (rank 0, stderr): the phase (k of n), how
//! long it has run and, for a write phase, about how long it has left (it
//! lasts the stonewall time), and the score so far. Refreshed each second
//! by a thread of its own while the phase runs on the task's thread.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::phases::Phase;
use super::results::{score, PhaseOutcome};

pub struct Live {
    on: bool,
}

impl Live {
    /// On for rank 0 when stderr is a terminal.
    pub fn new(rank: usize) -> Live {
        Live {
            on: rank == 0 && std::io::stderr().is_terminal(),
        }
    }

    /// Runs `work` (phase `k` of `n`) with the line refreshed meanwhile.
    pub fn during<T>(
        &self,
        at: (usize, usize),
        p: &Phase,
        stonewall: u64,
        done: &[PhaseOutcome],
        extended: bool,
        work: impl FnOnce() -> T,
    ) -> T {
        if !self.on {
            return work();
        }
        let so_far = score(done, extended, true);
        let head = format!("[io500 {}/{}] {}", at.0 + 1, at.1, p.name);
        let tail = format!(
            "| so far: BW {:.3} GiB/s, MD {:.3} kIOPS",
            so_far.bw, so_far.md
        );
        let length = p.write.then_some(stonewall);
        let (stop, stopped) = mpsc::channel::<()>();
        let outcome = std::thread::scope(|s| {
            s.spawn(move || {
                let start = Instant::now();
                loop {
                    let secs = start.elapsed().as_secs();
                    let left = match length {
                        Some(l) => format!(", about {} s left ", l.saturating_sub(secs)),
                        None => " ".into(),
                    };
                    eprint!("\r\x1b[K{head}: {secs} s{left}{tail}");
                    if stopped.recv_timeout(Duration::from_secs(1))
                        != Err(mpsc::RecvTimeoutError::Timeout)
                    {
                        break;
                    }
                }
            });
            let outcome = work();
            drop(stop);
            outcome
        });
        eprint!("\r\x1b[K");
        outcome
    }
}
