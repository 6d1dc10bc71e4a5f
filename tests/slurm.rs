//! pario under a real Slurm (one node, started by the test itself): the
//! job scripts of the cluster guide (`sbatch` calling `mpirun`), `srun
//! --mpi=pmix` with ior, mdtest and io500, a job cancelled mid-run and a job
//! that reaches its time limit. Each checks exit status, output and the
//! scratch directory; the daemons are stopped at the end.
//!
//! The group is `#[ignore]`d: scripts/test.sh runs it beside the other tests
//! (`cargo test --features mpi,hdf5 --test suite -- --ignored slurm::`). Without
//! root or without Slurm it says why and passes.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common;
use crate::common::slurm::{unavailable, Cluster};
use crate::common::{entries, finish, scratch, Run};

#[test]
#[ignore = "the Slurm group: scripts/test.sh runs it with --ignored"]
fn pario_under_slurm() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: the Slurm tests need root and Debian's slurm-wlm and munge: {why}");
        return;
    }
    let cluster = Cluster::start().unwrap_or_else(|e| panic!("cannot start Slurm: {e}"));
    job_scripts_with_mpirun(&cluster);
    srun_with_pmix(&cluster);
    scancel_stops_a_job_cleanly(&cluster);
    a_time_limit_stops_a_job_cleanly(&cluster);
}

/// `sbatch --wait` of `script` (its output in `dir/out.txt`).
fn sbatch_wait(cluster: &Cluster, dir: &Path, options: &[&str], script: &str) -> (Run, String) {
    let path = dir.join("job.sh");
    std::fs::write(&path, format!("#!/bin/bash\n{script}\n")).unwrap();
    let out = dir.join("out.txt");
    let mut cmd = cluster.command("timeout");
    cmd.args(["120", "sbatch", "--wait", "-o", out.to_str().unwrap()])
        .args(options)
        .arg(&path)
        .current_dir(dir);
    let run = finish(cmd.output().unwrap());
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    std::fs::remove_file(&path).unwrap();
    let _ = std::fs::remove_file(&out);
    (run, text)
}

/// The seed's job script (`#SBATCH -N 1 --ntasks-per-node 4`, then
/// `mpirun -np 4 ior -t 1m -b 16m -s 16`, scaled down), with and without
/// `-F` and `-C`.
fn job_scripts_with_mpirun(cluster: &Cluster) {
    for extra in ["", "-F", "-C", "-F -C"] {
        let dir = scratch("pario-slurm-scratch");
        let f = dir.path().join("f");
        let script = format!(
            "#SBATCH -N 1\n#SBATCH --ntasks-per-node 4\n\
             mpirun -np 4 --oversubscribe {ior} -t 64k -b 256k -s 4 {extra} -o {}",
            f.display(),
            ior = common::bin("ior")
        );
        let (run, out) = sbatch_wait(cluster, dir.path(), &[], &script);
        assert_eq!(run.status, 0, "{extra}: {}\n{out}", run.stderr);
        assert!(out.contains("tasks               : 4\n"), "{extra}: {out}");
        assert_eq!(common::rows(&out).len(), 2, "{extra}: {out}");
        let job = out
            .lines()
            .find(|l| l.starts_with("Job "))
            .unwrap_or_default();
        assert!(job.contains("mpirun (Open MPI) in Slurm job "), "{job}");
        assert!(
            entries(dir.path()).is_empty(),
            "{extra}: {:?}",
            entries(dir.path())
        );
    }
}

/// `srun --mpi=pmix -n N tool ...` in `dir`.
fn srun(cluster: &Cluster, dir: &Path, tasks: usize, binary: &str, args: &[&str]) -> Run {
    let mut cmd = cluster.command("timeout");
    cmd.args([
        "120",
        "srun",
        "--mpi=pmix",
        "-n",
        &tasks.to_string(),
        binary,
    ])
    .args(args)
    .current_dir(dir);
    finish(cmd.output().unwrap())
}

