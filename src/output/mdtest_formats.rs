//! mdtest's machine-readable outputs (mdtest itself has none, hpc/ior#509):
//! JSON (the whole run, written by [`JsonFile`] as ior's is) and CSV (one
//! row per phase and iteration). Chosen like ior's: `--summaryFormat=JSON|CSV` (or
//! `-O summaryFormat=...`), written to `--summaryFile` or to stdout.

use std::io::{self, Write};

use super::csv::field;
use super::json::JsonFile;
use super::mdtest_text::MdtestText;
use super::{LogSink, NotesOnly};
use crate::ior::params::SummaryFormat;
use crate::mdtest::report::{MdtestReport, MdtestSink};

/// The CSV columns, in order.
pub const COLUMNS: &[&str] = &[
    "tasks",
    "iteration",
    "operation",
    "items",
    "time_s",
    "rate_ops_s",
    "api",
    "items_per_task",
    "depth",
    "branch_factor",
    "unique_dir",
    "write_bytes",
    "read_bytes",
];

/// One CSV row per phase that ran, per iteration and sweep step.
pub struct MdtestCsv {
    out: Box<dyn Write + Send>,
}

impl MdtestCsv {
    pub fn new(out: Box<dyn Write + Send>) -> MdtestCsv {
        MdtestCsv { out }
    }
}

/// The CSV text of a report.
pub fn csv_text(report: &MdtestReport) -> String {
    let p = &report.parameters;
    let mut t = COLUMNS.join(",");
    t.push('\n');
    for sweep in &report.tests {
        for it in &sweep.iterations {
            for ph in &it.phases {
                let cells = [
                    sweep.tasks.to_string(),
                    it.iteration.to_string(),
                    field(ph.operation),
                    ph.items.to_string(),
                    format!("{:.9}", ph.time_s),
                    format!("{:.3}", ph.rate),
                    field(&p.api),
                    sweep.items_per_task.to_string(),
                    p.depth.to_string(),
                    p.branch_factor.to_string(),
                    p.unique_dir_per_task.to_string(),
                    p.write_bytes.to_string(),
                    p.read_bytes.to_string(),
                ];
                t.push_str(&cells.join(","));
                t.push('\n');
            }
        }
    }
    t
}

impl LogSink for MdtestCsv {}

impl MdtestSink for MdtestCsv {
    fn run_done(&mut self, report: &MdtestReport) -> io::Result<()> {
        self.out.write_all(csv_text(report).as_bytes())?;
        self.out.flush()
    }
}

/// The sinks of an mdtest run: mdtest's text on stdout, unless JSON or CSV
/// was asked for without a summary file, in which case stdout carries that
/// format and log lines go to stderr.
pub fn sinks_for(
    format: SummaryFormat,
    summary_file: Option<&str>,
    verbose: u32,
) -> io::Result<Vec<Box<dyn MdtestSink>>> {
    let mut sinks: Vec<Box<dyn MdtestSink>> = Vec::new();
    if super::text_on_stdout(format, summary_file) {
        sinks.push(Box::new(MdtestText::new(Box::new(io::stdout()), verbose)));
    } else {
        sinks.push(Box::new(NotesOnly::new(Box::new(io::stderr()), verbose)));
    }
    match format {
        SummaryFormat::Default => {}
        SummaryFormat::Json => {
            sinks.push(Box::new(JsonFile::new(super::open_target(summary_file)?)))
        }
        SummaryFormat::Csv => {
            sinks.push(Box::new(MdtestCsv::new(super::open_target(summary_file)?)))
        }
    }
    Ok(sinks)
}
