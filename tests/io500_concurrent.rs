//! io500's concurrent phase (pario's extension, IO500#56) on local tasks: a
//! scaled run with `[concurrent] run = TRUE` against the same run without
//! it (the official result lines, files and hashes unchanged, the
//! extension after them in result.txt, result_summary.txt and result.json,
//! every group's figures, nothing left in the data directory), a dry run,
//! and the refusals.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common::{entries, io500, pario};
use serde_json::Value;
use tempfile::tempdir;

/// A scaled configuration with relative directories, so that two runs in
/// two directories write the same `config.ini`.
fn config(dir: &Path, extra: &str) -> String {
    let text = format!(
        "[global]\ndatadir = ./data\nresultdir = ./results\n\n[debug]\nstonewall-time = 1\n\n\
         [ior-easy]\ntransferSize = 64k\nblockSize = 2m\n\n[mdtest-easy]\nn = 200\n\n\
         [ior-hard]\nsegmentCount = 20\n\n[mdtest-hard]\nn = 100\n\n\
         [mdworkbench]\nprecreatePerSet = 20\nfilesPerProc = 20\n{extra}"
    );
    std::fs::write(dir.join("config.ini"), text).unwrap();
    "config.ini".into()
}

const ON: &str = "\n[concurrent]\nrun = TRUE\n";

type Sections = BTreeMap<String, BTreeMap<String, String>>;

/// result.txt's sections (keys with values), before and after the
/// extension's mark.
fn sections(text: &str) -> Sections {
    let mut out = Sections::new();
    let mut section = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.into();
            out.entry(section.clone()).or_default();
        } else if let Some((k, v)) = line.split_once(" = ") {
            let values = out.entry(section.clone()).or_default();
            values.insert(k.trim().into(), v.trim().into());
        }
    }
    out
}

