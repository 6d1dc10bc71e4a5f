//! `pario concurrent FILE`: several tool command lines at the same time,
//! each on its share of the tasks (a split communicator per group), started
//! together at one barrier and ended together (a common deadline) or each at
//! the end of its work. Results per group (its tool's full report) and for
//! the whole; with `--alone`, each group first runs alone on its tasks, and
//! its figures together are set against those (the slow-down).
//!
//! [`spec`] reads the file and splits the tasks; [`run`] is what every task
//! does; [`report`] is what rank 0 makes of it.

pub mod report;
pub mod run;
pub mod spec;
pub mod tools;

use std::collections::BTreeMap;
use std::process::ExitCode;

use crate::engine::{self, report_failure};
use crate::error::{Error, UsageError};
use crate::options::{
    long_flag, long_value, on, some, some_text, value, Grammar, ModuleOptions, Setting,
};
use crate::run::stop;
use crate::units::parse_non_negative;

pub use report::ConcurrentReport;
pub use spec::{Group, Kind};

const NAME: &str = "concurrent";
pub const ABOUT: &str =
    "several ior, mdtest and md-workbench runs at once, each on its share of the tasks";

/// A checked command line.
#[derive(Debug, Clone, Default)]
pub struct Config {
    /// The file of groups.
    pub file: String,
    pub groups: Vec<Group>,
    /// `-D`: every group stops at this many seconds (the tool's own
    /// deadline option); otherwise each runs to the end of its work.
    pub deadline: Option<u64>,
    /// `--alone`: each group also runs alone first, for its slow-down.
    pub alone: bool,
    /// `--json`: the report's JSON document.
    pub json: Option<String>,
    pub help: bool,
    files: Vec<String>,
    /// The grammar's place for module options (none here).
    modules: BTreeMap<String, String>,
}

impl ModuleOptions for Config {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.modules
    }
}

impl Config {
    /// Groups a driver made (io500's concurrent phase): `file` names them
    /// in the report; every group stops at `deadline` seconds, if given.
    pub fn of_groups(file: &str, groups: Vec<Group>, deadline: Option<u64>) -> Config {
        Config {
            file: file.into(),
            groups,
            deadline,
            ..Config::default()
        }
    }

    /// Each group's command line as it runs (with the deadline's options).
    pub fn args_of(&self, g: &Group) -> Vec<String> {
        let mut args = g.args.clone();
        if let Some(s) = self.deadline {
            args.extend(g.kind.deadline_args(s));
        }
        args
    }
}

pub fn grammar() -> Grammar<Config> {
    let file = |c: &mut Config, s: Setting<'_>| {
        c.files.push(s.value().to_string());
        Ok(())
    };
    Grammar {
        tool: "pario concurrent",
        specs: vec![
            value('D', &["deadline"], "every group stops after SECONDS (ior -D with minTimeDuration, mdtest -W, md-workbench -w), so all end together; without it each group runs to the end of its work", some(|c: &mut Config| &mut c.deadline, parse_non_negative)),
            long_flag(&["alone"], "run each group alone on its tasks first, and report its slow-down together (alone / together)", on(|c: &mut Config| &mut c.alone)),
            long_value(&["json"], "write the report (every group's full report inside) as JSON to FILE", some_text(|c: &mut Config| &mut c.json, "JSON file name")),
        ],
        operand: Some(file),
    }
}

/// `-h`.
pub fn help() -> String {
    format!(
        "pario concurrent [options] FILE: {ABOUT}\n\
         Each line of FILE: SHARE% TOOL ARGS... (ior, mdtest or md-workbench; # comments);\n\
         the shares add up to 100 and are rounded to whole tasks, each group at least one.\n{}",
        grammar().options_text()
    )
}

/// Parses the command line and reads the file; nothing runs yet.
pub fn parse(args: &[String]) -> Result<Config, UsageError> {
    let parsed = grammar().parse_command_line(args, Config::default())?;
    let mut c = parsed.params;
    c.help = parsed.help;
    if c.help {
        return Ok(c);
    }
    let [file] = &c.files[..] else {
        return Err(UsageError(
            "pario concurrent takes one FILE of groups (SHARE% TOOL ARGS... per line)".into(),
        ));
    };
    c.file = file.clone();
    let text = std::fs::read_to_string(file)
        .map_err(|e| UsageError(format!("cannot read {file}: {e}")))?;
    c.groups = spec::parse(file, &text)?;
    if let Some(seconds) = c.deadline.filter(|&s| s > 0) {
        for g in &c.groups {
            let with_deadline = c.args_of(g);
            g.kind.check(&with_deadline).map_err(|e| {
                UsageError(format!(
                    "{file}:{}: {} with -D {seconds}: {}",
                    g.line,
                    g.kind.name(),
                    e.0
                ))
            })?;
        }
    } else {
        c.deadline = None;
    }
    Ok(c)
}

pub fn main(args: &[String]) -> ExitCode {
    let c = match parse(args) {
        Ok(c) => c,
        Err(e) => return report_failure(NAME, &Error::Usage(e)),
    };
    if c.help {
        if engine::is_printer() {
            print!("{}", help());
        }
        return ExitCode::SUCCESS;
    }
    let tasks = match engine::tasks_from_env() {
        Ok(n) => n.unwrap_or(1),
        Err(e) => return report_failure(NAME, &Error::Usage(e)),
    };
    stop::install(NAME);
    let code = engine::run_tasks(NAME, tasks, |comm| run::on_task(comm, &c).map(|_| ()));
    engine::after_signal(NAME, code)
}
