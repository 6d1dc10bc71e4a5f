//! md-workbench's latency side: adaptive waiting (`-T`), the `-L` latency
//! files with and without `--latency-all`, the `-v -v` traces, pario's
//! merged percentiles in JSON, its CSV, and `--recordLatency=0`.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common;
use crate::common::{entries, md_workbench};
use tempfile::tempdir;

/// Two tasks, two datasets of four objects, two per iteration, one `-R`.
fn run(dir: &Path, more: &[&str]) -> common::Run {
    let out = format!("-o={}", dir.join("out").display());
    let mut args = vec!["-D=2", "-P=4", "-I=2", "-R=1", "-G=7", &out];
    args.extend_from_slice(more);
    let run = md_workbench(dir, 2, &args);
    run.ok();
    run
}

fn benchmark_lines(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter(|l| l.starts_with("benchmark "))
        .collect()
}

#[test]
fn adaptive_waiting_runs_eight_phases_per_iteration() {
    let dir = tempdir().unwrap();
    let r = run(dir.path(), &["-T", "-R=2", "--summaryFormat=JSON"]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let bench: Vec<&serde_json::Value> = doc["phases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["phase"] == "benchmark")
        .collect();
    assert_eq!(bench.len(), 16);
    let factors: Vec<f64> = bench[..8]
        .iter()
        .map(|p| p["waiting_factor"].as_f64().unwrap())
        .collect();
    assert_eq!(factors, [0.0, 0.0625, 0.125, 0.25, 0.5, 1.0, 2.0, 4.0]);
    let iterations: Vec<u64> = bench
        .iter()
        .map(|p| p["iteration"].as_u64().unwrap())
        .collect();
    assert_eq!(iterations, [[0; 8], [1; 8]].concat());
    // Every phase consumed its objects: nothing went missing.
    assert!(bench.iter().all(|p| p["objs_read"] == 8), "{}", r.stdout);
    assert_eq!(entries(dir.path()), Vec::<String>::new());

    let r = run(dir.path(), &["-T"]);
    let lines = benchmark_lines(&r.stdout);
    assert_eq!(lines.len(), 8);
    assert!(!lines[0].contains("waiting_factor"), "{}", lines[0]);
    let shown: Vec<&str> = lines[1..]
        .iter()
        .map(|l| {
            l.split("waiting_factor:")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(
        shown,
        ["0.06", "0.12", "0.25", "0.50", "1.00", "2.00", "4.00"]
    );
}

/// The lines of a latency file after its header, as (start, duration).
fn latency_rows(path: &Path) -> Vec<(f64, f64)> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time,runtime"));
    lines
        .map(|l| {
            let (start, took) = l.split_once(',').unwrap();
            assert_eq!(start.split('.').nth(1).unwrap().len(), 7, "{l}");
            assert!(took.contains("e-"), "{l}");
            (start.parse().unwrap(), took.parse().unwrap())
        })
        .collect()
}

#[test]
fn latency_files_hold_rank_zeros_operations_or_every_ranks() {
    let dir = tempdir().unwrap();
    let lat = dir.path().join("lat");
    let l = format!("-L={}", lat.display());
    run(dir.path(), &[&l, "-t=0.5"]);
    let names: BTreeSet<String> = entries(dir.path()).into_iter().collect();
    let expected: BTreeSet<String> = [
        "lat-0.50-0-precreate.csv",
        "lat-0.50-0-read.csv",
        "lat-0.50-0-stat.csv",
        "lat-0.50-0-create.csv",
        "lat-0.50-0-delete.csv",
        "lat-0.50-1-cleanup.csv",
    ]
    .map(String::from)
    .into();
    assert_eq!(names, expected);
    // Rank 0: 2 datasets x 4 precreated objects; 2 x 2 in the benchmark.
    let created = latency_rows(&dir.path().join("lat-0.50-0-precreate.csv"));
    assert_eq!(created.len(), 8);
    assert!(created.windows(2).all(|w| w[0].0 <= w[1].0), "{created:?}");
    assert!(created.iter().all(|(_, took)| *took > 0.0));
    for op in ["read", "stat", "create", "delete"] {
        let rows = latency_rows(&dir.path().join(format!("lat-0.50-0-{op}.csv")));
        assert_eq!(rows.len(), 4, "{op}");
    }
    for f in &expected {
        std::fs::remove_file(dir.path().join(f)).unwrap();
    }

    run(dir.path(), &[&l, "--latency-all", "--read-only", "-R=2"]);
    let names: BTreeSet<String> = entries(dir.path()).into_iter().collect();
    let expected: BTreeSet<String> = [
        "lat-0.00-0-precreate-all.csv",
        "lat-0.00-0-read-all.csv",
        "lat-0.00-0-stat-all.csv",
        "lat-0.00-1-read-all.csv",
        "lat-0.00-1-stat-all.csv",
        "lat-0.00-2-cleanup-all.csv",
    ]
    .map(String::from)
    .into();
    assert_eq!(names, expected);
    let all = latency_rows(&dir.path().join("lat-0.00-0-precreate-all.csv"));
    assert_eq!(all.len(), 16, "both ranks' creates");
    // Rank 0's then rank 1's, each in the order made.
    assert!(all[..8].windows(2).all(|w| w[0].0 <= w[1].0));
    assert!(all[8..].windows(2).all(|w| w[0].0 <= w[1].0));
    assert_eq!(
        latency_rows(&dir.path().join("lat-0.00-1-stat-all.csv")).len(),
        8
    );
}

#[test]
fn two_vs_print_every_operation_of_every_rank() {
    let dir = tempdir().unwrap();
    let out = dir.path().join("out");
    let r = md_workbench(
        dir.path(),
        2,
        &[
            "-D=1",
            "-P=2",
            "-I=1",
            "-R=1",
            &format!("-o={}", out.display()),
            "-v",
            "-v",
        ],
    );
    r.ok();
    let traces: BTreeSet<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("0: ") || l.starts_with("1: "))
        .collect();
    let o = out.display();
    let mut expected = BTreeSet::new();
    for rank in 0..2 {
        let other = 1 - rank;
        for f in 0..2 {
            expected.insert(format!(
                "{rank}: write {o}/{rank}_0/file-{f} (0) pretend: {rank}"
            ));
        }
        expected.insert(format!("{rank}: stat {o}/{other}_0/file-0 (0)"));
        expected.insert(format!(
            "{rank}: read {o}/{other}_0/file-0 pretend: {other}"
        ));
        expected.insert(format!("{rank}: delete {o}/{other}_0/file-0"));
        expected.insert(format!(
            "{rank}: write {o}/{other}_0/file-2 (0) pretend: {other}"
        ));
        for f in 1..3 {
            expected.insert(format!("{rank}: delete {o}/{rank}_0/file-{f}"));
        }
        expected.insert(format!("{rank}: delete dset {o}/{rank}_0"));
    }
    let expected: BTreeSet<&str> = expected.iter().map(String::as_str).collect();
    assert_eq!(traces, expected);
}

#[test]
fn json_has_merged_percentiles_and_csv_a_row_per_phase() {
    let dir = tempdir().unwrap();
    let r = run(dir.path(), &["--summaryFormat=JSON"]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let bench = &doc["phases"][1];
    let ops: Vec<&str> = bench["latencyPercentiles"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            // Both ranks' operations: 2 ranks x 2 datasets x 2 iterations.
            assert_eq!(p["count"], 8, "{p}");
            let (p50, max) = (p["p50"].as_f64().unwrap(), p["max"].as_f64().unwrap());
            assert!(0.0 < p50 && p50 <= max * 1.01, "{p}");
            p["op"].as_str().unwrap()
        })
        .collect();
    assert_eq!(ops, ["read", "stat", "create", "delete"]);

    let r = run(dir.path(), &["--summaryFormat=CSV", "-R=2"]);
    let mut lines = r.stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    assert_eq!(header.len(), 50);
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let phases: Vec<&str> = rows.iter().map(|r| r[col("phase")]).collect();
    assert_eq!(phases, ["precreate", "benchmark", "benchmark", "cleanup"]);
    assert_eq!(rows[2][col("iteration")], "1");
    assert_eq!(rows[1][col("objs_read")], "8");
    assert!(rows.iter().all(|r| r.len() == 50));
    assert!(rows[0][col("read_median_s")].is_empty());
    assert!(rows[1][col("read_median_s")].contains("e-"));
    assert_eq!(entries(dir.path()), Vec::<String>::new());
}

#[test]
fn without_latency_recording_the_phases_still_count_and_rate() {
    let dir = tempdir().unwrap();
    let r = run(dir.path(), &["--recordLatency=0", "--summaryFormat=JSON"]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let bench = &doc["phases"][1];
    assert_eq!(bench["objs_read"], 8);
    assert!(bench["rate"].as_f64().unwrap() > 0.0);
    assert!(bench["quantiles"].as_array().unwrap().is_empty());
    assert!(bench.get("latencyPercentiles").is_none());
    let r = run(dir.path(), &["--recordLatency=0"]);
    let line = benchmark_lines(&r.stdout)[0];
    assert!(line.ends_with("(0 errs)"), "{line}");
}

#[test]
fn one_v_prints_each_ranks_stonewall_line() {
    let dir = tempdir().unwrap();
    let out = format!("-o={}", dir.path().join("out").display());
    let args = [
        "-a",
        "DUMMY",
        "--dummy.delay-create=2000",
        &out,
        "-D=1",
        "-P=10",
    ];
    let r = md_workbench(
        dir.path(),
        2,
        &[&args[..], &["-I=100000", "-R=1", "-w=1", "-W", "-v"]].concat(),
    );
    r.ok();
    for rank in 0..2 {
        let line = r
            .stdout
            .lines()
            .find(|l| l.starts_with(&format!("{rank}: stonewall runtime ")))
            .unwrap_or_else(|| panic!("rank {rank}: {}", r.stdout));
        assert!(line.ends_with("s (1s)"), "{line}");
    }
    assert!(r.stdout.contains("stonewall wear out "), "{}", r.stdout);
}

/// A latency file that cannot be written once the run is under way is a
/// warning naming the file and the cause, as any output that fails late:
/// the run goes on, and removes every object and directory it made (its
/// data directory included).
#[test]
fn an_unwritable_latency_file_is_a_warning_and_the_run_cleans_up() {
    let dir = tempdir().unwrap();
    let lat = dir.path().join("lat");
    // The benchmark phase's create file is a directory: the precreate phase
    // writes its file, the benchmark phase cannot.
    std::fs::create_dir(dir.path().join("lat-0.00-0-create.csv")).unwrap();
    let data = dir.path().join("data");
    let args = [
        "-I=3".to_string(),
        "-P=3".into(),
        "-D=2".into(),
        format!("-o={}", data.display()),
        format!("-L={}", lat.display()),
    ];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = md_workbench(dir.path(), 2, &args);
    run.ok();
    assert!(
        run.stderr.contains("lat-0.00-0-create.csv: Is a directory"),
        "{}",
        run.stderr
    );
    assert!(run.stdout.contains("Total runtime"), "{}", run.stdout);
    assert!(!data.exists(), "the data directory is removed");
    let left: BTreeSet<String> = entries(dir.path()).into_iter().collect();
    for file in [
        "lat-0.00-0-precreate.csv",
        "lat-0.00-0-delete.csv",
        "lat-0.00-3-cleanup.csv",
    ] {
        assert!(left.contains(file), "{file}: {left:?}");
    }
    assert!(left.iter().all(|n| n.starts_with("lat-0.00-")), "{left:?}");
}
