//! md-workbench's parameters, as its options set them.

use std::collections::BTreeMap;

use crate::options::ModuleOptions;
use crate::output::Summary;
use crate::pattern::PacketType;

/// Which of the three phases run (`-1`, `-2`, `-3`; none given: all three).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Phases {
    pub precreate: bool,
    pub benchmark: bool,
    pub cleanup: bool,
}

impl Phases {
    /// Whether the phases were chosen (then the run-info file is used).
    pub fn chosen(&self) -> bool {
        self.precreate || self.benchmark || self.cleanup
    }
}

#[derive(Debug, Clone)]
pub struct MdwParams {
    pub api: String,
    pub module_options: BTreeMap<String, String>,
    /// `-o`: the prefix directory.
    pub prefix: String,
    /// `-O`: the rank distance between an object's owner and its reader or
    /// writer.
    pub offset: i64,
    /// `-D`: datasets per rank.
    pub data_sets: u64,
    /// `-P`: objects precreated per dataset.
    pub precreate: u64,
    /// `-I`: iterations of a benchmark phase.
    pub objects: u64,
    /// `-R`: benchmark phases.
    pub iterations: u64,
    /// `-S`: bytes per object.
    pub object_size: u64,
    pub phases: Phases,
    /// `-G` (`None`: the time on rank 0).
    pub seed: Option<i64>,
    pub packet: PacketType,
    /// `-X`.
    pub verify: bool,
    pub read_only: bool,
    /// `-t`: wait this many times each operation's time after it.
    pub waiting_factor: f64,
    /// `-T`: each benchmark iteration runs eight phases, waiting 0, 1/16,
    /// 1/8 ... 4 times each operation's time.
    pub adaptive_waiting: bool,
    /// `-L`: the latency files' prefix.
    pub latency_prefix: Option<String>,
    /// `--latency-all`: rank 0 writes every rank's operations.
    pub latency_all: bool,
    /// pario's `--recordLatency` (default on): time every operation.
    pub record_latency: bool,
    pub start_item: Option<u64>,
    /// `-w`: seconds per benchmark phase, 0 for none.
    pub stonewall: u64,
    /// `-W`: after the wall, every rank does as many iterations as the one
    /// that did most.
    pub wear_out: bool,
    pub ignore_precreate_errors: bool,
    pub process_reports: bool,
    /// `--print-detailed-stats`: tab-separated rows instead of the lines.
    pub detailed: bool,
    pub quiet: bool,
    pub verbose: u32,
    pub run_info_file: String,
    pub summary: Summary,
}

impl Default for MdwParams {
    fn default() -> MdwParams {
        MdwParams {
            api: "POSIX".into(),
            module_options: BTreeMap::new(),
            prefix: "./out".into(),
            offset: 1,
            data_sets: 10,
            precreate: 3000,
            objects: 1000,
            iterations: 3,
            object_size: 3901,
            phases: Phases::default(),
            seed: None,
            packet: PacketType::Timestamp,
            verify: false,
            read_only: false,
            waiting_factor: 0.0,
            adaptive_waiting: false,
            latency_prefix: None,
            latency_all: false,
            record_latency: true,
            start_item: None,
            stonewall: 0,
            wear_out: false,
            ignore_precreate_errors: false,
            process_reports: false,
            detailed: false,
            quiet: false,
            verbose: 0,
            run_info_file: "md-workbench.status".into(),
            summary: Summary::default(),
        }
    }
}

impl ModuleOptions for MdwParams {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.module_options
    }
}

impl MdwParams {
    /// The waiting factors of the benchmark phases of one iteration: `-t`'s,
    /// or with `-T` md-workbench's eight (0, then 1/16 doubling to 4).
    pub fn waiting_factors(&self) -> Vec<f64> {
        match self.adaptive_waiting {
            false => vec![self.waiting_factor],
            true => std::iter::once(0.0)
                .chain((0..7).map(|k| 0.0625 * f64::from(1 << k)))
                .collect(),
        }
    }

    /// The phases this invocation runs: all three when none was chosen.
    pub fn effective_phases(&self) -> Phases {
        match self.phases.chosen() {
            true => self.phases,
            false => Phases {
                precreate: true,
                benchmark: true,
                cleanup: true,
            },
        }
    }
}
