//! The parameters of an mdtest run, with mdtest's defaults.

use std::collections::BTreeMap;

use crate::options::ModuleOptions;
use crate::output::Summary;
use crate::pattern::PacketType;

/// One mdtest run, as mdtest's `mdtest_options_t` (plus pario's output options).
#[derive(Debug, Clone)]
pub struct MdtestParams {
    /// `-a`: the storage interface.
    pub api: String,
    /// `-b`: subdirectories of each tree directory.
    pub branch_factor: u64,
    /// `-d`: where the test runs; `a@b@c` gives several directories (one per
    /// task, round-robin; needs `-u`).
    pub dirs: Vec<String>,
    /// `-B`: no barriers between phases.
    pub no_barriers: bool,
    /// `-C`: create phase.
    pub create: bool,
    /// `-T`: stat phase.
    pub stat: bool,
    /// `-E`: read phase.
    pub read: bool,
    /// `-r`: remove phase.
    pub remove: bool,
    /// `-U`: directory rename phase.
    pub rename: bool,
    /// `-D`: directories only.
    pub dirs_only: bool,
    /// `-F`: files only.
    pub files_only: bool,
    /// `-e`: bytes read from each file.
    pub read_bytes: u64,
    /// `-w`: bytes written to each file after creating it.
    pub write_bytes: u64,
    /// `-f`: first number of tasks of a sweep.
    pub first: Option<usize>,
    /// `-l`: last number of tasks of a sweep (`None`: all tasks).
    pub last: Option<usize>,
    /// `-s`: stride of the sweep.
    pub sweep_stride: usize,
    /// `-G`: the data seed (`None`: rank 0 picks the time, as mdtest does).
    pub data_seed: Option<i64>,
    /// `-i`: iterations.
    pub iterations: u64,
    /// `-I`: items per tree directory.
    pub items_per_dir: u64,
    /// `-k`: create files with mknod.
    pub make_node: bool,
    /// `-L`: items only in the leaf directories.
    pub leaf_only: bool,
    /// `-n`: items per task.
    pub items: u64,
    /// `--recordLatency`: per-operation latency histograms.
    pub record_latency: bool,
    /// `--latencyHistogramFile`: the full merged histograms, as CSV.
    pub latency_file: Option<String>,
    /// `--progress`: live progress of long phases on a terminal.
    pub progress: bool,
    /// `-N`: neighbour stride: task t stats the items of t+N, reads those of
    /// t+2N and removes those of t+3N.
    pub nstride: usize,
    /// `-p`: delay in seconds before the directory and file tests.
    pub pre_delay: u64,
    /// `-P`: print rates and times.
    pub print_rate_and_time: bool,
    /// `--print-all-procs`: per-task results.
    pub print_all_procs: bool,
    /// `-R`: stat and read in a random order.
    pub randomize: bool,
    /// `--random-seed`: seed of `-R` (0: rank 0 picks the time).
    pub random_seed: i64,
    /// `-S`: one shared set of files for all tasks.
    pub shared_file: bool,
    /// `-c`: task 0 creates and removes every task's items.
    pub collective_creates: bool,
    /// `-t`: include the unique-directory set-up in the create time.
    pub time_unique_dir_overhead: bool,
    /// `-u`: each task works in its own tree.
    pub unique_dir: bool,
    /// `-v` (counts) or `-V n`.
    pub verbose: u32,
    /// `-W`: stonewall (seconds) for the file create phase.
    pub stonewall_seconds: u64,
    /// `-x`: file holding the stonewall item count, for split runs.
    pub stonewall_file: Option<String>,
    /// `-X`/`--verify-read`: verify the data read.
    pub verify_read: bool,
    /// `--verify-write`: read back and verify each file after writing it.
    pub verify_write: bool,
    /// `-y`: fsync each file after writing it.
    pub sync_file: bool,
    /// `-Y`: flush the file system at the end of each phase (timed).
    pub call_sync: bool,
    /// `-z`: depth of the directory tree.
    pub depth: u64,
    /// `-Z`: print times instead of rates.
    pub print_time: bool,
    /// `--dataPacketType`.
    pub data_packet_type: PacketType,
    /// `--run-cmd-before-phase` (outside the phase's time).
    pub run_cmd_before_phase: Option<String>,
    /// `--run-cmd-after-phase` (inside the phase's time).
    pub run_cmd_after_phase: Option<String>,
    /// `--showRankStatistics`.
    pub show_rank_statistics: bool,
    /// `--warningAsErrors`.
    pub warning_as_errors: bool,
    /// `--saveRankPerformanceDetails`: a CSV of every task's rate and time.
    pub save_rank_details: Option<String>,
    /// `--summaryFormat` and `--summaryFile` (or as `-O` directives; pario:
    /// mdtest has none).
    pub summary: Summary,
    /// Backend module options (`posix.odirect` → "1").
    pub module_options: BTreeMap<String, String>,
}

impl Default for MdtestParams {
    fn default() -> Self {
        MdtestParams {
            api: "POSIX".into(),
            branch_factor: 1,
            dirs: vec!["./out".into()],
            no_barriers: false,
            create: false,
            stat: false,
            read: false,
            remove: false,
            rename: false,
            dirs_only: false,
            files_only: false,
            read_bytes: 0,
            write_bytes: 0,
            first: None,
            last: None,
            sweep_stride: 1,
            data_seed: None,
            iterations: 1,
            items_per_dir: 0,
            make_node: false,
            leaf_only: false,
            items: 0,
            record_latency: true,
            latency_file: None,
            progress: true,
            nstride: 0,
            pre_delay: 0,
            print_rate_and_time: false,
            print_all_procs: false,
            randomize: false,
            random_seed: 0,
            shared_file: false,
            collective_creates: false,
            time_unique_dir_overhead: false,
            unique_dir: false,
            verbose: 0,
            stonewall_seconds: 0,
            stonewall_file: None,
            verify_read: false,
            verify_write: false,
            sync_file: false,
            call_sync: false,
            depth: 0,
            print_time: false,
            data_packet_type: PacketType::Timestamp,
            run_cmd_before_phase: None,
            run_cmd_after_phase: None,
            show_rank_statistics: false,
            warning_as_errors: false,
            save_rank_details: None,
            summary: Summary::default(),
            module_options: BTreeMap::new(),
        }
    }
}

impl ModuleOptions for MdtestParams {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.module_options
    }
}

impl MdtestParams {
    /// mdtest's rule: with none of -C, -T, -E, -r, -U given, run them all.
    pub fn apply_default_phases(&mut self) {
        if !(self.create || self.stat || self.read || self.remove || self.rename) {
            self.create = true;
            self.stat = true;
            self.read = true;
            self.remove = true;
            self.rename = true;
        }
    }

    /// Whether the directory phases run (mdtest's `dirs_only`: not `-F`,
    /// and never with `-S`).
    pub fn directory_phases(&self) -> bool {
        (self.dirs_only || !self.files_only) && !self.shared_file
    }

    /// Whether the file phases run (mdtest's `files_only`: not `-D`).
    pub fn file_phases(&self) -> bool {
        self.files_only || !self.dirs_only
    }

    /// Whether the stat/read order is shuffled.
    pub fn random_order(&self) -> bool {
        self.randomize || self.random_seed > 0
    }
}
