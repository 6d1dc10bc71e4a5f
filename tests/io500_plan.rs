//! `io500 CONFIG.ini --plan[=OUT.ini]` on local tasks: the probes' lines,
//! proposed sizes that follow the printed arithmetic from the printed
//! rates, predicted times that are probe x factor, nothing left in the
//! data directory, an OUT.ini that `--dry-run` accepts, and the run's
//! check of a planned configuration whose size was cut.

use std::path::Path;

use crate::common::{entries, io500};
use crate::io500::config;
use pario::io500::config::Config;
use tempfile::tempdir;

/// The sizes the `phase: rate unit x per x S s x M / N tasks` lines
/// propose, redone from their own figures: (section, key, value).
fn redone(stdout: &str, transfer: u64) -> Vec<(String, String, u64)> {
    let mut out = Vec::new();
    for line in stdout.lines().map(str::trim) {
        let Some((phase, rest)) = line.split_once(": ") else {
            continue;
        };
        let w: Vec<&str> = rest.split_whitespace().collect();
        if w.len() < 12 || w[2] != "x" || !w.contains(&"tasks") {
            continue;
        }
        let rate: f64 = w[0].parse().unwrap();
        let stonewall: f64 = w[6].parse().unwrap();
        let margin: f64 = w[9].parse().unwrap();
        let tasks: f64 = w[11].parse().unwrap();
        let per_task = |unit: f64| rate * unit * stonewall * margin / tasks;
        let gib = 1073741824.0;
        let (section, key, value) = match phase {
            "ior-easy-write" => {
                let bytes = per_task(gib);
                let block = (bytes / transfer as f64).ceil() as u64 * transfer;
                ("ior-easy", "blockSize", block)
            }
            "ior-hard-write" => (
                "ior-hard",
                "segmentCount",
                (per_task(gib) / 47008.0).ceil() as u64,
            ),
            "mdtest-easy-write" => ("mdtest-easy", "n", per_task(1000.0).ceil() as u64),
            "mdtest-hard-write" => ("mdtest-hard", "n", per_task(1000.0).ceil() as u64),
            _ => continue,
        };
        out.push((section.into(), key.into(), value.max(1)));
    }
    out
}

/// Each row of the predicted times: probe s x factor = predicted s, and
/// the total their sum (to the printed precision).
fn check_times(stdout: &str) {
    let mut sum = 0.0;
    let mut rows = 0;
    let mut in_table = false;
    for line in stdout.lines() {
        let w: Vec<&str> = line.split_whitespace().collect();
        if w.first() == Some(&"phase") {
            in_table = true;
            continue;
        }
        if !in_table || w.is_empty() {
            continue;
        }
        if w[0] == "total" {
            let total: f64 = w[1].parse().unwrap();
            assert!((total - sum).abs() < 0.05 * rows as f64 + 0.1, "{stdout}");
            return;
        }
        let [probe, factor, predicted] = [w[1], w[2], w[3]].map(|v| v.parse::<f64>().unwrap());
        let slack = 0.0005 * (probe + factor) + 0.05;
        assert!((probe * factor - predicted).abs() <= slack, "{line}");
        sum += predicted;
        rows += 1;
    }
    panic!("no total: {stdout}");
}