fn srun_with_pmix(cluster: &Cluster) {
    let dir = scratch("pario-slurm-scratch");
    let f = dir.path().join("f");
    let r = srun(
        cluster,
        dir.path(),
        2,
        common::bin("ior"),
        &[
            "-t",
            "64k",
            "-b",
            "256k",
            "-F",
            "-C",
            "-o",
            f.to_str().unwrap(),
        ],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("tasks               : 2\n"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("srun in Slurm job "), "{}", r.stdout);
    assert_eq!(common::rows(&r.stdout).len(), 2);

    // Without a PMI plugin: refused in one line before MPI starts.
    let none = ["--mpi=none"];
    let mut cmd = cluster.command("timeout");
    cmd.args(["60", "srun"])
        .args(none)
        .args(["-n", "2", common::bin("ior"), "-o"])
        .arg(&f);
    let r = finish(cmd.current_dir(dir.path()).output().unwrap());
    assert_ne!(r.status, 0);
    let line = "srun gave its tasks no PMI (no --mpi, or --mpi=none)";
    assert_eq!(r.stderr.matches(line).count(), 1, "{}", r.stderr);
    assert!(entries(dir.path()).is_empty());

    let md = dir.path().join("md");
    let r = srun(
        cluster,
        dir.path(),
        2,
        crate::common::bin("mdtest"),
        &["-n", "20", "-d", md.to_str().unwrap()],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("launched with 2 total task(s)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("Launched by: srun in Slurm job "),
        "{}",
        r.stdout
    );

    let ini = dir.path().join("io500.ini");
    std::fs::write(
        &ini,
        format!(
            "[global]\ndatadir = {d}/data\nresultdir = {d}/results\n[debug]\nstonewall-time = 1\n\
             [ior-easy]\ntransferSize = 64k\nblockSize = 256k\n[mdtest-easy]\nn = 20\n\
             [ior-hard]\nsegmentCount = 20\n[mdtest-hard]\nn = 20\n\
             [mdworkbench]\nprecreatePerSet = 5\nfilesPerProc = 5\n",
            d = dir.path().display()
        ),
    )
    .unwrap();
    let io500 = crate::common::bin("io500");
    let r = srun(
        cluster,
        dir.path(),
        2,
        io500,
        &[ini.to_str().unwrap(), "--timestamp=T"],
    );
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("[SCORE ]"), "{}", r.stdout);
    assert!(
        !dir.path().join("data").join("T").exists(),
        "io500 removed its data"
    );
    std::fs::remove_dir_all(dir.path().join("results")).unwrap();
    let _ = std::fs::remove_dir(dir.path().join("data"));
    std::fs::remove_file(&ini).unwrap();
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// A job that writes until stopped (8-byte transfers of an 8 GiB block),
/// each write a millisecond late (tests/interpose/slow.c) when the C
/// compiler is there: it waits instead of keeping the cores busy.
fn long_job(cluster: &Cluster, dir: &Path, options: &[&str]) -> String {
    let f = dir.join("t");
    let script = dir.join("long.sh");
    let slow = crate::interpose::slow_writes()
        .map(|preload| format!("env {preload} "))
        .unwrap_or_default();
    std::fs::write(
        &script,
        format!(
            "#!/bin/bash\nsrun --mpi=pmix -n 2 {slow}{ior} -w -t 8 -b 8g -F -o {}\n",
            f.display(),
            ior = common::bin("ior")
        ),
    )
    .unwrap();
    let out = dir.join("long.out");
    let r = finish(
        cluster
            .command("sbatch")
            .args(["-n", "2", "--parsable", "-o", out.to_str().unwrap()])
            .args(options)
            .arg(&script)
            .output()
            .unwrap(),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    r.stdout.trim().to_string()
}

/// The job's output, and the scratch directory without the job's script.
fn ended(cluster: &Cluster, dir: &Path, id: &str) -> String {
    assert!(
        cluster.wait_gone(id, Duration::from_secs(180)),
        "job {id} never ended"
    );
    let out = std::fs::read_to_string(dir.join("long.out")).unwrap_or_default();
    std::fs::remove_file(dir.join("long.out")).unwrap();
    std::fs::remove_file(dir.join("long.sh")).unwrap();
    assert!(
        entries(dir).is_empty(),
        "files left: {:?}\n{out}",
        entries(dir)
    );
    out
}

fn scancel_stops_a_job_cleanly(cluster: &Cluster) {
    let dir = scratch("pario-slurm-scratch");
    let id = long_job(cluster, dir.path(), &[]);
    let end = Instant::now() + Duration::from_secs(60);
    while !(dir.path().join("t.00000000").exists() && dir.path().join("t.00000001").exists()) {
        assert!(Instant::now() < end, "the job's files never appeared");
        std::thread::sleep(Duration::from_millis(100));
    }
    let r = finish(cluster.command("scancel").arg(&id).output().unwrap());
    assert_eq!(r.status, 0, "{}", r.stderr);
    let out = ended(cluster, dir.path(), &id);
    assert!(out.contains("interrupted by SIGTERM"), "{out}");
}

/// `--time=2 --signal=INT@30`: Slurm sends SIGINT once fewer than 30 s are
/// left, up to 60 s early by its own account, so 30 to 90 s into the job:
/// well after pario is up (a signal before its handlers would kill it
/// outright). Its checks are coarse enough that the signal may come only
/// with the limit itself (SIGTERM, from slurmstepd and again through srun).
/// Either way the run stops cleanly: the partial row, then nothing left.
fn a_time_limit_stops_a_job_cleanly(cluster: &Cluster) {
    let dir = scratch("pario-slurm-scratch");
    let id = long_job(cluster, dir.path(), &["--time=2", "--signal=INT@30"]);
    let out = ended(cluster, dir.path(), &id);
    let stopped = ["SIGINT", "SIGTERM"].iter().any(|sig| {
        out.contains(&format!(
            "interrupted by {sig}: the write-0 row above covers the transfers made until then"
        ))
    });
    assert!(stopped, "{out}");
    assert!(!out.contains("again"), "{out}");
    assert_eq!(common::rows(&out).len(), 1, "the partial write row:\n{out}");
}
