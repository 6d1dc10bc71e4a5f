//! ior's CSV documents, one row per measured phase: IOR's own layout
//! (`summaryFormat=CSV`) and pario's fuller one (`pario-CSV`).

use super::report::RunReport;
use crate::output::{Document, Table};

/// The columns, in order.
pub const COLUMNS: &[&str] = &[
    "test",
    "iteration",
    "access",
    "api",
    "tasks",
    "file_per_proc",
    "segments",
    "block_bytes",
    "transfer_bytes",
    "bw_mib_s",
    "iops",
    "latency_s",
    "open_s",
    "wrrd_s",
    "close_s",
    "total_s",
    "bytes",
    "transfers",
    "interrupted",
];

impl Document for RunReport {
    fn table(&self) -> Table {
        let mut rows = Vec::new();
        for test in &self.tests {
            let p = &test.parameters;
            for r in &test.results {
                rows.push(vec![
                    test.test_id.to_string(),
                    r.iteration.to_string(),
                    r.access.to_string(),
                    p.api.clone(),
                    r.tasks.to_string(),
                    p.file_per_proc.to_string(),
                    p.segment_count.to_string(),
                    p.block_size.to_string(),
                    p.transfer_size.to_string(),
                    format!("{:.6}", r.bw_mib),
                    format!("{:.6}", r.iops),
                    format!("{:.9}", r.latency),
                    format!("{:.9}", r.open),
                    format!("{:.9}", r.wr_rd),
                    format!("{:.9}", r.close),
                    format!("{:.9}", r.total),
                    r.bytes.to_string(),
                    r.transfers.to_string(),
                    r.interrupted.clone().unwrap_or_default(),
                ]);
            }
        }
        Table {
            columns: COLUMNS,
            rows,
        }
    }

    /// IOR's own CSV: one row per phase, its columns, four decimals.
    fn tool_table(&self) -> Table {
        let rows = self
            .tests
            .iter()
            .flat_map(|test| &test.results)
            .map(|r| {
                let mut row: Vec<String> =
                    r.table_values().iter().map(|v| format!("{v:.4}")).collect();
                row.insert(0, r.access.to_string());
                row.extend([r.tasks.to_string(), r.iteration.to_string()]);
                row
            })
            .collect();
        Table {
            columns: IOR_COLUMNS,
            rows,
        }
    }
}

/// IOR's CSV columns (`-O summaryFormat=CSV`), in order.
pub const IOR_COLUMNS: &[&str] = &[
    "access",
    "bw(MiB/s)",
    "IOPS",
    "Latency",
    "block(KiB)",
    "xfer(KiB)",
    "open(s)",
    "wr/rd(s)",
    "close(s)",
    "total(s)",
    "numTasks",
    "iter",
];
