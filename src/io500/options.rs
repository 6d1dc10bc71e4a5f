//! `io500 CONFIG.ini [options]`: the command line, its checks (every phase's
//! command line parsed by its tool before anything is created), and the
//! command's entry point.

use std::process::ExitCode;

use super::config::Config;
use super::phases::{arguments, Setting, PHASES};
use super::{driver, run_phase, verify, Io500Run, Mode};
use crate::engine::{self, report_failure};
use crate::error::{Error, UsageError};
use crate::run::stop;

/// What a command line asks for.
#[derive(Debug)]
pub enum Action {
    Help,
    List { mandatory: bool },
    ConfigHash,
    Verify(String),
    Run,
}

/// The options, as given.
#[derive(Debug)]
pub struct CommandLine {
    pub config_file: String,
    pub action: Action,
    pub mode: Mode,
    pub timestamp: Option<String>,
    pub dry_run: bool,
    pub cleanup: bool,
    pub verbose: u32,
}

pub const HELP: &str = "Usage: io500 CONFIG.ini [options]

Runs the IO500 workflow (ior, mdtest, md-workbench and find phases) with
pario's own tools, on threads (PARIO_TASKS) or MPI ranks.

Options:
  --dry-run              check, create the directories, print each phase's command; run nothing
  --mode=standard|extended  extended also runs find-easy, find-hard and md-workbench
  --timestamp=S          the directories' and seeds' timestamp (default: now)
  --cleanup              run only the removal phases of an earlier run (with --timestamp)
  -l, --list             print every section and key with its help and current value
  --list-mandatory       the same for the mandatory phases only
  --config-hash          print the configuration's hash
  --verify RESULT.txt    check the hashes of a result file against CONFIG.ini
  -v                     more output (repeatable)
  -h, --help             this help
";

/// The options' spellings (for `pario`'s option checks).
const SPELLINGS: [(&str, bool); 11] = [
    ("--dry-run", false),
    ("--mode", true),
    ("--timestamp", true),
    ("--cleanup", false),
    ("-l", false),
    ("--list", false),
    ("--list-mandatory", false),
    ("--config-hash", false),
    ("--verify", true),
    ("-v", false),
    ("-h", false),
];

/// Parses `args` (without the program).
pub fn parse(args: &[String]) -> Result<CommandLine, UsageError> {
    let mut c = CommandLine {
        config_file: String::new(),
        action: Action::Run,
        mode: Mode::Standard,
        timestamp: None,
        dry_run: false,
        cleanup: false,
        verbose: 0,
    };
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
            _ => (a.as_str(), None),
        };
        let mut value = |what: &str| -> Result<String, UsageError> {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| UsageError(format!("{name} needs {what}")))
        };
        match name {
            "-h" | "--help" => c.action = Action::Help,
            "--dry-run" => c.dry_run = true,
            "--cleanup" => c.cleanup = true,
            "-l" | "--list" => c.action = Action::List { mandatory: false },
            "--list-mandatory" => c.action = Action::List { mandatory: true },
            "--config-hash" => c.action = Action::ConfigHash,
            "--verify" => c.action = Action::Verify(value("a result file")?),
            "--timestamp" => c.timestamp = Some(checked_stamp(value("a timestamp")?)?),
            "--mode" => c.mode = mode(&value("standard or extended")?)?,
            "-v" | "--verbose" => c.verbose += 1,
            _ if a.starts_with('-') && a.len() > 1 => {
                return Err(UsageError(format!("unknown option '{a}' (see io500 -h)")))
            }
            _ if c.config_file.is_empty() => c.config_file = a.clone(),
            _ => return Err(UsageError(format!("'{a}': only one configuration file"))),
        }
    }
    if c.config_file.is_empty() && !matches!(c.action, Action::Help) {
        return Err(UsageError(
            "no configuration file (io500 CONFIG.ini; see io500 -h)".into(),
        ));
    }
    Ok(c)
}

fn mode(text: &str) -> Result<Mode, UsageError> {
    match text.to_ascii_lowercase().as_str() {
        "standard" => Ok(Mode::Standard),
        "extended" => Ok(Mode::Extended),
        _ => Err(UsageError(format!(
            "--mode={text}: use standard or extended"
        ))),
    }
}

/// A timestamp names directories: no path separators.
fn checked_stamp(s: String) -> Result<String, UsageError> {
    match s.is_empty() || s.contains('/') || s == "." || s == ".." {
        true => Err(UsageError(format!(
            "--timestamp={s}: not usable as a directory name"
        ))),
        false => Ok(s),
    }
}

/// Reads and checks the configuration, and every phase's command line.
pub fn prepare(c: &CommandLine) -> Result<Io500Run, UsageError> {
    let text = std::fs::read_to_string(&c.config_file)
        .map_err(|e| UsageError(format!("{}: {e}", c.config_file)))?;
    let config = Config::parse(&c.config_file, &text).map_err(|e| UsageError(e.to_string()))?;
    let run = Io500Run {
        config,
        config_text: text,
        mode: c.mode,
        timestamp: c.timestamp.clone(),
        dry_run: c.dry_run,
        cleanup: c.cleanup,
        verbose: c.verbose,
    };
    let setting = Setting {
        config: &run.config,
        data: "DATA".into(),
        results: "RESULTS".into(),
        timestamp: run.timestamp(),
        stonewall: run.stonewall(),
        mdw_objects: run.configured_mdw_objects().unwrap_or(1),
    };
    for p in PHASES.iter() {
        run_phase::check(p, &arguments(p, &setting))?;
    }
    Ok(run)
}

/// `io500 ARGS`: the command's entry point.
pub fn main(args: &[String]) -> ExitCode {
    let c = match parse(args) {
        Ok(c) => c,
        Err(e) => return report_failure("io500", &Error::Usage(e)),
    };
    match &c.action {
        Action::Help => {
            print!("{HELP}");
            ExitCode::SUCCESS
        }
        Action::Verify(file) => verify::main(&c.config_file, file),
        _ => run(&c),
    }
}

/// The options' spellings, and whether each takes a value.
pub fn spellings() -> &'static [(&'static str, bool)] {
    &SPELLINGS
}

/// Parses and checks a command line without running anything.
pub fn check(args: &[String]) -> Result<(), UsageError> {
    let c = parse(args)?;
    match c.action {
        Action::Run => prepare(&c).map(|_| ()),
        _ => Ok(()),
    }
}

fn run(c: &CommandLine) -> ExitCode {
    let run = match prepare(c) {
        Ok(r) => r,
        Err(e) => return report_failure("io500", &Error::Usage(e)),
    };
    let printed = match c.action {
        Action::List { mandatory } => Some(run.config.list(mandatory)),
        Action::ConfigHash => Some(format!(
            "config-hash     = {:X}\n",
            run.config.config_hash()
        )),
        _ => None,
    };
    if let Some(text) = printed {
        if engine::is_printer() {
            print!("{text}");
        }
        return ExitCode::SUCCESS;
    }
    let tasks = match engine::tasks_from_env() {
        Ok(n) => n.unwrap_or(1),
        Err(e) => return report_failure("io500", &Error::Usage(e)),
    };
    stop::install("io500");
    engine::run_tasks("io500", tasks, |comm| driver::run(comm, &run))
}
