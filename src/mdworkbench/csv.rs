//! md-workbench's CSV table (`--summaryFormat=CSV`).

use super::report::MdwReport;
use super::results::{OpKind, PhaseSummary};
use crate::output::{Document, Table};
use crate::units::c_exp;

/// pario's CSV: one row per phase (rank 0's figures over all ranks), then
/// md-workbench's seven quantiles of each operation (empty when it made
/// none).
const COLUMNS: [&str; 50] = [
    "phase",
    "iteration",
    "waiting_factor",
    "tasks",
    "time_max_s",
    "time_min_s",
    "time_mean_s",
    "balance",
    "stddev_s",
    "rate_iops",
    "objects_per_s",
    "dsets_per_s",
    "throughput_mib_s",
    "op_max_s",
    "dsets_created",
    "dsets_removed",
    "objs_created",
    "objs_read",
    "objs_stat",
    "objs_deleted",
    "errors",
    "stonewall_iter",
    "read_min_s",
    "read_q1_s",
    "read_median_s",
    "read_q3_s",
    "read_q90_s",
    "read_q99_s",
    "read_max_s",
    "stat_min_s",
    "stat_q1_s",
    "stat_median_s",
    "stat_q3_s",
    "stat_q90_s",
    "stat_q99_s",
    "stat_max_s",
    "create_min_s",
    "create_q1_s",
    "create_median_s",
    "create_q3_s",
    "create_q90_s",
    "create_q99_s",
    "create_max_s",
    "delete_min_s",
    "delete_q1_s",
    "delete_median_s",
    "delete_q3_s",
    "delete_q90_s",
    "delete_q99_s",
    "delete_max_s",
];

impl Document for MdwReport {
    fn table(&self) -> Table {
        let rows = self
            .phases
            .iter()
            .map(|ph| csv_row(ph, self.tasks))
            .collect();
        Table {
            columns: &COLUMNS,
            rows,
        }
    }
}

fn csv_row(ph: &PhaseSummary, tasks: usize) -> Vec<String> {
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut row = vec![
        ph.phase.to_string(),
        opt(ph.iteration),
        ph.waiting_factor.to_string(),
        tasks.to_string(),
    ];
    let figures = [
        ph.max_s,
        ph.min_s,
        ph.mean_s,
        ph.balance,
        ph.stddev_s,
        ph.rate,
        ph.objects_per_s,
        ph.dsets_per_s,
        ph.throughput_mib,
        ph.op_max_s,
    ];
    row.extend(figures.iter().map(|v| format!("{v:.9}")));
    row.extend(ph.counts.all().iter().map(u64::to_string));
    row.push(ph.counts.errors.total().to_string());
    row.push(opt(ph.stonewall_iter));
    for op in OpKind::ALL {
        match ph.quantiles.iter().find(|q| q.op == op) {
            Some(q) => row.extend(
                [q.min, q.q1, q.median, q.q3, q.q90, q.q99, q.max]
                    .iter()
                    .map(|v| c_exp(*v, 4)),
            ),
            None => row.extend(std::iter::repeat_n(String::new(), 7)),
        }
    }
    row
}
