//! md-workbench's events (`MdwSink`) and the sinks of its extra files: `-L
//! PREFIX`, the latency files, one per phase and operation, written by rank
//! 0: its own operations, or with `--latency-all` every rank's (rank order,
//! unsorted).

use std::fmt::Write as _;
use std::io;
use std::path::Path;

use super::ops::{AllTimes, OpTimes};
use super::report::MdwReport;
use super::results::{OpKind, PhaseSummary};
use crate::output::{LogSink, NotesOnly};
use crate::units::c_exp;

/// Every rank's operation times of a phase (`times[rank][op]`), for the
/// sinks that keep them.
pub struct PhaseTimes<'a> {
    pub phase: &'static str,
    pub read_only: bool,
    pub waiting_factor: f64,
    pub iteration: u64,
    pub times: &'a AllTimes,
}

/// The events of a run, on rank 0.
pub trait MdwSink: LogSink {
    fn run_started(&mut self, _report: &MdwReport) -> io::Result<()> {
        Ok(())
    }
    fn phase_done(&mut self, _phase: &PhaseSummary, _report: &MdwReport) -> io::Result<()> {
        Ok(())
    }
    /// Every operation's time (sent only when a sink wants them: `-L`).
    fn phase_times(&mut self, _times: &PhaseTimes<'_>) -> io::Result<()> {
        Ok(())
    }
    fn run_done(&mut self, _report: &MdwReport) -> io::Result<()> {
        Ok(())
    }
}

impl MdwSink for NotesOnly {}

/// `-L PREFIX` (and `--latency-all`): the latency files.
pub struct LatencyFiles {
    prefix: String,
    all_ranks: bool,
}

impl LatencyFiles {
    /// Checks, before the run, that the files can be made where the prefix
    /// says (their names depend on the phases, so they are made later).
    pub fn open(prefix: &str, all_ranks: bool) -> io::Result<LatencyFiles> {
        let dir = match Path::new(prefix).parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        rustix::fs::access(dir, rustix::fs::Access::WRITE_OK).map_err(|e| {
            let e = io::Error::from(e);
            io::Error::new(
                e.kind(),
                format!("latency files {prefix}-*: {}: {e}", dir.display()),
            )
        })?;
        Ok(LatencyFiles {
            prefix: prefix.to_string(),
            all_ranks,
        })
    }
}

impl LogSink for LatencyFiles {}

impl MdwSink for LatencyFiles {
    /// Writes each of the phase's files; one that fails does not keep the
    /// others from being written (the first failure is the warning).
    fn phase_times(&mut self, t: &PhaseTimes<'_>) -> io::Result<()> {
        let mut outcome = Ok(());
        for (name, op) in kinds(t.phase, t.read_only) {
            let ranks = if self.all_ranks {
                &t.times[..]
            } else {
                &t.times[..1]
            };
            let path = file_name(
                &self.prefix,
                self.all_ranks,
                t.waiting_factor,
                t.iteration,
                name,
            );
            let text = csv(ranks.iter().map(|r| &r[op as usize]));
            let written = std::fs::write(&path, text)
                .map_err(|e| io::Error::new(e.kind(), format!("latency file {path}: {e}")));
            outcome = outcome.and(written);
        }
        outcome
    }
}

/// `PREFIX-<factor>-<iteration>-<name>[-all].csv`.
fn file_name(prefix: &str, all_ranks: bool, factor: f64, iteration: u64, op: &str) -> String {
    let all = if all_ranks { "-all" } else { "" };
    format!("{prefix}-{factor:.2}-{iteration}-{op}{all}.csv")
}

/// The files of a phase: the name md-workbench gives each, and the
/// operations it holds.
pub fn kinds(phase: &str, read_only: bool) -> Vec<(&'static str, OpKind)> {
    match phase {
        "precreate" => vec![("precreate", OpKind::Create)],
        "cleanup" => vec![("cleanup", OpKind::Delete)],
        _ if read_only => vec![("read", OpKind::Read), ("stat", OpKind::Stat)],
        _ => vec![
            ("read", OpKind::Read),
            ("stat", OpKind::Stat),
            ("create", OpKind::Create),
            ("delete", OpKind::Delete),
        ],
    }
}

/// `time,runtime`, then each operation's start in the phase (`%.7f`) and
/// duration (`%.4e`).
fn csv<'a>(ranks: impl Iterator<Item = &'a OpTimes>) -> String {
    let mut text = String::from("time,runtime\n");
    for r in ranks {
        for (start, took) in r.starts.iter().zip(&r.durations) {
            let _ = writeln!(text, "{:.7},{}", *start as f64, c_exp(*took as f64, 4));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_lines_are_md_workbenchs() {
        assert_eq!(
            file_name("/x/lat", false, 0.0625, 2, "stat"),
            "/x/lat-0.06-2-stat.csv"
        );
        assert_eq!(
            file_name("/x/lat", true, 1.0, 0, "precreate"),
            "/x/lat-1.00-0-precreate-all.csv"
        );
        let r = OpTimes {
            durations: vec![2.1458e-06, 9.5367e-07],
            starts: vec![0.0, 0.00002],
        };
        assert_eq!(
            csv([&r].into_iter()),
            "time,runtime\n0.0000000,2.1458e-06\n0.0000200,9.5367e-07\n"
        );
    }
}
