//! Limits known up front: task counts the system cannot start, buffers that
//! do not fit the node, totals that overflow 64 bits, and what the file
//! system already tells (a directory for a shared file, a file for `-d`) are
//! one line and exit 2 before anything is created; a task thread that still
//! fails to start fails every task, without a panic or a hang.

use std::process::Command;

use crate::common::*;
use tempfile::tempdir;

/// Asserts a usage error that printed nothing else and created nothing.
fn refused(run: &Run, message: &str, dir: &std::path::Path) {
    run.fails(2, message);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stdout.is_empty(), "no header: {}", run.stdout);
    assert!(entries(dir).is_empty(), "{:?}", entries(dir));
}

#[test]
fn task_counts_the_system_cannot_start_are_refused() {
    let dir = tempdir().unwrap();
    let args = ["-a", "DUMMY", "-t", "8", "-b", "8", "-w"];
    let run = ior(dir.path(), 10_000_000, &args);
    refused(
        &run,
        "10000000 tasks: this system lets one process start about",
        dir.path(),
    );
    let run = mdtest(dir.path(), 10_000_000, &["-a", "DUMMY", "-n", "1"]);
    refused(
        &run,
        "10000000 tasks: this system lets one process start about",
        dir.path(),
    );
}

/// A pids cgroup (v1 or v2) of the test's own, removed when dropped.
struct PidsCgroup(std::path::PathBuf);

impl PidsCgroup {
    /// A cgroup that lets its processes have at most `max` threads in all,
    /// if this machine lets the test make one (root, a pids controller).
    fn new(max: usize) -> Option<PidsCgroup> {
        let name = format!("pario-test-{}", std::process::id());
        let v2 = std::fs::read_to_string("/sys/fs/cgroup/cgroup.controllers")
            .is_ok_and(|c| c.split_whitespace().any(|x| x == "pids"));
        let base = if v2 {
            "/sys/fs/cgroup"
        } else {
            "/sys/fs/cgroup/pids"
        };
        let dir = std::path::Path::new(base).join(name);
        std::fs::create_dir(&dir).ok()?;
        let group = PidsCgroup(dir);
        std::fs::write(group.0.join("pids.max"), max.to_string()).ok()?;
        Some(group)
    }

    /// `binary args` inside the cgroup.
    fn command(&self, binary: &str, args: &[&str]) -> Command {
        let procs = self.0.join("cgroup.procs");
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg(format!(
                "echo $$ > {} && exec \"$0\" \"$@\"",
                procs.display()
            ))
            .arg(binary)
            .args(args);
        cmd
    }
}

impl Drop for PidsCgroup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn a_task_thread_that_cannot_start_fails_every_task() {
    let dir = tempdir().unwrap();
    // A limit the up-front check does not read: the cgroup's, of 60 threads.
    let Some(group) = PidsCgroup::new(60) else {
        eprintln!("skipped: cannot make a pids cgroup here (needs root)");
        return;
    };
    for (binary, args) in [
        (
            crate::common::bin("ior"),
            &["-a", "DUMMY", "-t", "8", "-b", "8", "-w"][..],
        ),
        (
            crate::common::bin("mdtest"),
            &["-a", "DUMMY", "-n", "2"][..],
        ),
    ] {
        let out = group
            .command(binary, args)
            .current_dir(dir.path())
            .env("PARIO_TASKS", "100")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains("error: cannot start task "), "{stderr}");
        assert!(
            stderr.contains("Resource temporarily unavailable"),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn buffers_larger_than_the_node_are_refused() {
    let dir = tempdir().unwrap();
    let run = ior(dir.path(), 1, &["-a", "DUMMY", "-t", "1t", "-b", "1t"]);
    refused(
        &run,
        "-t: the 1 task(s) on this node need 1 TiB of buffers",
        dir.path(),
    );
    let run = ior(dir.path(), 1, &["-a", "DUMMY", "-t", "8e", "-b", "8e"]);
    refused(&run, "-t: the 1 task(s) on this node need", dir.path());
    let run = mdtest(dir.path(), 2, &["-a", "DUMMY", "-w", "1t", "-n", "1"]);
    refused(
        &run,
        "-w: the 2 task(s) on this node need 2 TiB of buffers",
        dir.path(),
    );
}

#[test]
fn totals_that_overflow_are_refused() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        4,
        &["-a", "DUMMY", "-t", "1m", "-b", "4e", "-w"],
    );
    refused(
        &run,
        "-s/-b: the aggregate size of 4 tasks overflows 64 bits",
        dir.path(),
    );
    let run = mdtest(dir.path(), 2, &["-a", "DUMMY", "-n", "9223372036854775808"]);
    refused(&run, "-n 9223372036854775808: 2 tasks with", dir.path());
}

#[test]
fn what_the_file_system_tells_is_checked_before_the_header() {
    let dir = tempdir().unwrap();
    std::fs::create_dir(dir.path().join("d")).unwrap();
    std::fs::write(dir.path().join("f"), b"mine").unwrap();
    let before = entries(dir.path());
    let run = ior(dir.path(), 1, &["-o", "d"]);
    run.fails(
        2,
        "-o d: is a directory; the shared test file needs a file name",
    );
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let run = mdtest(dir.path(), 1, &["-d", "f", "-n", "1"]);
    run.fails(2, "-d f: is not a directory");
    assert!(run.stdout.is_empty(), "{}", run.stdout);
    let run = mdtest(
        dir.path(),
        1,
        &["-a", "DUMMY", "--posix.odirect", "-n", "1"],
    );
    run.fails(2, "--posix.odirect applies to -a POSIX, not -a DUMMY");
    assert_eq!(entries(dir.path()), before);
    assert_eq!(std::fs::read(dir.path().join("f")).unwrap(), b"mine");
}
