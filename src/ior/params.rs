//! The parameters of one IOR test, with IOR's defaults (IOR's names are in
//! the option table), grouped by what they decide.

use std::collections::BTreeMap;

use serde::Serialize;

use super::draws::Mix;
use crate::memhog::NodeMemory;
use crate::options::ModuleOptions;
use crate::output::Summary;
use crate::pattern::PacketType;
use crate::units::{KIB, MIB};

/// How transfers are ordered within a file (`-z`, `-z -z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Ordering {
    /// Each task walks its blocks in order.
    Sequential,
    /// `-z`: the same transfers, visited in a shuffled order; each transfer of
    /// the file is accessed exactly once.
    Shuffled,
    /// `-z -z`: uniformly random transfer-aligned offsets; may repeat.
    Random,
}

/// `sweep`: the test run again on fewer tasks, step by step, each step's
/// tasks on a communicator of their own (the others wait).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sweep {
    /// IOTest's way: all N nodes, then N/2, ... down to 1, each node with all
    /// its tasks.
    Nodes,
    /// The first N ranks, for each N of the list in its order.
    Tasks(Vec<usize>),
}

impl Sweep {
    /// `nodes`, or a comma list of task counts; `0` or nothing for none.
    pub fn parse(value: &str) -> Result<Option<Sweep>, String> {
        match value.trim() {
            "" | "0" => Ok(None),
            "nodes" => Ok(Some(Sweep::Nodes)),
            list => {
                let counts = list
                    .split(',')
                    .map(|c| match c.trim().parse::<usize>() {
                        Ok(n) if n >= 1 => Ok(n),
                        _ => Err(format!(
                            "'{c}' is not a task count: give 'nodes' or task counts such as 8,4,2,1"
                        )),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Some(Sweep::Tasks(counts)))
            }
        }
    }
}

/// One test, as IOR's `IOR_param_t`.
#[derive(Debug, Clone)]
pub struct IorParams {
    /// `-a`.
    pub api: String,
    /// Backend module options (`posix.odirect` → "1"), checked by the
    /// backend's configuration.
    pub module_options: BTreeMap<String, String>,
    /// `-f`: the script the tests come from.
    pub script: Option<String>,
    pub geometry: Geometry,
    pub files: Files,
    pub phases: Phases,
    pub transfers: Transfers,
    pub reorder: Reorder,
    pub stonewall: Stonewall,
    pub verification: Verification,
    pub memory: Memory,
    pub measure: Measure,
    pub output: Output,
    /// Mixed access: `rwmixRead`, `randomDistribution`, `transferSizeSplit`.
    pub mix: Mix,
}

/// What each task moves, and in which order (`-t -b -s -N -F -z`).
#[derive(Debug, Clone)]
pub struct Geometry {
    pub transfer_size: u64,
    pub block_size: u64,
    pub segment_count: u64,
    /// `-N`: tasks taking part; `None` means every task.
    pub num_tasks: Option<usize>,
    /// `sweep`: steps over fewer nodes or tasks.
    pub sweep: Option<Sweep>,
    pub file_per_proc: bool,
    /// 0: sequential, 1: shuffled (`-z`), 2 or more: random (`-z -z`).
    pub random_offset: u32,
    /// `--random-offset-seed`; -1 lets rank 0 pick one.
    pub random_offset_seed: i64,
    /// `--randomPrefill`: bytes per prefill write (0: none).
    pub random_prefill: u64,
}

/// The test files: their names, and which survive the run.
#[derive(Debug, Clone)]
pub struct Files {
    pub test_file_name: String,
    pub unique_dir: bool,
    pub multi_file: bool,
    pub use_existing_test_file: bool,
    pub keep_file: bool,
    pub keep_file_with_error: bool,
}

/// Which phases run, how often, and with what in between.
#[derive(Debug, Clone)]
pub struct Phases {
    pub write_file: bool,
    pub read_file: bool,
    pub check_write: bool,
    pub check_read: bool,
    pub repetitions: u64,
    /// `-d`, seconds (IOR truncates a decimal; pario honours it).
    pub inter_test_delay: f64,
    /// `-T`, minutes.
    pub max_time_duration: u64,
    pub intra_test_barriers: bool,
}

/// How each transfer is made.
#[derive(Debug, Clone, Default)]
pub struct Transfers {
    /// `-c`.
    pub collective: bool,
    /// `-e`.
    pub fsync: bool,
    /// `-Y`.
    pub fsync_per_write: bool,
    /// `-x`.
    pub single_xfer_attempt: bool,
    /// `--dryRun`: DUMMY instead of the backend.
    pub dry_run: bool,
}

/// Whose data each task reads back (`-C -Q -Z -X`).
#[derive(Debug, Clone)]
pub struct Reorder {
    pub reorder_tasks: bool,
    pub task_per_node_offset: i64,
    pub reorder_tasks_random: u32,
    pub reorder_tasks_random_seed: i64,
}

/// Fixed-time phases (`-D` and the directives IO500 uses).
#[derive(Debug, Clone, Default)]
pub struct Stonewall {
    /// `-D`, seconds.
    pub deadline: u64,
    pub wear_out: bool,
    pub wear_out_iterations: u64,
    pub status_file: Option<String>,
    /// `minTimeDuration`, seconds.
    pub min_time: u64,
}

/// The data pattern and what wrong data does.
#[derive(Debug, Clone)]
pub struct Verification {
    pub data_packet_type: PacketType,
    /// `-G`: the data signature; `None` lets rank 0 pick one per test.
    pub time_stamp_signature: Option<i64>,
    /// `-q`.
    pub quit_on_error: bool,
}

/// Memory held away from the page cache (`-M`, `memoryPerTask`).
#[derive(Debug, Clone, Default)]
pub struct Memory {
    /// Per node, split over its tasks.
    pub per_node: Option<NodeMemory>,
    pub per_task: Option<u64>,
}

/// What is measured beyond IOR's timers.
#[derive(Debug, Clone)]
pub struct Measure {
    /// `recordLatency`: per-transfer latency histograms.
    pub record_latency: bool,
    /// `cacheCheck`: page-cache residency before reads.
    pub cache_check: bool,
    /// `evictBeforeRead`: drop the test files from the page cache first.
    pub evict_before_read: bool,
    /// `-j`, seconds.
    pub outlier_threshold: u64,
}

/// What is reported, and where.
#[derive(Debug, Clone)]
pub struct Output {
    pub verbose: u32,
    /// `summaryFormat` and `summaryFile`.
    pub summary: Summary,
    pub save_rank_details_csv: Option<String>,
    /// `latencyHistogramFile`: the full merged histograms, as CSV.
    pub latency_file: Option<String>,
    /// `platform`: a label shown in the JSON parameters.
    pub platform: String,
    /// `-A`.
    pub reference_number: i64,
    pub warning_as_errors: bool,
    /// Live progress on a terminal.
    pub progress: bool,
}

impl Default for Geometry {
    fn default() -> Self {
        Geometry {
            transfer_size: 256 * KIB,
            block_size: MIB,
            segment_count: 1,
            num_tasks: None,
            sweep: None,
            file_per_proc: false,
            random_offset: 0,
            random_offset_seed: -1,
            random_prefill: 0,
        }
    }
}

impl Default for Files {
    fn default() -> Self {
        Files {
            test_file_name: "testFile".into(),
            unique_dir: false,
            multi_file: false,
            use_existing_test_file: false,
            keep_file: false,
            keep_file_with_error: false,
        }
    }
}

impl Default for Phases {
    fn default() -> Self {
        Phases {
            write_file: false,
            read_file: false,
            check_write: false,
            check_read: false,
            repetitions: 1,
            inter_test_delay: 0.0,
            max_time_duration: 0,
            intra_test_barriers: false,
        }
    }
}

impl Default for Reorder {
    fn default() -> Self {
        Reorder {
            reorder_tasks: false,
            task_per_node_offset: 1,
            reorder_tasks_random: 0,
            reorder_tasks_random_seed: 0,
        }
    }
}

impl Default for Verification {
    fn default() -> Self {
        Verification {
            data_packet_type: PacketType::Timestamp,
            time_stamp_signature: None,
            quit_on_error: false,
        }
    }
}

impl Default for Measure {
    fn default() -> Self {
        Measure {
            record_latency: true,
            cache_check: true,
            evict_before_read: false,
            outlier_threshold: 0,
        }
    }
}

impl Default for Output {
    fn default() -> Self {
        Output {
            verbose: 0,
            summary: Summary::default(),
            save_rank_details_csv: None,
            latency_file: None,
            platform: String::new(),
            reference_number: 0,
            warning_as_errors: false,
            progress: true,
        }
    }
}

impl ModuleOptions for IorParams {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.module_options
    }
}

