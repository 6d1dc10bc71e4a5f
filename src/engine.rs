//! Choosing and starting the task engine.
//!
//! Every tool hands its per-task body to [`run_tasks`]; this is the one place
//! that knows which engines exist. Tasks are threads of this process
//! ([`crate::comm::local`]) unless pario was built with the `mpi` feature and
//! either was started by an MPI launcher (`mpirun`, `mpiexec`, `srun`) or is
//! asked for a single task, in which case it initialises MPI (as a singleton
//! without a launcher) and runs one task per rank.

use std::process::ExitCode;

use crate::comm::{self, Comm, Topology};
use crate::error::Error;
use crate::error::UsageError;

/// Environment variable that sets the number of local tasks for every tool.
pub const TASKS_VAR: &str = "PARIO_TASKS";

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

/// Environment variables that MPI launchers set for each rank, the rank's
/// number first (Open MPI, MPICH/Hydra and Intel MPI, PMIx, Slurm).
const LAUNCHER_RANK_VARS: &[&str] = &[
    "OMPI_COMM_WORLD_RANK",
    "PMI_RANK",
    "PMIX_RANK",
    "MPI_LOCALRANKID",
];

/// The rank a launcher gave this process, if any.
fn launcher_rank() -> Option<usize> {
    LAUNCHER_RANK_VARS
        .iter()
        .find_map(|v| std::env::var(v).ok())
        .and_then(|r| r.trim().parse().ok())
}

/// Whether this process prints messages meant to appear once: rank 0 of an
/// MPI job, or the only process of the local engine. Valid before MPI starts,
/// so that bad options are reported once.
pub fn is_printer() -> bool {
    launcher_rank().is_none_or(|r| r == 0)
}

/// Whether this run uses MPI.
pub fn uses_mpi(local_tasks: usize) -> bool {
    cfg!(feature = "mpi") && (launcher_rank().is_some() || local_tasks == 1)
}

/// Prints a failure once (rank 0 under MPI) and returns its exit status.
///
/// Under an MPI launcher this happens inside MPI: rank 0 prints, every rank
/// waits at a barrier, and only rank 0 exits non-zero. Otherwise a rank that
/// exits first with an error can make the launcher kill rank 0 before its
/// message is out, and the job's status would be whichever rank died first.
pub fn report_failure(tool: &str, error: &Error) -> ExitCode {
    #[cfg(feature = "mpi")]
    if launcher_rank().is_some() && !mpi::environment::is_initialized() {
        if let Some(universe) = mpi::initialize() {
            let status = report_in_mpi(tool, error, &universe.world());
            drop(universe);
            return status;
        }
    }
    if is_printer() {
        eprintln!("{tool}: error: {error}");
    }
    ExitCode::from(error.exit_code())
}

/// The exit status of a run that ended with `code`: a signal that came after
/// the last measurement still makes it 128 + the signal (the results are
/// complete, and said so), as for a signal during the run.
pub fn after_signal(tool: &str, code: ExitCode) -> ExitCode {
    match crate::run::stop::signal() {
        Some(signal) if code == ExitCode::SUCCESS => {
            if is_printer() {
                let sig = crate::run::stop::name(signal);
                eprintln!(
                    "{tool}: {sig} came after the last measurement: the results are complete"
                );
            }
            ExitCode::from((128 + signal).clamp(0, 255) as u8)
        }
        _ => code,
    }
}

/// After a signal some task did not answer: it is taken for dead, so no
/// collective (not even MPI's finalisation) can complete. This task has
/// removed its files; rank 0 says what may be left, and the process ends.
#[cfg(feature = "mpi")]
fn gone_after_signal(tool: &str, world: &mpi::topology::SimpleCommunicator) -> ! {
    use mpi::traits::*;
    let signal = crate::run::stop::signal().unwrap_or(signal_hook::consts::SIGTERM);
    if world.rank() == 0 {
        let grace = crate::run::stop::grace().as_secs_f64();
        eprintln!(
            "{tool}: error: interrupted by {}, and not every task answered within {grace} s \
             (a task may have died): the tasks that answered removed their files; \
             those of the others may remain",
            crate::run::stop::name(signal)
        );
    }
    std::process::exit(128 + signal)
}

/// Rank 0 prints and exits with the error's status; the others exit 0 once
/// it has printed.
#[cfg(feature = "mpi")]
fn report_in_mpi(tool: &str, error: &Error, world: &mpi::topology::SimpleCommunicator) -> ExitCode {
    use mpi::traits::*;
    let root = world.rank() == 0;
    if root {
        eprintln!("{tool}: error: {error}");
    }
    world.barrier();
    if root {
        ExitCode::from(error.exit_code())
    } else {
        ExitCode::SUCCESS
    }
}

