//! What an mdtest run reports: one model for every output format, and the
//! events the runner sends to its outputs. The JSON schema and the CSV
//! columns are described in `docs/mdtest.md`.

use serde::{Deserialize, Serialize};

use super::params::MdtestParams;
use super::results::{operation, signal, PhaseResult, SummaryRow, TaskIteration};
use crate::backend::FsUsage;
use crate::comm::Comm;
use crate::run::info::{nodemap, timestamp, RunHeader};
use crate::stats::Stats;
use crate::units::StaticName;

/// The options of the run, with mdtest's names where it has them.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ParametersEcho {
    pub api: String,
    pub directories: Vec<String>,
    pub items: u64,
    pub items_per_dir: u64,
    pub depth: u64,
    pub branch_factor: u64,
    pub leaf_only: bool,
    pub unique_dir_per_task: bool,
    pub shared_file: bool,
    pub files_only: bool,
    pub dirs_only: bool,
    pub create_only: bool,
    pub stat_only: bool,
    pub read_only: bool,
    pub remove_only: bool,
    pub rename_dirs: bool,
    pub write_bytes: u64,
    pub read_bytes: u64,
    pub nstride: usize,
    pub iterations: u64,
    pub barriers: bool,
    pub collective_creates: bool,
    pub make_node: bool,
    pub sync_file: bool,
    pub call_sync: bool,
    pub random_seed: i64,
    pub data_seed: i64,
    #[serde(rename = "dataPacketType")]
    pub data_packet_type: char,
    pub stone_wall_timer_seconds: u64,
    #[serde(rename = "stoneWallingStatusFile")]
    pub stonewall_status_file: Option<String>,
    pub verify_read: bool,
    pub verify_write: bool,
}

impl ParametersEcho {
    pub fn new(p: &MdtestParams, data_seed: i64, random_seed: i64) -> ParametersEcho {
        ParametersEcho {
            api: p.api.clone(),
            directories: p.dirs.clone(),
            items: p.tree.items,
            items_per_dir: p.tree.items_per_dir,
            depth: p.tree.depth,
            branch_factor: p.tree.branch_factor,
            leaf_only: p.tree.leaf_only,
            unique_dir_per_task: p.tree.unique_dir,
            shared_file: p.tree.shared_file,
            files_only: p.file_phases(),
            dirs_only: p.directory_phases(),
            create_only: p.phases.create,
            stat_only: p.phases.stat,
            read_only: p.phases.read,
            remove_only: p.phases.remove,
            rename_dirs: p.phases.rename,
            write_bytes: p.data.write_bytes,
            read_bytes: p.data.read_bytes,
            nstride: p.order.nstride,
            iterations: p.phases.iterations,
            barriers: !p.order.no_barriers,
            collective_creates: p.order.collective_creates,
            make_node: p.phases.make_node,
            sync_file: p.data.sync_file,
            call_sync: p.data.call_sync,
            random_seed,
            data_seed,
            data_packet_type: p.data.data_packet_type.letter(),
            stone_wall_timer_seconds: p.stonewall.seconds,
            stonewall_status_file: p.stonewall.file.clone(),
            verify_read: p.data.verify_read,
            verify_write: p.data.verify_write,
        }
    }
}

/// The stonewall of a file create phase (`-W`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Stonewall {
    /// Seconds from the phase's start until the tasks agreed on the count.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub time_s: f64,
    /// Items the slowest task had created by then.
    pub items_min: u64,
    /// Items the fastest task had created: every task then finished that many.
    pub items_max: u64,
    /// Items all tasks had created by then.
    pub items_sum: u64,
}

/// One iteration of a sweep step.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IterationReport {
    pub iteration: u64,
    /// The phases that ran, in table order.
    pub phases: Vec<PhaseResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stonewall: Option<Stonewall>,
    /// Every participating task's samples (text output only).
    #[serde(skip)]
    pub tasks: Vec<TaskIteration>,
}

