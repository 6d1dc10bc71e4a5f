//! The directories and files `mdtest` makes, name by name, as mdtest names
//! them (local tasks in a temporary directory).

use crate::common::*;
use tempfile::tempdir;

fn sorted(v: &[&str]) -> Vec<String> {
    let mut v: Vec<String> = v.iter().map(|s| s.to_string()).collect();
    v.sort();
    v
}

/// The paths a `-C` run leaves under `out` (the `-d` directory).
fn created(tasks: usize, args: &[&str]) -> Vec<String> {
    let dir = tempdir().unwrap();
    let mut all = vec!["-C", "-d", "out"];
    all.extend_from_slice(args);
    mdtest(dir.path(), tasks, &all).ok();
    tree_of(&dir.path().join("out"))
}

#[test]
fn paths_of_a_flat_file_run() {
    assert_eq!(
        created(1, &["-n", "3", "-F"]),
        sorted(&[
            "test-dir.0-0",
            "test-dir.0-0/mdtest_tree.0",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.0.0",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.0.1",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.0.2",
        ])
    );
}

#[test]
fn paths_of_a_tree_shared_by_two_tasks() {
    // -z 1 -b 2: three directories; -n 4 gives one item per directory.
    let t = "test-dir.0-0/mdtest_tree.0";
    let mut expected = vec![
        "test-dir.0-0".to_string(),
        t.to_string(),
        format!("{t}/mdtest_tree.1"),
        format!("{t}/mdtest_tree.2"),
    ];
    for task in 0..2 {
        for kind in ["file", "dir"] {
            expected.push(format!("{t}/{kind}.mdtest.{task}.0"));
            expected.push(format!("{t}/mdtest_tree.1/{kind}.mdtest.{task}.1"));
            expected.push(format!("{t}/mdtest_tree.2/{kind}.mdtest.{task}.2"));
        }
    }
    expected.sort();
    assert_eq!(created(2, &["-n", "4", "-z", "1", "-b", "2"]), expected);
}

#[test]
fn paths_of_leaf_only_items_per_directory() {
    // -z 2 -b 2 -L -I 2: the leaves are directories 3..6, items 6..13.
    let t = "test-dir.0-0/mdtest_tree.0";
    let mut expected = vec![
        "test-dir.0-0".to_string(),
        t.to_string(),
        format!("{t}/mdtest_tree.1"),
        format!("{t}/mdtest_tree.2"),
    ];
    for (parent, leaf) in [(1, 3), (1, 4), (2, 5), (2, 6)] {
        let d = format!("{t}/mdtest_tree.{parent}/mdtest_tree.{leaf}");
        expected.push(d.clone());
        for k in [2 * leaf, 2 * leaf + 1] {
            expected.push(format!("{d}/file.mdtest.0.{k}"));
        }
    }
    expected.sort();
    assert_eq!(
        created(1, &["-I", "2", "-z", "2", "-b", "2", "-L", "-F"]),
        expected
    );
}

#[test]
fn paths_of_unique_dirs_with_a_stride() {
    // -u -N 1: task t's items live in the tree of task t+1.
    assert_eq!(
        created(2, &["-n", "2", "-F", "-u", "-N", "1"]),
        sorted(&[
            "test-dir.0-0",
            "test-dir.0-0/mdtest_tree.0.0",
            "test-dir.0-0/mdtest_tree.0.0/file.mdtest.1.0",
            "test-dir.0-0/mdtest_tree.0.0/file.mdtest.1.1",
            "test-dir.0-0/mdtest_tree.1.0",
            "test-dir.0-0/mdtest_tree.1.0/file.mdtest.0.0",
            "test-dir.0-0/mdtest_tree.1.0/file.mdtest.0.1",
        ])
    );
}

#[test]
fn paths_of_unique_dirs_in_a_deeper_tree() {
    let got = created(2, &["-n", "4", "-D", "-u", "-z", "1", "-b", "1"]);
    // A chain of two directories per task, two items in each.
    for task in 0..2 {
        let root = format!("test-dir.0-0/mdtest_tree.{task}.0");
        for p in [
            root.clone(),
            format!("{root}/dir.mdtest.{task}.0"),
            format!("{root}/dir.mdtest.{task}.1"),
            format!("{root}/mdtest_tree.{task}.1"),
            format!("{root}/mdtest_tree.{task}.1/dir.mdtest.{task}.2"),
            format!("{root}/mdtest_tree.{task}.1/dir.mdtest.{task}.3"),
        ] {
            assert!(got.contains(&p), "{p} missing from {got:?}");
        }
    }
    assert_eq!(got.len(), 1 + 2 * 6);
}

#[test]
fn paths_of_items_and_items_per_directory_together() {
    // -n 4 -I 2 without -u: two test directories of two items each.
    assert_eq!(
        created(1, &["-n", "4", "-I", "2", "-F"]),
        sorted(&[
            "test-dir.0-0",
            "test-dir.0-0/mdtest_tree.0",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.0.0",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.0.1",
            "test-dir.0-1",
            "test-dir.0-1/mdtest_tree.0",
            "test-dir.0-1/mdtest_tree.0/file.mdtest.0.0",
            "test-dir.0-1/mdtest_tree.0/file.mdtest.0.1",
        ])
    );
}

#[test]
fn paths_of_iterations_shared_files_and_mknod() {
    assert_eq!(
        created(1, &["-n", "1", "-F", "-i", "2"]),
        sorted(&[
            "test-dir.0-0",
            "test-dir.0-0/mdtest_tree.0",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.0.0",
            "test-dir.1-0",
            "test-dir.1-0/mdtest_tree.0",
            "test-dir.1-0/mdtest_tree.0/file.mdtest.0.0",
        ])
    );
    assert_eq!(
        created(3, &["-n", "2", "-S"]),
        sorted(&[
            "test-dir.0-0",
            "test-dir.0-0/mdtest_tree.0",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.shared.0",
            "test-dir.0-0/mdtest_tree.0/file.mdtest.shared.1",
        ])
    );
    let dir = tempdir().unwrap();
    mdtest(dir.path(), 1, &["-C", "-k", "-F", "-n", "2", "-d", "out"]).ok();
    let f = dir
        .path()
        .join("out/test-dir.0-0/mdtest_tree.0/file.mdtest.0.1");
    let meta = std::fs::metadata(f).unwrap();
    assert!(meta.is_file() && meta.len() == 0);
}

#[test]
fn several_directories_one_per_task() {
    let dir = tempdir().unwrap();
    mdtest(dir.path(), 2, &["-C", "-u", "-F", "-n", "1", "-d", "a@b"]).ok();
    assert_eq!(
        tree_of(&dir.path().join("a")),
        sorted(&[
            "test-dir.0-0",
            "test-dir.0-0/mdtest_tree.0.0",
            "test-dir.0-0/mdtest_tree.0.0/file.mdtest.0.0",
        ])
    );
    assert_eq!(
        tree_of(&dir.path().join("b")),
        sorted(&[
            "test-dir.0-0",
            "test-dir.0-0/mdtest_tree.1.0",
            "test-dir.0-0/mdtest_tree.1.0/file.mdtest.1.0",
        ])
    );
    mdtest(dir.path(), 2, &["-r", "-u", "-F", "-n", "1", "-d", "a@b"]).ok();
    assert!(tree_of(&dir.path().join("a")).is_empty());
    assert!(tree_of(&dir.path().join("b")).is_empty());
}
