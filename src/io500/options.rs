//! `io500 CONFIG.ini [options]`: the command line, its checks (every phase's
//! command line parsed by its tool before anything is created), and the
//! command's entry point.

use std::collections::BTreeMap;
use std::process::ExitCode;

use super::config::Config;
use super::phases::{arguments, Setting, PHASES};
use super::{driver, run_phase, verify, Io500Run, Mode};
use crate::engine::{self, report_failure};
use crate::error::{Error, UsageError};
use crate::options::{
    count, flag, long_flag, long_value, non_empty, on, set, shown, Field, Grammar, ModuleOptions,
    OptSpec,
};
use crate::run::stop;

/// What a command line asks for.
#[derive(Debug, Default)]
pub enum Action {
    Help,
    List {
        mandatory: bool,
    },
    ConfigHash,
    Verify(String),
    /// `--bundle DIR`: the result directory packed for submission.
    Bundle(String),
    #[default]
    Run,
}

/// The options, as given.
#[derive(Debug, Default)]
pub struct CommandLine {
    pub config_file: String,
    pub action: Action,
    pub mode: Mode,
    pub timestamp: Option<String>,
    pub dry_run: bool,
    pub cleanup: bool,
    pub verbose: u32,
    /// `--system=FILE`: the system description written there too.
    pub system_file: Option<String>,
    /// Backend options are phases' business (their `api` keys): none here.
    module_options: BTreeMap<String, String>,
}

impl ModuleOptions for CommandLine {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.module_options
    }
}

const ABOUT: &str = "Usage: io500 CONFIG.ini [options]

Runs the IO500 workflow (ior, mdtest, md-workbench and find phases) with
pario's own tools, on threads (PARIO_TASKS) or MPI ranks.
";

/// The command line's one table: it parses, and it writes the help and the
/// spellings `pario` checks.
pub fn grammar() -> Grammar<CommandLine> {
    let action = |a: fn() -> Action| -> Field<CommandLine> {
        Field::boxed(move |c: &mut CommandLine, _| {
            c.action = a();
            Ok(())
        })
    };
    let mut specs: Vec<OptSpec<CommandLine>> = vec![
        long_flag(
            &["dry-run"],
            "check, create the directories, print each phase's command; run nothing",
            on(|c| &mut c.dry_run),
        ),
        long_value(
            &["mode"],
            "extended also runs find-easy, find-hard and md-workbench",
            shown(
                "standard|extended",
                set(|c, s| {
                    c.mode = mode(s.value())?;
                    Ok(())
                }),
            ),
        ),
        long_value(
            &["timestamp"],
            "the directories' and seeds' timestamp (default: now)",
            shown(
                "S",
                set(|c, s| {
                    c.timestamp = Some(checked_stamp(s.value())?);
                    Ok(())
                }),
            ),
        ),
        long_flag(
            &["cleanup"],
            "run only the removal phases of an earlier run (with --timestamp)",
            on(|c| &mut c.cleanup),
        ),
        flag(
            'l',
            &["list"],
            "print every section and key with its help and current value",
            action(|| Action::List { mandatory: false }),
        ),
        long_flag(
            &["list-mandatory"],
            "the same for the mandatory phases only",
            action(|| Action::List { mandatory: true }),
        ),
        long_flag(
            &["config-hash"],
            "print the configuration's hash",
            action(|| Action::ConfigHash),
        ),
        long_value(
            &["verify"],
            "check the hashes of a result file against CONFIG.ini",
            shown(
                "RESULT.txt",
                set(|c, s| {
                    c.action = Action::Verify(non_empty(s.value(), "result file name")?);
                    Ok(())
                }),
            ),
        ),
        flag(
            'v',
            &["verbose"],
            "more output (repeatable)",
            count(|c| &mut c.verbose),
        ),
    ];
    specs.extend(submission());
    Grammar {
        operand: Some(|c, s| match c.config_file.is_empty() {
            true => {
                c.config_file = s.value().to_string();
                Ok(())
            }
            false => Err(format!("'{}': only one configuration file", s.value())),
        }),
        ..Grammar::new("io500", specs)
    }
}

