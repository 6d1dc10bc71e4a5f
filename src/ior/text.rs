//! IOR 4's text layout, byte for byte where parsers look: the `%-20s: %s`
//! header lines, the Options block, the Results table, `Max Write:`/`Max Read:`
//! (printed always, as IOR 3 did), "Summary of all tests" and "Finished".

use std::io;

use super::report::{RunReport, SummaryRow, SweepStep, TestReport};
use super::results::{PhaseResult, TaskSpread};
use super::sink::{IorSink, PhaseDone};
use super::stonewall_result::StonewallResult;
use super::sweep::scaling_text;
use super::Ior;
use crate::latency::Percentiles;
use crate::output::{key_value, TextSink};
use crate::pagecache::CacheReport;
use crate::units::table_cell;

pub const TABLE_HEADER: &str = "access    bw(MiB/s)  IOPS       Latency(s)  block(KiB) xfer(KiB)  open(s)    wr/rd(s)   close(s)   total(s)   iter\n\
------    ---------  ----       ----------  ---------- ---------  --------   --------   --------   --------   ----\n";

/// One Results row.
pub fn result_row(r: &PhaseResult) -> String {
    let mut line = format!("{:<10}", r.access);
    for v in r.table_values() {
        line.push_str(&table_cell(v));
        line.push(' ');
    }
    // IOR's Latency(s) column is one character wider than the others.
    let latency_end = 10 + 3 * 11;
    line.insert(latency_end, ' ');
    line.push_str(&format!("{:<4}\n", r.iteration));
    line
}

/// The `remove` row (verbose runs).
pub fn remove_row(seconds: f64, iteration: u64) -> String {
    let mut line = format!("{:<10}", "remove");
    for _ in 0..8 {
        line.push_str(&format!("{:<11}", "-"));
    }
    line.push_str(&table_cell(seconds));
    line.push(' ');
    line.push_str(&format!("{iteration:<4}\n"));
    line
}

pub fn summary_header() -> String {
    let mut h = format!(
        "{:<9} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10} {:>10}",
        "Operation",
        "Max(MiB)",
        "Min(MiB)",
        "Mean(MiB)",
        "StdDev",
        "Max(OPs)",
        "Min(OPs)",
        "Mean(OPs)",
        "StdDev",
        "Mean(s)"
    );
    h.push_str(" Stonewall(s) Stonewall(MiB)");
    h.push_str(" Test# #Tasks tPN reps fPP reord reordoff reordrand seed segcnt ");
    h.push_str(&format!(
        "{:>8} {:>8} {:>9} {:>5}",
        " blksiz", "xsize", "aggs(MiB)", "API"
    ));
    h.push_str(" RefNum\n");
    h
}

pub fn summary_row(s: &SummaryRow) -> String {
    let mut l = format!("{:<9} ", s.operation);
    for v in [
        s.bw_max, s.bw_min, s.bw_mean, s.bw_std, s.ops_max, s.ops_min, s.ops_mean, s.ops_sd,
    ] {
        l.push_str(&format!("{v:>10.2} "));
    }
    l.push_str(&format!("{:>10.5} ", s.mean_time));
    match (s.stonewall_time, s.stonewall_bw_mean) {
        (Some(t), Some(bw)) => l.push_str(&format!("{t:>10.2} {bw:>13.2} ")),
        _ => l.push_str(&format!("{:>10} {:>13} ", "NA", "NA")),
    }
    l.push_str(&format!(
        "{:>5} {:>6} {:>3} {:>4} {:>3} {:>5} {:>8} {:>9} {:>4} {:>6} {:>8} {:>8} {:>9.1} {:>3} {:>6}\n",
        s.test_id,
        s.num_tasks,
        s.tasks_per_node,
        s.repetitions,
        s.file_per_proc,
        s.reorder_tasks,
        s.task_per_node_offset,
        s.reorder_tasks_random,
        s.reorder_tasks_random_seed,
        s.segment_count,
        s.block_size,
        s.transfer_size,
        s.xsize_mib,
        s.api,
        s.reference_number
    ));
    l
}

