//! md-workbench under real `mpirun` (built with `--features mpi`), 2 and 3
//! ranks: every phase in one invocation, then a split run.
#![cfg(feature = "mpi")]

use crate::common;
use crate::common::entries;
use tempfile::tempdir;

fn mpirun(dir: &std::path::Path, ranks: usize, args: &[&str]) -> common::Run {
    common::mpirun(crate::common::bin("md-workbench"), dir, ranks, args, &[])
}

#[test]
fn every_phase_on_2_and_3_ranks() {
    for ranks in [2, 3] {
        let dir = tempdir().unwrap();
        let out = format!("-o={}", dir.path().join("out").display());
        let run = mpirun(
            dir.path(),
            ranks,
            &[&out, "-D=2", "-P=3", "-I=2", "-R=2", "-X", "-G=3"],
        );
        run.ok();
        let bench: Vec<&str> = run
            .stdout
            .lines()
            .filter(|l| l.starts_with("benchmark"))
            .collect();
        assert_eq!(bench.len(), 2, "{}", run.stdout);
        let objects = format!(" objects:{} ", ranks * 2 * 2);
        assert!(
            bench
                .iter()
                .all(|l| l.contains(&objects) && l.contains("(0 errs)")),
            "{}",
            run.stdout
        );
        assert_eq!(
            run.stdout.matches("Args: ").count(),
            1,
            "rank 0 alone prints"
        );
        assert_eq!(entries(dir.path()), Vec::<String>::new());
    }
}

#[test]
fn a_split_run_resumes_from_the_run_info_file() {
    let dir = tempdir().unwrap();
    let out = format!("-o={}", dir.path().join("out").display());
    let info = format!("--run-info-file={}", dir.path().join("st").display());
    let common = [out.as_str(), info.as_str(), "-D=2", "-P=4", "-I=2", "-G=9"];
    for phase in [&["-1"][..], &["-2", "-R=2", "-X"][..], &["-3"][..]] {
        let run = mpirun(dir.path(), 3, &[&common[..], phase].concat());
        run.ok();
        assert!(!run.stdout.contains("errs!!!"), "{}", run.stdout);
    }
    assert_eq!(entries(dir.path()), ["st"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("st")).unwrap(),
        "pos: 4\n"
    );
}

#[test]
fn latency_files_gather_every_rank_and_json_merges_their_histograms() {
    let dir = tempdir().unwrap();
    let out = format!("-o={}", dir.path().join("out").display());
    let lat = format!("-L={}", dir.path().join("lat").display());
    let args = [&out, &lat, "--latency-all", "-D=2", "-P=3", "-I=2", "-R=1"];
    let run = mpirun(
        dir.path(),
        3,
        &[&args[..], &["--summaryFormat=JSON"]].concat(),
    );
    run.ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let stat = &doc["phases"][1]["latencyPercentiles"][1];
    assert_eq!(stat["op"], "stat");
    assert_eq!(stat["count"], 3 * 2 * 2, "every rank's stats");
    let stats = std::fs::read_to_string(dir.path().join("lat-0.00-0-stat-all.csv")).unwrap();
    assert_eq!(stats.lines().count(), 1 + 3 * 2 * 2, "{stats}");
    let creates = std::fs::read_to_string(dir.path().join("lat-0.00-0-precreate-all.csv")).unwrap();
    assert_eq!(creates.lines().count(), 1 + 3 * 2 * 3, "{creates}");
    let mut left = entries(dir.path());
    left.retain(|f| !f.starts_with("lat-"));
    assert_eq!(left, Vec::<String>::new());
}
