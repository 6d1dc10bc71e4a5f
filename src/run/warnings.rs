//! Warnings: one rule for every tool. A warning is printed once (rank 0
//! through its outputs, another task on stderr, named), kept for the report,
//! and with `--warningAsErrors` ends the run as a failure of the task that
//! met it. A warning every task meets together (about agreed figures) is
//! rank 0's. Advice about a figure (the page cache, a straggler) is printed
//! and kept the same way but never ends a run.

use crate::error::{Error, Result};
use crate::output::{LogSink, Outputs};

/// The warnings of one task.
#[derive(Debug, Clone)]
pub struct Warnings {
    tool: &'static str,
    rank: usize,
    /// `--warningAsErrors`.
    pub as_errors: bool,
    /// What was warned about, in order.
    pub list: Vec<String>,
}

impl Warnings {
    pub fn new(tool: &'static str, rank: usize, as_errors: bool) -> Warnings {
        Warnings {
            tool,
            rank,
            as_errors,
            list: Vec::new(),
        }
    }

    /// A warning this task met on its own.
    pub fn warn<S: ?Sized + LogSink>(&mut self, out: &mut Outputs<S>, text: &str) -> Result<()> {
        if self.rank == 0 {
            out.note(0, text);
        } else {
            eprintln!("{}: task {}: {text}", self.tool, self.rank);
        }
        self.list.push(text.to_string());
        self.rule(self.rank, text)
    }

    /// A warning every task meets at the same point: rank 0 gives it.
    pub fn warn_agreed<S: ?Sized + LogSink>(
        &mut self,
        out: &mut Outputs<S>,
        text: &str,
    ) -> Result<()> {
        self.advise(out, text);
        self.rule(0, text)
    }

    /// Advice about a figure, from rank 0: printed and kept, never an error.
    pub fn advise<S: ?Sized + LogSink>(&mut self, out: &mut Outputs<S>, text: &str) {
        if self.rank == 0 {
            out.note(0, text);
            self.list.push(text.to_string());
        }
    }

    /// `--warningAsErrors`: the warning ends the run as a failure of `rank`.
    fn rule(&self, rank: usize, text: &str) -> Result<()> {
        match self.as_errors {
            true => Err(Error::task(rank, format!("{text} (--warningAsErrors)"))),
            false => Ok(()),
        }
    }
}
