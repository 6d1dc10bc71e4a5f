//! `mdtest`: the metadata benchmark.
//!
//! [`options`] turns a command line into [`params::MdtestParams`]; [`layout`]
//! says which directories and items exist and what they are called;
//! [`runner`] runs the phases on every task against the task engine and a
//! backend; [`results`] holds mdtest's formulas and [`report`] the model the
//! text layout ([`text`]) and the documents ([`csv`], JSON) are written from.

/// A line from one task (traces, verification errors), where the run's
/// [`crate::console::TaskLines`] send it.
macro_rules! say {
    ($lines:expr, $($arg:tt)*) => {
        $lines.print(format_args!($($arg)*))
    };
}

pub mod csv;
mod dirs;
mod items;
pub mod layout;
mod measure;
pub mod options;
pub mod params;
mod phase;
pub mod report;
pub mod results;
pub mod runner;
pub mod sink;
mod steps;
mod task;
pub mod text;
mod verify;

use std::io;

use crate::backend::Choice;
use crate::comm::Comm;
use crate::error::UsageError;
use crate::options::Grammar;
use crate::output::{NotesOnly, Outputs, Summary, Text};
use crate::tool::{Finished, Parsed, Tasks, Tool};

use params::MdtestParams;
use report::MdtestReport;
use sink::MdtestSink;

/// One `mdtest` invocation.
#[derive(Debug, Clone)]
pub struct MdtestRun {
    pub params: MdtestParams,
    /// The checked backend.
    pub backend: Choice,
    /// As the header prints it.
    pub command_line: String,
}

/// The `mdtest` tool.
pub struct Mdtest;

impl Tool for Mdtest {
    type Options = MdtestParams;
    type Params = MdtestRun;
    type Report = MdtestReport;
    type Sink = dyn MdtestSink;

    const NAME: &'static str = "mdtest";
    const ABOUT: &'static str =
        "metadata rates (drop-in for mdtest; 'pario mdtest -h' lists options)";

    fn grammar(&self) -> Grammar<MdtestParams> {
        options::grammar()
    }

    fn parse(&self, program: &str, args: &[String]) -> Result<Parsed<MdtestRun>, UsageError> {
        let Some((params, backend)) = options::parse(args)? else {
            return Ok(Parsed::Help);
        };
        Ok(Parsed::Run(MdtestRun {
            params,
            backend,
            command_line: command_line(program, args),
        }))
    }

    fn check_tasks(&self, run: &MdtestRun, tasks: Tasks) -> Result<(), UsageError> {
        options::validate_tasks(&run.params, tasks)
    }

    fn summary<'p>(&self, run: &'p MdtestRun) -> &'p Summary {
        &run.params.output.summary
    }

    /// The text (or its log lines), and the extra files asked for.
    fn sinks(&self, run: &MdtestRun, text: Text) -> io::Result<Vec<Box<dyn MdtestSink>>> {
        let p = &run.params;
        let mut sinks: Vec<Box<dyn MdtestSink>> = vec![match text {
            Text::Full(out) => Box::new(text::MdtestText::new(out, p.output.verbose)),
            Text::LogOnly(out) => Box::new(NotesOnly::new(out, p.output.verbose)),
        }];
        if let Some(path) = &p.output.save_rank_details {
            sinks.push(Box::new(sink::RankDetails::open(path)?));
        }
        if let Some(path) = &p.output.latency_file {
            sinks.push(Box::new(sink::LatencyHistograms::open(path)?));
        }
        Ok(sinks)
    }

    fn run(
        &self,
        comm: &dyn Comm,
        run: &MdtestRun,
        outputs: &mut Outputs<dyn MdtestSink>,
    ) -> Finished<MdtestReport> {
        runner::run(comm, run, outputs)
    }
}

/// mdtest's "Command line used:" text: the program, then each argument in
/// single quotes.
pub fn command_line(program: &str, args: &[String]) -> String {
    let mut line = program.to_string();
    for a in crate::options::redacted(args) {
        line.push_str(&format!(" '{a}'"));
    }
    line
}
