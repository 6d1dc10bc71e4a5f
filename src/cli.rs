//! Command entry points: one generic `main` for every tool, and `pario
//! <tool>` dispatching from one list. Parse, run on the task engine, map the
//! outcome to an exit status (0 ok, 1 runtime failure, 2 bad options, 3
//! wrong data).

use std::ffi::OsString;
use std::process::ExitCode;

mod reference;
mod version;

use crate::dlio::Dlio;
use crate::engine::{self, report_failure};
use crate::error::{Error, UsageError};
use crate::ior::Ior;
use crate::mdtest::Mdtest;
use crate::mdworkbench::MdWorkbench;
use crate::options::{ArgKind, Documented, Grammar};
use crate::run::stop;
use crate::tool::{self, Parsed, Tool};

/// A tool as a command (object-safe, so that the tools form one list).
pub trait Command: Sync {
    fn name(&self) -> &'static str;
    fn about(&self) -> &'static str;
    /// Runs the command line `args` (without `program`).
    fn main(&self, program: &str, args: Vec<String>) -> ExitCode;
    /// Its option table as spelled on a command line.
    fn options(&self) -> Vec<Spelling>;
    /// Parses and checks `args` without running anything: the usage error.
    fn check(&self, program: &str, args: &[String]) -> Result<(), UsageError>;
    /// Its option table as its reference documents it.
    fn documented(&self) -> Vec<Documented>;
}

/// One way to give an option on a command line (`-b`, `--posix.odirect`,
/// `-O` and the directive names), and whether it takes a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spelling {
    pub name: String,
    pub value: bool,
    /// Also a directive name (`-O name=value`).
    pub directive: bool,
}

impl<T: Tool> Command for T {
    fn name(&self) -> &'static str {
        T::NAME
    }

    fn about(&self) -> &'static str {
        T::ABOUT
    }

    fn main(&self, program: &str, args: Vec<String>) -> ExitCode {
        run_tool(self, program, &args)
    }

    fn options(&self) -> Vec<Spelling> {
        spellings(&self.grammar())
    }

    fn check(&self, program: &str, args: &[String]) -> Result<(), UsageError> {
        self.parse(program, args).map(|_| ())
    }

    fn documented(&self) -> Vec<Documented> {
        self.grammar().documented()
    }
}

/// Every spelling of a grammar's options.
pub fn spellings<T>(grammar: &Grammar<T>) -> Vec<Spelling> {
    // Every grammar takes -h and --help itself.
    let help = |name: &str| Spelling {
        name: name.into(),
        value: false,
        directive: false,
    };
    let mut all = vec![help("-h"), help("--help")];
    for spec in &grammar.specs {
        let value = spec.kind != ArgKind::Flag;
        if let Some(c) = spec.short {
            all.push(Spelling {
                name: format!("-{c}"),
                value,
                directive: false,
            });
        }
        for name in &spec.names {
            all.push(Spelling {
                name: format!("--{name}"),
                value,
                directive: spec.kind != ArgKind::Directives,
            });
        }
    }
    all
}

/// Every tool of the suite, in `pario --help` order.
pub static TOOLS: &[&dyn Command] = &[
    &Ior,
    &Mdtest,
    &MdWorkbench,
    &DlioCommand,
    &Io500,
    &Concurrent,
    &Compare,
    &Report,
];

/// `pario dlio` and `dlio_benchmark`: the DLIO tool, and `datasize`
/// (mlpstorage's sizing) as its first word.
pub struct DlioCommand;

impl Command for DlioCommand {
    fn name(&self) -> &'static str {
        "dlio"
    }

    fn about(&self) -> &'static str {
        Dlio::ABOUT
    }

    fn main(&self, program: &str, args: Vec<String>) -> ExitCode {
        match args.split_first() {
            Some((first, rest)) if first == "datasize" => crate::dlio::datasize::main(rest),
            _ => Command::main(&Dlio, program, args),
        }
    }

    fn options(&self) -> Vec<Spelling> {
        Command::options(&Dlio)
    }

    fn check(&self, program: &str, args: &[String]) -> Result<(), UsageError> {
        match args.split_first() {
            Some((first, rest)) if first == "datasize" => crate::dlio::datasize::parse(rest)
                .map(|_| ())
                .map_err(UsageError),
            _ => Command::check(&Dlio, program, args),
        }
    }

    fn documented(&self) -> Vec<Documented> {
        Command::documented(&Dlio)
    }
}