/// The official part of result.txt and the extension (from its mark on).
fn split_result(text: &str) -> (&str, Option<&str>) {
    match text.find("; EXTENSION pario") {
        Some(at) => (&text[..at], Some(&text[at..])),
        None => (text, None),
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Keys of the official sections, without the values that are timings or
/// measured (they differ between any two runs).
fn shape(s: &Sections) -> Vec<(String, Vec<String>)> {
    s.iter()
        .map(|(name, keys)| (name.clone(), keys.keys().cloned().collect()))
        .collect()
}

#[test]
fn the_concurrent_phase_runs_after_the_others_outside_the_score() {
    let tasks = 5;
    let (plain, with) = (tempdir().unwrap(), tempdir().unwrap());
    let plain_cfg = config(plain.path(), "");
    io500(plain.path(), tasks, &[&plain_cfg, "--timestamp=T"]).ok();
    let cfg = config(with.path(), ON);
    let run = io500(with.path(), tasks, &[&cfg, "--timestamp=T"]);
    run.ok();
    let (a, b) = (
        plain.path().join("results/T"),
        with.path().join("results/T"),
    );
    // config.ini and the configuration hash are the harness's: the section
    // is not in them.
    assert_eq!(read(&a.join("config.ini")), read(&b.join("config.ini")));
    let (plain_txt, with_txt) = (read(&a.join("result.txt")), read(&b.join("result.txt")));
    let (official_a, none) = split_result(&plain_txt);
    assert!(none.is_none(), "{plain_txt}");
    let (official_b, extension) = split_result(&with_txt);
    let extension = extension.expect("the extension's section");
    let (sa, sb) = (sections(official_a), sections(official_b));
    assert_eq!(shape(&sa), shape(&sb));
    assert_eq!(sa["run"], sb["run"]);
    assert!(!sb.contains_key("concurrent"));
    // The official content ends where it ends without the extension.
    assert!(official_b
        .trim_end()
        .ends_with(&format!("hash            = {}", sb["SCORE"]["hash"])));
    assert!(with_txt
        .trim_end()
        .lines()
        .last()
        .unwrap()
        .starts_with("; END "));
    // --verify: both hashes hold with the section in the file.
    let verify = io500(with.path(), 1, &[&cfg, "--verify", "results/T/result.txt"]);
    verify.ok();
    assert!(
        verify.stdout.contains("config-hash: OK"),
        "{}",
        verify.stdout
    );
    assert!(
        verify.stdout.contains("SCORE hash: OK"),
        "{}",
        verify.stdout
    );
    let x = &sections(extension)["concurrent"];
    // 20/40/40 of 5 tasks: 1, 2, 2.
    for (group, n) in [("write", "1"), ("read", "2"), ("md", "2")] {
        assert_eq!(x[&format!("tasks-{group}")], n, "{extension}");
        let score: f64 = x[&format!("score-{group}")].parse().unwrap();
        assert!(score > 0.0, "{group}: {extension}");
    }
    assert!(x["exe-write"].contains("ior-easy-concurrent/ior_file_easy"));
    assert!(x["exe-read"].contains("/ior-easy/ior_file_easy -F -r -z -z -t 1m -b 1m"));
    assert!(x["exe-md"].starts_with("md-workbench ") && x["exe-md"].contains(" -2 "));
    for exe in ["exe-write", "exe-read"] {
        assert!(x[exe].ends_with("-D 1 -O minTimeDuration=1"), "{}", x[exe]);
    }
    assert!(x["exe-md"].ends_with("-w 1"), "{}", x["exe-md"]);
    let score: f64 = x["score"].parse().unwrap();
    assert!(
        score > 0.0 && !x["score"].contains("INVALID"),
        "{extension}"
    );
    weighted_score_holds(x, tasks);
    summaries(&a, &b, &run.stdout);
    documents(&a, &b, score);
    report_shows_the_groups(with.path());
    // The groups' own texts, and nothing left behind.
    let text = read(&b.join("concurrent.txt"));
    assert!(
        text.contains("=== group 3 (md-workbench, ranks 3-4) ==="),
        "{text}"
    );
    assert!(!with.path().join("data/T").exists());
}

/// The score is #56's: the tasks times the geometric mean of the groups'
/// scores per task (from the printed, rounded values).
fn weighted_score_holds(x: &BTreeMap<String, String>, tasks: usize) {
    let per_task = |g: &str| -> f64 {
        let score: f64 = x[&format!("score-{g}")].parse().unwrap();
        let n: f64 = x[&format!("tasks-{g}")].parse().unwrap();
        score / n
    };
    let logs: f64 = ["write", "read", "md"]
        .iter()
        .map(|g| per_task(g).ln())
        .sum();
    let want = (logs / 3.0).exp() * tasks as f64;
    let got: f64 = x["score"].parse().unwrap();
    assert!(
        (got - want).abs() <= 1e-5 * want + 1e-6,
        "{got} against {want}"
    );
}

/// result_summary.txt: the official lines as many as without, then the
/// extension's lines; stdout shows the same.
fn summaries(plain: &Path, with: &Path, stdout: &str) {
    let (a, b) = (
        read(&plain.join("result_summary.txt")),
        read(&with.join("result_summary.txt")),
    );
    let official = a.lines().count();
    let lines: Vec<&str> = b.lines().collect();
    assert!(lines[official - 1].starts_with("[SCORE ]"), "{b}");
    let tail = &lines[official..];
    assert!(
        tail[0].starts_with("Extension (pario, outside the IO500 score"),
        "{b}"
    );
    for (line, group) in tail[1..].iter().zip(["write", "read", "md"]) {
        assert!(line.starts_with("[EXTEND]"), "{line}");
        assert!(line.contains(&format!("concurrent-{group} ")), "{line}");
    }
    assert!(tail.last().unwrap().contains(" concurrent "), "{b}");
    for line in tail {
        assert!(stdout.contains(line), "{line}");
    }
}

/// result.json: the same official fields, the extension's object added.
fn documents(plain: &Path, with: &Path, score: f64) {
    let doc = |p: &Path| -> Value { serde_json::from_str(&read(&p.join("result.json"))).unwrap() };
    let (a, b) = (doc(plain), doc(with));
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
    let mut official = keys(&b);
    official.retain(|k| k != "extensions");
    assert_eq!(keys(&a), official);
    assert_eq!(a["config_hash"], b["config_hash"]);
    assert_eq!(
        a["phases"].as_array().unwrap().len(),
        b["phases"].as_array().unwrap().len()
    );
    let x = &b["extensions"]["concurrent"];
    assert_eq!(x["scored"], false);
    assert!((x["score"].as_f64().unwrap() - score).abs() <= 1e-6 * score + 1e-6);
    let groups = x["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 3);
    for (g, (name, tool)) in
        groups
            .iter()
            .zip([("write", "ior"), ("read", "ior"), ("md", "md-workbench")])
    {
        assert_eq!(g["name"], name);
        assert_eq!(g["tool"], tool);
        assert!(g["score"].as_f64().unwrap() > 0.0, "{g}");
    }
    // Each group's tool's full report is inside.
    let reports = x["report"]["groups"].as_array().unwrap();
    assert!(reports[0]["report"]["tests"][0]["Results"].is_array());
    assert_eq!(reports[2]["report"]["phases"][0]["phase"], "benchmark");
}

/// `pario report` shows the phase's groups beside io500's phases.
fn report_shows_the_groups(dir: &Path) {
    let r = pario(dir, &["report", "results/T/result.json", "-o", "r.html"]);
    r.ok();
    let html = read(&dir.join("r.html"));
    assert!(html.contains("<th>concurrent group</th>"), "the table");
    for group in ["write (ior)", "read (ior)", "md (md-workbench)"] {
        assert!(html.contains(&format!("<td>{group}</td>")), "{group}");
    }
    assert!(html.contains(">2 (3-4)</td>"), "md's tasks and ranks");
}

#[test]
fn a_dry_run_shows_the_groups_commands() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), ON);
    io500(dir.path(), 5, &[&cfg, "--dry-run", "--timestamp=D"]).ok();
    let txt = read(&dir.path().join("results/D/result.txt"));
    let x = &sections(split_result(&txt).1.expect("the extension"))["concurrent"];
    assert!(x["exe-read"].starts_with("ior "), "{txt}");
    assert!(
        txt.contains("; WARNING dry run: the phase did not run"),
        "{txt}"
    );
    assert!(!dir.path().join("data/D/ior-easy-concurrent").exists());
}

