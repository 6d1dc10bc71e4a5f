//! The parameters of one IOR test, with IOR's defaults and names.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::memhog::NodeMemory;
use crate::options::ModuleOptions;
use crate::output::Summary;
use crate::pattern::PacketType;

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

/// One test, as IOR's `IOR_param_t`.
#[derive(Debug, Clone)]
pub struct IorParams {
    pub api: String,
    pub reference_number: i64,
    pub block_size: u64,
    pub collective: bool,
    pub reorder_tasks: bool,
    pub task_per_node_offset: i64,
    pub reorder_tasks_random: u32,
    pub reorder_tasks_random_seed: i64,
    pub inter_test_delay: u64,
    pub deadline_for_stonewalling: u64,
    pub stonewalling_wear_out: bool,
    pub stonewalling_wear_out_iterations: u64,
    pub stonewalling_status_file: Option<String>,
    pub min_time_duration: u64,
    pub fsync: bool,
    pub use_existing_test_file: bool,
    pub script: Option<String>,
    pub file_per_proc: bool,
    pub intra_test_barriers: bool,
    /// `-G`: the data signature; `None` lets rank 0 pick one per test.
    pub time_stamp_signature: Option<i64>,
    pub repetitions: u64,
    pub outlier_threshold: u64,
    pub keep_file: bool,
    pub keep_file_with_error: bool,
    pub data_packet_type: PacketType,
    pub multi_file: bool,
    /// `-M`: memory to hog on each node, split over its tasks.
    pub memory_per_node: Option<NodeMemory>,
    /// `-O memoryPerTask=`: memory to hog on each task.
    pub memory_per_task: Option<u64>,
    /// `-N`: tasks taking part; `None` means every task.
    pub num_tasks: Option<usize>,
    pub test_file_name: String,
    pub quit_on_error: bool,
    pub read_file: bool,
    pub check_read: bool,
    pub segment_count: u64,
    pub transfer_size: u64,
    pub max_time_duration: u64,
    pub unique_dir: bool,
    pub verbose: u32,
    pub write_file: bool,
    pub check_write: bool,
    pub single_xfer_attempt: bool,
    pub fsync_per_write: bool,
    /// 0: sequential, 1: shuffled (`-z`), 2 or more: random (`-z -z`).
    pub random_offset: u32,
    pub random_prefill: u64,
    /// `--random-offset-seed`; -1 lets rank 0 pick one.
    pub random_offset_seed: i64,
    pub dry_run: bool,
    pub warning_as_errors: bool,
    /// `summaryFormat` and `summaryFile`.
    pub summary: Summary,
    pub save_rank_details_csv: Option<String>,
    /// Backend module options (`posix.odirect` → "1"), interpreted by the
    /// backend when it is built.
    pub module_options: BTreeMap<String, String>,
    /// `-O platform=`: a label shown in the JSON parameters.
    pub platform: String,
    /// `-O recordLatency=`: per-transfer latency histograms.
    pub record_latency: bool,
    /// `-O latencyHistogramFile=`: the full merged histograms, as CSV.
    pub latency_file: Option<String>,
    /// `-O cacheCheck=`: measure page-cache residency before reads.
    pub cache_check: bool,
    /// `-O evictBeforeRead=` (or `--posix.evict`): drop the test files from
    /// the page cache before each read phase.
    pub evict_before_read: bool,
    /// `-O progress=` / `--progress=`: live progress on a terminal.
    pub progress: bool,
}

impl Default for IorParams {
    fn default() -> Self {
        IorParams {
            api: "POSIX".into(),
            reference_number: 0,
            block_size: 1 << 20,
            collective: false,
            reorder_tasks: false,
            task_per_node_offset: 1,
            reorder_tasks_random: 0,
            reorder_tasks_random_seed: 0,
            inter_test_delay: 0,
            deadline_for_stonewalling: 0,
            stonewalling_wear_out: false,
            stonewalling_wear_out_iterations: 0,
            stonewalling_status_file: None,
            min_time_duration: 0,
            fsync: false,
            use_existing_test_file: false,
            script: None,
            file_per_proc: false,
            intra_test_barriers: false,
            time_stamp_signature: None,
            repetitions: 1,
            outlier_threshold: 0,
            keep_file: false,
            keep_file_with_error: false,
            data_packet_type: PacketType::Timestamp,
            multi_file: false,
            memory_per_node: None,
            memory_per_task: None,
            num_tasks: None,
            test_file_name: "testFile".into(),
            quit_on_error: false,
            read_file: false,
            check_read: false,
            segment_count: 1,
            transfer_size: 262144,
            max_time_duration: 0,
            unique_dir: false,
            verbose: 0,
            write_file: false,
            check_write: false,
            single_xfer_attempt: false,
            fsync_per_write: false,
            random_offset: 0,
            random_prefill: 0,
            random_offset_seed: -1,
            dry_run: false,
            warning_as_errors: false,
            summary: Summary::default(),
            save_rank_details_csv: None,
            module_options: BTreeMap::new(),
            platform: String::new(),
            record_latency: true,
            latency_file: None,
            cache_check: true,
            evict_before_read: false,
            progress: true,
        }
    }
}

impl ModuleOptions for IorParams {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.module_options
    }
}

impl IorParams {
    /// The ordering of transfers within a file.
    pub fn ordering(&self) -> Ordering {
        match self.random_offset {
            0 => Ordering::Sequential,
            1 => Ordering::Shuffled,
            _ => Ordering::Random,
        }
    }

    /// Applies IOR's rule: with none of -w, -r, -W, -R given, write and read.
    pub fn apply_default_phases(&mut self) {
        if !(self.write_file || self.read_file || self.check_write || self.check_read) {
            self.write_file = true;
            self.read_file = true;
        }
    }

    /// Whether a read phase runs (`-r`, or `-R` which verifies while reading).
    pub fn reads(&self) -> bool {
        self.read_file || self.check_read
    }

    /// A module option's value as a flag.
    pub fn module_flag(&self, key: &str) -> bool {
        self.module_options
            .get(key)
            .and_then(|v| v.parse::<i64>().ok())
            .is_some_and(|v| v != 0)
    }

    /// Whether reads are preceded by eviction (`-O evictBeforeRead=1` or
    /// `--posix.evict`).
    pub fn evicts(&self) -> bool {
        self.evict_before_read || self.module_flag("posix.evict")
    }
}
