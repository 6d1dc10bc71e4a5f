//! The transfer loop: the hot path of every phase.
//!
//! A [`Pass`] walks a range of a task's transfers (in the layout's order),
//! writing (stamping the offset-dependent words first) or reading (and
//! verifying, with `-R`/`-W`). It never allocates and makes one backend call
//! per transfer. Stopping early (stonewalling) is a caller-supplied check after
//! each transfer. The loop runs in chunks that end where the phase's
//! [`Ticker`] next reads the clock, so the timeline costs the loop nothing
//! per transfer. A file with a queue of requests in flight (AIO) is walked
//! by [`super::xfer_queue`]'s loop instead, which the phase chooses.
//!
//! On a failure the pass stops, except for collective files: there every task
//! must make the same calls, so a failed task keeps taking part with empty
//! transfers until the range ends and reports the failure afterwards.

use std::path::Path;

use super::layout::Layout;
use super::task_times::KindTally;
use crate::backend::{read_fully, write_fully, Access, File, Retry};
use crate::console::TaskLines;
use crate::error::Error;
use crate::latency::LatencyRecorder;
use crate::pattern::{PacketType, Pattern};
use crate::progress::Counter;
use crate::run::tally::WrongData;
use crate::series::Ticker;

/// How many mismatching words one task lists per phase at `-v -v -v`.
pub const MISMATCHES_LISTED: usize = 10;

/// Per-phase settings of the loop.
#[derive(Debug, Clone, Copy)]
pub struct XferOptions {
    pub rank: usize,
    pub size: u64,
    /// `-x`: a short transfer is an error instead of being finished.
    pub single_attempt: bool,
    /// `-Y`.
    pub fsync_per_write: bool,
    /// `-R`/`-W`: check what is read.
    pub verify: bool,
    /// `-q`: stop at the first wrong transfer.
    pub quit_on_error: bool,
    /// `-v -v -v`: list the first wrong words.
    pub list_mismatches: bool,
    /// `-v` five times: print every transfer.
    pub trace: bool,
    /// Where this task's own lines (traces, wrong words) go.
    pub lines: TaskLines,
}

/// What a task has done so far in a phase.
#[derive(Debug, Default)]
pub struct Progress {
    /// Transfers made (successfully).
    pub transfers: u64,
    pub bytes: u64,
    pub errors: WrongData,
    /// The first failure; the phase reports it at its end.
    pub failure: Option<Error>,
    /// `-q` met a wrong transfer.
    pub quit: bool,
    /// Mismatching words listed so far.
    pub listed: usize,
    /// A drawn phase: its reads and writes.
    pub kinds: KindTally,
}

impl Progress {
    pub fn failed(&self) -> bool {
        self.failure.is_some()
    }
}

/// A walk over some of one task's transfers on an open file.
pub struct Pass<'a> {
    pub file: &'a mut dyn File,
    pub access: Access,
    pub layout: &'a Layout,
    /// The task whose data this is (the writer, under `-C`/`-Z`).
    pub task: usize,
    pub path: &'a Path,
    pub pattern: &'a Pattern,
    pub buf: &'a mut [u8],
    pub options: XferOptions,
    /// Per-transfer latency, when recorded.
    pub latency: Option<&'a mut LatencyRecorder>,
    /// Where the live progress display reads the count, when shown.
    pub progress: Option<&'a Counter>,
}

