//! The transfer loop: the hot path of every phase.
//!
//! A [`Pass`] walks a range of a task's transfers (in the layout's order),
//! writing (stamping the offset-dependent words first) or reading (and
//! verifying, with `-R`/`-W`). It never allocates and makes one backend call
//! per transfer. Stopping early (stonewalling) is a caller-supplied check after
//! each transfer.
//!
//! On a failure the pass stops, except for collective files: there every task
//! must make the same calls, so a failed task keeps taking part with empty
//! transfers until the range ends and reports the failure afterwards.

use std::ops::ControlFlow;
use std::path::Path;

use super::layout::Layout;
use super::report::VerifyCounts;
use crate::backend::{read_fully, write_fully, Access, File};
use crate::error::Error;
use crate::pattern::Pattern;

/// How many mismatching words one task lists per phase at `-v -v -v`.
pub const MISMATCHES_LISTED: usize = 10;

/// Per-phase settings of the loop.
#[derive(Debug, Clone, Copy)]
pub struct XferOptions {
    pub rank: usize,
    pub size: u64,
    /// `-x`: a short transfer is an error instead of being retried.
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
}

/// What a task has done so far in a phase.
#[derive(Debug, Default)]
pub struct Progress {
    /// Transfers made (successfully).
    pub transfers: u64,
    pub bytes: u64,
    pub errors: VerifyCounts,
    /// The first failure; the phase reports it at its end.
    pub failure: Option<Error>,
    /// `-q` met a wrong transfer.
    pub quit: bool,
    /// Mismatching words listed so far.
    pub listed: usize,
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
}

impl Pass<'_> {
    /// Makes transfers number `from` to `to - 1`. After the transfer that
    /// brings the count to `n`, `stop(n)` may end the pass early (pass
    /// `|_| false` to run to the end: it compiles away). Returns the count
    /// reached.
    pub fn run(
        &mut self,
        from: u64,
        to: u64,
        progress: &mut Progress,
        mut stop: impl FnMut(u64) -> bool,
    ) -> u64 {
        let collective = self.file.collective();
        let o = self.options;
        let single = o.single_attempt || collective;
        let quit = o.quit_on_error && !collective;
        let rank = o.rank;
        let path = self.path;
        let file = &mut *self.file;
        let buf = &mut *self.buf;
        let pattern = self.pattern;
        let mut count = from;
        let failed = |what: &str, offset: u64, e: std::io::Error| {
            Error::task(
                rank,
                format!("{what} {} at offset {offset}: {e}", path.display()),
            )
        };
        let _ = self
            .layout
            .for_each_offset_in::<()>(self.task, from, to, |offset| {
                count += 1;
                if progress.failure.is_some() {
                    // Only collective files get here: keep the call count equal.
                    let _ = file.skip();
                } else {
                    if o.trace {
                        let verb = if self.access == Access::Write {
                            "write"
                        } else {
                            "read"
                        };
                        println!(
                            "task {rank}: {verb} {} bytes at offset {offset} of {}",
                            o.size,
                            path.display()
                        );
                    }
                    let moved = match self.access {
                        Access::Write => {
                            pattern.stamp(buf, offset);
                            write_fully(file, buf, offset, single)
                                .map_err(|e| failed("cannot write", offset, e))
                                .and_then(|_| {
                                    if o.fsync_per_write {
                                        file.sync().map_err(|e| failed("cannot fsync", offset, e))
                                    } else {
                                        Ok(())
                                    }
                                })
                        }
                        Access::Read => read_fully(file, buf, offset, single)
                            .map_err(|e| failed("cannot read", offset, e)),
                    };
                    match moved {
                        Ok(()) => {
                            progress.bytes += o.size;
                            progress.transfers += 1;
                            if o.verify && !check(pattern, buf, offset, path, &o, progress) && quit
                            {
                                progress.quit = true;
                                return ControlFlow::Break(());
                            }
                        }
                        Err(e) => {
                            progress.failure = Some(e);
                            if !collective {
                                return ControlFlow::Break(());
                            }
                        }
                    }
                }
                if stop(count) {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                }
            });
        count
    }
}

/// Verifies one transfer; false if it was wrong.
fn check(
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
    progress.errors.transfers += 1;
    progress.errors.bytes += found.wrong_bytes;
    if o.list_mismatches && progress.listed < MISMATCHES_LISTED {
        for m in pattern.mismatches(buf, offset, MISMATCHES_LISTED - progress.listed) {
            progress.listed += 1;
            println!(
                "task {}: wrong data in {} at offset {}: expected 0x{:016x}, read 0x{:016x}",
                o.rank,
                path.display(),
                offset + m.position,
                m.expected,
                m.actual
            );
        }
    }
    false
}
