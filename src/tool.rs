//! A tool is a value: its name, its option grammar and help, how many local
//! tasks it wants, its outputs, and a runner that takes them and returns its
//! report. [`run_on_task`] is how every tool runs, so a driver can run
//! several in sequence in one engine and read their reports.

use std::io;

use crate::comm::{agree, Comm};
use crate::error::{Error, Result, UsageError};
use crate::options::{Grammar, ModuleOptions};
use crate::output::{Document, LogSink, Outputs, Summary, Text};

/// What a command line asks for.
pub enum Parsed<P> {
    /// `-h`: print the help and stop.
    Help,
    Run(P),
}

/// How a run ended: its report (complete on rank 0; the other tasks hold
/// only what they know), and the outcome every task agreed on.
pub struct Finished<R> {
    pub report: R,
    pub result: Result<()>,
}

impl<R> Finished<R> {
    /// The report when the run succeeded.
    pub fn into_result(self) -> Result<R> {
        self.result.map(|()| self.report)
    }
}

/// The tasks of a run, as the checks that need them see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tasks {
    /// Every task of the run.
    pub total: usize,
    /// The tasks on this task's node.
    pub here: usize,
    /// Whether the tasks are threads of one process (the local engine).
    pub threads: bool,
}

impl Tasks {
    pub fn of(comm: &dyn Comm) -> Tasks {
        let topology = comm.topology();
        Tasks {
            total: comm.size(),
            here: topology.ranks_on(topology.node_of(comm.rank())).len(),
            threads: comm.engine() == crate::comm::local::ENGINE && comm.size() > 1,
        }
    }
}

/// A benchmark of the suite.
pub trait Tool: Sync {
    /// What one option table sets (one test of ior, a run of mdtest).
    type Options: ModuleOptions + Default;
    /// A parsed and checked invocation.
    type Params: Sync;
    /// What a run returns, and every document is written from.
    type Report: Document;
    /// The events its runner sends (a trait object: `dyn IorSink`).
    type Sink: ?Sized + LogSink;

    /// The name of its command (`ior`).
    const NAME: &'static str;
    /// One line for `pario --help`.
    const ABOUT: &'static str;
    /// Its option table.
    fn grammar(&self) -> Grammar<Self::Options>;
    /// `-h`.
    fn help(&self) -> String {
        self.grammar().help_text()
    }
    /// Parses and checks a command line; nothing is touched yet.
    fn parse(&self, program: &str, args: &[String]) -> Result<Parsed<Self::Params>, UsageError>;
    /// Threads the local engine starts (`from_env`: `PARIO_TASKS`).
    fn local_tasks(&self, _params: &Self::Params, from_env: Option<usize>) -> usize {
        from_env.unwrap_or(1)
    }
    /// The checks that need the tasks (how many; how many share this
    /// node's memory), before any output opens.
    fn check_tasks(&self, _params: &Self::Params, _tasks: Tasks) -> Result<(), UsageError> {
        Ok(())
    }
    /// Its `summaryFormat`/`summaryFile`.
    fn summary<'p>(&self, params: &'p Self::Params) -> &'p Summary;
    /// Its sinks, given where its text goes (rank 0, before the run).
    fn sinks(&self, params: &Self::Params, text: Text) -> io::Result<Vec<Box<Self::Sink>>>;
    /// Runs on this task.
    fn run(
        &self,
        comm: &dyn Comm,
        params: &Self::Params,
        outputs: &mut Outputs<Self::Sink>,
    ) -> Finished<Self::Report>;
}

/// Runs `tool` on this task: checks, opens its outputs, runs it and writes
/// its documents. Every task returns the same outcome.
pub fn run_on_task<T: Tool>(tool: &T, comm: &dyn Comm, params: &T::Params) -> Result<T::Report> {
    run_into(tool, comm, params, None)
}

/// [`run_on_task`] with the text written to `text_to` (rank 0) instead of
/// stdout: how a driver runs a tool as one of its phases.
pub fn run_into<T: Tool>(
    tool: &T,
    comm: &dyn Comm,
    params: &T::Params,
    text_to: Option<&str>,
) -> Result<T::Report> {
    // Nodes may differ (their memory): every task takes the same outcome.
    let checked = tool.check_tasks(params, Tasks::of(comm));
    agree(comm, checked.map_err(Error::Usage))?;
    let summary = tool.summary(params);
    let mut outputs = Outputs::open(comm, T::NAME, summary, text_to, |text| {
        tool.sinks(params, text)
    })?;
    let finished = tool.run(comm, params, &mut outputs);
    if comm.rank() == 0 {
        outputs.finish(&finished.report);
    }
    finished.into_result()
}
