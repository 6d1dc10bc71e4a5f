//! The extra files a run writes as it goes (per-task details, latency
//! histograms): created with their header before the run starts, so a bad
//! path fails at once, and appended to by the tool's sinks.

use std::fs::File;
use std::io::{self, BufWriter, Write};

use hdrhistogram::Histogram;

use crate::latency::distribution_lines;

/// A CSV file written line by line.
pub struct CsvFile {
    out: BufWriter<File>,
}

impl CsvFile {
    /// Creates (or truncates) `path` and writes its header.
    pub fn create(path: &str, header: &str) -> io::Result<CsvFile> {
        let failed = |e: io::Error| io::Error::new(e.kind(), format!("cannot create {path}: {e}"));
        let mut out = BufWriter::new(File::create(path).map_err(failed)?);
        writeln!(out, "{header}").map_err(failed)?;
        out.flush().map_err(failed)?;
        Ok(CsvFile { out })
    }

    pub fn line(&mut self, text: &str) -> io::Result<()> {
        writeln!(self.out, "{text}")
    }

    /// Makes what was written so far visible (after each phase).
    pub fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }

    /// One phase's distribution: a row per recorded bucket,
    /// `key,latency_s,cumulative_fraction,count`.
    pub fn histogram(&mut self, key: &str, h: &Histogram<u64>) -> io::Result<()> {
        for (value, fraction, count) in distribution_lines(h) {
            writeln!(self.out, "{key},{value:.9},{fraction:.6},{count}")?;
        }
        self.flush()
    }
}

/// The columns of a histogram file after the key columns.
pub const HISTOGRAM_COLUMNS: &str = "latency_s,cumulative_fraction,count";
