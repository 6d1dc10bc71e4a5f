//! Command entry points: parse, pick the task engine, run, map the outcome to
//! an exit status (0 ok, 1 runtime failure, 2 bad options, 3 wrong data).

use std::process::ExitCode;

use crate::comm::{self, Comm, Topology};
use crate::error::Error;
use crate::ior;
use crate::options::UsageError;

/// Environment variable that sets the number of local tasks for every tool.
pub const TASKS_VAR: &str = "PARIO_TASKS";

fn report_failure(tool: &str, error: &Error) -> ExitCode {
    eprintln!("{tool}: error: {error}");
    ExitCode::from(error.exit_code())
}

/// `PARIO_TASKS`, if set.
pub fn tasks_from_env() -> Result<Option<usize>, UsageError> {
    match std::env::var(TASKS_VAR) {
        Err(_) => Ok(None),
        Ok(v) => match v.trim().parse::<usize>() {
            Ok(n) if n >= 1 => Ok(Some(n)),
            _ => Err(UsageError(format!(
                "{TASKS_VAR}={v}: expected a number of tasks, at least 1"
            ))),
        },
    }
}

/// The topology of the local engine: all tasks on this node unless faked.
pub fn local_topology(size: usize) -> Result<Topology, UsageError> {
    Ok(Topology::fake_from_env(size)
        .map_err(UsageError)?
        .unwrap_or_else(|| Topology::single_node(size)))
}

/// Runs `body` on every task of the engine this process was started under and
/// returns rank 0's outcome. Without MPI the local engine runs `local_tasks`
/// threads. Every tool goes through here, so an engine is added in one place.
pub fn run_tasks<F>(local_tasks: usize, body: F) -> Result<(), Error>
where
    F: Fn(&dyn Comm) -> Result<(), Error> + Sync,
{
    run_local(local_tasks, body)
}

/// Runs `body` on every task of the local engine and returns rank 0's outcome.
fn run_local<F>(size: usize, body: F) -> Result<(), Error>
where
    F: Fn(&dyn Comm) -> Result<(), Error> + Sync,
{
    let topology = local_topology(size)?;
    let outcomes = comm::local::run(topology, body);
    let mut first_panic = None;
    let mut rank0 = None;
    for (rank, outcome) in outcomes.into_iter().enumerate() {
        match outcome {
            Ok(result) if rank == 0 => rank0 = Some(result),
            Ok(_) => {}
            Err(panic) => {
                first_panic.get_or_insert(panic);
            }
        }
    }
    if let Some(panic) = first_panic {
        return Err(Error::Comm(panic));
    }
    rank0.unwrap_or_else(|| Err(Error::Comm("no task ran".into())))
}

/// `ior [options]`.
pub fn ior_main(program: &str, args: Vec<String>) -> ExitCode {
    let tool = "ior";
    let tests = match ior::options::parse(&args) {
        Ok(Some(tests)) => tests,
        Ok(None) => {
            print!("{}", ior::options::help());
            return ExitCode::SUCCESS;
        }
        Err(e) => return report_failure(tool, &Error::Usage(e)),
    };
    let command_line = std::iter::once(program.to_string())
        .chain(args.iter().cloned())
        .collect::<Vec<_>>()
        .join(" ");
    let env_tasks = match tasks_from_env() {
        Ok(n) => n,
        Err(e) => return report_failure(tool, &Error::Usage(e)),
    };
    let wanted = tests.iter().filter_map(|t| t.num_tasks).max();
    let size = env_tasks.unwrap_or(1).max(wanted.unwrap_or(1));
    match run_tasks(size, |comm| ior::runner::run(comm, &tests, &command_line)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_failure(tool, &e),
    }
}

const PARIO_HELP: &str = "pario: parallel I/O benchmarks for HPC storage

Usage: pario <tool> [options]

Tools:
  ior       bandwidth and IOPS (drop-in for IOR; 'pario ior -h' lists options)

Tasks run as threads of one process: set PARIO_TASKS=N (or ior's -N).
";

/// `pario <tool> ...`.
pub fn pario_main(argv: Vec<String>) -> ExitCode {
    let mut args = argv.into_iter();
    let _ = args.next();
    match args.next().as_deref() {
        Some("ior") => ior_main("pario ior", args.collect()),
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
