//! The report of a DLIO run (pario's JSON document): the configuration as
//! typed, the settings pario followed, and what each workflow did. The
//! training side adds its part here.

use serde::{Deserialize, Serialize};

use super::checkpoint::report::CheckpointReport;
use super::generate::GenerationReport;
use super::train::report::TrainReport;
use crate::output::{Document, Table};
use crate::run::system::System;

/// What a run returns.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DlioReport {
    pub tool: String,
    /// `workload=NAME`.
    pub workload: String,
    pub ranks: usize,
    /// Where DLIO's output files went (`hydra.run.dir` or `output.folder`).
    pub output_folder: String,
    /// The typed configuration (as JSON), for readers of the document.
    pub config: serde_json::Value,
    /// pario's settings (`pario.*`) and the departures followed.
    pub pario: serde_json::Value,
    pub generation: Option<GenerationReport>,
    /// What training did (rank 0's view of every rank).
    #[serde(default)]
    pub training: Option<TrainReport>,
    /// The checkpoint workflow without training.
    #[serde(default)]
    pub checkpoint: Option<CheckpointReport>,
    /// Where it ran: nodes, CPU, memory, kernel, the data's file system or
    /// object store, MPI library, pario's build (results of pario before
    /// it recorded it have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<System>,
}

impl Document for DlioReport {
    fn table(&self) -> Table {
        let mut rows = Vec::new();
        if let Some(g) = &self.generation {
            rows.push(vec![
                "generate".to_string(),
                g.files.to_string(),
                g.bytes.to_string(),
                format!("{:.6}", g.seconds),
                format!("{:.2}", g.mib_per_second),
            ]);
        }
        if let Some(t) = &self.training {
            rows.push(vec![
                "train".to_string(),
                t.ranks.iter().map(|r| r.opens).sum::<u64>().to_string(),
                t.bytes_read.to_string(),
                format!("{:.6}", t.seconds),
                format!(
                    "{:.2}",
                    t.bytes_read as f64 / (1u64 << 20) as f64 / t.seconds.max(1e-9)
                ),
            ]);
        }
        Table {
            columns: &["workflow", "files", "bytes", "seconds", "MiB/s"],
            rows,
        }
    }
}
