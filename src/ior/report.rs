//! What an IOR run reports: one model for every output format. Key names follow
//! IOR's JSON so that existing parsers find what they expect; the schema is
//! described in `docs/output.md`.

use serde::{Deserialize, Serialize};

use super::params::IorParams;
use super::results::{OperationSummary, PhaseResult};
use crate::backend::FsUsage;
use crate::run::info::RunHeader;
use crate::run::tally::WrongData;
use crate::units::human_bytes;

/// Where a test runs and what it holds, as its echoes report it.
#[derive(Debug, Clone, Copy)]
pub struct Scale {
    pub nodes: usize,
    pub tasks: usize,
    pub tasks_per_node: usize,
    /// `-M`/`memoryPerTask`: bytes held per task (0: none).
    pub memory_per_task: u64,
    /// `memoryPerNode`: bytes held per node (0: none).
    pub memory_per_node: u64,
}

/// The "Options:" block, with IOR's key names.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct OptionsEcho {
    pub api: String,
    #[serde(rename = "apiVersion")]
    pub api_version: String,
    #[serde(rename = "test filename")]
    pub test_filename: String,
    pub access: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub segments: u64,
    #[serde(rename = "ordering in a file")]
    pub ordering_in_a_file: String,
    #[serde(rename = "ordering inter file")]
    pub ordering_inter_file: String,
    #[serde(rename = "task offset", skip_serializing_if = "Option::is_none")]
    pub task_offset: Option<i64>,
    #[serde(
        rename = "reorder random seed",
        skip_serializing_if = "Option::is_none"
    )]
    pub reorder_random_seed: Option<i64>,
    pub nodes: usize,
    pub tasks: usize,
    #[serde(rename = "clients per node")]
    pub clients_per_node: usize,
    #[serde(rename = "memoryPerTask", skip_serializing_if = "Option::is_none")]
    pub memory_per_task: Option<String>,
    #[serde(rename = "memoryPerNode", skip_serializing_if = "Option::is_none")]
    pub memory_per_node: Option<String>,
    #[serde(rename = "memoryBuffer")]
    pub memory_buffer: String,
    #[serde(rename = "dataAccess")]
    pub data_access: String,
    #[serde(rename = "GPUDirect")]
    pub gpu_direct: u32,
    pub repetitions: u64,
    pub xfersize: String,
    pub blocksize: String,
    #[serde(rename = "aggregate filesize")]
    pub aggregate_filesize: String,
    #[serde(rename = "stonewallingTime", skip_serializing_if = "Option::is_none")]
    pub stonewalling_time: Option<u64>,
    #[serde(
        rename = "stoneWallingWearOut",
        skip_serializing_if = "Option::is_none"
    )]
    pub stonewalling_wear_out: Option<u32>,
}

impl OptionsEcho {
    pub fn new(p: &IorParams, api_version: String, scale: &Scale, aggregate: u64) -> OptionsEcho {
        let held = |bytes: u64| (bytes > 0).then(|| human_bytes(bytes));
        let ordering_inter_file = if p.reorder.reorder_tasks {
            "constant task offset"
        } else if p.reorder.reorder_tasks_random > 0 {
            "random task offset"
        } else {
            "no tasks offsets"
        };
        OptionsEcho {
            api: p.api.to_uppercase(),
            api_version,
            test_filename: p.files.test_file_name.clone(),
            access: if p.geometry.file_per_proc {
                "file-per-process"
            } else {
                "single-shared-file"
            }
            .into(),
            kind: if p.transfers.collective {
                "collective"
            } else {
                "independent"
            }
            .into(),
            segments: p.geometry.segment_count,
            ordering_in_a_file: if p.geometry.random_offset > 0 {
                "random"
            } else {
                "sequential"
            }
            .into(),
            ordering_inter_file: ordering_inter_file.into(),
            task_offset: (p.reorder.reorder_tasks || p.reorder.reorder_tasks_random > 0)
                .then_some(p.reorder.task_per_node_offset),
            reorder_random_seed: (p.reorder.reorder_tasks_random > 0)
                .then_some(p.reorder.reorder_tasks_random_seed),
            nodes: scale.nodes,
            tasks: scale.tasks,
            clients_per_node: scale.tasks_per_node,
            memory_per_task: held(scale.memory_per_task),
            memory_per_node: held(scale.memory_per_node),
            memory_buffer: "CPU".into(),
            data_access: "CPU".into(),
            gpu_direct: 0,
            repetitions: p.phases.repetitions,
            xfersize: human_bytes(p.geometry.transfer_size),
            blocksize: human_bytes(p.geometry.block_size),
            aggregate_filesize: human_bytes(aggregate),
            stonewalling_time: (p.stonewall.deadline > 0).then_some(p.stonewall.deadline),
            stonewalling_wear_out: (p.stonewall.deadline > 0)
                .then_some(p.stonewall.wear_out as u32),
        }
    }

