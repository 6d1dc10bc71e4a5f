//! JSON: the whole run, serialized with serde (always valid JSON).

use std::io::{self, Write};

use super::{IorSink, LogSink};
use crate::ior::report::RunReport;

pub struct JsonFile {
    out: Box<dyn Write + Send>,
}

impl JsonFile {
    pub fn new(out: Box<dyn Write + Send>) -> JsonFile {
        JsonFile { out }
    }
}

impl LogSink for JsonFile {}

impl IorSink for JsonFile {
    fn run_done(&mut self, report: &RunReport) -> io::Result<()> {
        serde_json::to_writer_pretty(&mut self.out, report)?;
        writeln!(self.out)?;
        self.out.flush()
    }
}
