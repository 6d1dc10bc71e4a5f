//! This task's data verification (`-X`, `--verify-write`): the files and
//! bytes it found wrong in the current sweep step, and those all tasks
//! found in the whole run. Only this file changes the counts.

use std::path::Path;

use crate::comm::Comm;
use crate::console::TaskLines;
use crate::error::{Error, Result};
use crate::pattern::Pattern;
use crate::run::tally::WrongData;

/// What this task found wrong, and what all tasks did.
#[derive(Debug, Clone, Copy)]
pub(super) struct Verifier {
    rank: usize,
    /// `-v`: name each wrong file.
    name_files: bool,
    lines: TaskLines,
    /// Files this task checked and found wrong in the current sweep step.
    found: WrongData,
    /// Files and bytes found wrong by all tasks, whole run.
    total: WrongData,
}

impl Verifier {
    pub fn new(rank: usize, name_files: bool, lines: TaskLines) -> Verifier {
        Verifier {
            rank,
            name_files,
            lines,
            found: WrongData::default(),
            total: WrongData::default(),
        }
    }

    /// Checks the data of item `k`, read from `path`, against `pattern`.
    pub fn check(&mut self, pattern: &Pattern, data: &[u8], k: u64, path: &Path) {
        self.found.checked += 1;
        let found = pattern.verify(data, k);
        if found.wrong_words == 0 {
            return;
        }
        self.found.wrong += 1;
        self.found.bytes += found.wrong_bytes;
        if self.name_files {
            let rank = self.rank;
            say!(
                self.lines,
                "task {rank}: verification error in file: {}",
                path.display()
            );
        }
    }

    /// A sweep step starts: nothing found in it yet.
    pub fn start_step(&mut self) {
        self.found = WrongData::default();
    }

    /// A sweep step ends (collective on its tasks): what they found, added
    /// to the run's total.
    pub fn end_step(&mut self, comm: &dyn Comm) -> Result<WrongData> {
        let wrong = self.found.sum(comm)?;
        self.total.add(wrong);
        Ok(wrong)
    }

    /// After a sweep step of some tasks: every task takes rank 0's total
    /// (collective on the whole job).
    pub fn share_total(&mut self, job: &dyn Comm) -> Result<()> {
        self.total = self.total.from_rank0(job)?;
        Ok(())
    }

    /// The run's error for wrong data, if any was found.
    pub fn error(&self) -> Option<Error> {
        self.total.error("files")
    }
}