impl Pass<'_> {
    /// Makes transfers number `from` to `to - 1`, counted over time by
    /// `ticker`. After the transfer that brings the count to `n`, `stop(n)`
    /// may end the pass early (pass `|_| false` to run to the end: it
    /// compiles away). Returns the count reached.
    pub fn run(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        ticker: &mut Ticker,
        stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        if let Some(l) = self.latency.as_deref_mut() {
            l.start();
        }
        let count = match self.access {
            Access::Write => self.walk((from, to), progress, ticker, stop, Self::write_one),
            Access::Read => self.walk((from, to), progress, ticker, stop, Self::read_one),
        };
        if let Some(l) = self.latency.as_deref_mut() {
            l.finish();
        }
        if let Some(c) = self.progress {
            c.set(progress.bytes);
        }
        count
    }

    /// The loop, specialised per direction by `one` (a plain function, so it
    /// inlines). The counters live in locals and are stored once at the end.
    #[inline(always)]
    fn walk(
        &mut self,
        (from, to): (u64, u64),
        progress: &mut Progress,
        ticker: &mut Ticker,
        mut stop: impl FnMut(u64) -> bool,
        one: fn(&mut Self, u64, &mut Progress, Rules) -> Step,
    ) -> u64 {
        let collective = self.file.collective();
        let rules = Rules {
            retry: Retry::of(self.options.single_attempt, collective),
            quit: self.options.quit_on_error && !collective,
            stamp: self.pattern.packet() != PacketType::Timestamp,
        };
        let (size, trace) = (self.options.size, self.options.trace);
        let mut count = from;
        let mut bytes = 0u64;
        let mut transfers = 0u64;
        'chunks: while count < to {
            // Up to the ticker's next reading: the loop's own bound is its
            // check, not a comparison per transfer.
            let end = ticker.due().clamp(count + 1, to);
            for offset in self.layout.offsets_in(self.task, count, end) {
                count += 1;
                if progress.failure.is_some() {
                    // Only collective files get here: keep the call count equal.
                    let _ = self.file.skip(offset);
                } else {
                    if trace {
                        self.trace(offset);
                    }
                    match one(self, offset, progress, rules) {
                        Step::Done => {
                            bytes += size;
                            transfers += 1;
                            if let Some(l) = self.latency.as_deref_mut() {
                                l.tick();
                            }
                            if let Some(c) = self.progress {
                                if transfers % 256 == 0 {
                                    c.set(progress.bytes + bytes);
                                }
                            }
                        }
                        Step::Quit => {
                            bytes += size;
                            transfers += 1;
                            progress.quit = true;
                            break 'chunks;
                        }
                        Step::Failed => {
                            if !collective {
                                break 'chunks;
                            }
                        }
                    }
                }
                if stop(count) {
                    break 'chunks;
                }
            }
            if count < end {
                // The layout had fewer transfers than asked.
                break;
            }
            ticker.tick(count);
        }
        progress.bytes += bytes;
        progress.transfers += transfers;
        count
    }

    /// `-v` five times: the transfer's line.
    #[cold]
    fn trace(&self, offset: u64) {
        let verb = match self.access {
            Access::Write => "write",
            Access::Read => "read",
        };
        self.options.lines.print(format_args!(
            "task {}: {verb} {} bytes at offset {offset} of {}",
            self.options.rank,
            self.options.size,
            self.path.display()
        ));
    }

    #[inline(always)]
    fn write_one(&mut self, offset: u64, progress: &mut Progress, rules: Rules) -> Step {
        if rules.stamp {
            self.pattern.stamp(self.buf, offset);
        }
        let written = write_fully(self.file, self.buf, offset, rules.retry)
            .map_err(|e| self.failure("cannot write", offset, e));
        let synced = written.and_then(|()| match self.options.fsync_per_write {
            true => self
                .file
                .sync()
                .map_err(|e| self.failure("cannot fsync", offset, e)),
            false => Ok(()),
        });
        match synced {
            Ok(()) => Step::Done,
            Err(e) => {
                progress.failure = Some(e);
                Step::Failed
            }
        }
    }

    #[inline(always)]
    fn read_one(&mut self, offset: u64, progress: &mut Progress, rules: Rules) -> Step {
        if let Err(e) = read_fully(self.file, self.buf, offset, rules.retry) {
            progress.failure = Some(self.failure("cannot read", offset, e));
            return Step::Failed;
        }

        if self.options.verify
            && !check(
                self.pattern,
                self.buf,
                offset,
                self.path,
                &self.options,
                progress,
            )
            && rules.quit
        {
            return Step::Quit;
        }
        Step::Done
    }

    fn failure(&self, what: &str, offset: u64, e: std::io::Error) -> Error {
        failure(self.options.rank, what, self.path, offset, e)
    }
}

/// A transfer's failure, as every loop names it: task, action, file, offset.
pub(super) fn failure(
    rank: usize,
    what: &str,
    path: &Path,
    offset: u64,
    e: std::io::Error,
) -> Error {
    Error::task(
        rank,
        format!("{what} {} at offset {offset}: {e}", path.display()),
    )
}

/// Per-pass decisions, taken once rather than per transfer.
#[derive(Clone, Copy)]
struct Rules {
    /// Whether a short transfer is finished (not with `-x` or collective I/O).
    retry: Retry,
    /// `-q` applies (never with collective I/O).
    quit: bool,
    /// The packet type has offset-dependent words.
    stamp: bool,
}

/// What became of one transfer.
enum Step {
    Done,
    /// `-q` and the transfer held wrong data.
    Quit,
    /// The transfer failed; the failure is in the progress.
    Failed,
}

/// Verifies one transfer; false if it was wrong.
pub(super) fn check(
    pattern: &Pattern,
    buf: &[u8],
    offset: u64,
    path: &Path,
    o: &XferOptions,
    progress: &mut Progress,
) -> bool {
    progress.errors.checked += 1;
    let found = pattern.verify(buf, offset);
    if found.wrong_words == 0 {
        return true;
    }
    progress.errors.wrong += 1;
    progress.errors.bytes += found.wrong_bytes;
    if o.list_mismatches && progress.listed < MISMATCHES_LISTED {
        for m in pattern.mismatches(buf, offset, MISMATCHES_LISTED - progress.listed) {
            progress.listed += 1;
            o.lines.print(format_args!(
                "task {}: wrong data in {} at offset {}: expected 0x{:016x}, read 0x{:016x}",
                o.rank,
                path.display(),
                offset + m.position,
                m.expected,
                m.actual
            ));
        }
    }
    false
}