/// One step of the task-count sweep (`-f`/`-l`/`-s`; one step without them).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SweepReport {
    pub tasks: usize,
    /// Items each task handles per iteration (before any stonewall).
    pub items_per_task: u64,
    pub total_items: u64,
    /// "files/directories", "files", "directories" or "1 file".
    #[serde(skip)]
    pub item_kind: String,
    pub iterations: Vec<IterationReport>,
    /// Every operation that ran, in table order.
    pub summary: Vec<SummaryRow>,
    /// The rows of the text table (all operations of the run's kinds).
    #[serde(skip)]
    pub table: Vec<SummaryRow>,
    /// Files whose data were wrong (`-X`, `--verify-write`).
    pub verification_errors: u64,
    /// Set when a signal stopped the run in this sweep step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interrupted: Option<Interruption>,
}

/// Where a signal stopped a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interruption {
    /// The signal's name: `SIGINT`.
    #[serde(deserialize_with = "signal")]
    pub signal: StaticName,
    pub iteration: u64,
    /// The phase it closed (none when it came between phases, or with `-B`
    /// where tasks do not agree at each phase's end).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "some_operation"
    )]
    pub operation: Option<StaticName>,
}

fn some_operation<'de, D>(d: D) -> Result<Option<&'static str>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    operation(d).map(Some)
}

impl SweepReport {
    /// The row of an operation in the text table.
    pub fn row(&self, name: &str) -> Option<&SummaryRow> {
        self.table.iter().find(|r| r.operation == name)
    }
}

/// A whole run: the JSON document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MdtestReport {
    #[serde(flatten, deserialize_with = "crate::units::with_path")]
    pub header: RunHeader,
    /// `1` per task on the same node as task 0, `0` otherwise.
    #[serde(rename = "Nodemap")]
    pub nodemap: String,
    #[serde(rename = "Path")]
    pub path: String,
    #[serde(rename = "FS")]
    pub fs: Option<FsUsage>,
    #[serde(rename = "Parameters")]
    pub parameters: ParametersEcho,
    /// Warnings printed at the start (read bytes 0, ...).
    pub warnings: Vec<String>,
    pub tests: Vec<SweepReport>,
    #[serde(rename = "Finished")]
    pub finished: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Options that shape the text (not part of the JSON).
    #[serde(skip)]
    pub text: TextOptions,
}

impl MdtestReport {
    /// The report of a run about to start: its header, no results yet.
    pub fn new(
        comm: &dyn Comm,
        p: &MdtestParams,
        command_line: &str,
        data_seed: i64,
        random_seed: i64,
    ) -> MdtestReport {
        let mut warnings = Vec::new();
        if p.phases.read && p.data.read_bytes == 0 && p.file_phases() {
            warnings.push(
                "WARNING: Read bytes is 0, thus, a read test will actually just open/close".into(),
            );
        }
        MdtestReport {
            header: RunHeader::now(comm, command_line, p.output.verbose, timestamp()),
            nodemap: nodemap(comm.topology()),
            path: p.dirs[0].clone(),
            fs: None,
            parameters: ParametersEcho::new(p, data_seed, random_seed),
            warnings,
            tests: Vec::new(),
            finished: String::new(),
            error: None,
            text: TextOptions {
                print_time: p.output.print_time,
                print_rate_and_time: p.output.print_rate_and_time,
                show_rank_statistics: p.output.show_rank_statistics,
                print_all_procs: p.output.print_all_procs,
                iterations: p.phases.iterations,
            },
        }
    }
}

/// What the text layout depends on.
#[derive(Debug, Clone, Copy, Default)]
pub struct TextOptions {
    pub print_time: bool,
    pub print_rate_and_time: bool,
    pub show_rank_statistics: bool,
    pub print_all_procs: bool,
    pub iterations: u64,
}

/// Statistics of a summary row as a table: rates or times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Table {
    Rate,
    Time,
}

impl Table {
    pub fn stats(self, row: &SummaryRow) -> (Stats, Stats) {
        match self {
            Table::Rate => (row.rate, row.task_rate),
            Table::Time => (row.time_s, row.task_time_s),
        }
    }
}