/// Width of the label column of the explanation block.
const LABEL: usize = 26;

fn cells(values: &[f64]) -> String {
    values
        .iter()
        .map(|v| format!("{} ", table_cell(*v)))
        .collect::<String>()
        .trim_end()
        .to_string()
}

/// What explains the numbers of a test, printed after its Results table (never
/// inside it, so IOR parsers are unaffected; no line starts with `write` or
/// `read`): latency percentiles, the fastest and slowest task, stonewalling,
/// the page cache.
pub fn explanation_block(test: &TestReport) -> String {
    let r = &test.results;
    let latency_head = format!(
        "{:<LABEL$}{:<11}{:<11}{:<11}{:<11}{:<11}{:<11}{}\n",
        "Latency per transfer (s):", "count", "min", "p50", "p90", "p99", "p99.9", "max"
    );
    let spread_head = format!(
        "{:<LABEL$}{:<11}{:<11}{:<11}{:<11}{:<11}{:<11}{}\n",
        "Task times (s):",
        "open min",
        "open max",
        "xfer min",
        "xfer max",
        "close min",
        "close max",
        "slowest task"
    );
    [
        section(
            r,
            |r| r.latency_percentiles.as_ref(),
            &latency_head,
            latency_row,
        ),
        section(r, |r| r.spread.as_ref(), &spread_head, spread_row),
        section(
            r,
            |r| r.stonewall.as_ref(),
            "Stonewalling:\n",
            stonewall_row,
        ),
        section(r, |r| r.page_cache.as_ref(), "Page cache:\n", cache_row),
        mix_section(r),
    ]
    .concat()
}

/// A part of the block: `head`, then a row for each phase that has `part`
/// (nothing when none has).
fn section<X>(
    results: &[PhaseResult],
    part: impl Fn(&PhaseResult) -> Option<&X>,
    head: &str,
    row: fn(&str, &X) -> String,
) -> String {
    let mut t = String::new();
    for r in results {
        if let Some(x) = part(r) {
            if t.is_empty() {
                t.push_str(head);
            }
            t.push_str(&row(&format!("  {}-{}", r.access, r.iteration), x));
        }
    }
    t
}

/// Drawn phases: reads and writes each with their own figures (never only
/// the blended row), and their latency percentiles.
fn mix_section(results: &[PhaseResult]) -> String {
    let mut t = String::new();
    for r in results {
        let Some(m) = &r.mix else { continue };
        if t.is_empty() {
            t.push_str(&format!(
                "{:<LABEL$}{:<11}{:<11}{:<11}{:<11}{:<11}{:<11}{}\n",
                "Mixed access (per kind):",
                "ops",
                "bw(MiB/s)",
                "IOPS",
                "p50(s)",
                "p99(s)",
                "max(s)",
                "share of ops"
            ));
        }
        for (kind, k) in [("read", &m.read), ("write", &m.write)] {
            if k.ops == 0 && r.access != "mixed" {
                continue;
            }
            let share = match kind {
                "read" => m.read_pct_ops,
                _ => 100.0 - m.read_pct_ops,
            };
            let p = k.latency_percentiles.as_ref();
            let lat = |f: fn(&Percentiles) -> f64| p.map_or("-".to_string(), |p| table_cell(f(p)));
            t.push_str(&format!(
                "{:<LABEL$}{:<11}{:<11}{:<11}{:<11}{:<11}{:<11}{share:.1} %\n",
                format!("  {}-{} {kind}", r.access, r.iteration),
                k.ops,
                table_cell(k.bw_mib),
                table_cell(k.iops),
                lat(|p| p.p50),
                lat(|p| p.p99),
                lat(|p| p.max),
            ));
        }
        let mut asked = format!("  rwmixRead={}", m.asked_read_pct);
        if let Some(d) = &m.distribution {
            asked.push_str(&format!(" randomDistribution={d}"));
        }
        if let Some(s) = &m.split {
            asked.push_str(&format!(" transferSizeSplit={s}"));
        }
        t.push_str(&format!(
            "{asked}: reads were {:.1} % of operations, {:.1} % of bytes\n",
            m.read_pct_ops, m.read_pct_bytes
        ));
    }
    t
}

