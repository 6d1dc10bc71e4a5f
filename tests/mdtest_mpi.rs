//! Real `mpirun` runs of `mdtest` (built with `--features mpi`).
#![cfg(feature = "mpi")]

use std::path::Path;

use crate::common;
use crate::common::{mdtest_rows, tree_of, Run};
use tempfile::tempdir;

fn mpirun(dir: &Path, ranks: usize, args: &[&str]) -> Run {
    common::mpirun(crate::common::bin("mdtest"), dir, ranks, args, &[])
}

#[test]
fn full_runs_on_2_and_4_ranks() {
    for ranks in [2, 4] {
        let dir = tempdir().unwrap();
        let run = mpirun(
            dir.path(),
            ranks,
            &[
                "-n", "20", "-u", "-N", "1", "-w", "64", "-e", "64", "-X", "-G", "9", "-i", "2",
                "-d", "out",
            ],
        );
        run.ok();
        assert!(run.stdout.contains(&format!(
            "was launched with {ranks} total task(s) on 1 node(s)"
        )));
        assert!(run.stdout.contains(&format!(
            "\n{ranks} tasks, {} files/directories\n",
            20 * ranks
        )));
        assert!(run
            .stdout
            .contains(&format!("Nodemap: {}\n", "1".repeat(ranks))));
        // Printed once, by rank 0.
        assert_eq!(run.stdout.matches("-- started at").count(), 1);
        let tables = mdtest_rows(&run.stdout, "SUMMARY rate");
        assert_eq!(tables.len(), 1);
        assert_eq!(tables[0].len(), 10);
        assert!(tables[0].iter().all(|(_, v)| v[1] > 0.0), "{}", run.stdout);
        assert!(!dir.path().join("out").exists());
    }
}

#[test]
fn paths_and_split_runs_across_invocations() {
    let dir = tempdir().unwrap();
    let args = |phase: &'static str| {
        vec![
            phase, "-n", "3", "-F", "-u", "-N", "1", "-w", "16", "-e", "16", "-G", "4", "-x", "sw",
            "-d", "out",
        ]
    };
    let mut create = args("-C");
    create.extend(["-W", "100"]);
    mpirun(dir.path(), 2, &create).ok();
    assert_eq!(std::fs::read_to_string(dir.path().join("sw")).unwrap(), "3");
    let mut expected: Vec<String> = vec!["test-dir.0-0".into()];
    for (tree, task) in [(0, 1), (1, 0)] {
        expected.push(format!("test-dir.0-0/mdtest_tree.{tree}.0"));
        for k in 0..3 {
            expected.push(format!(
                "test-dir.0-0/mdtest_tree.{tree}.0/file.mdtest.{task}.{k}"
            ));
        }
    }
    expected.sort();
    assert_eq!(tree_of(&dir.path().join("out")), expected);
    mpirun(dir.path(), 2, &args("-T")).ok();
    let mut read = args("-E");
    read.push("-X");
    mpirun(dir.path(), 2, &read).ok();
    mpirun(dir.path(), 2, &args("-r")).ok();
    assert!(tree_of(&dir.path().join("out")).is_empty());
}

#[test]
fn a_failing_rank_stops_every_rank() {
    let dir = tempdir().unwrap();
    mpirun(dir.path(), 4, &["-C", "-F", "-n", "5", "-d", "out"]).ok();
    std::fs::remove_file(
        dir.path()
            .join("out/test-dir.0-0/mdtest_tree.0/file.mdtest.3.4"),
    )
    .unwrap();
    let run = mpirun(dir.path(), 4, &["-T", "-F", "-n", "5", "-d", "out"]);
    assert_ne!(run.status, 0);
    assert_ne!(run.status, 124, "timed out: a rank hung");
    let errors: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("mdtest: error:"))
        .collect();
    assert_eq!(
        errors,
        ["mdtest: error: task 3: cannot stat out/test-dir.0-0/mdtest_tree.0/file.mdtest.3.4: No such file or directory (os error 2)"],
        "{}",
        run.stderr
    );
    // A failed create removes what it made, on every rank, and nothing else.
    let user = dir.path().join("user/test-dir.0-0/mdtest_tree.0");
    std::fs::create_dir_all(&user).unwrap();
    std::fs::write(user.join("file.mdtest.2.3"), b"in the way").unwrap();
    let before = tree_of(&dir.path().join("user"));
    let run = mpirun(dir.path(), 4, &["-C", "-F", "-n", "5", "-d", "user"]);
    assert_ne!(run.status, 0);
    assert!(
        run.stderr.contains("task 2: cannot create"),
        "{}",
        run.stderr
    );
    assert_eq!(tree_of(&dir.path().join("user")), before);
    assert_eq!(
        std::fs::read(user.join("file.mdtest.2.3")).unwrap(),
        b"in the way"
    );
}

#[test]
fn bad_options_are_reported_once() {
    let dir = tempdir().unwrap();
    let run = mpirun(dir.path(), 2, &["-n", "3", "-I", "2", "-d", "out"]);
    assert_eq!(run.status, 2);
    assert_eq!(
        run.stderr.matches("mdtest: error:").count(),
        1,
        "{}",
        run.stderr
    );
    assert!(!dir.path().join("out").exists());
    let run = mpirun(dir.path(), 2, &["-n", "3", "-l", "3", "-d", "out"]);
    assert_ne!(run.status, 0);
    assert!(
        run.stderr.contains("only 2 tasks are running"),
        "{}",
        run.stderr
    );
    assert!(!dir.path().join("out").exists());
}
