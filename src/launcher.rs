//! What a launcher (mpirun, srun, any PMI launcher) says about how many
//! tasks it started: its environment variables. A process started as one
//! of several must be one rank of an MPI job; a build without MPI, or an
//! MPI that came up as a lone rank (srun without a working PMI plugin),
//! would run as independent copies writing the same files.

/// A launcher that started this process as one of `tasks`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launched {
    pub launcher: &'static str,
    /// The variable that says so, as `NAME=value`.
    pub evidence: String,
    pub tasks: usize,
}

fn number(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// The launcher, when it started several tasks. Slurm counts only inside a
/// job step (`srun`): a batch script itself runs as one process.
pub fn several() -> Option<Launched> {
    let found = |launcher, name: &str, tasks: usize| Launched {
        launcher,
        evidence: format!("{name}={tasks}"),
        tasks,
    };
    if let Some(n) = number("OMPI_COMM_WORLD_SIZE").filter(|n| *n > 1) {
        return Some(found("mpirun (Open MPI)", "OMPI_COMM_WORLD_SIZE", n));
    }
    if let Some(n) = number("PMI_SIZE").filter(|n| *n > 1) {
        return Some(found("a PMI launcher (MPICH, Intel MPI)", "PMI_SIZE", n));
    }
    let in_step = number("SLURM_STEP_ID").is_some();
    number("SLURM_STEP_NUM_TASKS")
        .filter(|n| *n > 1 && in_step)
        .map(|n| found("srun", "SLURM_STEP_NUM_TASKS", n))
}

/// Whether this process is the launcher's first task (it alone prints).
pub fn first_task() -> bool {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"]
        .iter()
        .find_map(|v| number(v))
        .is_none_or(|r| r == 0)
}

/// The one line for a process that cannot take part as one task of many.
pub fn refusal(l: &Launched, why: &str) -> String {
    format!(
        "started by {} as one of {} tasks ({}), but {why}: the tasks would run as \
         independent copies on the same files. Build pario with '--features mpi' and \
         launch it so, or run one process with PARIO_TASKS={}",
        l.launcher, l.tasks, l.evidence, l.tasks
    )
}