/// The options around a submission: the archive, the system description.
fn submission() -> Vec<OptSpec<CommandLine>> {
    vec![
        long_value(
            &["bundle"],
            "pack a result directory into DIR.tar with a SHA256SUMS list (--verify reads it)",
            shown(
                "DIR",
                set(|c, s| {
                    c.action = Action::Bundle(non_empty(s.value(), "result directory")?);
                    Ok(())
                }),
            ),
        ),
        long_value(
            &["system"],
            "also write the clients' system description (system.json) to FILE",
            shown(
                "FILE",
                set(|c, s| {
                    c.system_file = Some(non_empty(s.value(), "file name")?);
                    Ok(())
                }),
            ),
        ),
    ]
}

/// `io500 -h`.
pub fn help() -> String {
    format!("{ABOUT}\n{}", grammar().options_text())
}

/// Parses `args` (without the program).
pub fn parse(args: &[String]) -> Result<CommandLine, UsageError> {
    let parsed = grammar().parse_command_line(args, CommandLine::default())?;
    let mut c = parsed.params;
    if parsed.help {
        c.action = Action::Help;
    }
    // A bundle carries its configuration.
    let alone = match &c.action {
        Action::Help | Action::Bundle(_) => true,
        Action::Verify(file) => super::bundle::is_archive(file),
        _ => false,
    };
    if c.config_file.is_empty() && !alone {
        return Err(UsageError(
            "no configuration file (io500 CONFIG.ini; see io500 -h)".into(),
        ));
    }
    Ok(c)
}

fn mode(text: &str) -> Result<Mode, String> {
    match text.to_ascii_lowercase().as_str() {
        "standard" => Ok(Mode::Standard),
        "extended" => Ok(Mode::Extended),
        _ => Err("use standard or extended".into()),
    }
}

/// A timestamp names directories: no path separators.
fn checked_stamp(s: &str) -> Result<String, String> {
    match s.is_empty() || s.contains('/') || s == "." || s == ".." {
        true => Err("not usable as a directory name".into()),
        false => Ok(s.to_string()),
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
        system_file: c.system_file.clone(),
    };
    let setting = Setting {
        config: &run.config,
        data: "DATA".into(),
        results: "RESULTS".into(),
        timestamp: run.timestamp(),
        stonewall: run.stonewall(),
        mdw_objects: run.configured_mdw_objects().unwrap_or(1),
    };
    let dirs = super::dirs::Dirs::of(&run.config, &setting.timestamp);
    if let Some(why) = super::preflight::check_dirs(&run.config, &dirs.data, &dirs.results) {
        return Err(UsageError(why));
    }
    for p in PHASES.iter() {
        super::storage::refuse(&run.config.api_for(p.name, p.group)).map_err(UsageError)?;
        run_phase::check(p, &arguments(p, &setting))?;
    }
    if run.config.concurrent() {
        super::extension::check(&setting)?;
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
            print!("{}", help());
            ExitCode::SUCCESS
        }
        Action::Verify(file) => verify::main(&c.config_file, file),
        Action::Bundle(dir) => bundle(dir),
        _ => run(&c),
    }
}

/// `--bundle DIR`: the archive made, its members listed.
fn bundle(dir: &str) -> ExitCode {
    match super::bundle::pack(dir) {
        Ok((archive, members)) => {
            for (name, bytes) in members {
                println!("{bytes:>12}  {name}");
            }
            println!("The submission archive: {}", archive.display());
            ExitCode::SUCCESS
        }
        Err(e) => report_failure("io500", &Error::Usage(UsageError(e))),
    }
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
    let code = engine::run_tasks("io500", tasks, |comm| driver::run(comm, &run));
    engine::after_signal("io500", code)
}
