//! What a test tells, on rank 0: its lines and events (the run's
//! [`Out`]), its warnings, and its report as it grows (the header, then a
//! row per phase, a time per removal, the wrong data found). Only this file
//! changes the report and the warnings.

use super::report::{RemoveTiming, TestReport};
use super::results::PhaseResult;
use super::sink::{IorSink, Out};
use crate::error::Result;
use crate::run::tally::WrongData;
use crate::run::warnings::Warnings;

pub(super) struct TestOutputs<'a> {
    out: &'a mut Out,
    warnings: Warnings,
    report: TestReport,
}

impl<'a> TestOutputs<'a> {
    /// A test that starts with `report`'s header.
    pub fn new(out: &'a mut Out, warnings: Warnings, report: TestReport) -> TestOutputs<'a> {
        TestOutputs {
            out,
            warnings,
            report,
        }
    }

    /// The report as it stands.
    pub fn report(&self) -> &TestReport {
        &self.report
    }

    /// A line of the text at `level` of `-v`.
    pub fn note(&mut self, level: u32, text: &str) {
        self.out.note(level, text);
    }

    /// An event to every sink.
    pub fn each(&mut self, event: impl FnMut(&mut (dyn IorSink + 'static)) -> std::io::Result<()>) {
        self.out.each(event);
    }

    /// The test's header, to every sink.
    pub fn started(&mut self) {
        let report = &self.report;
        self.out.each(|s| s.test_started(report));
    }

    /// A warning rank 0 shows and keeps.
    pub fn advise(&mut self, text: &str) {
        self.warnings.advise(self.out, text);
    }

    /// A warning every task reaches together (an error with
    /// `--warningAsErrors`).
    pub fn warn_agreed(&mut self, text: &str) -> Result<()> {
        self.warnings.warn_agreed(self.out, text)
    }

    /// A warning kept for the report, shown elsewhere (with the page
    /// cache, after the table).
    pub fn keep_warning(&mut self, text: String) {
        self.warnings.list.push(text);
    }

    /// A phase's row (rank 0).
    pub fn add_result(&mut self, row: PhaseResult) {
        self.report.results.push(row);
    }

    /// A repetition's removal time (rank 0).
    pub fn add_removal(&mut self, removal: RemoveTiming) {
        self.report.removes.push(removal);
    }

    /// The wrong data of a repetition.
    pub fn add_data_errors(&mut self, errors: WrongData) {
        self.report.data_errors.add(errors);
    }

    /// The report, finished: its warnings and its maxima.
    pub fn finish(mut self) -> TestReport {
        self.report.warnings = std::mem::take(&mut self.warnings.list);
        self.report.compute_max();
        self.report
    }
}
