//! mdtest's text layout: the `-- started at` header, `N tasks, M files`, the
//! `SUMMARY rate (in ops/sec)` table (and with `-P`/`-Z` the time table, whose
//! unit pario states: seconds per phase) and `-- finished at`.

use std::io;

use super::report::{Interruption, IterationReport, MdtestReport, SweepReport, Table, TextOptions};
use super::results::{Op, SummaryRow};
use super::sink::{IterationDone, MdtestSink};
use super::Mdtest;
use crate::latency::Percentiles;
use crate::output::{key_value, TextSink};
use crate::units::table_cell;

/// The header up to the first sweep step.
pub fn header(r: &MdtestReport) -> String {
    let h = &r.header;
    let mut t = format!("-- started at {} --\n\n", h.began);
    t.push_str(&format!(
        "mdtest-{} was launched with {} total task(s) on {} node(s)\n",
        h.version, h.pario.tasks, h.pario.nodes
    ));
    t.push_str(&format!("Command line used: {}\n", h.command_line));
    t.push_str(&h.pario.header_lines());
    for w in &r.warnings {
        t.push_str(&format!("{w}\n"));
    }
    t.push_str(&format!("Nodemap: {}\n", r.nodemap));
    t.push_str(&key_value("Path", &r.path));
    if let Some(fs) = &r.fs {
        t.push_str(&key_value("FS", &fs.text()));
    }
    t
}

/// The title line of a table.
pub fn table_title(table: Table, iterations: u64) -> String {
    match table {
        Table::Rate => format!("\nSUMMARY rate (in ops/sec): (of {iterations} iterations)\n"),
        Table::Time => format!("\nSUMMARY time (in seconds): (of {iterations} iterations)\n"),
    }
}

/// The two header lines of a table, as mdtest prints them.
pub fn table_header(per_rank: bool) -> String {
    let mut t = String::from("   Operation     ");
    if per_rank {
        t.push_str("per Rank: Max            Min           Mean      per Iteration:");
    } else {
        t.push_str("               ");
    }
    t.push_str(" Max            Min           Mean        Std Dev\n");
    t.push_str("   ---------      ");
    if per_rank {
        t.push_str("         ---            ---           ----       ");
    }
    t.push_str("               ---            ---           ----        -------\n");
    t
}

/// One row of a table.
pub fn table_row(row: &SummaryRow, table: Table, per_rank: bool) -> String {
    let (it, task) = table.stats(row);
    let tree = Op::ALL
        .iter()
        .any(|op| op.is_tree() && op.name() == row.operation);
    let mut t = if tree {
        format!("   {:<22} ", row.operation)
    } else {
        format!("   {:<18} ", row.operation)
    };
    if per_rank {
        let s = if tree { it } else { task };
        t.push_str(&format!(
            "{:14.3} {:14.3} {:14.3}     ",
            s.max, s.min, s.mean
        ));
    }
    if !tree {
        t.push_str("    ");
    }
    t.push_str(&format!(
        "{:14.3} {:14.3} {:14.3} {:14.3}\n",
        it.max, it.min, it.mean, it.stddev
    ));
    t
}

/// A whole table.
pub fn table(sweep: &SweepReport, table: Table, o: &TextOptions) -> String {
    let mut t = table_title(table, o.iterations);
    t.push_str(&table_header(o.show_rank_statistics));
    for row in &sweep.table {
        t.push_str(&table_row(row, table, o.show_rank_statistics));
    }
    t
}

pub use crate::units::c_exp;

/// `--print-all-procs`: every task's own rate or time, per iteration.
pub fn per_process(sweep: &SweepReport, table: Table) -> String {
    let what = match table {
        Table::Rate => "rate",
        Table::Time => "time",
    };
    let mut t = format!("\nPer process result ({what}):\n");
    for it in &sweep.iterations {
        t.push_str(&format!("iteration: {}\n", it.iteration));
        for row in &sweep.table {
            let Some(op) = Op::ALL.iter().find(|op| op.name() == row.operation) else {
                continue;
            };
            t.push_str(&format!("Test {}", op.name()));
            for (k, task) in it.tasks.iter().enumerate() {
                let s = task[*op as usize];
                let v = match table {
                    Table::Rate => s.own_rate(),
                    Table::Time => s.time_before_barrier,
                };
                t.push(if k == 0 { ' ' } else { ',' });
                t.push_str(&c_exp(v, 6));
            }
            t.push('\n');
        }
    }
    t
}

/// The tables of a sweep step, as `-P`/`-Z` select them.
pub fn summary(sweep: &SweepReport, o: &TextOptions) -> String {
    let tables: &[Table] = if o.print_rate_and_time {
        &[Table::Rate, Table::Time]
    } else if o.print_time {
        &[Table::Time]
    } else {
        &[Table::Rate]
    };
    let mut t = String::new();
    for &which in tables {
        if o.print_all_procs {
            t.push_str(&per_process(sweep, which));
        }
        t.push_str(&table(sweep, which, o));
    }
    t.push_str(&latency_block(sweep));
    if sweep.verification_errors > 0 {
        t.push_str(&format!(
            "\nERROR: verifying the data on read ({} errors)! Take the performance values with care!\n\n",
            sweep.verification_errors
        ));
    }
    t
}

