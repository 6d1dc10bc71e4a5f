//! What the ior runner tells its outputs on rank 0, in order, and the sinks
//! of the extra files (`saveRankPerformanceDetailsCSV`,
//! `latencyHistogramFile`), which write from those events.

use std::collections::BTreeMap;
use std::io;

use hdrhistogram::Histogram;

use super::params::IorParams;
use super::report::{RunReport, SweepStep, TestReport};
use super::results::PhaseResult;
use super::task_times::TaskTimes;
use crate::output::{LogSink, NotesOnly, Outputs};
use crate::run::files::{CsvFile, HISTOGRAM_COLUMNS};
use crate::units::MIB;

/// A phase as its sinks see it: the row, every task's times and the merged
/// latency histogram.
pub struct PhaseDone<'a> {
    /// The test it belongs to.
    pub test: usize,
    pub row: &'a PhaseResult,
    /// Every task's record, in rank order (inactive tasks included).
    pub tasks: &'a [TaskTimes],
    pub latency: Option<&'a Histogram<u64>>,
    /// A drawn phase's reads and writes apart (`rwmixRead`, ...), merged.
    pub kinds: Option<&'a [Histogram<u64>; 2]>,
}

/// Rank 0's outputs (none on other ranks): the text and the sinks of the
/// extra files.
pub type Out = Outputs<dyn IorSink>;

/// The events of an ior run. Every method has an empty default, so a sink
/// implements only what it writes.
pub trait IorSink: LogSink + Send {
    /// Header of the run (before any test).
    fn run_started(&mut self, _report: &RunReport) -> io::Result<()> {
        Ok(())
    }
    /// A sweep step starts (before its test's header).
    fn step_started(&mut self, _step: &SweepStep) -> io::Result<()> {
        Ok(())
    }
    /// A test's header, options and table header.
    fn test_started(&mut self, _test: &TestReport) -> io::Result<()> {
        Ok(())
    }
    fn phase_done(&mut self, _phase: &PhaseDone<'_>) -> io::Result<()> {
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

/// The header of the rank details file.
const RANK_COLUMNS: &str = "access,iteration,rank,open_start,open_end,xfer_start,xfer_end,close_start,close_end,bytes,transfers,bw_mib_s";

/// A file per test, as each test names it (a script may name several, or
/// the same for several tests).
struct TestFiles {
    files: BTreeMap<String, CsvFile>,
    by_test: Vec<Option<String>>,
}

impl TestFiles {
    /// Creates every file the tests name (`path` of each test's
    /// parameters); `None` when none does.
    fn open(
        tests: &[&IorParams],
        path: fn(&IorParams) -> &Option<String>,
        header: &str,
    ) -> io::Result<Option<TestFiles>> {
        let by_test: Vec<Option<String>> = tests.iter().map(|p| path(p).clone()).collect();
        let mut files = BTreeMap::new();
        for path in by_test.iter().flatten() {
            if !files.contains_key(path) {
                files.insert(path.clone(), CsvFile::create(path, header)?);
            }
        }
        Ok((!files.is_empty()).then_some(TestFiles { files, by_test }))
    }

    /// The file of test `id`, if it has one.
    fn of(&mut self, id: usize) -> Option<&mut CsvFile> {
        let path = self.by_test.get(id)?.as_ref()?;
        self.files.get_mut(path)
    }
}

/// `saveRankPerformanceDetailsCSV`: a row per task and phase.
pub struct RankDetails(TestFiles);

impl RankDetails {
    pub fn open(tests: &[&IorParams]) -> io::Result<Option<RankDetails>> {
        fn path(p: &IorParams) -> &Option<String> {
            &p.output.save_rank_details_csv
        }
        Ok(TestFiles::open(tests, path, RANK_COLUMNS)?.map(RankDetails))
    }
}

impl LogSink for RankDetails {}

impl IorSink for RankDetails {
    fn phase_done(&mut self, phase: &PhaseDone<'_>) -> io::Result<()> {
        let Some(file) = self.0.of(phase.test) else {
            return Ok(());
        };
        let (access, rep) = (phase.row.access, phase.row.iteration);
        for (rank, t) in phase.tasks.iter().enumerate().filter(|(_, t)| t.active) {
            let total = t.close_end - t.open_start;
            file.line(&format!(
                "{access},{rep},{rank},{:.9},{:.9},{:.9},{:.9},{:.9},{:.9},{},{},{:.6}",
                t.open_start,
                t.open_end,
                t.xfer_start,
                t.xfer_end,
                t.close_start,
                t.close_end,
                t.bytes,
                t.transfers,
                t.bytes as f64 / MIB as f64 / total
            ))?;
        }
        file.flush()
    }
}

/// `latencyHistogramFile`: every phase's merged distribution.
pub struct LatencyHistograms(TestFiles);

impl LatencyHistograms {
    pub fn open(tests: &[&IorParams]) -> io::Result<Option<LatencyHistograms>> {
        let header = format!("test,access,iteration,{HISTOGRAM_COLUMNS}");
        fn path(p: &IorParams) -> &Option<String> {
            &p.output.latency_file
        }
        Ok(TestFiles::open(tests, path, &header)?.map(LatencyHistograms))
    }
}

impl LogSink for LatencyHistograms {}

impl IorSink for LatencyHistograms {
    /// The phase's distribution under its access; a drawn phase's is its
    /// kinds' together, and a mixed phase's kinds also have rows of their
    /// own (`mixed.read`, `mixed.write`).
    fn phase_done(&mut self, phase: &PhaseDone<'_>) -> io::Result<()> {
        let Some(file) = self.0.of(phase.test) else {
            return Ok(());
        };
        let row = phase.row;
        let key = |access: &str| format!("{},{access},{}", phase.test, row.iteration);
        let both = phase.kinds.map(|[read, write]| {
            let mut both = read.clone();
            let _ = both.add(write);
            both
        });
        if let Some(h) = phase.latency.or(both.as_ref()) {
            file.histogram(&key(row.access), h)?;
        }
        if let (Some([read, write]), true) = (phase.kinds, row.mix.is_some()) {
            for (kind, h) in [("read", read), ("write", write)] {
                if row.access == "mixed" && !h.is_empty() {
                    file.histogram(&key(&format!("{}.{kind}", row.access)), h)?;
                }
            }
        }
        Ok(())
    }
}
