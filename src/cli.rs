//! Command entry points: parse, run on the task engine, map the outcome to
//! an exit status (0 ok, 1 runtime failure, 2 bad options, 3 wrong data).

use std::process::ExitCode;

use crate::engine;
use crate::error::Error;
use crate::ior;
use crate::mdtest;

use engine::report_failure;

/// `ior [options]`.
pub fn ior_main(program: &str, args: Vec<String>) -> ExitCode {
    let tool = "ior";
    let tests = match ior::options::parse(&args) {
        Ok(Some(tests)) => tests,
        Ok(None) => {
            if engine::is_printer() {
                print!("{}", ior::options::help());
            }
            return ExitCode::SUCCESS;
        }
        Err(e) => return report_failure(tool, &Error::Usage(e)),
    };
    let command_line = std::iter::once(program.to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let env_tasks = match engine::tasks_from_env() {
        Ok(n) => n,
        Err(e) => return report_failure(tool, &Error::Usage(e)),
    };
    let wanted = tests.iter().filter_map(|t| t.num_tasks).max();
    let local_tasks = env_tasks.unwrap_or(1).max(wanted.unwrap_or(1));
    engine::run_tasks(tool, local_tasks, |comm| {
        ior::runner::run(comm, &tests, &command_line)
    })
}

/// `mdtest [options]`. Without MPI, `PARIO_TASKS` sets the number of tasks
/// (mdtest's `-N` is the neighbour stride, not a task count).
pub fn mdtest_main(program: &str, args: Vec<String>) -> ExitCode {
    let tool = "mdtest";
    let params = match mdtest::options::parse(&args) {
        Ok(Some(params)) => params,
        Ok(None) => {
            if engine::is_printer() {
                print!("{}", mdtest::options::help());
            }
            return ExitCode::SUCCESS;
        }
        Err(e) => return report_failure(tool, &Error::Usage(e)),
    };
    let env_tasks = match engine::tasks_from_env() {
        Ok(n) => n,
        Err(e) => return report_failure(tool, &Error::Usage(e)),
    };
    let local_tasks = env_tasks.unwrap_or(1);
    let command_line = mdtest::command_line(program, &args);
    engine::run_tasks(tool, local_tasks, |comm| {
        mdtest::runner::run(comm, &params, &command_line)
    })
}

const PARIO_HELP: &str = "pario: parallel I/O benchmarks for HPC storage

Usage: pario <tool> [options]

Tools:
  ior       bandwidth and IOPS (drop-in for IOR; 'pario ior -h' lists options)
  mdtest    metadata rates (drop-in for mdtest; 'pario mdtest -h' lists options)

Tasks run as threads of one process: set PARIO_TASKS=N (or ior's -N;
mdtest's -N is a stride, so mdtest takes PARIO_TASKS only).
";

/// `pario <tool> ...`.
pub fn pario_main(argv: Vec<String>) -> ExitCode {
    let mut args = argv.into_iter();
    let _ = args.next();
    match args.next().as_deref() {
        Some("ior") => ior_main("pario ior", args.collect()),
        Some("mdtest") => mdtest_main("pario mdtest", args.collect()),
        Some("-h" | "--help" | "help") | None => {
            print!("{PARIO_HELP}");
            ExitCode::SUCCESS
        }
        Some("-V" | "--version") => {
            println!("pario {}", env!("CARGO_PKG_VERSION"));
            ExitCode::SUCCESS
        }
        Some(other) => {
            eprintln!("pario: error: unknown tool '{other}' (try 'pario --help')");
            ExitCode::from(2)
        }
    }
}