impl Default for IorParams {
    fn default() -> Self {
        IorParams {
            api: "POSIX".into(),
            module_options: BTreeMap::new(),
            script: None,
            geometry: Geometry::default(),
            files: Files::default(),
            phases: Phases::default(),
            transfers: Transfers::default(),
            reorder: Reorder::default(),
            stonewall: Stonewall::default(),
            verification: Verification::default(),
            memory: Memory::default(),
            measure: Measure::default(),
            output: Output::default(),
            mix: Mix::default(),
        }
    }
}

impl IorParams {
    /// The ordering of transfers within a file.
    pub fn ordering(&self) -> Ordering {
        match self.geometry.random_offset {
            0 => Ordering::Sequential,
            1 => Ordering::Shuffled,
            _ => Ordering::Random,
        }
    }

    /// Applies IOR's rule: with none of -w, -r, -W, -R given, write and read.
    pub fn apply_default_phases(&mut self) {
        let p = &mut self.phases;
        if !(p.write_file || p.read_file || p.check_write || p.check_read) {
            p.write_file = true;
            p.read_file = true;
        }
    }

    /// Whether a read phase runs (`-r`, or `-R` which verifies while reading).
    pub fn reads(&self) -> bool {
        self.phases.read_file || self.phases.check_read
    }
}