/// Runs `body` on every task of the engine this process was started under,
/// reports a failure once and returns the exit status. Without MPI the local
/// engine runs `local_tasks` threads.
pub fn run_tasks<F>(tool: &str, local_tasks: usize, body: F) -> ExitCode
where
    F: Fn(&dyn Comm) -> Result<(), Error> + Sync,
{
    // Read before MPI starts: a singleton MPI sets launcher variables of
    // its own.
    crate::launcher::job();
    #[cfg(feature = "mpi")]
    if uses_mpi(local_tasks) {
        return run_mpi(tool, body);
    }
    if let Some(l) = crate::launcher::several() {
        let why = match cfg!(feature = "mpi") {
            true => "PARIO_TASKS asks for threads",
            false => "this pario was built without MPI",
        };
        return refuse(tool, &crate::launcher::refusal(&l, why));
    }
    match run_local(local_tasks, body) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_failure(tool, &e),
    }
}

/// A launch that cannot work: one line from the launcher's first task,
/// exit status 2, nothing touched.
fn refuse(tool: &str, why: &str) -> ExitCode {
    if crate::launcher::first_task() {
        eprintln!("{tool}: error: {why}");
    }
    ExitCode::from(2)
}

/// Runs `body` once on this MPI rank.
#[cfg(feature = "mpi")]
fn run_mpi<F>(tool: &str, body: F) -> ExitCode
where
    F: Fn(&dyn Comm) -> Result<(), Error> + Sync,
{
    if let Some(l) = crate::launcher::several().filter(crate::launcher::srun_without_pmi) {
        let why = "srun gave its tasks no PMI (no --mpi, or --mpi=none), so MPI would \
                   start each as a lone rank (try srun --mpi=pmix)";
        return refuse(tool, &crate::launcher::refusal(&l, why));
    }
    let Some(universe) = mpi::initialize() else {
        return report_failure(tool, &Error::Comm("MPI was initialised twice".into()));
    };
    // A lone rank where the launcher started several: MPI did not find
    // the others (srun without a working PMI plugin).
    if let Some(l) = crate::launcher::several() {
        use mpi::traits::Communicator;
        if universe.world().size() == 1 {
            let why = "MPI started as a lone rank (for srun, try --mpi=pmix)";
            return refuse(tool, &crate::launcher::refusal(&l, why));
        }
    }
    let outcome = match comm::mpi::MpiComm::new(universe.world()) {
        Ok(comm) => {
            // A panicking rank cannot take part in collectives any more:
            // abort the whole job rather than leave the others waiting.
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| body(&comm))) {
                Ok(outcome) => outcome,
                Err(_) => {
                    use mpi::traits::Communicator;
                    eprintln!(
                        "{tool}: error: task {} failed unexpectedly; aborting the job",
                        comm.rank()
                    );
                    comm.world().abort(1)
                }
            }
        }
        Err(e) => Err(Error::Usage(UsageError(e))),
    };
    if comm::mpi::gave_up() {
        gone_after_signal(tool, &universe.world());
    }
    // Report before finalising: once a rank exits non-zero, the launcher may
    // kill the others, rank 0 included.
    let status = match &outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => report_in_mpi(tool, e, &universe.world()),
    };
    // Dropping the universe finalises MPI.
    drop(universe);
    status
}

/// Memory areas the system maps for each thread: its stack and guard page,
/// and the signal stack and its guard.
const MAPS_PER_THREAD: usize = 4;

/// Memory areas left for everything else of the process.
const MAPS_RESERVED: usize = 2048;

fn read_number(path: &str) -> Option<usize> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// How many task threads this process can start, and what limits it.
fn thread_limit() -> Option<(usize, String)> {
    let mut limits = Vec::new();
    if let Some(n) = read_number("/proc/sys/kernel/threads-max") {
        limits.push((n, format!("kernel.threads-max is {n}")));
    }
    if let Some(n) = read_number("/proc/sys/vm/max_map_count") {
        let threads = n.saturating_sub(MAPS_RESERVED) / MAPS_PER_THREAD;
        let why = format!("vm.max_map_count is {n}, and each thread maps {MAPS_PER_THREAD} areas");
        limits.push((threads, why));
    }
    let nproc = rustix::process::getrlimit(rustix::process::Resource::Nproc).current;
    if let (Some(n), false) = (nproc, rustix::process::geteuid().is_root()) {
        limits.push((n as usize, format!("ulimit -u is {n}")));
    }
    limits.into_iter().min_by_key(|l| l.0)
}

/// A task count the local engine cannot start is a usage error, before
/// anything is created.
pub fn check_local_tasks(tasks: usize) -> Result<(), UsageError> {
    match thread_limit() {
        Some((limit, why)) if tasks > limit => Err(UsageError(format!(
            "{tasks} tasks: this system lets one process start about {limit} threads ({why}); \
             use fewer tasks, or MPI ranks on several nodes"
        ))),
        _ => Ok(()),
    }
}

/// Runs `body` on every task of the local engine and returns rank 0's outcome.
fn run_local<F>(size: usize, body: F) -> Result<(), Error>
where
    F: Fn(&dyn Comm) -> Result<(), Error> + Sync,
{
    check_local_tasks(size)?;
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

/// The first line of the MPI library's version, in a build with MPI
/// (`MPI_Get_library_version` may be called before MPI starts).
pub fn mpi_library() -> Option<String> {
    #[cfg(feature = "mpi")]
    {
        let text = mpi::environment::library_version().ok()?;
        comm::library_line(&text)
    }
    #[cfg(not(feature = "mpi"))]
    None
}