/// `pario report`: results as one HTML page.
pub struct Report;

impl Command for Report {
    fn name(&self) -> &'static str {
        "report"
    }

    fn about(&self) -> &'static str {
        "results compared on one self-contained HTML page: overview, warnings, charts"
    }

    fn main(&self, _program: &str, args: Vec<String>) -> ExitCode {
        crate::report::main(&args)
    }

    fn options(&self) -> Vec<Spelling> {
        spellings(&crate::report::args::grammar())
    }

    fn check(&self, _program: &str, args: &[String]) -> Result<(), UsageError> {
        crate::report::args::parse(args).map(|_| ())
    }

    fn documented(&self) -> Vec<Documented> {
        crate::report::args::grammar().documented()
    }
}

/// `pario compare`: two results side by side.
pub struct Compare;

impl Command for Compare {
    fn name(&self) -> &'static str {
        "compare"
    }

    fn about(&self) -> &'static str {
        "two results side by side: ratios, spreads and whether they differ beyond the noise"
    }

    fn main(&self, _program: &str, args: Vec<String>) -> ExitCode {
        crate::compare::main(&args)
    }

    fn options(&self) -> Vec<Spelling> {
        spellings(&crate::compare::grammar())
    }

    fn check(&self, _program: &str, args: &[String]) -> Result<(), UsageError> {
        crate::compare::parse(args).map(|_| ())
    }

    fn documented(&self) -> Vec<Documented> {
        crate::compare::grammar().documented()
    }
}

/// `pario concurrent`: tool command lines at once on shares of the tasks.
pub struct Concurrent;

impl Command for Concurrent {
    fn name(&self) -> &'static str {
        "concurrent"
    }

    fn about(&self) -> &'static str {
        crate::concurrent::ABOUT
    }

    fn main(&self, _program: &str, args: Vec<String>) -> ExitCode {
        crate::concurrent::main(&args)
    }

    fn options(&self) -> Vec<Spelling> {
        spellings(&crate::concurrent::grammar())
    }

    fn check(&self, _program: &str, args: &[String]) -> Result<(), UsageError> {
        crate::concurrent::parse(args).map(|_| ())
    }

    fn documented(&self) -> Vec<Documented> {
        crate::concurrent::grammar().documented()
    }
}

/// The `io500` driver as a command.
pub struct Io500;

impl Command for Io500 {
    fn name(&self) -> &'static str {
        "io500"
    }

    fn about(&self) -> &'static str {
        "the IO500 workflow with pario's tools, scored (drop-in for the io500 harness)"
    }

    fn main(&self, _program: &str, args: Vec<String>) -> ExitCode {
        crate::io500::options::main(&args)
    }

    fn options(&self) -> Vec<Spelling> {
        spellings(&crate::io500::options::grammar())
    }

    fn check(&self, _program: &str, args: &[String]) -> Result<(), UsageError> {
        crate::io500::options::check(args)
    }

    fn documented(&self) -> Vec<Documented> {
        crate::io500::options::grammar().documented()
    }
}

/// The arguments as text. One that is not UTF-8 is refused: read with
/// its bytes replaced, it would name another file than the one given.
pub fn text_args(args: impl IntoIterator<Item = OsString>) -> Result<Vec<String>, UsageError> {
    let text = |arg: OsString| {
        arg.into_string()
            .map_err(|arg| UsageError(format!("argument {arg:?} is not UTF-8 text")))
    };
    args.into_iter().map(text).collect()
}

/// The `main` of a tool's own binary (`ior`, `mdtest`).
pub fn main(tool: &dyn Command) -> ExitCode {
    let mut args = std::env::args_os();
    let program = args.next().map(|p| p.to_string_lossy().into_owned());
    let program = program.unwrap_or_else(|| tool.name().into());
    match text_args(args) {
        Ok(args) if version::asked(&args) => {
            print!("{}", version::text(tool.name()));
            ExitCode::SUCCESS
        }
        Ok(args) => tool.main(&program, args),
        Err(e) => report_failure(tool.name(), &Error::Usage(e)),
    }
}

