//! `pario compare`: ratios and verdicts from fixed inputs, and the figures
//! it finds in real results of ior, mdtest, md-workbench and io500.

use std::path::Path;

use crate::common::pario;
use pario::compare::{Report, Verdict};
use tempfile::tempdir;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compare");

#[test]
fn fixed_inputs_give_exact_ratios_and_verdicts() {
    let dir = tempdir().unwrap();
    let (a, b) = (format!("{DATA}/a.json"), format!("{DATA}/b.json"));
    let r = pario(dir.path(), &["compare", &a, &b]);
    r.ok();
    let write = r
        .stdout
        .lines()
        .find(|l| l.starts_with("test 0 write"))
        .unwrap();
    // Two repetitions a side: the ratio, and no verdict.
    assert!(
        write.contains("| 1.200 [-] | too few repetitions to tell (2 and 2;"),
        "{write}"
    );
    let read = r
        .stdout
        .lines()
        .find(|l| l.starts_with("test 0 read"))
        .unwrap();
    assert!(read.contains("too few repetitions to tell"), "{read}");
    let r = pario(dir.path(), &["compare", &a, &b, "--json"]);
    r.ok();
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["workloads_differ"], serde_json::Value::Null);
    let w = doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["figure"] == "test 0 write")
        .unwrap();
    assert_eq!(w["verdict"], "too_few");
    assert_eq!(w["interval"], serde_json::Value::Null);
    assert_eq!(w["a"]["n"], 2);
    assert!((w["ratio"].as_f64().unwrap() - 1.2).abs() < 1e-12);
}

/// A copy of a fixed ior result in `dir` with four repetitions: each row
/// again, 2 % higher.
pub fn four_repetitions(dir: &Path, name: &str) -> String {
    let text = std::fs::read_to_string(format!("{DATA}/{name}.json")).unwrap();
    let mut doc: serde_json::Value = serde_json::from_str(&text).unwrap();
    for test in doc["tests"].as_array_mut().unwrap() {
        let rows = test["Results"].as_array_mut().unwrap();
        let more: Vec<serde_json::Value> = rows
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r["bwMiB"] = (r["bwMiB"].as_f64().unwrap() * 1.02).into();
                r
            })
            .collect();
        rows.extend(more);
    }
    let path = dir.join(format!("{name}4.json"));
    std::fs::write(&path, doc.to_string()).unwrap();
    path.display().to_string()
}

#[test]
fn four_repetitions_a_side_get_a_verdict_and_its_interval() {
    let dir = tempdir().unwrap();
    let (a, b) = (
        four_repetitions(dir.path(), "a"),
        four_repetitions(dir.path(), "b"),
    );
    let r = pario(dir.path(), &["compare", &a, &b]);
    r.ok();
    let line = |figure: &str| r.stdout.lines().find(|l| l.starts_with(figure)).unwrap();
    // write: A 1000 1100 1020 1122, B 1260 1260 1285.2 1285.2; every B
    // above every A, the smallest ratio 1260/1122.
    let write = line("test 0 write");
    assert!(
        write.contains("1060.000 [1000.000-1122.000] cv 5.6 % (n=4)"),
        "{write}"
    );
    assert!(
        write.contains("| 1.201 [1.123-1.285] | B faster by 20.1 %"),
        "{write}"
    );
    assert!(line("test 0 read").ends_with("within the noise (±2 % or unsure)"));
    assert!(r
        .stdout
        .contains("cv: their standard deviation over their mean"));
    let r = pario(dir.path(), &["compare", &b, &a]);
    assert!(r.stdout.contains("B slower by 16.7 %"), "{}", r.stdout);
}

#[test]
fn bad_arguments_are_one_line() {
    let dir = tempdir().unwrap();
    let a = format!("{DATA}/a.json");
    for (args, message) in [
        (vec!["compare", a.as_str()], "two result files"),
        (vec!["compare", a.as_str(), "nope.json"], "nope.json"),
        (
            vec!["compare", a.as_str(), a.as_str(), "-x"],
            "unknown option '-x'",
        ),
    ] {
        let r = pario(dir.path(), &args);
        r.fails(2, message);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    }
}

