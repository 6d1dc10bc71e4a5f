//! The ior runner: every test of an invocation on this task, then the
//! summary over repetitions. A test is [`TestRun`]: its repetitions run the
//! phases of [`super::phase`], whose timed part is [`super::timed`].
//!
//! Every task runs this code against `&dyn Comm`. Failures travel to the
//! next collective point ([`crate::comm::agree`]), so every task stops
//! together and rank 0 reports the lowest failing rank. Cleanup removes only
//! the files this run wrote and the directories it created.

use super::params::Sweep;
use super::report::{RunReport, SummaryRow, SweepStep, TestReport};
use super::results::summarize;
use super::sink::Out;
use super::sweep::{plan, run_step, scaling};
use super::test::{Stopped, TestRun};
use super::{IorRun, IorTest};
use crate::comm::Comm;
use crate::error::Error;
use crate::run::info::{now_string, RunHeader};
use crate::run::tally::WrongData;
use crate::tool::Finished;

/// Runs every test on this task. Rank 0's report is complete; every task
/// ends with the same outcome.
pub fn run(comm: &dyn Comm, run: &IorRun, out: &mut Out) -> Finished<RunReport> {
    let mut report = RunReport {
        header: RunHeader::now(
            comm,
            &run.command_line,
            run.tests[0].params.output.verbose,
            now_string(),
        ),
        tests: Vec::new(),
        summary: Vec::new(),
        scaling: Vec::new(),
        finished: String::new(),
        error: None,
    };
    let first = &run.tests[0];
    let data = first.backend.capabilities().posix_namespace;
    let data = data.then(|| std::path::Path::new(&first.params.files.test_file_name));
    report.header.pario.gather_system(comm, out.driven(), data);
    out.each(|s| s.run_started(&report));
    let mut data_errors = WrongData::default();
    let mut failure = None;
    for (id, test) in run.tests.iter().enumerate() {
        let error = match &test.params.geometry.sweep {
            Some(sweep) => run_sweep(comm, out, id, test, sweep, &mut report, &mut data_errors),
            None => {
                let (done, error) = run_test(comm, out, id, test);
                if let Some(test) = done {
                    data_errors.add(test.data_errors);
                    if comm.rank() == 0 {
                        report.tests.push(test);
                    }
                }
                error
            }
        };
        if error.is_some() {
            failure = error;
            break;
        }
    }
    let store = report.tests.first().and_then(|t| t.object_store.clone());
    report.header.pario.set_object_store(store);
    report.scaling = scaling(&report);
    report.summary = summary_rows(&report);
    report.finished = now_string();
    report.error = failure.as_ref().map(|e| e.to_string());
    out.each(|s| s.run_done(&report));
    let result = match failure.or_else(|| data_errors.error("transfers")) {
        Some(e) => Err(e),
        None => Ok(()),
    };
    Finished { report, result }
}

/// One test on `comm`: its report (complete on rank 0; partial after a
/// signal) and its error, told to the outputs.
fn run_test(
    comm: &dyn Comm,
    out: &mut Out,
    id: usize,
    test: &IorTest,
) -> (Option<TestReport>, Option<Error>) {
    let outcome = TestRun::new(comm, out, id, test)
        .map_err(Stopped::from)
        .and_then(TestRun::run);
    let (done, error) = match outcome {
        Ok(test) => (Some(test), None),
        Err(Stopped(e, partial)) => (partial.map(|t| *t), Some(e)),
    };
    if let (Some(test), 0) = (&done, comm.rank()) {
        out.each(|s| s.test_done(test));
    }
    (done, error)
}

/// A swept test: each step on its own communicator. Returns the error that
/// ended the sweep, the same on every task.
fn run_sweep(
    comm: &dyn Comm,
    out: &mut Out,
    id: usize,
    test: &IorTest,
    sweep: &Sweep,
    report: &mut RunReport,
    data_errors: &mut WrongData,
) -> Option<Error> {
    let steps = plan(sweep, comm.topology());
    for (i, step) in steps.iter().enumerate() {
        let at = SweepStep {
            step: i + 1,
            steps: steps.len(),
            nodes: step.nodes,
            tasks: step.ranks.len(),
        };
        if comm.rank() == 0 {
            out.each(|s| s.step_started(&at));
        }
        let outcome = run_step(comm, step, |c| {
            let (done, error) = run_test(c, out, id, test);
            (
                done.map(|t| TestReport {
                    sweep: Some(at),
                    ..t
                }),
                error,
            )
        });
        let outcome = match outcome {
            Ok(o) => o,
            Err(e) => return Some(e),
        };
        data_errors.add(outcome.data_errors);
        if let (Some(t), 0) = (outcome.report, comm.rank()) {
            report.tests.push(t);
        }
        if outcome.error.is_some() {
            return outcome.error;
        }
    }
    None
}

/// "Summary of all tests": per test, a row for its writes and its reads.
fn summary_rows(report: &RunReport) -> Vec<SummaryRow> {
    let mut rows = Vec::new();
    for test in &report.tests {
        for access in ["write", "mixed", "read"] {
            let phases: Vec<_> = test.results.iter().filter(|r| r.access == access).collect();
            if !phases.is_empty() {
                let s = summarize(&phases, test.parameters.transfer_size);
                rows.push(SummaryRow::new(access, test, &s));
            }
        }
    }
    rows
}
