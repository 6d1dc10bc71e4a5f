//! CSV: one row per measured phase, with a header row.

use std::io::{self, Write};

use super::{IorSink, LogSink};
use crate::ior::report::RunReport;

/// The columns, in order.
pub const COLUMNS: &[&str] = &[
    "test",
    "iteration",
    "access",
    "api",
    "tasks",
    "file_per_proc",
    "segments",
    "block_bytes",
    "transfer_bytes",
    "bw_mib_s",
    "iops",
    "latency_s",
    "open_s",
    "wrrd_s",
    "close_s",
    "total_s",
    "bytes",
    "transfers",
];

pub struct CsvFile {
    out: Box<dyn Write + Send>,
}

impl CsvFile {
    pub fn new(out: Box<dyn Write + Send>) -> CsvFile {
        CsvFile { out }
    }
}

/// Quotes a field when it needs it (RFC 4180).
pub fn field(text: &str) -> String {
    if text.contains([',', '"', '\n']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text.to_string()
    }
}

impl LogSink for CsvFile {}

impl IorSink for CsvFile {
    fn run_done(&mut self, report: &RunReport) -> io::Result<()> {
        writeln!(self.out, "{}", COLUMNS.join(","))?;
        for test in &report.tests {
            let p = &test.parameters;
            for r in &test.results {
                let cells = [
                    test.test_id.to_string(),
                    r.iteration.to_string(),
                    r.access.to_string(),
                    field(&p.api),
                    r.tasks.to_string(),
                    p.file_per_proc.to_string(),
                    p.segment_count.to_string(),
                    p.block_size.to_string(),
                    p.transfer_size.to_string(),
                    format!("{:.6}", r.bw_mib),
                    format!("{:.6}", r.iops),
                    format!("{:.9}", r.latency),
                    format!("{:.9}", r.open),
                    format!("{:.9}", r.wr_rd),
                    format!("{:.9}", r.close),
                    format!("{:.9}", r.total),
                    r.bytes.to_string(),
                    r.transfers.to_string(),
                ];
                writeln!(self.out, "{}", cells.join(","))?;
            }
        }
        self.out.flush()
    }
}
