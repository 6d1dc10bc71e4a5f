//! `io500`: the IO500 workflow in one binary: its ini configuration, its
//! phases run in-process with pario's own tools, its find, scores and
//! result files.
//!
//! [`config`] reads and checks the ini file; [`phases`] lists the phases
//! and builds each tool's command line; [`driver`] runs them on every task
//! ([`run_phase`] runs one and takes its figures); [`results`] judges and
//! scores; [`files`] writes the result files; [`hash`] is IO500's hashes
//! and seeds; [`verify`] checks a result file (or a [`bundle`], the
//! submission archive); [`find`] is the parallel find; [`preflight`] checks a run before its first phase; [`storage`] is
//! where the data lives (a file system, or S3's listings);
//! [`extension`] is pario's extension, IO500#56's concurrent phase.

pub mod bundle;
pub mod config;
pub mod dirs;
pub mod driver;
pub mod extension;
pub mod files;
pub mod find;
pub mod finished;
pub mod hash;
pub mod json;
pub mod live;
pub mod options;
pub mod phases;
pub mod preflight;
pub mod results;
pub mod run_phase;
pub mod storage;
pub mod verify;

use config::Config;
use phases::Phase;

/// The stonewall time and shortest write phase of a valid run, in seconds.
pub const OFFICIAL_RUNTIME: u64 = 300;

/// Standard or extended mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    Standard,
    Extended,
}

impl Mode {
    pub fn name(self) -> &'static str {
        match self {
            Mode::Standard => "standard",
            Mode::Extended => "extended",
        }
    }
}

/// The version line's name: pario's, under IO500's rules.
pub fn version() -> String {
    format!("pario-{}", env!("CARGO_PKG_VERSION"))
}

/// One checked `io500` invocation.
#[derive(Debug, Clone)]
pub struct Io500Run {
    pub config: Config,
    /// The configuration file as given (`config-orig.ini`).
    pub config_text: String,
    pub mode: Mode,
    /// `--timestamp`.
    pub timestamp: Option<String>,
    pub dry_run: bool,
    /// `--cleanup`: only the removal phases.
    pub cleanup: bool,
    pub verbose: u32,
    /// `--system=FILE`.
    pub system_file: Option<String>,
}

impl Io500Run {
    /// `--timestamp`, or now in IO500's format (rank 0's clock).
    pub fn timestamp(&self) -> String {
        self.timestamp
            .clone()
            .unwrap_or_else(|| chrono::Local::now().format("%Y.%m.%d-%H.%M.%S").to_string())
    }

    /// `[debug] stonewall-time`.
    pub fn stonewall(&self) -> u64 {
        let seconds = self.config.get_uint("debug", "stonewall-time");
        seconds.unwrap_or_default()
    }

    /// The shortest valid write phase: 300 s, or 30 s with `scc`.
    pub fn minimum_runtime(&self) -> u64 {
        match self.config.flag("global", "scc") {
            true => 30,
            false => OFFICIAL_RUNTIME,
        }
    }

    /// `[global] api`, its secrets hidden (the result files name it).
    pub fn api(&self) -> String {
        storage::redacted(self.config.value("global", "api"))
    }

    /// `[mdworkbench] filesPerProc`, if configured.
    pub fn configured_mdw_objects(&self) -> Option<u64> {
        self.config.get_uint("mdworkbench", "filesPerProc")
    }

    /// Whether `p` runs in this invocation (`--cleanup`: the removals).
    pub fn selected(&self, p: &Phase) -> bool {
        !self.cleanup || p.name.ends_with("delete")
    }
}
