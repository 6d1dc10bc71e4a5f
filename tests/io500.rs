//! io500 end to end on local tasks: complete scaled-down runs (every result
//! file, each `[RESULT]` equal to its phase's own output, the score and
//! both hashes recomputed here), `--verify`, `--dry-run`, `--list`,
//! `--cleanup`, bad configurations and a data directory in use.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{entries, io500};
use tempfile::tempdir;

/// A configuration that runs every phase in seconds.
fn config(dir: &Path, extra: &str) -> String {
    let text = format!(
        "[global]\ndatadir = {d}/data\nresultdir = {d}/results\n\n[debug]\nstonewall-time = 1\n\n\
         [ior-easy]\ntransferSize = 64k\nblockSize = 2m\n\n[mdtest-easy]\nn = 300\n\n\
         [ior-hard]\nsegmentCount = 40\n\n[mdtest-hard]\nn = 200\n\n\
         [mdworkbench]\nprecreatePerSet = 20\nfilesPerProc = 20\n{extra}",
        d = dir.display()
    );
    let path = dir.join("config.ini");
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

/// The `[RESULT]`/`[      ]` lines: phase -> (score, invalid).
fn results(stdout: &str) -> BTreeMap<String, (f64, bool)> {
    stdout
        .lines()
        .filter(|l| l.starts_with("[RESULT]") || l.starts_with("[      ]"))
        .map(|l| {
            let words: Vec<&str> = l[8..].split_whitespace().collect();
            (words[0].to_string(), (words[1].parse().unwrap(), l.ends_with("[INVALID]")))
        })
        .collect()
}

fn ini(text: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    let mut out: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.into();
        } else if let Some((k, v)) = line.split_once(" = ") {
            out.entry(section.clone()).or_default().insert(k.trim().into(), v.trim().into());
        }
    }
    out
}

fn geometric(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

const BW: [&str; 4] = ["ior-easy-write", "ior-hard-write", "ior-easy-read", "ior-hard-read"];
const MD: [&str; 8] = [
    "mdtest-easy-write",
    "mdtest-hard-write",
    "find",
    "mdtest-easy-stat",
    "mdtest-hard-stat",
    "mdtest-easy-delete",
    "mdtest-hard-read",
    "mdtest-hard-delete",
];

#[test]
fn a_standard_run_scores_every_phase_and_leaves_only_results() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let r = io500(dir.path(), 2, &[&cfg, "--timestamp=T1"]);
    r.ok();
    let res = results(&r.stdout);
    assert_eq!(res.len(), 14, "{}", r.stdout);
    let out = dir.path().join("results/T1");
    let mut files = entries(&out);
    files.sort();
    for f in [
        "config-orig.ini",
        "config.ini",
        "result.txt",
        "result_summary.txt",
        "timestampfile",
        "ior-easy-write.txt",
        "mdtest-hard-read.txt",
        "find.csv",
        "ior-easy.stonewall",
        "mdtest-easy-write.csv",
    ] {
        assert!(files.contains(&f.to_string()), "{f} missing: {files:?}");
    }
    // Only the results remain: the data directory the run made is gone.
    assert!(!dir.path().join("data/T1").exists());
    let result = ini(&std::fs::read_to_string(out.join("result.txt")).unwrap());
    for (phase, (score, _)) in &res {
        if phase == "timestamp" {
            continue;
        }
        let written: f64 = result[phase]["score"].parse().unwrap();
        assert_eq!(format!("{written:.6}"), format!("{score:.6}"), "{phase}");
    }
    // The score, recomputed from the phases' values.
    let bw = geometric(&BW.map(|p| res[p].0));
    let md = geometric(&MD.map(|p| res[p].0));
    let score = &result["SCORE"];
    assert_eq!(score["BW"], format!("{bw:.6}"));
    assert_eq!(score["MD"], format!("{md:.6}"));
    assert_eq!(score["SCORE"], format!("{:.6} [INVALID]", (bw * md).sqrt()));
    assert!(r.stdout.contains("ERROR INVALID stonewall-time 1s != 300s"));
    assert!(r.stdout.contains("The result files are stored in the directory: "));
    // The phase outputs are the tools' own.
    let ior_text = std::fs::read_to_string(out.join("ior-easy-write.txt")).unwrap();
    assert!(ior_text.contains("Max Write:"), "{ior_text}");
    let summary = std::fs::read_to_string(out.join("result_summary.txt")).unwrap();
    assert!(summary.starts_with("IO500 version pario-"), "{summary}");
    assert_eq!(summary.lines().count(), 16);
}

#[test]
fn bad_configurations_are_refused_before_anything_is_made() {
    let dir = tempdir().unwrap();
    for (extra, message) in [
        ("[ior-easy]\nblockSiz = 1m\n", "blockSiz"),
        ("[nosuch]\n", "nosuch"),
        ("[debug]\nstonewall-time = soon\n", "stonewall-time"),
        ("[global]\njust words\n", ":"),
    ] {
        let cfg = config(dir.path(), extra);
        let r = io500(dir.path(), 1, &[&cfg]);
        assert_eq!(r.status, 2, "{extra}: {}", r.stderr);
        assert!(r.stderr.contains(message), "{extra}: {}", r.stderr);
        assert!(r.stderr.contains("config.ini"), "{}", r.stderr);
        assert_eq!(entries(dir.path()), ["config.ini"]);
    }
    let cfg = config(dir.path(), "");
    io500(dir.path(), 1, &[&cfg, "--nosuch"]).fails(2, "unknown option '--nosuch'");
    io500(dir.path(), 1, &[&cfg, "--mode=fast"]).fails(2, "--mode=fast");
}

#[test]
fn a_data_directory_in_use_is_refused() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    std::fs::create_dir_all(dir.path().join("data/T2")).unwrap();
    std::fs::write(dir.path().join("data/T2/precious"), b"x").unwrap();
    let r = io500(dir.path(), 1, &[&cfg, "--timestamp=T2"]);
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains("is not empty"), "{}", r.stderr);
    assert_eq!(std::fs::read(dir.path().join("data/T2/precious")).unwrap(), b"x");
}

#[test]
fn a_dry_run_prints_every_command_and_runs_nothing() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let r = io500(dir.path(), 1, &[&cfg, "--dry-run", "--timestamp=T3"]);
    r.ok();
    let result = std::fs::read_to_string(dir.path().join("results/T3/result.txt")).unwrap();
    let exes: Vec<&str> = result.lines().filter(|l| l.starts_with("exe")).collect();
    assert_eq!(exes.len(), 13, "{result}");
    assert!(exes[0].contains("= ior --dataPacketType=timestamp -g -G "), "{}", exes[0]);
    assert!(result.contains("SCORE           = 0.000000 [INVALID]"), "{result}");
    assert!(!dir.path().join("data/T3/ior-easy").exists());
}

#[test]
fn list_prints_every_section() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let r = io500(dir.path(), 1, &[&cfg, "--list"]);
    r.ok();
    for section in ["[global]", "[ior-easy]", "[mdworkbench]", "[find-hard]"] {
        assert!(r.stdout.contains(section), "{section}: {}", r.stdout);
    }
    assert_eq!(entries(dir.path()), ["config.ini"]);
}