    /// The lines of the text block, in IOR's order.
    pub fn lines(&self) -> Vec<(&'static str, String)> {
        let mut l = vec![
            ("api", self.api.clone()),
            ("apiVersion", self.api_version.clone()),
            ("test filename", self.test_filename.clone()),
            ("access", self.access.clone()),
            ("type", self.kind.clone()),
            ("segments", self.segments.to_string()),
            ("ordering in a file", self.ordering_in_a_file.clone()),
            ("ordering inter file", self.ordering_inter_file.clone()),
        ];
        if let Some(o) = self.task_offset {
            l.push(("task offset", o.to_string()));
        }
        if let Some(s) = self.reorder_random_seed {
            l.push(("reorder random seed", s.to_string()));
        }
        l.extend([
            ("nodes", self.nodes.to_string()),
            ("tasks", self.tasks.to_string()),
            ("clients per node", self.clients_per_node.to_string()),
        ]);
        if let Some(m) = &self.memory_per_task {
            l.push(("memoryPerTask", m.clone()));
        }
        if let Some(m) = &self.memory_per_node {
            l.push(("memoryPerNode", m.clone()));
        }
        l.extend([
            ("memoryBuffer", self.memory_buffer.clone()),
            ("dataAccess", self.data_access.clone()),
            ("GPUDirect", self.gpu_direct.to_string()),
            ("repetitions", self.repetitions.to_string()),
            ("xfersize", self.xfersize.clone()),
            ("blocksize", self.blocksize.clone()),
            ("aggregate filesize", self.aggregate_filesize.clone()),
        ]);
        if let (Some(t), Some(w)) = (self.stonewalling_time, self.stonewalling_wear_out) {
            l.push(("stonewallingTime", t.to_string()));
            l.push(("stoneWallingWearOut", w.to_string()));
        }
        l
    }
}

/// IOR's "Parameters" section of the JSON output.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ParametersEcho {
    #[serde(rename = "testID")]
    pub test_id: usize,
    pub refnum: i64,
    pub api: String,
    pub platform: String,
    pub test_file_name: String,
    pub deadline_for_stonewall: u64,
    pub stone_walling_wear_out: u32,
    pub max_time_duration: u64,
    pub outlier_threshold: u64,
    pub dry_run: u32,
    pub nodes: usize,
    pub tasks_per_node: usize,
    pub memory_per_task: u64,
    pub memory_per_node: u64,
    pub repetitions: u64,
    pub multi_file: u32,
    #[serde(serialize_with = "crate::units::serialize_seconds")]
    pub inter_test_delay: f64,
    pub fsync: u32,
    #[serde(rename = "fsyncperwrite")]
    pub fsync_per_write: u32,
    pub use_existing_test_file: u32,
    pub unique_dir: u32,
    pub single_xfer_attempt: u32,
    pub read_file: u32,
    pub write_file: u32,
    pub file_per_proc: u32,
    pub reorder_tasks: u32,
    pub reorder_tasks_random: u32,
    pub reorder_tasks_random_seed: i64,
    pub random_offset: u32,
    pub check_write: u32,
    pub check_read: u32,
    pub data_packet_type: String,
    pub keep_file: u32,
    pub keep_file_with_error: u32,
    pub warning_as_errors: u32,
    pub verbose: u32,
    #[serde(rename = "setTimeStampSignature/incompressibleSeed")]
    pub signature: i64,
    pub collective: u32,
    pub segment_count: u64,
    pub transfer_size: u64,
    pub block_size: u64,
    pub num_tasks: usize,
    pub random_offset_seed: u64,
}