/// Parses, then runs on every task of the engine.
fn run_tool<T: Tool>(tool: &T, program: &str, args: &[String]) -> ExitCode {
    let name = T::NAME;
    let params = match tool.parse(program, args) {
        Ok(Parsed::Run(params)) => params,
        Ok(Parsed::Help) => {
            if engine::is_printer() {
                print!("{}", tool.help());
            }
            return ExitCode::SUCCESS;
        }
        Err(e) => return report_failure(name, &Error::Usage(e)),
    };
    let from_env = match engine::tasks_from_env() {
        Ok(n) => n,
        Err(e) => return report_failure(name, &Error::Usage(e)),
    };
    let local_tasks = tool.local_tasks(&params, from_env);
    stop::install(name);
    let code = engine::run_tasks(name, local_tasks, |comm| {
        tool::run_on_task(tool, comm, &params).map(|_| ())
    });
    engine::after_signal(name, code)
}

/// The text of `pario --help`.
fn pario_help() -> String {
    let mut text = String::from(
        "pario: parallel I/O benchmarks for HPC storage\n\nUsage: pario <tool> [options]\n\nTools:\n",
    );
    let width = TOOLS.iter().map(|t| t.name().len()).max().unwrap_or(0) + 2;
    for tool in TOOLS {
        text.push_str(&format!("  {:<width$}{}\n", tool.name(), tool.about()));
    }
    text.push_str(
        "\nTasks run as threads of one process: set PARIO_TASKS=N (or ior's -N;\n\
         mdtest's -N is a stride, so mdtest takes PARIO_TASKS only).\n\n\
         Help and versions:\n\
         \x20 pario help TOOL            a tool's options (as TOOL -h)\n\
         \x20 pario help --man PAGE      a man page: ior, mdtest, md-workbench, io500,\n\
         \x20                            dlio_benchmark or pario\n\
         \x20 pario help --markdown      the guide's option reference\n\
         \x20 pario help --completions S bash, zsh or fish completions\n\
         \x20 pario help --write DIR     all of them, into DIR/docs and DIR/completions\n\
         \x20 TOOL --version             versions, build features and MPI library\n",
    );
    text
}

/// `pario <tool> ...`.
pub fn pario_main() -> ExitCode {
    let args = match text_args(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(e) => return report_failure("pario", &Error::Usage(e)),
    };
    let mut args = args.into_iter();
    match args.next().as_deref() {
        Some("help") if args.len() > 0 => reference::main(&args.collect::<Vec<_>>()),
        Some("-h" | "--help" | "help") | None => {
            print!("{}", pario_help());
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            print!("{}", version::text("pario"));
            ExitCode::SUCCESS
        }
        Some(name) => match TOOLS.iter().find(|t| t.name() == name) {
            Some(tool) => {
                let args: Vec<String> = args.collect();
                if version::asked(&args) {
                    print!("{}", version::text(name));
                    return ExitCode::SUCCESS;
                }
                tool.main(&format!("pario {name}"), args)
            }
            None => {
                eprintln!("pario: error: unknown tool '{name}' (try 'pario --help')");
                ExitCode::from(2)
            }
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_spelling_belongs_to_one_option() {
        for tool in TOOLS {
            let mut seen = std::collections::BTreeSet::new();
            for spelling in tool.options() {
                let name = spelling.name.to_ascii_lowercase();
                // A short letter differs from its upper case (-c, -C).
                let name = if name.len() == 2 { spelling.name } else { name };
                assert!(seen.insert(name.clone()), "{}: {name} twice", tool.name());
            }
        }
    }

    #[test]
    fn pario_lists_every_tool_apart_from_its_description() {
        let help = pario_help();
        for tool in TOOLS {
            let line = help
                .lines()
                .find(|l| l.trim_start().starts_with(&format!("{} ", tool.name())))
                .unwrap_or_else(|| panic!("{} is not listed:\n{help}", tool.name()));
            assert!(line.ends_with(tool.about()), "{line}");
            assert!(line.contains(&format!("{}  ", tool.name())), "{line}");
        }
    }
}
