//! Output formats.
//!
//! The runner reports events to [`IorSink`]s on rank 0 (through
//! [`Outputs`]): the text layout streams as results arrive (as IOR prints
//! them); machine-readable formats write the whole [`RunReport`] at the end.
//! Adding a format is one module that implements the trait plus one arm in
//! [`sinks_for`].

pub mod csv;
pub mod ior_text;
pub mod json;
pub mod mdtest_formats;
pub mod mdtest_text;

use std::fs::File;
use std::io::{self, Write};

use crate::comm::{agree, Comm};
use crate::error::{Error, Result};
use crate::ior::params::SummaryFormat;
use crate::ior::report::{RunReport, TestReport};
use crate::ior::results::PhaseResult;
use crate::mdtest::report::MdtestSink;

/// What every output of every tool is told: log lines.
pub trait LogSink {
    /// A log line at verbosity `level` (0: always).
    fn note(&mut self, _level: u32, _text: &str) -> io::Result<()> {
        Ok(())
    }
}

/// The outputs of rank 0 (none on other ranks): every event goes to each
/// sink (`S` is `dyn IorSink` or `dyn MdtestSink`).
pub struct Outputs<S: ?Sized> {
    sinks: Vec<Box<S>>,
    /// The tool, for the warning about an output that cannot be written.
    tool: &'static str,
}

impl<S: ?Sized + LogSink> Outputs<S> {
    /// Rank 0 makes the sinks; every task returns the same outcome.
    pub fn open(
        comm: &dyn Comm,
        tool: &'static str,
        make: impl FnOnce() -> io::Result<Vec<Box<S>>>,
    ) -> Result<Outputs<S>> {
        let sinks = if comm.rank() == 0 {
            make().map_err(|e| Error::task(0, e.to_string()))
        } else {
            Ok(Vec::new())
        };
        Ok(Outputs {
            sinks: agree(comm, sinks)?,
            tool,
        })
    }

    /// Tells every sink; an output that fails does not stop the run.
    pub fn each(&mut self, mut event: impl FnMut(&mut S) -> io::Result<()>) {
        for sink in &mut self.sinks {
            if let Err(e) = event(sink.as_mut()) {
                // stdout closed early (a pipe into `head`) must not stop the run.
                if e.kind() != io::ErrorKind::BrokenPipe {
                    eprintln!("{}: warning: cannot write output: {e}", self.tool);
                }
            }
        }
    }

    /// A log line at verbosity `level` (0: always).
    pub fn note(&mut self, level: u32, text: &str) {
        self.each(|s| s.note(level, text));
    }
}

/// What the IOR runner tells its outputs, in order.
pub trait IorSink: LogSink {
    /// Header of the run (before any test).
    fn run_started(&mut self, _report: &RunReport) -> io::Result<()> {
        Ok(())
    }
    /// A test's header, options and table header.
    fn test_started(&mut self, _test: &TestReport) -> io::Result<()> {
        Ok(())
    }
    fn phase_done(&mut self, _row: &PhaseResult) -> io::Result<()> {
        Ok(())
    }
    fn removed(&mut self, _seconds: f64, _iteration: u64) -> io::Result<()> {
        Ok(())
    }
    fn test_done(&mut self, _test: &TestReport) -> io::Result<()> {
        Ok(())
    }
    /// The complete run, summary included.
    fn run_done(&mut self, _report: &RunReport) -> io::Result<()> {
        Ok(())
    }
}

/// A text output that is flushed after every piece, so that a run's lines
/// appear as it goes (and are not lost when a later rank fails).
pub(crate) struct TextStream {
    out: Box<dyn Write + Send>,
    pub verbose: u32,
}

impl TextStream {
    pub fn new(out: Box<dyn Write + Send>, verbose: u32) -> TextStream {
        TextStream { out, verbose }
    }

    pub fn emit(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }

