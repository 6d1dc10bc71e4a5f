//! io500's parallel find against a plain count, on 1, 2 and 4 local tasks:
//! an mdtest-easy-like tree (a directory per task) and an mdtest-hard-like
//! one (every file in one directory), nested directories, the filters.

use std::path::Path;
use std::time::{Duration, SystemTime};

use pario::comm::{local, Topology};
use pario::io500::find::{find, FindResult, FindSpec};
use tempfile::tempdir;

/// Files of `size` bytes named `file.<i>` in `dir`.
fn files(dir: &Path, n: usize, size: usize) {
    std::fs::create_dir_all(dir).unwrap();
    for i in 0..n {
        std::fs::write(dir.join(format!("file.mdtest.{i}")), vec![7u8; size]).unwrap();
    }
}

fn tree(root: &Path) {
    for task in 0..4 {
        files(
            &root.join(format!("easy/test-dir.0-0/mdtest_tree.{task}.0")),
            150,
            0,
        );
    }
    files(&root.join("hard/test-dir.0-0/mdtest_tree.0"), 2000, 3901);
    files(&root.join("deep/a/b/c/d/e"), 120, 3901);
    files(&root.join("deep/a/b2"), 5, 1);
}

/// What a plain walk finds: (matching, scanned).
fn plain(dir: &Path, size: Option<u64>) -> (u64, u64) {
    let (mut found, mut scanned) = (0, 0);
    for e in std::fs::read_dir(dir).unwrap() {
        let e = e.unwrap();
        let meta = e.metadata().unwrap();
        if meta.is_dir() {
            let (f, s) = plain(&e.path(), size);
            found += f;
            scanned += s;
            continue;
        }
        scanned += 1;
        let name = e.file_name().into_string().unwrap();
        if name.contains("01") && size.is_none_or(|s| meta.len() == s) {
            found += 1;
        }
    }
    (found, scanned)
}

fn run(tasks: usize, spec: &FindSpec) -> FindResult {
    let results = local::run(Topology::single_node(tasks), |comm| {
        find(comm, spec).map_err(|e| e.to_string())
    });
    let mut results = results.into_iter();
    let first = results.next().unwrap().unwrap().unwrap();
    assert!(results.all(|r| r.is_ok_and(|r| r.is_ok())));
    first
}

#[test]
fn every_task_count_finds_what_a_plain_walk_finds() {
    let dir = tempdir().unwrap();
    tree(dir.path());
    let spec = |size| FindSpec {
        root: dir.path().to_path_buf(),
        name_pattern: "*01*".into(),
        newer_than: Some(SystemTime::now() - Duration::from_secs(3600)),
        size,
    };
    for size in [None, Some(3901)] {
        let (found, scanned) = plain(dir.path(), size);
        assert!(found > 0);
        for tasks in [1, 2, 4] {
            let r = run(tasks, &spec(size));
            assert_eq!(
                (r.found, r.scanned),
                (found, scanned),
                "{tasks} tasks, size {size:?}"
            );
            assert_eq!(r.ranks.len(), tasks);
            assert_eq!(r.ranks.iter().map(|k| k.scanned).sum::<u64>(), scanned);
        }
    }
}

#[test]
fn the_filters_and_a_missing_root() {
    let dir = tempdir().unwrap();
    tree(dir.path());
    let later = FindSpec {
        root: dir.path().to_path_buf(),
        name_pattern: "*01*".into(),
        newer_than: Some(SystemTime::now() + Duration::from_secs(3600)),
        size: None,
    };
    let r = run(2, &later);
    assert_eq!(r.found, 0);
    assert!(r.scanned > 0);
    let missing = FindSpec {
        root: dir.path().join("nowhere"),
        ..later
    };
    let results = local::run(Topology::single_node(2), |comm| {
        find(comm, &missing).map_err(|e| e.to_string())
    });
    for r in results {
        let e = r.unwrap().unwrap_err();
        assert!(
            e.contains("nowhere") && e.contains("is not a directory"),
            "{e}"
        );
    }
}
