//! The parameters of an mdtest run, with mdtest's defaults (mdtest's names
//! are in the option table), grouped by what they decide.

use std::collections::BTreeMap;

use crate::options::ModuleOptions;
use crate::output::Summary;
use crate::pattern::PacketType;

/// One mdtest run, as mdtest's `mdtest_options_t` (plus pario's outputs).
#[derive(Debug, Clone)]
pub struct MdtestParams {
    /// `-a`: the storage interface.
    pub api: String,
    /// Backend module options (`posix.odirect` → "1").
    pub module_options: BTreeMap<String, String>,
    /// `-d`: where the test runs; `a@b@c` gives several directories (one per
    /// task, round-robin; needs `-u`).
    pub dirs: Vec<String>,
    pub tree: TreeShape,
    pub phases: Phases,
    pub order: Order,
    pub sweep: Sweep,
    pub data: Data,
    pub stonewall: Stonewall,
    pub output: Output,
}

/// The directory tree and the items in it.
#[derive(Debug, Clone)]
pub struct TreeShape {
    /// `-b`: subdirectories of each tree directory.
    pub branch_factor: u64,
    /// `-z`: depth of the tree.
    pub depth: u64,
    /// `-n`: items per task.
    pub items: u64,
    /// `-I`: items per tree directory.
    pub items_per_dir: u64,
    /// `-L`: items only in the leaf directories.
    pub leaf_only: bool,
    /// `-u`: each task works in its own tree.
    pub unique_dir: bool,
    /// `-S`: one shared set of files for all tasks.
    pub shared_file: bool,
}

/// Which phases run, and around them.
#[derive(Debug, Clone, Default)]
pub struct Phases {
    /// `-C`, `-T`, `-E`, `-r`, `-U`.
    pub create: bool,
    pub stat: bool,
    pub read: bool,
    pub remove: bool,
    pub rename: bool,
    /// `-D`: directories only.
    pub dirs_only: bool,
    /// `-F`: files only.
    pub files_only: bool,
    /// `-i`.
    pub iterations: u64,
    /// `-p`: delay in seconds before the directory and file tests.
    pub pre_delay: u64,
    /// `-k`: create files with mknod.
    pub make_node: bool,
    /// `--run-cmd-before-phase` (outside the phase's time).
    pub run_cmd_before_phase: Option<String>,
    /// `--run-cmd-after-phase` (inside the phase's time).
    pub run_cmd_after_phase: Option<String>,
}

/// How the tasks share the work.
#[derive(Debug, Clone, Default)]
pub struct Order {
    /// `-B`: no barriers between phases.
    pub no_barriers: bool,
    /// `-N`: neighbour stride: task t stats the items of t+N, reads those of
    /// t+2N and removes those of t+3N.
    pub nstride: usize,
    /// `-c`: task 0 creates and removes every task's items.
    pub collective_creates: bool,
    /// `-t`: include the unique-directory set-up in the create time.
    pub time_unique_dir_overhead: bool,
    /// `-R`: stat and read in a random order.
    pub randomize: bool,
    /// `--random-seed`: seed of `-R` (0: rank 0 picks the time).
    pub random_seed: i64,
}

/// The task-count sweep (`-f`, `-l`, `-s`).
#[derive(Debug, Clone)]
pub struct Sweep {
    pub first: Option<usize>,
    /// `None`: all tasks.
    pub last: Option<usize>,
    pub stride: usize,
}

/// What is written to and read from each file, and how it is checked.
#[derive(Debug, Clone)]
pub struct Data {
    /// `-w`.
    pub write_bytes: u64,
    /// `-e`.
    pub read_bytes: u64,
    /// `-G`: the data seed (`None`: rank 0 picks the time, as mdtest does).
    pub data_seed: Option<i64>,
    pub data_packet_type: PacketType,
    /// `-X`/`--verify-read`.
    pub verify_read: bool,
    /// `--verify-write`: read back and verify each file after writing it.
    pub verify_write: bool,
    /// `-y`: fsync each file after writing it.
    pub sync_file: bool,
    /// `-Y`: flush the file system at the end of each phase (timed).
    pub call_sync: bool,
}

/// The stonewall of the file create phase.
#[derive(Debug, Clone, Default)]
pub struct Stonewall {
    /// `-W`, seconds.
    pub seconds: u64,
    /// `-x`: file holding the item count, for split runs.
    pub file: Option<String>,
}

/// What is reported, and where.
#[derive(Debug, Clone)]
pub struct Output {
    /// `-v` (counts) or `-V n`.
    pub verbose: u32,
    /// `-P`: rates and times.
    pub print_rate_and_time: bool,
    /// `--print-all-procs`: per-task results.
    pub print_all_procs: bool,
    /// `-Z`: times instead of rates.
    pub print_time: bool,
    pub show_rank_statistics: bool,
    pub warning_as_errors: bool,
    /// `--saveRankPerformanceDetails`: every task's rate and time, as CSV.
    pub save_rank_details: Option<String>,
    /// `--summaryFormat` and `--summaryFile` (pario: mdtest has none).
    pub summary: Summary,
    /// `--recordLatency`: per-operation latency histograms.
    pub record_latency: bool,
    /// `--latencyHistogramFile`: the full merged histograms, as CSV.
    pub latency_file: Option<String>,
    /// `--progress`: live progress of long phases on a terminal.
    pub progress: bool,
}

impl Default for MdtestParams {
    fn default() -> Self {
        MdtestParams {
            api: "POSIX".into(),
            module_options: BTreeMap::new(),
            dirs: vec!["./out".into()],
            tree: TreeShape {
                branch_factor: 1,
                depth: 0,
                items: 0,
                items_per_dir: 0,
                leaf_only: false,
                unique_dir: false,
                shared_file: false,
            },
            phases: Phases {
                iterations: 1,
                ..Default::default()
            },
            order: Order::default(),
            sweep: Sweep {
                first: None,
                last: None,
                stride: 1,
            },
            data: Data {
                write_bytes: 0,
                read_bytes: 0,
                data_seed: None,
                data_packet_type: PacketType::Timestamp,
                verify_read: false,
                verify_write: false,
                sync_file: false,
                call_sync: false,
            },
            stonewall: Stonewall::default(),
            output: Output {
                verbose: 0,
                print_rate_and_time: false,
                print_all_procs: false,
                print_time: false,
                show_rank_statistics: false,
                warning_as_errors: false,
                save_rank_details: None,
                summary: Summary::default(),
                record_latency: true,
                latency_file: None,
                progress: true,
            },
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
        let p = &mut self.phases;
        if !(p.create || p.stat || p.read || p.remove || p.rename) {
            p.create = true;
            p.stat = true;
            p.read = true;
            p.remove = true;
            p.rename = true;
        }
    }

    /// Whether the directory phases run (mdtest's `dirs_only`: not `-F`,
    /// and never with `-S`).
    pub fn directory_phases(&self) -> bool {
        (self.phases.dirs_only || !self.phases.files_only) && !self.tree.shared_file
    }

    /// Whether the file phases run (mdtest's `files_only`: not `-D`).
    pub fn file_phases(&self) -> bool {
        self.phases.files_only || !self.phases.dirs_only
    }

    /// Whether the stat/read order is shuffled.
    pub fn random_order(&self) -> bool {
        self.order.randomize || self.order.random_seed > 0
    }
}
