//! Launch mistakes: a process a launcher started as one of several tasks
//! must be one rank of an MPI job. Without MPI (or with MPI up as a lone
//! rank, or with threads asked for) it refuses with one line from the first
//! task, exit 2, nothing created. The launchers' variables are set by hand.

use std::process::Command;

use crate::common;
use crate::common::entries;
use tempfile::tempdir;

fn ior(dir: &std::path::Path, env: &[(&str, &str)]) -> common::Run {
    tool(
        crate::common::bin("ior"),
        &["-a", "DUMMY", "-w", "-o", "f"],
        dir,
        env,
    )
}

/// `binary args` in `dir` with no launcher's variables but `env`.
fn tool(binary: &str, args: &[&str], dir: &std::path::Path, env: &[(&str, &str)]) -> common::Run {
    let mut cmd = Command::new(binary);
    cmd.args(args).current_dir(dir);
    for v in [
        "OMPI_COMM_WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "PMI_SIZE",
        "PMI_RANK",
        "PMI_FD",
        "PMI_JOBID",
        "MPI_LOCALNRANKS",
        "MPI_LOCALRANKID",
        "MV2_COMM_WORLD_SIZE",
        "MV2_COMM_WORLD_RANK",
        "SLURM_STEP_ID",
        "SLURM_STEP_NUM_TASKS",
        "SLURM_PROCID",
        "SLURM_NTASKS",
        "SLURM_MPI_TYPE",
        "SLURM_JOB_ID",
        "SLURM_JOBID",
        "SLURM_JOB_NAME",
        "SLURM_JOB_NODELIST",
        "SLURM_NODELIST",
        "PARIO_TASKS",
    ] {
        cmd.env_remove(v);
    }
    cmd.envs(env.iter().copied());
    common::finish(cmd.output().unwrap())
}

