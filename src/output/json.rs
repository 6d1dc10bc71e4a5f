//! JSON: the whole run, serialized with serde (always valid JSON), for
//! ior's and mdtest's reports alike.

use std::io::{self, Write};

use serde::Serialize;

use super::{IorSink, LogSink};
use crate::ior::report::RunReport;
use crate::mdtest::report::{MdtestReport, MdtestSink};

pub struct JsonFile {
    out: Box<dyn Write + Send>,
}

impl JsonFile {
    pub fn new(out: Box<dyn Write + Send>) -> JsonFile {
        JsonFile { out }
    }

    /// Writes `report`, pretty-printed, with a final newline.
    fn write(&mut self, report: &impl Serialize) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, report)?;
        writeln!(self.out)?;
        self.out.flush()
    }
}

impl LogSink for JsonFile {}

impl IorSink for JsonFile {
    fn run_done(&mut self, report: &RunReport) -> io::Result<()> {
        self.write(report)
    }
}

impl MdtestSink for JsonFile {
    fn run_done(&mut self, report: &MdtestReport) -> io::Result<()> {
        self.write(report)
    }
}