impl ParametersEcho {
    pub fn new(
        p: &IorParams,
        test_id: usize,
        scale: &Scale,
        signature: i64,
        seed: u64,
    ) -> ParametersEcho {
        let b = |v: bool| v as u32;
        ParametersEcho {
            test_id,
            refnum: p.output.reference_number,
            api: p.api.to_uppercase(),
            platform: p.output.platform.clone(),
            test_file_name: p.files.test_file_name.clone(),
            deadline_for_stonewall: p.stonewall.deadline,
            stone_walling_wear_out: b(p.stonewall.wear_out),
            max_time_duration: p.phases.max_time_duration,
            outlier_threshold: p.measure.outlier_threshold,
            dry_run: b(p.transfers.dry_run),
            nodes: scale.nodes,
            tasks_per_node: scale.tasks_per_node,
            memory_per_task: scale.memory_per_task,
            memory_per_node: scale.memory_per_node,
            repetitions: p.phases.repetitions,
            multi_file: b(p.files.multi_file),
            inter_test_delay: p.phases.inter_test_delay,
            fsync: b(p.transfers.fsync),
            fsync_per_write: b(p.transfers.fsync_per_write),
            use_existing_test_file: b(p.files.use_existing_test_file),
            unique_dir: b(p.files.unique_dir),
            single_xfer_attempt: b(p.transfers.single_xfer_attempt),
            read_file: b(p.phases.read_file),
            write_file: b(p.phases.write_file),
            file_per_proc: b(p.geometry.file_per_proc),
            reorder_tasks: b(p.reorder.reorder_tasks),
            reorder_tasks_random: p.reorder.reorder_tasks_random,
            reorder_tasks_random_seed: p.reorder.reorder_tasks_random_seed,
            random_offset: p.geometry.random_offset,
            check_write: b(p.phases.check_write),
            check_read: b(p.phases.check_read),
            data_packet_type: p.verification.data_packet_type.letter().to_string(),
            keep_file: b(p.files.keep_file),
            keep_file_with_error: b(p.files.keep_file_with_error),
            warning_as_errors: b(p.output.warning_as_errors),
            verbose: p.output.verbose,
            signature,
            collective: b(p.transfers.collective),
            segment_count: p.geometry.segment_count,
            transfer_size: p.geometry.transfer_size,
            block_size: p.geometry.block_size,
            num_tasks: scale.tasks,
            random_offset_seed: seed,
        }
    }
}

/// Best bandwidth of a test, as IOR's `Max Write:`/`Max Read:` lines.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct MaxBandwidth {
    #[serde(rename = "writeMiB", skip_serializing_if = "Option::is_none")]
    pub write_mib: Option<f64>,
    #[serde(rename = "writeMB", skip_serializing_if = "Option::is_none")]
    pub write_mb: Option<f64>,
    #[serde(rename = "readMiB", skip_serializing_if = "Option::is_none")]
    pub read_mib: Option<f64>,
    #[serde(rename = "readMB", skip_serializing_if = "Option::is_none")]
    pub read_mb: Option<f64>,
}

/// A timed removal of the test files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RemoveTiming {
    pub iteration: u64,
    #[serde(rename = "totalTime", deserialize_with = "crate::units::nan_if_null")]
    pub total: f64,
}

