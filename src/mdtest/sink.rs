//! mdtest's events (`MdtestSink`) and the sinks of its extra files
//! (`--saveRankPerformanceDetails`, `--latencyHistogramFile`), which write
//! from them.

use std::io;

use hdrhistogram::Histogram;

use super::report::{IterationReport, MdtestReport, SweepReport};
use super::results::Op;
use super::text::c_exp;
use crate::output::{LogSink, NotesOnly, Outputs};
use crate::run::files::{CsvFile, HISTOGRAM_COLUMNS};

/// An iteration as its sinks see it: its report and each operation's merged
/// latency histogram.
pub struct IterationDone<'a> {
    /// The tasks of the sweep step.
    pub tasks: usize,
    pub report: &'a IterationReport,
    /// Per operation (in [`super::results::Op::ALL`] order), when recorded.
    pub latency: &'a [Option<Histogram<u64>>],
}

/// Rank 0's outputs (none on other ranks): the text and the sinks of the
/// extra files.
pub type Out = Outputs<dyn MdtestSink>;

/// What the runner tells its outputs on rank 0, in order.
pub trait MdtestSink: LogSink + Send {
    /// The header: start stamp, command line, warnings, path and file system.
    fn run_started(&mut self, _report: &MdtestReport) -> io::Result<()> {
        Ok(())
    }
    /// A sweep step starts: `2 tasks, 400 files/directories`.
    fn sweep_started(&mut self, _tasks: usize, _total: u64, _kind: &str) -> io::Result<()> {
        Ok(())
    }
    fn iteration_done(&mut self, _iteration: &IterationDone<'_>) -> io::Result<()> {
        Ok(())
    }
    /// The summary tables of a sweep step.
    fn sweep_done(&mut self, _sweep: &SweepReport, _report: &MdtestReport) -> io::Result<()> {
        Ok(())
    }
    /// The complete run.
    fn run_done(&mut self, _report: &MdtestReport) -> io::Result<()> {
        Ok(())
    }
}

impl MdtestSink for NotesOnly {}

/// `--saveRankPerformanceDetails`: per iteration, a row `all` (the phase
/// rates and times) and a row per task (its own rate and time before the
/// closing barrier), a rate and a time column per operation. Phases that
/// did not run leave their two cells empty.
pub struct RankDetails(CsvFile);

impl RankDetails {
    pub fn open(path: &str) -> io::Result<RankDetails> {
        let mut head = String::from("rank,iteration,items");
        for op in Op::ALL {
            head.push_str(&format!(",rate-{0},time-{0}", op.name()));
        }
        Ok(RankDetails(CsvFile::create(path, &head)?))
    }
}

/// The two cells of an operation.
fn cells(ran: bool, rate: f64, time: f64) -> String {
    match ran {
        true => format!(",{},{}", c_exp(rate, 10), c_exp(time, 10)),
        false => ",,".to_string(),
    }
}

impl LogSink for RankDetails {}

impl MdtestSink for RankDetails {
    fn sweep_done(&mut self, sweep: &SweepReport, _: &MdtestReport) -> io::Result<()> {
        for it in &sweep.iterations {
            let mut line = format!("all,{},{}", it.iteration, sweep.total_items);
            for op in Op::ALL {
                line.push_str(&match it.phases.iter().find(|p| p.operation == op.name()) {
                    Some(p) => cells(true, p.rate, p.time_s),
                    None => cells(false, 0.0, 0.0),
                });
            }
            self.0.line(&line)?;
            for (rank, task) in it.tasks.iter().enumerate() {
                let items = task.iter().map(|s| s.items).max().unwrap_or(0);
                let mut line = format!("{rank},{},{items}", it.iteration);
                for op in Op::ALL {
                    let s = task[op as usize];
                    let ran = s.ran && !op.is_tree();
                    line.push_str(&cells(ran, s.own_rate(), s.time_before_barrier));
                }
                self.0.line(&line)?;
            }
        }
        self.0.flush()
    }
}

/// `--latencyHistogramFile`: every phase's merged distribution.
pub struct LatencyHistograms(CsvFile);

impl LatencyHistograms {
    pub fn open(path: &str) -> io::Result<LatencyHistograms> {
        let header = format!("tasks,operation,iteration,{HISTOGRAM_COLUMNS}");
        Ok(LatencyHistograms(CsvFile::create(path, &header)?))
    }
}

impl LogSink for LatencyHistograms {}

impl MdtestSink for LatencyHistograms {
    fn iteration_done(&mut self, it: &IterationDone<'_>) -> io::Result<()> {
        for (op, h) in Op::ALL.iter().zip(it.latency) {
            if let Some(h) = h.as_ref().filter(|h| !h.is_empty()) {
                let key = format!("{},{},{}", it.tasks, op.name(), it.report.iteration);
                self.0.histogram(&key, h)?;
            }
        }
        Ok(())
    }
}
