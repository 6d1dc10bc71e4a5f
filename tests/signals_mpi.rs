//! Signals under real `mpirun` (built with `--features mpi`): Open MPI
//! turns a SIGINT to mpirun into SIGTERM to every rank; a rank that dies
//! makes it SIGTERM the others. Either way the ranks that can remove their
//! files do, and rank 0 says what happened once.
//!
//! Open MPI sends SIGKILL one second after its SIGTERM; on this small,
//! oversubscribed machine the tests give the ranks thirty (a loaded CI once
//! needed more than three, and once more than ten to remove the 450,000
//! items mdtest had made before the signal reached it), so that what they
//! check is pario's stop and not a race with that second. For the same
//! reason a rank waits up to ten seconds, not half of one, for the others
//! to answer after the signal (`PARIO_STOP_GRACE`): on a loaded machine one
//! rank can get Open MPI's SIGTERM, or be scheduled, that much later (a CI
//! beside a build once saw a rank miss two seconds). The mdtest test sends
//! the ranks SIGTERM itself, as Open MPI does after its kill timeout: in
//! those 30 s of creates a debug build makes some 450,000 items a rank,
//! which a loaded CI could not always remove in the 30 s after.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::process::Command;

use crate::common::entries;
use crate::common::running::{holds, scratch_with_user_file, signal_pid, Running};
use rustix::process::Signal;

/// These tests drive Open MPI's mpirun (its signal forwarding, its kill
/// timeout): under another MPI's launcher (`PARIO_TEST_MPIEXEC`) they pass
/// without running.
pub(crate) fn not_open_mpi() -> bool {
    let other = crate::common::hydra().is_some();
    if other {
        eprintln!("skipped: these tests drive Open MPI's mpirun");
    }
    other
}

/// `PARIO_STOP_GRACE` for the ranks, in seconds (see above).
pub(crate) const GRACE: &str = "10";

/// The line rank 0 prints when a rank did not answer within [`GRACE`].
pub(crate) fn no_answer_line() -> String {
    format!("not every task answered within {GRACE} s (a task may have died)")
}

fn mpirun(binary: &str, dir: &Path, ranks: usize, args: &[&str]) -> Running {
    mpirun_with(binary, dir, ranks, args, &[])
}

/// [`mpirun`] with `env` passed on to every rank too.
pub(crate) fn mpirun_with(
    binary: &str,
    dir: &Path,
    ranks: usize,
    args: &[&str],
    env: &[(&str, &str)],
) -> Running {
    let mut cmd = Command::new("mpirun");
    for (k, v) in env {
        cmd.env(k, v).args(["-x", k]);
    }
    cmd.arg("--oversubscribe")
        .args(["--mca", "odls_base_sigkill_timeout", "30"])
        .args(["-x", "PARIO_STOP_GRACE"])
        .env("PARIO_STOP_GRACE", GRACE)
        .args(["-n", &ranks.to_string(), binary])
        .args(args)
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env_remove("PARIO_TASKS");
    Running::start(cmd)
}

fn long_ior(dir: &Path, ranks: usize) -> Running {
    let target = dir.join("t");
    let args = [
        "-w",
        "-t",
        "8",
        "-b",
        "8g",
        "-F",
        "-o",
        target.to_str().unwrap(),
    ];
    mpirun(crate::common::bin("ior"), dir, ranks, &args)
}

fn files_open(dir: &Path, ranks: usize) -> impl Fn() -> bool + '_ {
    move || (0..ranks).all(|r| dir.join(format!("t.{r:08}")).exists())
}

fn count(text: &str, what: &str) -> usize {
    text.matches(what).count()
}

#[test]
fn sigint_to_mpirun_stops_every_rank_with_one_message() {
    if not_open_mpi() {
        return;
    }
    let dir = scratch_with_user_file();
    let mut run = long_ior(dir.path(), 2);
    run.wait_until("the write phase", files_open(dir.path(), 2));
    run.signal(Signal::INT);
    let end = run.ended();
    assert_ne!(end.status, Some(0), "{}", end.stderr);
    assert_eq!(entries(dir.path()), ["user.txt"]);
    // Open MPI hands the ranks SIGTERM.
    let line = "interrupted by SIGTERM: the write-0 row above covers the transfers made until then";
    assert!(end.stdout.contains(line), "{}", end.stdout);
    assert_eq!(
        count(&end.stderr, "error: interrupted by"),
        1,
        "{}",
        end.stderr
    );
}

#[test]
fn mdtest_under_mpirun_stops_and_removes_its_items() {
    if not_open_mpi() {
        return;
    }
    let dir = scratch_with_user_file();
    let root = dir.path().join("m");
    let args = ["-n", "2000000", "-F", "-u", "-d", root.to_str().unwrap()];
    let binary = crate::common::bin("mdtest");
    let mut run = mpirun(binary, dir.path(), 2, &args);
    run.wait_until("the create phase", || holds(&root, "file.mdtest."));
    let marker = root.to_str().unwrap();
    for rank in 0..2 {
        let pid = rank_pid(binary, marker, rank).expect("the rank's process");
        signal_pid(pid, Signal::TERM);
    }
    let end = run.ended();
    assert_ne!(end.status, Some(0), "{}", end.stderr);
    let left = entries(dir.path());
    let output = format!("stdout:\n{}\nstderr:\n{}", end.stdout, end.stderr);
    assert_eq!(left, ["user.txt"], "{output}");
    assert!(
        end.stdout
            .contains("interrupted by SIGTERM in iteration 1 of 1, File creation"),
        "{}",
        end.stdout
    );
    assert_eq!(
        count(&end.stderr, "error: interrupted by"),
        1,
        "{}",
        end.stderr
    );
}

/// The process of `rank` running `binary` with `marker` (a path) in its
/// command line.
pub(crate) fn rank_pid(binary: &str, marker: &str, rank: usize) -> Option<u32> {
    let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
        let cmdline = String::from_utf8_lossy(&cmdline);
        if !cmdline.starts_with(binary) || !cmdline.contains(marker) {
            return None;
        }
        let environ = std::fs::read(e.path().join("environ")).ok()?;
        let environ = String::from_utf8_lossy(&environ);
        environ.split('\0').any(|v| v == wanted).then_some(pid)
    })
}

#[test]
fn when_a_rank_dies_the_others_remove_their_files() {
    if not_open_mpi() {
        return;
    }
    let dir = scratch_with_user_file();
    let binary = crate::common::bin("ior");
    let mut run = long_ior(dir.path(), 3);
    run.wait_until("the write phase", files_open(dir.path(), 3));
    let victim = rank_pid(binary, dir.path().to_str().unwrap(), 1).expect("rank 1's process");
    signal_pid(victim, Signal::KILL);
    let end = run.ended();
    assert_ne!(end.status, Some(0), "{}", end.stderr);
    // Only the dead rank's file is left, and rank 0 says so.
    assert_eq!(entries(dir.path()), ["t.00000001", "user.txt"]);
    assert!(end.stderr.contains(&no_answer_line()), "{}", end.stderr);
}