    /// A log line, written when the verbosity reaches `level`.
    pub fn note(&mut self, level: u32, text: &str) -> io::Result<()> {
        if level <= self.verbose {
            self.emit(&format!("{text}\n"))?;
        }
        Ok(())
    }
}

/// Only the log lines, for either tool (when stdout carries JSON or CSV,
/// they go to stderr).
pub struct NotesOnly(TextStream);

impl NotesOnly {
    pub fn new(out: Box<dyn Write + Send>, verbose: u32) -> NotesOnly {
        NotesOnly(TextStream::new(out, verbose))
    }
}

impl LogSink for NotesOnly {
    fn note(&mut self, level: u32, text: &str) -> io::Result<()> {
        self.0.note(level, text)
    }
}

impl IorSink for NotesOnly {}

impl MdtestSink for NotesOnly {}

/// A `%-20s: %s` header line, as IOR and mdtest print them.
pub(crate) fn key_value(key: &str, value: &str) -> String {
    format!("{key:<20}: {value}\n")
}

/// Where a machine-readable report goes: the summary file, or stdout.
pub(crate) fn open_target(path: Option<&str>) -> io::Result<Box<dyn Write + Send>> {
    Ok(match path {
        Some(p) => Box::new(
            File::create(p)
                .map_err(|e| io::Error::new(e.kind(), format!("cannot create {p}: {e}")))?,
        ),
        None => Box::new(io::stdout()),
    })
}

/// Whether the tool's text goes to stdout: unless a machine-readable format
/// was asked for without a summary file (stdout then carries that format and
/// log lines go to stderr).
pub(crate) fn text_on_stdout(format: SummaryFormat, summary_file: Option<&str>) -> bool {
    format == SummaryFormat::Default || summary_file.is_some()
}

/// Where a task prints its own lines (traces, wrong words, verification
/// errors), decided once per run: on stdout with the tool's text, on stderr
/// when stdout carries JSON or CSV (which must stay parseable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskLines {
    Stdout,
    Stderr,
}

impl TaskLines {
    pub fn new(format: SummaryFormat, summary_file: Option<&str>) -> TaskLines {
        if text_on_stdout(format, summary_file) {
            TaskLines::Stdout
        } else {
            TaskLines::Stderr
        }
    }

    /// Prints one line (`format_args!`, without the newline).
    pub fn print(self, line: std::fmt::Arguments<'_>) {
        match self {
            TaskLines::Stdout => println!("{line}"),
            TaskLines::Stderr => eprintln!("{line}"),
        }
    }
}

/// The sinks for a run: IOR's text on stdout, unless a machine-readable
/// format was asked for without `summaryFile`, in which case stdout carries
/// that format and log lines go to stderr. `summaryFile` without a format
/// takes the text itself, as in IOR (which says so on stdout).
pub fn sinks_for(
    format: SummaryFormat,
    summary_file: Option<&str>,
    verbose: u32,
) -> io::Result<Vec<Box<dyn IorSink>>> {
    let mut sinks: Vec<Box<dyn IorSink>> = Vec::new();
    if let (SummaryFormat::Default, Some(path)) = (format, summary_file) {
        let file = open_target(summary_file)?;
        println!("Writing output to {path}");
        sinks.push(Box::new(ior_text::IorText::new(file, verbose)));
    } else if text_on_stdout(format, summary_file) {
        sinks.push(Box::new(ior_text::IorText::new(
            Box::new(io::stdout()),
            verbose,
        )));
    } else {
        sinks.push(Box::new(NotesOnly::new(Box::new(io::stderr()), verbose)));
    }
    match format {
        SummaryFormat::Default => {}
        SummaryFormat::Json => {
            sinks.push(Box::new(json::JsonFile::new(open_target(summary_file)?)))
        }
        SummaryFormat::Csv => sinks.push(Box::new(csv::CsvFile::new(open_target(summary_file)?))),
    }
    Ok(sinks)
}
