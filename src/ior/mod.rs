//! `ior`: the bandwidth benchmark.
//!
//! [`options`] turns a command line (and `-f` scripts) into [`params::IorParams`];
//! [`runner`] runs them on every task against the task engine and a backend;
//! [`layout`] says which offsets a task touches, [`files`] what its files are
//! called and [`reorder`] whose data it reads back; [`results`] holds IOR's
//! formulas and [`report`] the model every output is written from: the text
//! layout ([`text`]) as the run goes, the documents ([`csv`], JSON) at its end.

pub mod csv;
mod data;
mod drawn_phase;
pub mod draws;
pub mod files;
pub mod layout;
pub mod options;
mod outputs;
pub mod params;
mod phase;
pub mod reorder;
pub mod report;
pub mod results;
pub mod runner;
pub mod sink;
pub mod stonewall_result;
pub mod sweep;
pub mod task_times;
mod test;
pub mod text;
mod timed;
pub mod xfer;
mod xfer_drawn;
mod xfer_queue;

use std::io;

use crate::backend::Choice;
use crate::comm::Comm;
use crate::error::UsageError;
use crate::options::Grammar;
use crate::output::{NotesOnly, Outputs, Summary, Text};
use crate::tool::{Finished, Parsed, Tasks, Tool};

use params::IorParams;
use report::RunReport;
use sink::IorSink;

/// One test, checked.
#[derive(Debug, Clone)]
pub struct IorTest {
    pub params: IorParams,
    /// The checked backend.
    pub backend: Choice,
}

impl IorTest {
    /// Whether reads are preceded by eviction (`-O evictBeforeRead=1` or
    /// the backend's own option, `--posix.evict`).
    pub fn evicts(&self) -> bool {
        self.params.measure.evict_before_read || self.backend.evicts()
    }
}

/// The tests of one `ior` invocation.
#[derive(Debug, Clone)]
pub struct IorRun {
    /// One per `RUN` of a `-f` script; one without.
    pub tests: Vec<IorTest>,
    /// As the header prints it.
    pub command_line: String,
}

/// The `ior` tool.
pub struct Ior;

impl Tool for Ior {
    type Options = IorParams;
    type Params = IorRun;
    type Report = RunReport;
    type Sink = dyn IorSink;

    const NAME: &'static str = "ior";
    const ABOUT: &'static str =
        "bandwidth and IOPS (drop-in for IOR; 'pario ior -h' lists options)";

    fn grammar(&self) -> Grammar<IorParams> {
        options::grammar()
    }

    fn parse(&self, program: &str, args: &[String]) -> Result<Parsed<IorRun>, UsageError> {
        let Some(tests) = options::parse(args)? else {
            return Ok(Parsed::Help);
        };
        let command_line = std::iter::once(program.to_string())
            .chain(crate::options::redacted(args))
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Parsed::Run(IorRun {
            tests,
            command_line,
        }))
    }

    /// The larger of `PARIO_TASKS` and the largest `-N`.
    fn local_tasks(&self, run: &IorRun, from_env: Option<usize>) -> usize {
        let wanted = run
            .tests
            .iter()
            .filter_map(|t| t.params.geometry.num_tasks)
            .max();
        from_env.unwrap_or(1).max(wanted.unwrap_or(1))
    }

    fn check_tasks(&self, run: &IorRun, tasks: Tasks) -> Result<(), UsageError> {
        run.tests
            .iter()
            .try_for_each(|t| options::check_tasks(&t.params, &t.backend, tasks))
    }

    /// The first test's choice (stdout has one format).
    fn summary<'p>(&self, run: &'p IorRun) -> &'p Summary {
        &run.tests[0].params.output.summary
    }

    /// The text (or its log lines), and the extra files the tests name.
    fn sinks(&self, run: &IorRun, text: Text) -> io::Result<Vec<Box<dyn IorSink>>> {
        let verbose = run.tests[0].params.output.verbose;
        let mut sinks: Vec<Box<dyn IorSink>> = vec![match text {
            Text::Full(out) => Box::new(text::IorText::new(out, verbose)),
            Text::LogOnly(out) => Box::new(NotesOnly::new(out, verbose)),
        }];
        let params: Vec<&IorParams> = run.tests.iter().map(|t| &t.params).collect();
        if let Some(details) = sink::RankDetails::open(&params)? {
            sinks.push(Box::new(details));
        }
        if let Some(histograms) = sink::LatencyHistograms::open(&params)? {
            sinks.push(Box::new(histograms));
        }
        Ok(sinks)
    }

    fn run(
        &self,
        comm: &dyn Comm,
        run: &IorRun,
        outputs: &mut Outputs<dyn IorSink>,
    ) -> Finished<RunReport> {
        runner::run(comm, run, outputs)
    }
}