#[test]
fn a_plan_follows_its_arithmetic_and_leaves_nothing() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let r = io500(dir.path(), 2, &[&cfg, "--plan=out.ini"]);
    r.ok();
    for phase in [
        "ior-easy-write",
        "mdtest-easy-write",
        "ior-hard-write",
        "mdtest-hard-write",
    ] {
        assert!(
            r.stdout.contains(&format!("[probe] {phase} ")),
            "{}",
            r.stdout
        );
    }
    assert!(
        r.stdout.contains("Predicted wall time of the run"),
        "{}",
        r.stdout
    );
    check_times(&r.stdout);
    // Nothing in the data directory (not even itself) nor a result directory.
    assert_eq!(entries(dir.path()), ["config.ini", "out.ini"]);
    let out = std::fs::read_to_string(dir.path().join("out.ini")).unwrap();
    let planned = Config::parse("out.ini", &out).unwrap();
    let proposed = redone(&r.stdout, 65536);
    assert_eq!(proposed.len(), 4, "{}", r.stdout);
    for (section, key, value) in proposed {
        let got = match key.as_str() {
            "blockSize" => planned.get_size(&section, &key),
            _ => planned.get_uint(&section, &key),
        };
        assert_eq!(got, Some(value), "[{section}] {key}: {}", r.stdout);
    }
    assert_eq!(out.matches("# plan-rate ").count(), 4, "{out}");
    assert!(
        out.contains("transferSize = 64k"),
        "the rest is kept: {out}"
    );
    let dry = io500(dir.path(), 2, &["out.ini", "--dry-run", "--timestamp=T1"]);
    dry.ok();
    assert!(!dry.stderr.contains("lasts about"), "{}", dry.stderr);
    cut_size_is_refused(dir.path(), &out);
}

/// The planned configuration with ior-easy's size cut to one transfer:
/// at the planned rate it ends long before the stonewall: exit 2, nothing
/// made.
fn cut_size_is_refused(dir: &Path, planned: &str) {
    let block = planned
        .lines()
        .find(|l| l.starts_with("blockSize = "))
        .unwrap();
    let cut = planned.replace(block, "blockSize = 64k");
    std::fs::write(dir.join("cut.ini"), cut).unwrap();
    // The dry run left its result directory and datadir's base.
    for made in ["results", "data"] {
        std::fs::remove_dir_all(dir.join(made)).unwrap();
    }
    let r = io500(dir, 2, &["cut.ini", "--dry-run", "--timestamp=T2"]);
    r.fails(2, "ior-easy-write: [ior-easy] blockSize = 64k lasts about");
    assert!(r.stderr.contains("(what --plan proposes)"), "{}", r.stderr);
    assert_eq!(
        entries(dir),
        ["config.ini", "cut.ini", "out.ini"],
        "nothing made"
    );
}

#[test]
fn a_plan_refuses_what_it_cannot_do_before_probing() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    std::fs::write(dir.path().join("taken.ini"), "mine").unwrap();
    let r = io500(dir.path(), 1, &[&cfg, "--plan=taken.ini"]);
    r.fails(2, "--plan=taken.ini: the file exists");
    let r = io500(dir.path(), 1, &[&cfg, "--plan", "--dry-run"]);
    r.fails(2, "not with --dry-run");
    let r = io500(dir.path(), 1, &[&cfg, "--plan="]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    // A phase on S3 while [global] api keeps the data on a file system
    // (the configuration rewritten in place).
    let api = "S3-libs3 --S3-libs3.host=127.0.0.1:9 --S3-libs3.access-key=k \
               --S3-libs3.secret-key=hidden";
    let mixed = config(dir.path(), &format!("[ior-easy]\nAPI = {api}\n"));
    let r = io500(dir.path(), 1, &[&mixed, "--plan"]);
    r.fails(2, "a phase's API = S3-libs3 --S3-libs3.host=127.0.0.1:9");
    assert!(r.stderr.contains("is on other storage"), "{}", r.stderr);
    assert!(!r.stderr.contains("hidden"), "{}", r.stderr);
    assert_eq!(entries(dir.path()), ["config.ini", "taken.ini"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("taken.ini")).unwrap(),
        "mine"
    );
}

#[test]
fn a_plan_without_a_file_only_prints() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "[ior-hard]\nrun = FALSE\n");
    let r = io500(dir.path(), 1, &[&cfg, "--plan"]);
    r.ok();
    assert!(
        r.stdout.contains("[probe] ior-hard-write         skipped"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("ior-hard-write: did not run: its size is left as configured"),
        "{}",
        r.stdout
    );
    assert_eq!(redone(&r.stdout, 65536).len(), 3, "{}", r.stdout);
    assert_eq!(entries(dir.path()), ["config.ini"]);
}