/// Runs a tool with its JSON to `name` in `dir`.
fn result(dir: &Path, tool: &str, args: &[&str], name: &str) -> String {
    let path = dir.join(name).display().to_string();
    let mut all = vec![tool];
    all.extend_from_slice(args);
    let r = pario(dir, &all);
    r.ok();
    std::fs::write(&path, &r.stdout).unwrap();
    path
}

#[test]
fn every_tools_result_has_its_figures() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let cases: [(&str, Vec<&str>, &str); 3] = [
        (
            "ior",
            vec![
                "-a",
                "DUMMY",
                "-w",
                "-r",
                "-i",
                "2",
                "-O",
                "summaryFormat=JSON",
            ],
            "test 0 read",
        ),
        (
            "mdtest",
            vec!["-a", "DUMMY", "-n", "10", "-i", "2", "--summaryFormat=JSON"],
            "1 tasks: File creation",
        ),
        (
            "md-workbench",
            vec![
                "-a",
                "DUMMY",
                "-D=1",
                "-P=4",
                "-I=2",
                "-R=2",
                "--summaryFormat=JSON",
            ],
            "benchmark",
        ),
    ];
    for (tool, args, figure) in cases {
        let a = result(d, tool, &args, "a.json");
        let b = result(d, tool, &args, "b.json");
        let r = pario(d, &["compare", &a, &b]);
        r.ok();
        let line = r.stdout.lines().find(|l| l.starts_with(figure));
        let line = line.unwrap_or_else(|| panic!("{tool}: {}", r.stdout));
        assert!(line.contains("(n=2)"), "{line}");
    }
}

#[test]
fn results_without_a_common_figure_are_refused() {
    let dir = tempdir().unwrap();
    let a = format!("{DATA}/a.json");
    let other = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/report/md-workbench.json"
    );
    pario(dir.path(), &["compare", &a, other]).fails(2, "no figure in common");
    std::fs::write(dir.path().join("odd.json"), "{}").unwrap();
    pario(dir.path(), &["compare", &a, "odd.json"]).fails(2, "not a result document");
}

#[test]
fn different_workloads_are_named_above_the_verdicts() {
    let dir = tempdir().unwrap();
    let d = dir.path();
    let run = |extra: &[&str], name: &str| {
        let mut args = vec!["-a", "DUMMY", "-w", "-i", "2", "-t", "1m"];
        args.extend_from_slice(extra);
        args.extend_from_slice(&["-O", "summaryFormat=JSON"]);
        result(d, "ior", &args, name)
    };
    let fpp = run(&["-b", "8m", "-F"], "fpp.json");
    let shared = run(&["-b", "16m"], "shared.json");
    let again = run(&["-b", "8m", "-F"], "again.json");
    let r = pario(d, &["compare", &fpp, &shared]);
    r.ok();
    // One line, before the table and its verdicts.
    assert_eq!(
        r.stdout.lines().next(),
        Some("workloads differ: block 8 MiB vs 16 MiB; file per process vs shared file"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.lines().nth(1).unwrap().starts_with("figure |"));
    // The JSON says the same, read back through compare's own types.
    let r = pario(d, &["compare", "--json", &fpp, &shared]);
    r.ok();
    let report: Report = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        report.workloads_differ.as_deref(),
        Some("workloads differ: block 8 MiB vs 16 MiB; file per process vs shared file")
    );
    let said: Vec<[&str; 3]> = (report.differences.iter())
        .map(|d| [d.aspect.as_str(), d.a.as_str(), d.b.as_str()])
        .collect();
    assert_eq!(said[0], ["block", "8 MiB", "16 MiB"], "{said:?}");
    assert_eq!(said.len(), 2, "{said:?}");
    assert_eq!(report.rows[0].figure, "test 0 write");
    assert_eq!(report.rows[0].verdict, Verdict::TooFew);
    // The same workload run twice: nothing to say.
    let r = pario(d, &["compare", &fpp, &again]);
    r.ok();
    assert!(r.stdout.starts_with("figure |"), "{}", r.stdout);
    assert!(!r.stdout.contains("workloads differ"));
    let r = pario(d, &["compare", "--json", &fpp, &again]);
    let report: Report = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(report.workloads_differ, None);
    assert!(report.differences.is_empty());
}