#[test]
fn bad_concurrent_values_are_refused_before_anything_is_made() {
    let dir = tempdir().unwrap();
    for (extra, message) in [
        ("run = maybe", "'maybe' is not TRUE, FALSE, 1 or 0 (key run in [concurrent])"),
        ("ratio-write = 0.205", "[concurrent] ratio-write = 0.205: a share of the tasks above 0 and below 1, in whole percent"),
        ("ratio-read = 0", "[concurrent] ratio-read = 0: a share"),
        ("ratio-read = 0.8", "[concurrent] ratio-write + ratio-read = 1.00: they must leave md-workbench a share"),
        ("run = TRUE\nstonewall-time = 0", "[concurrent] run = TRUE needs a stonewall time above 0 s"),
        ("ratio = 0.2", "unknown key 'ratio' in section [concurrent]"),
        ("run = TRUE\nAPI = NOSUCH", "[concurrent] group write: "),
        ("run = TRUE\nAPI = S3", "the concurrent phase runs on a file system, not an object store"),
    ] {
        let cfg = config(dir.path(), &format!("\n[concurrent]\n{extra}\n"));
        let r = io500(dir.path(), 5, &[&cfg]);
        assert_eq!(r.status, 2, "{extra}: {}", r.stderr);
        assert!(r.stderr.contains(message), "{extra}: {}", r.stderr);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert_eq!(entries(dir.path()), ["config.ini"]);
    }
    // Two tasks cannot make three groups.
    let cfg = config(dir.path(), ON);
    let r = io500(dir.path(), 2, &[&cfg]);
    r.fails(
        2,
        "[concurrent] run = TRUE: group 1 (20%) gets no task of 2",
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert_eq!(entries(dir.path()), ["config.ini"]);
    // Not over S3 (refused before any request: no server is needed).
    let s3 = "[global]\ndatadir = s3://bench/io500\nresultdir = ./results\n\
              api = S3 --s3.endpoint=http://127.0.0.1:9\n\n[debug]\nstonewall-time = 1\n\n\
              [concurrent]\nrun = TRUE\n";
    std::fs::write(dir.path().join("config.ini"), s3).unwrap();
    let r = io500(dir.path(), 5, &["config.ini"]);
    r.fails(2, "[concurrent] run = TRUE: not over S3 yet");
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert_eq!(entries(dir.path()), ["config.ini"]);
}
