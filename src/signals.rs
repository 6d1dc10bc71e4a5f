//! The signals that stop a run (SIGINT, SIGTERM, SIGHUP, and SIGUSR1/SIGUSR2
//! that batch systems send ahead of a time limit): the handler and the flag
//! it sets, at the bottom of the layers so that backends and the MPI engine
//! can read it too. Agreeing on a stop is `run::stop`'s.
//!
//! The handler only stores the signal's number in a flag. Every task checks
//! the flag after each transfer or metadata operation, with one relaxed load
//! as for `-D`'s deadline. At a second SIGINT the handler writes one line
//! saying where the run's files are, prepared beforehand, and ends the
//! process at once: `write(2)` and `_exit(2)`, both async-signal-safe.
//! Other signals after the first are ignored.
//!
//! No thread watches for signals: a single-task process stays
//! single-threaded, which the kernel rewards on every file-descriptor call
//! (an extra thread cost 7 % of mdtest's create rate on tmpfs).

use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, Instant};

use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM, SIGUSR1, SIGUSR2};

/// The signals that stop a run.
pub const SIGNALS: [i32; 5] = [SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGUSR2];

/// The number of the signal that asked the run to stop (0: none).
static SIGNAL: AtomicUsize = AtomicUsize::new(0);

/// Where this run creates files and directories, for the second signal's line.
static PLACES: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// The same, as the handler writes it: a leaked string (never freed, so
/// the handler may read it at any time).
static PLACES_LINE: AtomicPtr<String> = AtomicPtr::new(std::ptr::null_mut());

/// The tool's name, for the second signal's line.
static TOOL: OnceLock<&'static str> = OnceLock::new();

static INSTALL: Once = Once::new();

/// Installs the handlers (once per process). `tool` names the process in
/// the second signal's line.
pub fn install(tool: &'static str) {
    INSTALL.call_once(|| {
        let _ = TOOL.set(tool);
        for sig in SIGNALS {
            // SAFETY: `on_signal` is async-signal-safe: it uses atomics,
            // memory prepared before (never freed), write(2) and _exit(2).
            let _ = unsafe { signal_hook::low_level::register(sig, move || on_signal(sig)) };
        }
    });
}

/// The handler. The first signal only sets the flag; a second SIGINT ends
/// the process with 130, after one line saying what may be left where.
fn on_signal(sig: i32) {
    let first = SIGNAL.compare_exchange(0, sig as usize, Ordering::Relaxed, Ordering::Relaxed);
    // Only a person presses Ctrl-C twice. Launchers and batch systems send
    // SIGTERM and the others more than once (at a Slurm time limit a task
    // gets one from slurmstepd and one through srun within a second): the
    // stop under way goes on, and SIGKILL is theirs to end it sooner.
    if first.is_ok() || sig != SIGINT {
        return;
    }
    let tool = TOOL.get().copied().unwrap_or("pario");
    for part in [tool, ": ", name(sig), " again: stopped at once"] {
        write_stderr(part);
    }
    let places = PLACES_LINE.load(Ordering::Acquire);
    if !places.is_null() {
        write_stderr("; what this run created may be left in ");
        // SAFETY: set only from a leaked `Box<String>`, never freed.
        write_stderr(unsafe { &*places });
    }
    write_stderr("\n");
    signal_hook::low_level::exit(128 + sig);
}

/// `write(2)` to stderr, without Rust's stderr lock (a handler may not lock).
fn write_stderr(text: &str) {
    // SAFETY: a plain system call on a valid buffer; a short or failed
    // write only shortens the line.
    let _ = unsafe { libc::write(2, text.as_ptr().cast(), text.len()) };
}

/// Whether a signal asked the run to stop (one relaxed load).
#[inline(always)]
pub fn requested() -> bool {
    SIGNAL.load(Ordering::Relaxed) != 0
}

/// The signal that asked this task's run to stop, if any.
pub fn signal() -> Option<i32> {
    match SIGNAL.load(Ordering::Relaxed) {
        0 => None,
        n => Some(n as i32),
    }
}

/// The name of a signal: `SIGINT`.
pub fn name(signal: i32) -> &'static str {
    signal_hook::low_level::signal_name(signal).unwrap_or("a signal")
}

/// Records a place where this run creates files, for the line the second
/// signal prints.
pub fn leave_in(place: impl Into<String>) {
    let place = place.into();
    let mut places = PLACES.lock().unwrap_or_else(|p| p.into_inner());
    if !places.contains(&place) {
        places.push(place);
        // Leaked on purpose: the handler may be reading the previous one.
        let line = Box::leak(Box::new(places.join(", ")));
        PLACES_LINE.store(line, Ordering::Release);
    }
}

/// How long, after a signal, a task waits for the others in a collective
/// before it takes them for dead (`PARIO_STOP_GRACE`, seconds; 0.5 by
/// default, inside Open MPI's one second between its SIGTERM and SIGKILL).
pub fn grace() -> Duration {
    std::env::var("PARIO_STOP_GRACE")
        .ok()
        .and_then(|v| v.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map_or(Duration::from_millis(500), Duration::from_secs_f64)
}

/// Sleeps for `d`, or until a signal asks the run to stop.
pub fn sleep(d: Duration) {
    // Past what the clock can count: until a signal.
    let end = Instant::now().checked_add(d);
    while !requested() {
        let now = Instant::now();
        let left = end.map_or(Duration::MAX, |end| end.saturating_duration_since(now));
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(50)));
    }
}