/// The latency percentiles of every operation of every iteration, after the
/// tables. Labels join the operation and the iteration with `#` so that no
/// line reads like a row of the SUMMARY tables to a parser.
pub fn latency_block(sweep: &SweepReport) -> String {
    let rows: Vec<(String, Percentiles)> = sweep
        .iterations
        .iter()
        .flat_map(|it| {
            it.phases.iter().filter_map(move |p| {
                p.latency
                    .map(|l| (format!("   {}#{}", p.operation, it.iteration), l))
            })
        })
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut t = format!(
        "\n{:<28}{:<11}{:<11}{:<11}{:<11}{:<11}{:<11}{}\n",
        "Latency per operation (s):", "count", "min", "p50", "p90", "p99", "p99.9", "max"
    );
    for (label, l) in rows {
        let cells: String = [l.min, l.p50, l.p90, l.p99, l.p999, l.max]
            .iter()
            .map(|v| format!("{} ", table_cell(*v)))
            .collect();
        t.push_str(&format!("{label:<28}{:<11}{}\n", l.count, cells.trim_end()));
    }
    t
}

/// The verbose per-iteration lines (`-v`).
pub fn iteration_lines(it: &IterationReport) -> String {
    let mut t = String::new();
    for p in &it.phases {
        t.push_str(&format!(
            "V-1: Rank   0    {:<18}: {:14.3} sec, {:14.3} ops/sec\n",
            p.operation, p.time_s, p.rate
        ));
    }
    if let Some(s) = &it.stonewall {
        t.push_str(&format!(
            "V-1: Rank   0    File creation (stonewall): {:14.3} sec, {:14.3} ops/sec\n",
            s.time_s,
            if s.time_s > 0.0 {
                s.items_sum as f64 / s.time_s
            } else {
                0.0
            }
        ));
    }
    t
}

/// The line after the summary of a sweep step a signal stopped.
pub fn interrupted_line(i: &Interruption, iterations: u64) -> String {
    let it = format!("{} of {iterations}", i.iteration + 1);
    match i.operation {
        Some(op) => format!(
            "interrupted by {} in iteration {it}, {op}: the figures above cover the items handled until then\n",
            i.signal
        ),
        None => format!(
            "interrupted by {} in iteration {it}: the figures above cover the phases that ran until then\n",
            i.signal
        ),
    }
}

/// The streaming text output.
pub type MdtestText = TextSink<Mdtest>;

impl MdtestSink for TextSink<Mdtest> {
    fn run_started(&mut self, r: &MdtestReport) -> io::Result<()> {
        self.emit(&header(r))
    }

    fn sweep_started(&mut self, tasks: usize, total: u64, kind: &str) -> io::Result<()> {
        if kind == "1 file" {
            self.emit(&format!("{tasks} tasks, 1 file\n"))
        } else {
            self.emit(&format!("{tasks} tasks, {total} {kind}\n"))
        }
    }

    fn iteration_done(&mut self, it: &IterationDone<'_>) -> io::Result<()> {
        if self.verbose >= 1 {
            self.emit(&iteration_lines(it.report))?;
        }
        // Never hidden: the waits of requests sent again are in the time.
        for p in &it.report.phases {
            if let Some(n @ 1..) = p.retries {
                self.emit(&format!(
                    "WARNING: {} (iteration {}): {n} requests were sent again after HTTP 500 \
                     or 503 (SlowDown); the phase's time includes their waits\n",
                    p.operation, it.report.iteration
                ))?;
            }
        }
        Ok(())
    }

    fn sweep_done(&mut self, sweep: &SweepReport, report: &MdtestReport) -> io::Result<()> {
        self.emit(&summary(sweep, &report.text))?;
        match &sweep.interrupted {
            Some(i) => self.emit(&interrupted_line(i, report.text.iterations)),
            None => Ok(()),
        }
    }

    fn run_done(&mut self, r: &MdtestReport) -> io::Result<()> {
        if r.error.is_none() {
            self.emit(&format!("-- finished at {} --\n\n", r.finished))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::Stats;

    const SAMPLE: &str = include_str!("../../tests/data/sample-mdtest-output.txt");

    fn row(op: Op, max: f64, min: f64, mean: f64, sd: f64) -> SummaryRow {
        SummaryRow {
            operation: op.name(),
            ran: true,
            rate: Stats {
                max,
                min,
                mean,
                stddev: sd,
            },
            time_s: Stats::default(),
            task_rate: Stats::default(),
            task_time_s: Stats::default(),
        }
    }

    #[test]
    fn the_table_matches_mdtests_layout() {
        assert!(SAMPLE.contains(&table_title(Table::Rate, 2)));
        assert!(SAMPLE.contains(&table_header(false)));
        let dir = row(Op::DirCreate, 264208.126, 72713.631, 168460.878, 135407.056);
        assert!(SAMPLE.contains(&table_row(&dir, Table::Rate, false)));
        let tree = row(Op::TreeRemove, 110376.421, 66576.254, 88476.338, 30971.395);
        assert!(SAMPLE.contains(&table_row(&tree, Table::Rate, false)));
    }

    #[test]
    fn per_rank_columns_widen_the_table() {
        let h = table_header(true);
        let lines: Vec<&str> = h.lines().collect();
        assert_eq!(lines[0].find("Max").unwrap(), 27);
        let r = row(Op::FileStat, 3.0, 2.0, 2.5, 0.5);
        let line = table_row(&r, Table::Rate, true);
        // Operation, three per-rank columns, four per-iteration columns.
        assert_eq!(line.split_whitespace().count(), 2 + 3 + 4);
    }

    #[test]
    fn c_style_exponents() {
        assert_eq!(c_exp(123456.0, 6), "1.234560e+05");
        assert_eq!(c_exp(0.00012, 6), "1.200000e-04");
        assert_eq!(c_exp(0.0, 6), "0.000000e+00");
        assert_eq!(c_exp(25794.236794, 10), "2.5794236794e+04");
    }
}
