//! md-workbench's report: what a run measured, from which its text, CSV and
//! JSON are written.

use serde::{Deserialize, Serialize};

use super::results::PhaseSummary;
use super::MdwRun;
use crate::comm::Comm;
use crate::run::info::{local_time, nodemap, version, ParioInfo};

/// A whole run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MdwReport {
    pub version: String,
    pub began: String,
    /// md-workbench's `Args:` line.
    pub args: String,
    pub pario: ParioInfo,
    pub nodemap: String,
    pub tasks: usize,
    pub data_sets: u64,
    pub precreate_per_set: u64,
    pub objects_per_set: u64,
    pub iterations: u64,
    pub object_size: u64,
    pub offset: i64,
    pub seed: i64,
    pub phases: Vec<PhaseSummary>,
    pub finished: String,
    /// Seconds from the start to the end of the run (`Total runtime`).
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub runtime_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip)]
    pub quiet: bool,
    #[serde(skip)]
    pub process_reports: bool,
    #[serde(skip)]
    pub detailed: bool,
    #[serde(skip)]
    pub read_only: bool,
}

impl MdwReport {
    pub fn new(comm: &dyn Comm, m: &MdwRun) -> MdwReport {
        let p = &m.params;
        MdwReport {
            version: version(),
            began: local_time(),
            args: m.args_line.clone(),
            pario: ParioInfo::of(comm),
            nodemap: nodemap(comm.topology()),
            tasks: comm.size(),
            data_sets: p.data_sets,
            precreate_per_set: p.precreate,
            objects_per_set: p.objects,
            iterations: p.iterations,
            object_size: p.object_size,
            offset: p.offset,
            seed: 0,
            phases: Vec::new(),
            finished: String::new(),
            runtime_s: 0.0,
            error: None,
            quiet: p.quiet,
            process_reports: p.process_reports,
            detailed: p.detailed,
            read_only: p.read_only,
        }
    }
}
