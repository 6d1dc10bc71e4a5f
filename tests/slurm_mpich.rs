//! The MPICH build under the test suite's real Slurm (one node, started by
//! the test): `srun --mpi=pmi2` starts ior, mdtest and io500 directly (Slurm's
//! PMI-2 plugin also answers MPICH's PMI-1 client), and hydra's `mpiexec` in
//! a batch job finds the allocation by itself. Each checks exit status,
//! output and the scratch directory.
//!
//! Run only for a build against MPICH, with `PARIO_TEST_MPIEXEC` naming
//! hydra's mpiexec and `PARIO_TEST_BIN_DIR` the directory of the programs
//! built against MPICH (scripts/test.sh: `-- --ignored slurm_mpich::`);
//! otherwise, or without root or Slurm, it says why and passes.
#![cfg(feature = "mpi")]

use crate::common;

use std::path::Path;

use common::slurm::{unavailable, Cluster};
use common::{entries, finish, scratch, Run};

#[test]
#[ignore = "the Slurm group: scripts/test.sh runs it with --ignored"]
fn the_mpich_build_under_slurm() {
    let Some(mpiexec) = common::hydra() else {
        eprintln!("skipped: PARIO_TEST_MPIEXEC names no hydra mpiexec (an MPICH build)");
        return;
    };
    if let Some(why) = unavailable() {
        eprintln!("skipped: the Slurm tests need root and Debian's slurm-wlm and munge: {why}");
        return;
    }
    let cluster = Cluster::start().unwrap_or_else(|e| panic!("cannot start Slurm: {e}"));
    srun_with_pmi2(&cluster);
    hydra_in_a_batch_job(&cluster, &mpiexec);
}

/// `srun --mpi=pmi2 -n N tool ...` in `dir`.
fn srun(cluster: &Cluster, dir: &Path, tasks: usize, binary: &str, args: &[&str]) -> Run {
    let mut cmd = cluster.command("timeout");
    cmd.args(["120", "srun", "--mpi=pmi2", "-n", &tasks.to_string()])
        .arg(binary)
        .args(args)
        .current_dir(dir);
    finish(cmd.output().unwrap())
}

fn srun_with_pmi2(cluster: &Cluster) {
    let dir = scratch("pario-slurm-scratch");
    let f = dir.path().join("f");
    let ior = ["-t", "64k", "-b", "256k", "-F", "-C", "-e", "-o"];
    let r = srun(
        cluster,
        dir.path(),
        2,
        crate::common::bin("ior"),
        &[&ior[..], &[f.to_str().unwrap()]].concat(),
    );
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("tasks               : 2\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("srun --mpi=pmi2 in Slurm job "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("MPI library         : MPICH Version: "));
    assert_eq!(common::rows(&r.stdout).len(), 2);
    assert!(entries(dir.path()).is_empty());

    let md = dir.path().join("md");
    let r = srun(
        cluster,
        dir.path(),
        2,
        crate::common::bin("mdtest"),
        &["-n", "20", "-u", "-d", md.to_str().unwrap()],
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("launched with 2 total task(s) on 1 node(s)"),
        "{}",
        r.stdout
    );
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));

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
    let r = srun(
        cluster,
        dir.path(),
        2,
        crate::common::bin("io500"),
        &[ini.to_str().unwrap(), "--timestamp=T"],
    );
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("[SCORE ]"), "{}", r.stdout);
    assert!(!dir.path().join("data").join("T").exists());
    std::fs::remove_dir_all(dir.path().join("results")).unwrap();
    let _ = std::fs::remove_dir(dir.path().join("data"));
    std::fs::remove_file(&ini).unwrap();
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// `sbatch --wait` of a job script that calls hydra's mpiexec with no host
/// list: it takes the allocation's.
fn hydra_in_a_batch_job(cluster: &Cluster, mpiexec: &str) {
    let dir = scratch("pario-slurm-scratch");
    let f = dir.path().join("f");
    let ior = crate::common::bin("ior");
    let script = format!(
        "#!/bin/bash\n#SBATCH -N 1\n#SBATCH --ntasks-per-node 4\n\
         {mpiexec} -n 4 {ior} -t 64k -b 256k -s 4 -F -C -o {}\n",
        f.display()
    );
    let path = dir.path().join("job.sh");
    std::fs::write(&path, script).unwrap();
    let out = dir.path().join("out.txt");
    let mut cmd = cluster.command("timeout");
    cmd.args(["120", "sbatch", "--wait", "-o", out.to_str().unwrap()])
        .arg(&path)
        .current_dir(dir.path());
    let run = finish(cmd.output().unwrap());
    let text = std::fs::read_to_string(&out).unwrap_or_default();
    assert_eq!(run.status, 0, "{}\n{text}", run.stderr);
    assert!(text.contains("tasks               : 4\n"), "{text}");
    assert_eq!(common::rows(&text).len(), 2, "{text}");
    let job = text.lines().find(|l| l.starts_with("Job ")).unwrap_or("");
    assert!(
        job.contains("mpiexec (hydra: MPICH, Intel MPI) in Slurm job "),
        "{job}"
    );
    std::fs::remove_file(&path).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}
