//! Outputs, for every tool: where the text, the documents and a task's own
//! lines go, decided in one place from `summaryFormat`/`summaryFile`.
//!
//! A runner tells its sinks (a tool's own event trait over [`LogSink`]) what
//! happens as it happens: the text layouts stream. Documents (JSON, CSV) are
//! the report the runner returns, serialised by [`Outputs::finish`]. Adding
//! a format is one variant of [`Format`] and its arm in [`document::write`].

pub mod document;
pub mod format;

use std::io::{self, Write};
use std::marker::PhantomData;

pub use document::{Document, Table};
pub use format::{Format, Summary};

use crate::comm::{agree, Comm};
use crate::console::TaskLines;
use crate::error::{Error, Result};

/// What every output of every tool is told: log lines.
pub trait LogSink {
    /// A log line at verbosity `level` (0: always).
    fn note(&mut self, _level: u32, _text: &str) -> io::Result<()> {
        Ok(())
    }
}

/// Where a tool's text goes: the whole layout, or only its log lines (when
/// stdout carries a document, they go to stderr).
pub enum Text {
    Full(Box<dyn Write + Send>),
    LogOnly(Box<dyn Write + Send>),
}

/// The outputs of a run: on rank 0 its sinks and documents; on every task
/// where its own lines go. `S` is a tool's sink trait (`dyn IorSink`).
pub struct Outputs<S: ?Sized> {
    sinks: Vec<Box<S>>,
    documents: Vec<(Format, Box<dyn Write + Send>)>,
    lines: TaskLines,
    /// The tool, for the warning about an output that cannot be written.
    tool: &'static str,
    /// Whether a driver runs the tool as one of its phases (its text to
    /// the driver's file).
    driven: bool,
}

impl<S: ?Sized + LogSink> Outputs<S> {
    /// Rank 0 opens what `summary` names: the text (given to `sinks`, which
    /// returns the tool's sinks for it and any of its own) and the document
    /// targets. Every task returns the same outcome, before the run starts.
    /// `text_to`: a driver's file for the text instead of stdout (io500's
    /// `<phase>.txt`).
    pub fn open(
        comm: &dyn Comm,
        tool: &'static str,
        summary: &Summary,
        text_to: Option<&str>,
        sinks: impl FnOnce(Text) -> io::Result<Vec<Box<S>>>,
    ) -> Result<Outputs<S>> {
        let opened = if comm.rank() == 0 {
            open_all(summary, text_to, sinks).map_err(|e| Error::task(0, e.to_string()))
        } else {
            Ok((Vec::new(), Vec::new()))
        };
        let (sinks, documents) = agree(comm, opened)?;
        Ok(Outputs {
            sinks,
            documents,
            lines: summary.task_lines(),
            tool,
            driven: text_to.is_some(),
        })
    }

    /// Outputs made by the caller (tests, drivers): these sinks, no
    /// documents, a task's lines on stdout.
    pub fn with_sinks(tool: &'static str, sinks: Vec<Box<S>>) -> Outputs<S> {
        Outputs {
            sinks,
            documents: Vec::new(),
            lines: TaskLines::Stdout,
            tool,
            driven: false,
        }
    }

    /// Whether a driver (io500, `pario concurrent`) runs the tool as one
    /// of its phases: the driver records what every phase shares.
    pub fn driven(&self) -> bool {
        self.driven
    }

    /// Where this task prints its own lines.
    pub fn task_lines(&self) -> TaskLines {
        self.lines
    }

    /// Tells every sink; an output that fails does not stop the run.
    pub fn each(&mut self, mut event: impl FnMut(&mut S) -> io::Result<()>) {
        for sink in &mut self.sinks {
            let outcome = event(sink.as_mut());
            warn_on(self.tool, outcome);
        }
    }

    /// A log line at verbosity `level` (0: always).
    pub fn note(&mut self, level: u32, text: &str) {
        self.each(|s| s.note(level, text));
    }

    /// Writes the documents of the finished run (rank 0).
    pub fn finish(&mut self, report: &impl Document) {
        for (format, out) in std::mem::take(&mut self.documents) {
            let mut out = out;
            let outcome = document::write(format, report, &mut out);
            warn_on(self.tool, outcome);
        }
    }
}

/// An output that cannot be written is a warning, not the end of the run.
fn warn_on(tool: &str, outcome: io::Result<()>) {
    if let Err(e) = outcome {
        // stdout closed early (a pipe into `head`) must not stop the run.
        if e.kind() != io::ErrorKind::BrokenPipe {
            eprintln!("{tool}: warning: cannot write output: {e}");
        }
    }
}

type Opened<S> = (Vec<Box<S>>, Vec<(Format, Box<dyn Write + Send>)>);

/// The text target, the tool's sinks and the documents' targets.
fn open_all<S: ?Sized>(
    summary: &Summary,
    text_to: Option<&str>,
    sinks: impl FnOnce(Text) -> io::Result<Vec<Box<S>>>,
) -> io::Result<Opened<S>> {
    summary.check().map_err(io::Error::other)?;
    let text = if let Some(path) = text_to {
        Text::Full(format::open_target(Some(path))?)
    } else if let Some(path) = summary.text_file() {
        let file = format::open_target(Some(path))?;
        println!("Writing output to {path}");
        Text::Full(file)
    } else if summary.document_on_stdout() {
        Text::LogOnly(Box::new(io::stderr()))
    } else {
        Text::Full(Box::new(io::stdout()))
    };
    let documents = summary
        .targets()
        .into_iter()
        .map(|(format, path)| Ok((format, format::open_target(path.as_deref())?)))
        .collect::<io::Result<_>>()?;
    Ok((sinks(text)?, documents))
}

/// A tool's text, flushed after every piece, so that a run's lines appear as
/// it goes (and are not lost when a later task fails). `L` names the layout:
/// a tool implements its sink trait for `TextSink<ItsToolType>` and writes
/// with [`TextSink::emit`]; the log lines are written here, for every tool.
pub struct TextSink<L> {
    out: Box<dyn Write + Send>,
    pub verbose: u32,
    layout: PhantomData<fn() -> L>,
}

impl<L> TextSink<L> {
    pub fn new(out: Box<dyn Write + Send>, verbose: u32) -> TextSink<L> {
        TextSink {
            out,
            verbose,
            layout: PhantomData,
        }
    }

    pub fn emit(&mut self, text: &str) -> io::Result<()> {
        self.out.write_all(text.as_bytes())?;
        self.out.flush()
    }
}

impl<L> LogSink for TextSink<L> {
    /// A log line, written when the verbosity reaches `level`.
    fn note(&mut self, level: u32, text: &str) -> io::Result<()> {
        if level <= self.verbose {
            self.emit(&format!("{text}\n"))?;
        }
        Ok(())
    }
}

/// The layout of log lines alone.
pub struct Notes;

/// Only the log lines of a run, for any tool (each tool's sink trait has an
/// empty implementation for it): stderr's text when stdout carries a
/// document.
pub type NotesOnly = TextSink<Notes>;

/// A `%-20s: %s` header line, as IOR and mdtest print them.
pub fn key_value(key: &str, value: &str) -> String {
    format!("{key:<20}: {value}\n")
}