/// (Not named after MPI: CI's MPI run takes every test whose name says it.)
#[test]
fn a_threads_only_build_refuses_to_be_one_of_several_tasks() {
    if common::programs_built_with("mpi") {
        return;
    }
    let dir = tempdir().unwrap();
    for (env, launcher) in [
        (
            &[("OMPI_COMM_WORLD_SIZE", "4"), ("OMPI_COMM_WORLD_RANK", "0")][..],
            "mpirun (Open MPI) as one of 4 tasks (OMPI_COMM_WORLD_SIZE=4)",
        ),
        (
            &[("PMI_SIZE", "2"), ("PMI_RANK", "0")][..],
            "a PMI launcher (MPICH, Intel MPI) as one of 2 tasks",
        ),
        // What hydra's mpiexec.mpich -n 2 gives each rank.
        (
            &[
                ("PMI_SIZE", "2"),
                ("PMI_RANK", "0"),
                ("PMI_FD", "6"),
                ("MPI_LOCALNRANKS", "2"),
                ("MPI_LOCALRANKID", "0"),
            ][..],
            "mpiexec (hydra: MPICH, Intel MPI) as one of 2 tasks (PMI_SIZE=2)",
        ),
        // srun --mpi=pmi2 -n 3.
        (
            &[
                ("SLURM_STEP_ID", "0"),
                ("SLURM_STEP_NUM_TASKS", "3"),
                ("SLURM_PROCID", "0"),
                ("SLURM_MPI_TYPE", "pmi2"),
                ("PMI_SIZE", "3"),
                ("PMI_RANK", "0"),
                ("PMI_FD", "7"),
                ("PMI_JOBID", "12.0"),
            ][..],
            "srun --mpi=pmi2 as one of 3 tasks (PMI_SIZE=3)",
        ),
        (
            &[("MV2_COMM_WORLD_SIZE", "4"), ("MV2_COMM_WORLD_RANK", "0")][..],
            "mpirun_rsh (MVAPICH) as one of 4 tasks",
        ),
        (
            &[
                ("SLURM_STEP_ID", "0"),
                ("SLURM_STEP_NUM_TASKS", "3"),
                ("SLURM_PROCID", "0"),
            ][..],
            "srun as one of 3 tasks",
        ),
    ] {
        let r = ior(dir.path(), env);
        assert_eq!(r.status, 2, "{env:?}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(r.stderr.contains(launcher), "{}", r.stderr);
        assert!(
            r.stderr.contains("this pario was built without MPI"),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr.contains("'--features mpi'") && r.stderr.contains("PARIO_TASKS="),
            "{}",
            r.stderr
        );
        assert_eq!(entries(dir.path()), Vec::<String>::new());
    }
    // The other tasks say nothing.
    let r = ior(
        dir.path(),
        &[("OMPI_COMM_WORLD_SIZE", "4"), ("OMPI_COMM_WORLD_RANK", "3")],
    );
    assert_eq!((r.status, r.stderr.as_str()), (2, ""));
    let r = ior(
        dir.path(),
        &[
            ("PMI_SIZE", "2"),
            ("PMI_RANK", "1"),
            ("MPI_LOCALNRANKS", "2"),
        ],
    );
    assert_eq!((r.status, r.stderr.as_str()), (2, ""));
}

#[test]
fn one_task_and_a_batch_script_run() {
    let dir = tempdir().unwrap();
    // A batch script is one process, whatever the allocation.
    ior(dir.path(), &[("SLURM_NTASKS", "8"), ("SLURM_PROCID", "0")]).ok();
    // srun -n 1.
    ior(
        dir.path(),
        &[
            ("SLURM_STEP_ID", "0"),
            ("SLURM_STEP_NUM_TASKS", "1"),
            ("SLURM_PROCID", "0"),
        ],
    )
    .ok();
}

#[cfg(feature = "mpi")]
#[test]
fn an_mpi_build_refuses_a_lone_rank_or_threads_under_srun() {
    let dir = tempdir().unwrap();
    let srun = [
        ("SLURM_STEP_ID", "0"),
        ("SLURM_STEP_NUM_TASKS", "2"),
        ("SLURM_PROCID", "0"),
    ];
    // srun with an MPI plugin whose PMI did not work: MPI is up, alone.
    let r = ior(
        dir.path(),
        &[&srun[..], &[("SLURM_MPI_TYPE", "pmix")]].concat(),
    );
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("MPI started as a lone rank (for srun, try --mpi=pmix)"),
        "{}",
        r.stderr
    );
    // srun without a plugin (no --mpi, or --mpi=none): refused before MPI
    // starts (Open MPI would abort with a page of advice).
    for plugin in [&[][..], &[("SLURM_MPI_TYPE", "none")]] {
        let r = ior(dir.path(), &[&srun[..], plugin].concat());
        assert_eq!(r.status, 2, "{}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        let line = "srun gave its tasks no PMI (no --mpi, or --mpi=none)";
        assert!(r.stderr.contains(line), "{}", r.stderr);
    }
    let r = ior(dir.path(), &[&srun[..], &[("PARIO_TASKS", "2")]].concat());
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("PARIO_TASKS asks for threads"),
        "{}",
        r.stderr
    );
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

/// The header and the JSON name the launcher and the Slurm job.
#[test]
fn the_job_is_named_in_header_and_json() {
    let dir = tempdir().unwrap();
    let step = [
        ("SLURM_JOB_ID", "4242"),
        ("SLURM_STEP_ID", "0"),
        ("SLURM_STEP_NUM_TASKS", "1"),
        ("SLURM_PROCID", "0"),
        ("SLURM_JOB_NAME", "bench"),
        ("SLURM_JOB_NODELIST", "node[01-02]"),
    ];
    let line = "srun in Slurm job 4242 step 0 (bench) on node[01-02]";
    let r = ior(dir.path(), &step);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains(&format!("\nJob                 : {line}\n")),
        "{}",
        r.stdout
    );
    let json = ["-a", "DUMMY", "-w", "-o", "f", "-O", "summaryFormat=JSON"];
    let r = tool(crate::common::bin("ior"), &json, dir.path(), &step);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let job = &doc["pario"]["job"];
    assert_eq!(job["launcher"], "srun");
    assert_eq!(
        (&job["slurmJobId"], &job["nodeList"]),
        (&"4242".into(), &"node[01-02]".into())
    );
    let md = ["-n", "2", "-d", "md"];
    let r = tool(crate::common::bin("mdtest"), &md, dir.path(), &step[..1]);
    assert!(
        r.stdout
            .contains("\nLaunched by: no launcher in Slurm job 4242\n"),
        "{}",
        r.stdout
    );
    // Without a launcher or a job, no line.
    let r = ior(dir.path(), &[]);
    assert!(!r.stdout.contains("Job "), "{}", r.stdout);
    assert!(entries(dir.path()).is_empty());
}