/// IOR's data error counts (`-W`, `-R`) as the JSON has them: transfers with
/// wrong data, bytes in wrong words, transfers checked.
mod data_errors {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    use crate::run::tally::WrongData;

    #[derive(Serialize, Deserialize)]
    struct DataErrors {
        transfers: u64,
        bytes: u64,
        checked: u64,
    }

    pub fn serialize<S: Serializer>(w: &WrongData, s: S) -> Result<S::Ok, S::Error> {
        let (transfers, bytes, checked) = (w.wrong, w.bytes, w.checked);
        DataErrors {
            transfers,
            bytes,
            checked,
        }
        .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<WrongData, D::Error> {
        let e = DataErrors::deserialize(d)?;
        Ok(WrongData {
            wrong: e.transfers,
            bytes: e.bytes,
            checked: e.checked,
        })
    }
}

/// Everything about one test.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TestReport {
    #[serde(rename = "TestID")]
    pub test_id: usize,
    #[serde(rename = "StartTime")]
    pub start_time: String,
    #[serde(rename = "Path")]
    pub path: String,
    #[serde(rename = "FS", skip_serializing_if = "Option::is_none")]
    pub fs: Option<FsUsage>,
    #[serde(rename = "Parameters")]
    pub parameters: ParametersEcho,
    #[serde(rename = "Options")]
    pub options: OptionsEcho,
    #[serde(rename = "Results")]
    pub results: Vec<PhaseResult>,
    pub removes: Vec<RemoveTiming>,
    pub max: MaxBandwidth,
    #[serde(rename = "dataErrors", with = "data_errors")]
    pub data_errors: WrongData,
    pub warnings: Vec<String>,
    /// The sweep step this test ran as (`sweep`).
    #[serde(rename = "sweepStep", skip_serializing_if = "Option::is_none")]
    pub sweep: Option<SweepStep>,
    /// The object store its backend reached (the run's system names it).
    #[serde(skip)]
    pub object_store: Option<String>,
}

impl TestReport {
    /// Fills `max` from the results' bandwidths.
    pub fn compute_max(&mut self) {
        let best = |access: &str| {
            self.results
                .iter()
                .filter(|r| r.access == access)
                .map(|r| r.bw_mib)
                .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))))
        };
        // MiB/s times 2^20 is exactly the bytes per second the row had.
        let mb = |mib: f64| mib * crate::units::MIB as f64 / crate::units::MB;
        let w = best("write");
        let r = best("read");
        self.max = MaxBandwidth {
            write_mib: w,
            write_mb: w.map(mb),
            read_mib: r,
            read_mb: r.map(mb),
        };
    }
}

/// One row of "Summary of all tests", with IOR's JSON keys.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SummaryRow {
    pub operation: String,
    #[serde(rename = "API")]
    pub api: String,
    #[serde(rename = "TestID")]
    pub test_id: usize,
    #[serde(rename = "ReferenceNumber")]
    pub reference_number: i64,
    #[serde(rename = "segmentCount")]
    pub segment_count: u64,
    #[serde(rename = "blockSize")]
    pub block_size: u64,
    #[serde(rename = "transferSize")]
    pub transfer_size: u64,
    #[serde(rename = "numTasks")]
    pub num_tasks: usize,
    #[serde(rename = "tasksPerNode")]
    pub tasks_per_node: usize,
    pub repetitions: u64,
    #[serde(rename = "filePerProc")]
    pub file_per_proc: u32,
    #[serde(rename = "reorderTasks")]
    pub reorder_tasks: u32,
    #[serde(rename = "taskPerNodeOffset")]
    pub task_per_node_offset: i64,
    #[serde(rename = "reorderTasksRandom")]
    pub reorder_tasks_random: u32,
    #[serde(rename = "reorderTasksRandomSeed")]
    pub reorder_tasks_random_seed: i64,
    #[serde(rename = "bwMaxMIB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_max: f64,
    #[serde(rename = "bwMinMIB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_min: f64,
    #[serde(rename = "bwMeanMIB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_mean: f64,
    #[serde(rename = "bwStdMIB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_std: f64,
    #[serde(rename = "OPsMax", deserialize_with = "crate::units::nan_if_null")]
    pub ops_max: f64,
    #[serde(rename = "OPsMin", deserialize_with = "crate::units::nan_if_null")]
    pub ops_min: f64,
    #[serde(rename = "OPsMean", deserialize_with = "crate::units::nan_if_null")]
    pub ops_mean: f64,
    #[serde(rename = "OPsSD", deserialize_with = "crate::units::nan_if_null")]
    pub ops_sd: f64,
    #[serde(rename = "MeanTime", deserialize_with = "crate::units::nan_if_null")]
    pub mean_time: f64,
    #[serde(rename = "StoneWallTime", skip_serializing_if = "Option::is_none")]
    pub stonewall_time: Option<f64>,
    #[serde(rename = "StoneWallbwMeanMIB", skip_serializing_if = "Option::is_none")]
    pub stonewall_bw_mean: Option<f64>,
    #[serde(rename = "xsizeMiB", deserialize_with = "crate::units::nan_if_null")]
    pub xsize_mib: f64,
}

