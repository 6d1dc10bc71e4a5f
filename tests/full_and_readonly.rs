//! A file system that fills up, and one mounted read-only: a small tmpfs
//! the test mounts (as root; skipped otherwise, and CI runs as root). The
//! run fails naming the task, the path and the cause, and the file system
//! holds exactly what it held before.

use crate::common::mount::Mount;
use crate::common::{entries, ior, mdtest};

#[test]
fn ior_on_a_full_file_system_fails_and_removes_its_files() {
    let Some(m) = Mount::tmpfs("size=8m") else {
        return;
    };
    let target = m.path().join("t");
    let run = ior(
        m.path(),
        2,
        &[
            "-w",
            "-t",
            "1m",
            "-b",
            "16m",
            "-F",
            "-o",
            target.to_str().unwrap(),
        ],
    );
    run.fails(1, "No space left on device");
    assert!(run.stderr.contains("ior: error: task "), "{}", run.stderr);
    assert!(run
        .stderr
        .contains(&format!("{}.0000000", target.display())));
    assert_eq!(entries(m.path()), ["user.txt"]);
}

#[test]
fn mdtest_out_of_inodes_fails_and_removes_its_items() {
    let Some(m) = Mount::tmpfs("size=8m,nr_inodes=400") else {
        return;
    };
    let root = m.path().join("m");
    let run = mdtest(
        m.path(),
        2,
        &["-n", "1000", "-F", "-d", root.to_str().unwrap()],
    );
    run.fails(1, "No space left on device");
    assert!(run.stderr.contains("cannot create"), "{}", run.stderr);
    assert!(run.stderr.contains("file.mdtest."), "{}", run.stderr);
    assert_eq!(entries(m.path()), ["user.txt"]);
}

#[test]
fn a_read_only_file_system_is_named_and_left_as_it_was() {
    let Some(m) = Mount::tmpfs("size=8m") else {
        return;
    };
    m.read_only();
    let target = m.path().join("t");
    let run = ior(
        m.path(),
        2,
        &[
            "-w",
            "-t",
            "1m",
            "-b",
            "1m",
            "-F",
            "-o",
            target.to_str().unwrap(),
        ],
    );
    run.fails(1, "Read-only file system");
    assert!(
        run.stderr.contains("cannot open for writing"),
        "{}",
        run.stderr
    );
    let root = m.path().join("m");
    let run = mdtest(
        m.path(),
        2,
        &["-n", "10", "-F", "-d", root.to_str().unwrap()],
    );
    run.fails(1, "Read-only file system");
    assert!(
        run.stderr.contains("cannot create directory"),
        "{}",
        run.stderr
    );
    assert_eq!(entries(m.path()), ["user.txt"]);
}
