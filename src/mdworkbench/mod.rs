//! `md-workbench`: IOR 4.1's producer/consumer benchmark of small objects.
//!
//! [`options`] turns a command line into [`params::MdwParams`]; [`layout`]
//! names the datasets and objects and says whose objects a rank reads and
//! writes; [`runner`] runs the precreate, benchmark and cleanup phases;
//! [`results`] holds md-workbench's formulas and [`report`] the document and
//! the text layout.

pub mod csv;
pub mod layout;
pub mod ops;
pub mod options;
pub mod params;
pub mod report;
pub mod results;
pub mod runner;
pub mod sink;
pub mod text;
mod work;

use std::io;

use crate::backend::Choice;
use crate::comm::Comm;
use crate::error::UsageError;
use crate::options::Grammar;
use crate::output::{NotesOnly, Outputs, Summary, Text};
use crate::tool::{Finished, Parsed, Tasks, Tool};

use params::MdwParams;
use report::MdwReport;
use sink::MdwSink;

/// One `md-workbench` invocation.
#[derive(Debug, Clone)]
pub struct MdwRun {
    pub params: MdwParams,
    pub backend: Choice,
    /// The `Args:` line: the program, then each argument in double quotes.
    pub args_line: String,
}

/// The `md-workbench` tool.
pub struct MdWorkbench;

impl Tool for MdWorkbench {
    type Options = MdwParams;
    type Params = MdwRun;
    type Report = MdwReport;
    type Sink = dyn MdwSink;

    const NAME: &'static str = "md-workbench";
    const ABOUT: &'static str =
        "small-object producer/consumer workload (drop-in for md-workbench)";

    fn grammar(&self) -> Grammar<MdwParams> {
        options::grammar()
    }

    fn parse(&self, program: &str, args: &[String]) -> Result<Parsed<MdwRun>, UsageError> {
        let Some((params, backend)) = options::parse(args)? else {
            return Ok(Parsed::Help);
        };
        // The secret of an S3 option never reaches the report.
        let quoted: Vec<String> = crate::options::redacted(args)
            .iter()
            .map(|a| format!("\"{a}\""))
            .collect();
        let args_line = std::iter::once(program.to_string())
            .chain(quoted)
            .collect::<Vec<_>>()
            .join(" ");
        Ok(Parsed::Run(MdwRun {
            params,
            backend,
            args_line,
        }))
    }

    fn check_tasks(&self, run: &MdwRun, tasks: Tasks) -> Result<(), UsageError> {
        options::validate_tasks(&run.params, tasks.total)?;
        crate::run::limits::buffers_fit("-S", run.params.object_size, tasks.here)
    }

    fn summary<'p>(&self, run: &'p MdwRun) -> &'p Summary {
        &run.params.summary
    }

    /// The text (or its log lines), and the latency files asked for.
    fn sinks(&self, run: &MdwRun, text: Text) -> io::Result<Vec<Box<dyn MdwSink>>> {
        let p = &run.params;
        let mut sinks: Vec<Box<dyn MdwSink>> = vec![match text {
            Text::Full(out) => Box::new(text::MdwText::new(out, p.verbose)),
            Text::LogOnly(out) => Box::new(NotesOnly::new(out, p.verbose)),
        }];
        if let Some(prefix) = &p.latency_prefix {
            sinks.push(Box::new(sink::LatencyFiles::open(prefix, p.latency_all)?));
        }
        Ok(sinks)
    }

    fn run(
        &self,
        comm: &dyn Comm,
        run: &MdwRun,
        outputs: &mut Outputs<dyn MdwSink>,
    ) -> Finished<MdwReport> {
        runner::run(comm, run, outputs)
    }
}
