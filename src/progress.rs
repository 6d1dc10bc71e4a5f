//! Live progress for long phases, on rank 0's terminal only.
//!
//! Shown only when stderr is a terminal and the phase has run for
//! [`SHOW_AFTER`]; never written into stdout or result files. The transfer
//! loop publishes its count now and then through an atomic; a ticker thread
//! draws. Rank 0 sees its own progress; the bar assumes the other tasks keep
//! pace.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Phases shorter than this show nothing.
pub const SHOW_AFTER: Duration = Duration::from_secs(2);

/// Whether a progress display may be used at all.
pub fn wanted(enabled: bool, rank: usize) -> bool {
    enabled && rank == 0 && std::io::stderr().is_terminal()
}

/// The counter the transfer loop publishes to.
#[derive(Clone, Default)]
pub struct Counter(Arc<AtomicU64>);

impl Counter {
    #[inline]
    pub fn set(&self, done: u64) {
        self.0.store(done, Ordering::Relaxed);
    }

    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A progress display for one phase; cleared when dropped.
pub struct Progress {
    stop: Arc<AtomicBool>,
    ticker: Option<JoinHandle<()>>,
    pub counter: Counter,
}

impl Progress {
    /// `total` units (bytes or items) this task expects to do; `tasks` scales
    /// the rate shown to the whole job; `deadline` caps the expected time.
    pub fn start(
        label: String,
        total: u64,
        tasks: u64,
        unit: &'static str,
        deadline: Option<Duration>,
    ) -> Progress {
        let counter = Counter::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (done, halt) = (counter.clone(), Arc::clone(&stop));
        let ticker = std::thread::Builder::new()
            .name("pario-progress".into())
            .spawn(move || draw(label, total, tasks, unit, deadline, done, halt))
            .ok();
        Progress {
            stop,
            ticker,
            counter,
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(ticker) = self.ticker.take() {
            ticker.thread().unpark();
            let _ = ticker.join();
        }
    }
}

fn draw(
    label: String,
    total: u64,
    tasks: u64,
    unit: &'static str,
    deadline: Option<Duration>,
    done: Counter,
    stop: Arc<AtomicBool>,
) {
    let started = Instant::now();
    let mut bar: Option<ProgressBar> = None;
    while !stop.load(Ordering::Relaxed) {
        std::thread::park_timeout(Duration::from_millis(200));
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let elapsed = started.elapsed();
        if elapsed < SHOW_AFTER {
            continue;
        }
        let bar = bar.get_or_insert_with(|| {
            let b = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
            let template = match unit {
                "bytes" => {
                    "{prefix} [{elapsed_precise}] {wide_bar} {bytes}/{total_bytes} (task 0) {msg}"
                }
                _ => "{prefix} [{elapsed_precise}] {wide_bar} {pos}/{len} (task 0) {msg}",
            };
            b.set_style(
                ProgressStyle::with_template(template)
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            b.set_prefix(label.clone());
            b
        });
        let now = done.get();
        bar.set_position(now);
        let secs = elapsed.as_secs_f64();
        let rate = now as f64 * tasks as f64 / secs;
        let mut remaining = if now > 0 {
            secs * (total.saturating_sub(now)) as f64 / now as f64
        } else {
            f64::INFINITY
        };
        if let Some(d) = deadline {
            remaining = remaining.min((d.as_secs_f64() - secs).max(0.0));
        }
        let rate_text = match unit {
            "bytes" => format!("{:.1} MiB/s", rate / crate::units::MIB as f64),
            _ => format!("{rate:.0} {unit}/s"),
        };
        let eta = if remaining.is_finite() {
            format!(", ~{remaining:.0} s left")
        } else {
            String::new()
        };
        bar.set_message(format!("{rate_text} all tasks{eta}"));
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn never_on_a_non_terminal_or_other_ranks() {
        // Tests run with stderr captured or piped: no terminal.
        if !std::io::stderr().is_terminal() {
            assert!(!wanted(true, 0));
        }
        assert!(!wanted(true, 1));
        assert!(!wanted(false, 0));
    }

    #[test]
    fn counter_and_clean_stop() {
        let p = Progress::start("write".into(), 100, 1, "bytes", None);
        p.counter.set(40);
        assert_eq!(p.counter.get(), 40);
        drop(p); // joins the ticker without waiting for SHOW_AFTER
    }
}