fn latency_row(label: &str, p: &Percentiles) -> String {
    let values = cells(&[p.min, p.p50, p.p90, p.p99, p.p999, p.max]);
    format!("{label:<LABEL$}{:<11}{values}\n", p.count)
}

fn spread_row(label: &str, s: &TaskSpread) -> String {
    let values = cells(&[
        s.open_min,
        s.open_max,
        s.xfer_min,
        s.xfer_max,
        s.close_min,
        s.close_max,
    ]);
    let slowest = table_cell(s.total_max);
    format!(
        "{label:<LABEL$}{values} task {} ({} s)\n",
        s.slowest,
        slowest.trim_end()
    )
}

fn stonewall_row(label: &str, w: &StonewallResult) -> String {
    let verdict = match w.hit {
        true => format!(
            "stopped at the deadline after {:.2} s, {} to {} transfers per task",
            w.time, w.pairs_min, w.pairs_max
        ),
        false => format!(
            "finished every transfer before the deadline ({:.2} s)",
            w.time
        ),
    };
    format!("{label:<LABEL$}{verdict}\n")
}

fn cache_row(label: &str, c: &CacheReport) -> String {
    let mut t = format!("{label:<LABEL$}{}\n", c.describe());
    if let Some(w) = &c.warning {
        t.push_str(&format!("{w}\n"));
    }
    t
}

/// The streaming text output.
pub type IorText = TextSink<Ior>;

impl IorSink for TextSink<Ior> {
    fn run_started(&mut self, r: &RunReport) -> io::Result<()> {
        let r = &r.header;
        let mut t = format!("IOR-{}: MPI Coordinated Test of Parallel I/O\n", r.version);
        t.push_str(&key_value("Began", &r.began));
        t.push_str(&key_value("Command line", &r.command_line));
        t.push_str(&key_value("Machine", &r.machine));
        if let Some(library) = &r.pario.mpi_library {
            t.push_str(&key_value("MPI library", library));
        }
        if let Some(job) = &r.pario.job {
            t.push_str(&key_value("Job", &job.describe()));
        }
        self.emit(&t)
    }

    fn step_started(&mut self, s: &SweepStep) -> io::Result<()> {
        self.emit(&format!(
            "Sweep step {} of {}: {} nodes, {} tasks\n",
            s.step, s.steps, s.nodes, s.tasks
        ))
    }

    fn test_started(&mut self, test: &TestReport) -> io::Result<()> {
        let mut t = key_value("TestID", &test.test_id.to_string());
        t.push_str(&key_value("StartTime", &test.start_time));
        t.push_str(&key_value("Path", &test.path));
        if let Some(fs) = &test.fs {
            t.push_str(&key_value("FS", &fs.text()));
        }
        t.push_str("\nOptions: \n");
        for (k, v) in test.options.lines() {
            t.push_str(&key_value(k, &v));
        }
        let verifies = test.parameters.check_write != 0 || test.parameters.check_read != 0;
        if self.verbose >= 1 && verifies {
            t.push_str(&key_value(
                "Verification kernel",
                crate::pattern::Kernel::chosen().name(),
            ));
        }
        t.push_str("\nResults: \n\n");
        t.push_str(TABLE_HEADER);
        self.emit(&t)
    }

    fn phase_done(&mut self, phase: &PhaseDone<'_>) -> io::Result<()> {
        let r = phase.row;
        self.emit(&result_row(r))?;
        match &r.interrupted {
            Some(signal) => self.emit(&format!(
                "interrupted by {signal}: the {}-{} row above covers the transfers made until then\n",
                r.access, r.iteration
            )),
            None => Ok(()),
        }
    }

