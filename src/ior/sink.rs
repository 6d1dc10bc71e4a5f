//! What the ior runner tells its outputs on rank 0, in order.

use std::io;

use super::report::{RunReport, TestReport};
use super::results::PhaseResult;
use crate::output::{LogSink, NotesOnly};

/// The events of an ior run. Every method has an empty default, so a sink
/// implements only what it writes.
pub trait IorSink: LogSink + Send {
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

impl IorSink for NotesOnly {}
