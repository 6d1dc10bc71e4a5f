//! The live line on a terminal (rank 0, stderr): the phase (k of n, or
//! pario's concurrent extension after them), how long it has run and, for
//! a phase that lasts its stonewall time (a write phase, the concurrent
//! phase), about how long it has left, and the score so far. Refreshed each
//! second by a thread of its own while the phase runs on the task's thread.

use std::io::IsTerminal;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use super::phases::Phase;
use super::results::{score, PhaseOutcome};

pub struct Live {
    on: bool,
}

/// What the line says of the phase running: its place and name, and how
/// long it lasts when that is known (its stonewall).
#[derive(Debug, Clone, PartialEq)]
pub struct Shown {
    head: String,
    length: Option<u64>,
}

impl Shown {
    /// Phase `k` of `n` (from 0): a write phase lasts the stonewall time.
    pub fn phase(at: (usize, usize), p: &Phase, stonewall: u64) -> Shown {
        Shown {
            head: format!("[io500 {}/{}] {}", at.0 + 1, at.1, p.name),
            length: p.write.then_some(stonewall),
        }
    }

    /// The concurrent phase (pario's extension, after the others): its
    /// groups stop at its own stonewall. (The untimed precreate of its
    /// md-workbench group comes first, so "left" runs a little short.)
    pub fn concurrent(stonewall: u64) -> Shown {
        Shown {
            head: "[io500 extension] concurrent".into(),
            length: Some(stonewall),
        }
    }

    /// The line after `secs` seconds, with `tail` (the score so far).
    fn line(&self, secs: u64, tail: &str) -> String {
        let left = match self.length {
            Some(l) => format!(", about {} s left ", l.saturating_sub(secs)),
            None => " ".into(),
        };
        format!("{}: {secs} s{left}{tail}", self.head)
    }
}

impl Live {
    /// On for rank 0 when stderr is a terminal.
    pub fn new(rank: usize) -> Live {
        Live {
            on: rank == 0 && std::io::stderr().is_terminal(),
        }
    }

    /// Runs `work` (the phase `shown`) with the line refreshed meanwhile.
    pub fn during<T>(
        &self,
        shown: &Shown,
        done: &[PhaseOutcome],
        extended: bool,
        work: impl FnOnce() -> T,
    ) -> T {
        if !self.on {
            return work();
        }
        let so_far = score(done, extended, true);
        let tail = format!(
            "| so far: BW {:.3} GiB/s, MD {:.3} kIOPS",
            so_far.bw, so_far.md
        );
        let (stop, stopped) = mpsc::channel::<()>();
        let outcome = std::thread::scope(|s| {
            s.spawn(move || {
                let start = Instant::now();
                loop {
                    let line = shown.line(start.elapsed().as_secs(), &tail);
                    eprint!("\r\x1b[K{line}");
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io500::phases::PHASES;

    fn named(name: &str) -> &'static Phase {
        PHASES.iter().find(|p| p.name == name).expect("a phase")
    }

    #[test]
    fn a_write_phase_counts_down_its_stonewall() {
        let shown = Shown::phase((0, 12), named("ior-easy-write"), 300);
        assert_eq!(
            shown.line(7, "| so far"),
            "[io500 1/12] ior-easy-write: 7 s, about 293 s left | so far"
        );
    }

    #[test]
    fn a_read_phase_shows_only_its_time() {
        let shown = Shown::phase((3, 12), named("ior-easy-read"), 300);
        assert_eq!(
            shown.line(7, "| so far"),
            "[io500 4/12] ior-easy-read: 7 s | so far"
        );
    }

    #[test]
    fn the_concurrent_phase_counts_down_its_own_stonewall() {
        let shown = Shown::concurrent(60);
        assert_eq!(
            shown.line(61, "| so far"),
            "[io500 extension] concurrent: 61 s, about 0 s left | so far"
        );
    }
}