    fn removed(&mut self, seconds: f64, iteration: u64) -> io::Result<()> {
        if self.verbose >= 1 {
            self.emit(&remove_row(seconds, iteration))?;
        }
        Ok(())
    }

    fn test_done(&mut self, test: &TestReport) -> io::Result<()> {
        let mut t = String::new();
        if let (Some(mib), Some(mb)) = (test.max.write_mib, test.max.write_mb) {
            t.push_str(&format!("Max Write: {mib:.2} MiB/sec ({mb:.2} MB/sec)\n"));
        }
        if let (Some(mib), Some(mb)) = (test.max.read_mib, test.max.read_mb) {
            t.push_str(&format!("Max Read:  {mib:.2} MiB/sec ({mb:.2} MB/sec)\n"));
        }
        let block = explanation_block(test);
        if !block.is_empty() {
            t.push('\n');
            t.push_str(&block);
        }
        t.push('\n');
        self.emit(&t)
    }

    fn run_done(&mut self, r: &RunReport) -> io::Result<()> {
        let mut t = String::new();
        if !r.summary.is_empty() {
            t.push_str("Summary of all tests:\n");
            t.push_str(&summary_header());
            for row in &r.summary {
                t.push_str(&summary_row(row));
            }
        }
        if !r.scaling.is_empty() {
            t.push('\n');
            t.push_str(&scaling_text(&r.scaling));
        }
        t.push_str(&key_value("Finished", &r.finished));
        self.emit(&t)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::MIB;

    #[test]
    fn table_header_is_iors() {
        let sample = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/sample-ior-output.txt"
        ))
        .unwrap();
        assert!(sample.contains(TABLE_HEADER));
        assert!(sample.contains(&summary_header()));
    }

    #[test]
    fn rows_match_the_sample() {
        let r = PhaseResult {
            access: "write",
            bw_mib: 3529.68,
            iops: 3534.93,
            latency: 0.000566,
            block_kib: 16384.0,
            xfer_kib: 1024.0,
            open: 0.000026,
            wr_rd: 0.018105,
            close: 0.003534,
            total: 0.018132,
            iteration: 0,
            bytes: 0,
            transfers: 0,
            tasks: 2,
            stonewall: None,
            latency_percentiles: None,
            spread: None,
            page_cache: None,
            interrupted: None,
            mix: None,
            retries: None,
            timeline: None,
        };
        assert_eq!(
            result_row(&r),
            "write     3529.68    3534.93    0.000566    16384      1024.00    0.000026   0.018105   0.003534   0.018132   0   \n"
        );
    }

    #[test]
    fn summary_row_matches_the_sample() {
        let s = SummaryRow {
            operation: "write".into(),
            api: "POSIX".into(),
            test_id: 0,
            reference_number: 0,
            segment_count: 2,
            block_size: 16 * MIB,
            transfer_size: MIB,
            num_tasks: 2,
            tasks_per_node: 2,
            repetitions: 2,
            file_per_proc: 1,
            reorder_tasks: 1,
            task_per_node_offset: 1,
            reorder_tasks_random: 0,
            reorder_tasks_random_seed: 0,
            bw_max: 3529.68,
            bw_min: 1184.92,
            bw_mean: 2357.30,
            bw_std: 1172.38,
            ops_max: 3529.68,
            ops_min: 1184.92,
            ops_mean: 2357.30,
            ops_sd: 1172.38,
            mean_time: 0.03607,
            stonewall_time: None,
            stonewall_bw_mean: None,
            xsize_mib: 64.0,
        };
        let sample = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/sample-ior-output.txt"
        ))
        .unwrap();
        assert!(sample.contains(&summary_row(&s)), "{}", summary_row(&s));
    }

    #[test]
    fn remove_row_layout() {
        assert_eq!(
            remove_row(0.97326, 0),
            "remove    -          -          -          -          -          -          -          -          0.973260   0   \n"
        );
    }
}
