//! What a launcher (mpirun, srun, any PMI launcher) says about how many
//! tasks it started: its environment variables. A process started as one
//! of several must be one rank of an MPI job; a build without MPI, or an
//! MPI that came up as a lone rank (srun without a working PMI plugin),
//! would run as independent copies writing the same files.
//!
//! Who sets what: Open MPI's mpirun `OMPI_COMM_WORLD_SIZE`/`_RANK`; hydra
//! (the `mpiexec` of MPICH and Intel MPI) `PMI_SIZE`, `PMI_RANK`, `PMI_FD`
//! and `MPI_LOCALNRANKS`; Slurm's PMI-2 plugin (`srun --mpi=pmi2`)
//! `PMI_SIZE`, `PMI_RANK`, `PMI_FD` and `PMI_JOBID` in a job step;
//! MVAPICH's mpirun_rsh `MV2_COMM_WORLD_SIZE`/`_RANK`; srun itself
//! `SLURM_STEP_NUM_TASKS` and `SLURM_PROCID`.

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
        return Some(found(pmi_launcher(), "PMI_SIZE", n));
    }
    if let Some(n) = number("MV2_COMM_WORLD_SIZE").filter(|n| *n > 1) {
        return Some(found(MVAPICH, "MV2_COMM_WORLD_SIZE", n));
    }
    let in_step = number("SLURM_STEP_ID").is_some();
    number("SLURM_STEP_NUM_TASKS")
        .filter(|n| *n > 1 && in_step)
        .map(|n| found("srun", "SLURM_STEP_NUM_TASKS", n))
}

const HYDRA: &str = "mpiexec (hydra: MPICH, Intel MPI)";
const SRUN_PMI2: &str = "srun --mpi=pmi2";
const OTHER_PMI: &str = "a PMI launcher (MPICH, Intel MPI)";
const MVAPICH: &str = "mpirun_rsh (MVAPICH)";

/// Who set `PMI_SIZE`: hydra also sets `MPI_LOCALNRANKS` (inside a Slurm
/// allocation too, where it starts its proxies with srun); Slurm's PMI-2
/// plugin sets it in a job step.
fn pmi_launcher() -> &'static str {
    if std::env::var_os("MPI_LOCALNRANKS").is_some() {
        HYDRA
    } else if std::env::var_os("SLURM_STEP_ID").is_some() {
        SRUN_PMI2
    } else {
        OTHER_PMI
    }
}

/// Whether `l` is an `srun` step that gave its tasks no PMI (`--mpi=none`,
/// or no `--mpi` where `MpiDefault=none`: srun then sets no
/// `SLURM_MPI_TYPE` and no `PMI*` variable): their MPI cannot find the
/// others. Open MPI would abort in its initialisation with a page of
/// advice; this is known before.
pub fn srun_without_pmi(l: &Launched) -> bool {
    let set = |v: &str| std::env::var_os(v).is_some();
    l.launcher == "srun"
        && std::env::var("SLURM_MPI_TYPE").map_or(true, |t| t.trim() == "none")
        && !["PMIX_RANK", "PMI_RANK", "PMI_FD"].into_iter().any(set)
}

/// Whether this process is the launcher's first task (it alone prints).
pub fn first_task() -> bool {
    [
        "OMPI_COMM_WORLD_RANK",
        "PMI_RANK",
        "MV2_COMM_WORLD_RANK",
        "SLURM_PROCID",
    ]
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

/// The launcher and batch job a run belongs to, so that its results can be
/// traced back to them (`pario.job` in JSON, a `Job` line in the header).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Job {
    /// `mpirun (Open MPI)`, `mpiexec (hydra: MPICH, Intel MPI)`, `srun`,
    /// `srun --mpi=pmi2`, `a PMI launcher (MPICH, Intel MPI)`, `mpirun_rsh
    /// (MVAPICH)`, or `none` in a batch script run without one.
    pub launcher: String,
    #[serde(rename = "slurmJobId", skip_serializing_if = "Option::is_none")]
    pub slurm_job_id: Option<String>,
    #[serde(rename = "slurmStepId", skip_serializing_if = "Option::is_none")]
    pub slurm_step_id: Option<String>,
    #[serde(rename = "slurmJobName", skip_serializing_if = "Option::is_none")]
    pub slurm_job_name: Option<String>,
    #[serde(rename = "nodeList", skip_serializing_if = "Option::is_none")]
    pub node_list: Option<String>,
}

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// This process's launcher and Slurm job, when there is either, as the
/// environment said at the first call (the engine makes it before MPI
/// starts).
pub fn job() -> Option<Job> {
    static JOB: std::sync::OnceLock<Option<Job>> = std::sync::OnceLock::new();
    JOB.get_or_init(read_job).clone()
}

fn read_job() -> Option<Job> {
    let slurm = var("SLURM_JOB_ID").or_else(|| var("SLURM_JOBID"));
    // Open MPI's mpirun starts its daemons with srun inside a job, so its
    // own variables come first.
    let launcher = if var("OMPI_COMM_WORLD_SIZE").is_some() {
        "mpirun (Open MPI)"
    } else if var("PMI_SIZE").is_some() {
        pmi_launcher()
    } else if var("SLURM_STEP_ID").is_some() {
        "srun"
    } else if var("MV2_COMM_WORLD_SIZE").is_some() {
        MVAPICH
    } else if slurm.is_some() {
        "none"
    } else {
        return None;
    };
    Some(Job {
        launcher: launcher.into(),
        slurm_step_id: slurm.as_ref().and_then(|_| var("SLURM_STEP_ID")),
        slurm_job_name: slurm.as_ref().and_then(|_| var("SLURM_JOB_NAME")),
        node_list: slurm
            .as_ref()
            .and_then(|_| var("SLURM_JOB_NODELIST").or_else(|| var("SLURM_NODELIST"))),
        slurm_job_id: slurm,
    })
}

impl Job {
    /// One line: `srun in Slurm job 1234 step 0 (ior-test) on node[01-04]`.
    pub fn describe(&self) -> String {
        let mut t = match self.launcher.as_str() {
            "none" => "no launcher".to_string(),
            l => l.to_string(),
        };
        if let Some(id) = &self.slurm_job_id {
            t.push_str(&format!(" in Slurm job {id}"));
        }
        if let Some(step) = &self.slurm_step_id {
            t.push_str(&format!(" step {step}"));
        }
        if let Some(name) = &self.slurm_job_name {
            t.push_str(&format!(" ({name})"));
        }
        if let Some(nodes) = &self.node_list {
            t.push_str(&format!(" on {nodes}"));
        }
        t
    }
}
