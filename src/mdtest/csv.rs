//! mdtest's CSV document (mdtest itself has none, hpc/ior#509): one row per
//! phase that ran, per iteration and sweep step.

use super::report::MdtestReport;
use crate::output::{Document, Table};

/// The columns, in order.
pub const COLUMNS: &[&str] = &[
    "tasks",
    "iteration",
    "operation",
    "items",
    "time_s",
    "rate_ops_s",
    "api",
    "items_per_task",
    "depth",
    "branch_factor",
    "unique_dir",
    "write_bytes",
    "read_bytes",
    "interrupted",
];

impl Document for MdtestReport {
    fn table(&self) -> Table {
        let p = &self.parameters;
        let mut rows = Vec::new();
        for sweep in &self.tests {
            for it in &sweep.iterations {
                for ph in &it.phases {
                    rows.push(vec![
                        sweep.tasks.to_string(),
                        it.iteration.to_string(),
                        ph.operation.to_string(),
                        ph.items.to_string(),
                        format!("{:.9}", ph.time_s),
                        format!("{:.3}", ph.rate),
                        p.api.clone(),
                        sweep.items_per_task.to_string(),
                        p.depth.to_string(),
                        p.branch_factor.to_string(),
                        p.unique_dir_per_task.to_string(),
                        p.write_bytes.to_string(),
                        p.read_bytes.to_string(),
                        ph.interrupted.unwrap_or_default().to_string(),
                    ]);
                }
            }
        }
        Table {
            columns: COLUMNS,
            rows,
        }
    }
}