impl SummaryRow {
    pub fn new(operation: &str, test: &TestReport, s: &OperationSummary) -> SummaryRow {
        let p = &test.parameters;
        SummaryRow {
            operation: operation.to_string(),
            api: p.api.clone(),
            test_id: test.test_id,
            reference_number: p.refnum,
            segment_count: p.segment_count,
            block_size: p.block_size,
            transfer_size: p.transfer_size,
            num_tasks: p.num_tasks,
            tasks_per_node: p.tasks_per_node,
            repetitions: p.repetitions,
            file_per_proc: p.file_per_proc,
            reorder_tasks: p.reorder_tasks,
            task_per_node_offset: test.options.task_offset.unwrap_or(1),
            reorder_tasks_random: p.reorder_tasks_random,
            reorder_tasks_random_seed: p.reorder_tasks_random_seed,
            bw_max: s.bw.max,
            bw_min: s.bw.min,
            bw_mean: s.bw.mean,
            bw_std: s.bw.stddev,
            ops_max: s.ops.max,
            ops_min: s.ops.min,
            ops_mean: s.ops.mean,
            ops_sd: s.ops.stddev,
            mean_time: s.mean_time,
            stonewall_time: s.stonewall.map(|w| w.0),
            stonewall_bw_mean: s.stonewall.map(|w| w.1),
            xsize_mib: s.bytes as f64 / crate::units::MIB as f64,
        }
    }
}

/// A whole run: the document written by `-O summaryFormat=JSON`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunReport {
    #[serde(flatten, deserialize_with = "crate::units::with_path")]
    pub header: RunHeader,
    pub tests: Vec<TestReport>,
    pub summary: Vec<SummaryRow>,
    /// Every swept test's steps, side by side (`sweep`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scaling: Vec<ScalingRow>,
    #[serde(rename = "Finished")]
    pub finished: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Where a test's report sits in its sweep (`sweepStep` in JSON).
#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct SweepStep {
    /// 1-based.
    pub step: usize,
    pub steps: usize,
    pub nodes: usize,
    pub tasks: usize,
}

/// One line of the scaling table: a step's mean bandwidth for one access.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScalingRow {
    #[serde(rename = "testID")]
    pub test_id: usize,
    pub step: usize,
    pub nodes: usize,
    pub tasks: usize,
    pub access: String,
    #[serde(rename = "bwMeanMIB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_mean_mib: f64,
    #[serde(
        rename = "bwPerTaskMIB",
        deserialize_with = "crate::units::nan_if_null"
    )]
    pub bw_per_task_mib: f64,
    #[serde(rename = "OPsMean", deserialize_with = "crate::units::nan_if_null")]
    pub ops_mean: f64,
    /// Per-task bandwidth against the sweep's first step (1.0: as good).
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub efficiency: f64,
}
