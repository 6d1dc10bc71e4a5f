//! io500 end to end on local tasks: complete scaled-down runs (every result
//! file, each `[RESULT]` equal to its phase's own output, the score and
//! both hashes recomputed here), `--verify`, `--dry-run`, `--list`,
//! `--cleanup`, bad configurations and a data directory in use.

use std::collections::BTreeMap;
use std::path::Path;

use crate::common;
use crate::common::{entries, io500, tool_env};
use tempfile::tempdir;

/// A configuration that runs every phase in seconds.
pub(crate) fn config(dir: &Path, extra: &str) -> String {
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
            (
                words[0].to_string(),
                (words[1].parse().unwrap(), l.ends_with("[INVALID]")),
            )
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
            out.entry(section.clone())
                .or_default()
                .insert(k.trim().into(), v.trim().into());
        }
    }
    out
}

fn rotladd(start: u32, text: &str) -> u32 {
    let mut x = start;
    for b in text.bytes() {
        x = x.rotate_left(2).wrapping_add(b as u32);
    }
    x
}

fn pair(key: &str, value: &str) -> u32 {
    rotladd(rotladd(0, key), value)
}

/// IO500's configuration hash of `text` from the effective values: the
/// file's, else the harness's defaults (those of the test's file below).
fn config_hash(text: &str) -> u32 {
    let given = ini(text);
    let effective = include_str!("data/io500/config.ini");
    let mut h = 0;
    let mut section = String::new();
    for line in effective.lines() {
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.into();
            continue;
        }
        let Some((k, default)) = line
            .split_once(" = ")
            .or(line.strip_suffix(" =").map(|k| (k, "")))
        else {
            continue;
        };
        let value = given
            .get(&section)
            .and_then(|s| s.get(k))
            .map(String::as_str);
        // external-*-args default to the empty string: hashed even so.
        let empty_default = k.starts_with("external-") && k.ends_with("-args");
        let v = value.or((!default.is_empty() || empty_default).then_some(default));
        let v = if section == "global" && (k == "datadir" || k == "resultdir") {
            value
        } else {
            v
        };
        if let Some(v) = v {
            h ^= pair(k, v);
        }
    }
    h
}

fn geometric(v: &[f64]) -> f64 {
    (v.iter().map(|x| x.ln()).sum::<f64>() / v.len() as f64).exp()
}

const BW: [&str; 4] = [
    "ior-easy-write",
    "ior-hard-write",
    "ior-easy-read",
    "ior-hard-read",
];
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
    // (mdtest's rate-stonewall is in kIOPS: io500::run_phase's unit test.)
    for phase in ["mdtest-easy-write", "mdtest-hard-write"] {
        let rate: f64 = result[phase]["rate-stonewall"].parse().unwrap();
        assert!(rate > 0.0, "{phase}: {rate} kIOPS");
    }
    // The score, recomputed from the phases' values.
    let bw = geometric(&BW.map(|p| res[p].0));
    let md = geometric(&MD.map(|p| res[p].0));
    // (from the printed, rounded scores: equal within their rounding)
    let score = &result["SCORE"];
    let close = |text: &str, want: f64| {
        let got: f64 = text.split_whitespace().next().unwrap().parse().unwrap();
        assert!(
            (got - want).abs() <= 1e-6 + want * 1e-5,
            "{got} against {want}"
        );
    };
    close(&score["BW"], bw);
    close(&score["MD"], md);
    close(&score["SCORE"], (bw * md).sqrt());
    assert!(score["SCORE"].ends_with(" [INVALID]"));
    // Both hashes, recomputed here with IO500's rotate-and-add.
    let cfg_text = std::fs::read_to_string(&cfg).unwrap();
    assert_eq!(
        result["run"]["config-hash"],
        format!("{:X}", config_hash(&cfg_text))
    );
    let mut h = pair("version", &result["run"]["version"]);
    for p in BW.iter().chain(MD.iter()) {
        h ^= pair(p, &result[*p]["score"]);
    }
    for k in ["MD", "BW"] {
        h ^= pair(k, &score[k]);
    }
    h ^= pair("SCORE", score["SCORE"].split_whitespace().next().unwrap());
    h ^= pair("valid", "NO");
    assert_eq!(score["hash"], format!("{h:X}"));
    let verify = io500(
        dir.path(),
        1,
        &[&cfg, "--verify", out.join("result.txt").to_str().unwrap()],
    );
    verify.ok();
    assert!(
        verify.stdout.contains("SCORE hash: OK"),
        "{}",
        verify.stdout
    );
    let edited = std::fs::read_to_string(out.join("result.txt"))
        .unwrap()
        .replace(
            &format!("score           = {}", result["find"]["score"]),
            "score           = 99999.000000",
        );
    std::fs::write(dir.path().join("edited.txt"), edited).unwrap();
    let verify = io500(dir.path(), 1, &[&cfg, "--verify", "edited.txt"]);
    assert_eq!(verify.status, 1, "{}", verify.stdout);
    assert!(
        verify.stdout.contains("SCORE hash: MISMATCH"),
        "{}",
        verify.stdout
    );
    assert!(r.stdout.contains("ERROR INVALID stonewall-time 1s != 300s"));
    assert!(r
        .stdout
        .contains("The result files are stored in the directory: "));
    // The phase outputs are the tools' own.
    // Each [RESULT] is the figure of the phase's own output: ior's Max
    // Write in GiB/s, mdtest's creation rate in kIOPS.
    let ior_text = std::fs::read_to_string(out.join("ior-easy-write.txt")).unwrap();
    let max_write: f64 = ior_text
        .lines()
        .find_map(|l| l.strip_prefix("Max Write: "))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .parse()
        .unwrap();
    // Max Write has two decimals: at a few MiB/s (a loaded machine) its
    // rounding alone is up to 0.005 MiB/s, 4.9e-6 GiB/s.
    let close2 = |a: f64, b: f64| (a - b).abs() <= 0.005 / 1024.0 + 1e-6 + b * 1e-4;
    assert!(
        close2(max_write / 1024.0, res["ior-easy-write"].0),
        "{ior_text}"
    );
    let md_text = std::fs::read_to_string(out.join("mdtest-easy-write.txt")).unwrap();
    let rows = common::mdtest_rows(&md_text, "SUMMARY rate");
    let creation = rows[0]
        .iter()
        .find(|(op, _)| op == "File creation")
        .unwrap()
        .1[0];
    assert!(
        close2(creation / 1000.0, res["mdtest-easy-write"].0),
        "{md_text}"
    );
    // result.json: every phase, its figures and the tool's own report.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("result.json")).unwrap()).unwrap();
    let phases = json["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 14);
    for p in phases {
        let name = p["name"].as_str().unwrap();
        let score = p["score"].as_f64().unwrap();
        assert_eq!(
            format!("{score:.6}"),
            format!("{:.6}", res[name].0),
            "{name}"
        );
    }
    assert!(phases[0]["report"]["tests"][0]["Results"].is_array());
    // Where it ran, once for the run: not in each phase's report.
    crate::system_record::check_system(&json["system"], dir.path());
    assert!(phases[0]["report"]["pario"].get("system").is_none());
    assert_eq!(
        phases[1]["report"]["tests"][0]["iterations"][0]["phases"][0]["operation"],
        "File creation"
    );
    assert_eq!(json["score"]["hash"], score["hash"].as_str());
    // pario compare reads io500's result.json: one repetition per phase.
    let rj = out.join("result.json").display().to_string();
    let cmp = common::pario(dir.path(), &["compare", &rj, &rj]);
    cmp.ok();
    let line = cmp
        .stdout
        .lines()
        .find(|l| l.starts_with("ior-easy-write (GiB/s)"))
        .unwrap();
    assert!(
        line.contains("too few repetitions to tell (1 and 1;"),
        "{line}"
    );
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
    assert_eq!(
        std::fs::read(dir.path().join("data/T2/precious")).unwrap(),
        b"x"
    );
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
    assert!(
        exes[0].contains("= ior --dataPacketType=timestamp -g -G "),
        "{}",
        exes[0]
    );
    assert!(
        result.contains("SCORE           = 0.000000 [INVALID]"),
        "{result}"
    );
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

#[test]
fn an_extended_run_adds_its_phases_and_scorex() {
    for tasks in [2, 4] {
        extended_run(tasks);
    }
}

fn extended_run(tasks: usize) {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    // On 4 tasks, two fake nodes: the report gives each phase per node.
    let nodes = tasks / 2;
    let fake = [("IOR_FAKE_NODES", nodes.to_string())];
    let fake: Vec<(&str, &str)> = fake.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let args = [cfg.as_str(), "--timestamp=T4", "--mode=extended"];
    let r = tool_env("io500", dir.path(), tasks, &args, &fake);
    r.ok();
    let res = results(&r.stdout);
    assert_eq!(res.len(), 19, "{}", r.stdout);
    for phase in ["find-easy", "find-hard", "mdworkbench-bench"] {
        assert!(res[phase].0 > 0.0, "{phase}: {}", r.stdout);
    }
    assert!(r.stdout.contains("[SCOREX] Bandwidth"), "{}", r.stdout);
    let out = dir.path().join("results/T4");
    let result = ini(&std::fs::read_to_string(out.join("result.txt")).unwrap());
    assert_eq!(result["run"]["mode"], "extended");
    assert_eq!(result["mdworkbench-bench"]["filesPerProc"], "20");
    // The SCOREX hash covers the extended phases only.
    let x = &result["SCOREX"];
    let mut h = 0;
    for p in ["find-easy", "find-hard", "mdworkbench-bench"] {
        h ^= pair(p, &result[p]["score"]);
    }
    for k in ["MD", "BW"] {
        h ^= pair(k, &x[k]);
    }
    h ^= pair("SCORE", x["SCORE"].split_whitespace().next().unwrap());
    h ^= pair("valid", "NO");
    assert_eq!(x["hash"], format!("{h:X}"));
    let bench = std::fs::read_to_string(out.join("mdworkbench-bench.txt")).unwrap();
    assert_eq!(
        bench.lines().filter(|l| l.starts_with("benchmark")).count(),
        2
    );
    assert!(!dir.path().join("data/T4").exists());
    per_node(dir.path(), &out.join("result.json"), nodes);
}

/// result.json says which node each task ran on; the report gives each
/// phase's figure per node when there are several.
fn per_node(dir: &Path, result: &Path, nodes: usize) {
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(result).unwrap()).unwrap();
    let placement = &json["system"]["placement"];
    let tasks: Vec<u64> = placement["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_u64().unwrap())
        .collect();
    assert_eq!(tasks.len(), 2 * nodes, "{placement}");
    assert_eq!(placement["hosts"].as_array().unwrap().len(), nodes);
    let page = dir.join("page.html");
    let r = result.display().to_string();
    common::pario(dir, &["report", &r, "-o", page.to_str().unwrap()]).ok();
    let html = std::fs::read_to_string(&page).unwrap();
    std::fs::remove_file(&page).unwrap();
    let Some(at) = html.find("Per client node") else {
        assert_eq!(nodes, 1, "no per-node table on {nodes} nodes");
        return;
    };
    // A row per phase with a timeline: ior-easy-write's two figures
    // (one per node) add up to its score.
    let table = &html[at..html[at..].find("</table>").unwrap() + at];
    let row = table
        .split("<tr>")
        .find(|r| r.contains(">ior-easy-write<"))
        .unwrap();
    let figures: Vec<f64> = row
        .split("<td class=\"num\">")
        .skip(1)
        .take(nodes)
        .map(|c| c.split_whitespace().next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(figures.len(), nodes, "{row}");
    assert!(figures.iter().all(|f| *f > 0.0), "{row}");
}

#[test]
fn skipped_phases_score_zero_and_invalidate() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "[ior-hard-read]\nrun = FALSE\n");
    let r = io500(dir.path(), 1, &[&cfg, "--timestamp=T5"]);
    r.ok();
    assert_eq!(results(&r.stdout)["ior-hard-read"], (0.0, true));
    let result = std::fs::read_to_string(dir.path().join("results/T5/result.txt")).unwrap();
    assert!(
        result.contains("; WARNING run = FALSE: the phase was skipped"),
        "{result}"
    );
}

#[test]
fn a_full_file_system_invalidates_the_phase_and_leaves_nothing() {
    let Some(mount) = common::mount::Mount::tmpfs("size=3m") else {
        return;
    };
    let dir = tempdir().unwrap();
    let text = format!(
        "[global]\ndatadir = {}/data\nresultdir = {}/results\n[debug]\nstonewall-time = 1\n\
         [ior-easy]\ntransferSize = 64k\nblockSize = 256k\n[mdtest-easy]\nn = 20\n\
         [ior-hard]\nsegmentCount = 200\n[mdtest-hard]\nn = 20\n",
        mount.path().display(),
        dir.path().display()
    );
    let cfg = dir.path().join("full.ini");
    std::fs::write(&cfg, text).unwrap();
    let r = io500(dir.path(), 2, &[cfg.to_str().unwrap(), "--timestamp=T6"]);
    assert_eq!(r.status, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("phases failed (see result.txt): ior-hard-write"),
        "{}",
        r.stderr
    );
    let res = results(&r.stdout);
    assert_eq!(res["ior-hard-write"], (0.0, true));
    assert_eq!(res["ior-hard-read"], (0.0, true));
    assert!(r.stdout.contains("No space left on device"), "{}", r.stdout);
    assert!(r.stdout.contains("TOTAL 0.000000 [INVALID]") || r.stdout.contains("[INVALID]"));
    // The user's file only: the run removed all it made.
    assert_eq!(entries(mount.path()), ["data", "user.txt"]);
    assert_eq!(entries(&mount.path().join("data")), Vec::<String>::new());
}

#[test]
fn an_external_find_script_gives_the_find_figures() {
    let dir = tempdir().unwrap();
    let script = dir.path().join("find.sh");
    std::fs::write(&script, "#!/bin/sh\necho \"$@\" > \"$(dirname \"$0\")/find-args\"\necho scanning\necho MATCHED 7/1234\n").unwrap();
    std::process::Command::new("chmod")
        .arg("755")
        .arg(&script)
        .status()
        .unwrap();
    let extra = format!(
        "[find]\nexternal-script = {}\nexternal-extra-args = --fast\n",
        script.display()
    );
    let cfg = config(dir.path(), &extra);
    let r = io500(dir.path(), 2, &[&cfg, "--timestamp=T8"]);
    r.ok();
    let result = ini(&std::fs::read_to_string(dir.path().join("results/T8/result.txt")).unwrap());
    assert_eq!(result["find"]["found"], "7");
    assert_eq!(result["find"]["total-files"], "1234");
    let args = std::fs::read_to_string(dir.path().join("find-args")).unwrap();
    let data = dir.path().join("data/T8");
    assert_eq!(
        args.trim(),
        format!(
            "--fast {} -newer {}/timestampfile -size 3901c -name *01* -C -q 10000",
            data.display(),
            dir.path().join("results/T8").display()
        )
    );
}

/// The `exe` line of `phase` in a result file.
fn exe(result: &str, phase: &str) -> Vec<String> {
    let section = result.split(&format!("[{phase}]\n")).nth(1).unwrap();
    let line = section.lines().find(|l| l.starts_with("exe")).unwrap();
    line.split(" = ")
        .nth(1)
        .unwrap()
        .split_whitespace()
        .map(String::from)
        .collect()
}

#[test]
fn cleanup_removes_what_an_interrupted_run_left() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    io500(dir.path(), 1, &[&cfg, "--dry-run", "--timestamp=T9"]).ok();
    let result = std::fs::read_to_string(dir.path().join("results/T9/result.txt")).unwrap();
    // What a run stopped after its write phases leaves: their commands, run
    // by hand with pario's tools.
    std::fs::create_dir_all(dir.path().join("data/T9/ior-easy")).unwrap();
    for phase in ["ior-easy-write", "mdtest-easy-write", "mdtest-hard-write"] {
        let words = exe(&result, phase);
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let run = match words[0].as_str() {
            "ior" => common::ior(dir.path(), 1, &args),
            _ => common::mdtest(dir.path(), 1, &args),
        };
        run.ok();
    }
    assert!(dir.path().join("data/T9/mdtest-easy").exists());
    let r = io500(dir.path(), 1, &[&cfg, "--cleanup", "--timestamp=T9"]);
    r.ok();
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains(" : time "))
        .collect();
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert!(
        lines
            .iter()
            .all(|l| l.contains("-delete") && !l.ends_with("[INVALID]")),
        "{}",
        r.stdout
    );
    assert!(!dir.path().join("data/T9").exists());
}

#[test]
fn drop_caches_runs_once_per_node_before_each_phase() {
    let dir = tempdir().unwrap();
    let log = dir.path().join("drops");
    let extra = format!(
        "[global]\ndrop-caches = TRUE\ndrop-caches-cmd = echo dropped >> {}\n",
        log.display()
    );
    // A second [global] section adds to the first.
    let cfg = config(dir.path(), &extra);
    let r = io500(dir.path(), 4, &[&cfg, "--timestamp=TA"]);
    r.ok();
    let ran = results(&r.stdout).len();
    let drops = std::fs::read_to_string(&log).unwrap().lines().count();
    assert_eq!(drops, ran, "one node: once per phase");
}

#[test]
fn a_data_directory_that_cannot_be_written_is_refused() {
    let Some(mount) = common::mount::Mount::tmpfs("size=1m") else {
        return;
    };
    std::fs::create_dir(mount.path().join("data")).unwrap();
    mount.read_only();
    let dir = tempdir().unwrap();
    let text = format!(
        "[global]\ndatadir = {}/data\ntimestamp-datadir = FALSE\nresultdir = {}/results\n",
        mount.path().display(),
        dir.path().display()
    );
    let cfg = dir.path().join("c.ini");
    std::fs::write(&cfg, text).unwrap();
    let r = io500(dir.path(), 1, &[cfg.to_str().unwrap()]);
    assert_ne!(r.status, 0);
    assert!(r.stderr.contains("is not writable"), "{}", r.stderr);
    assert_eq!(entries(&mount.path().join("data")), Vec::<String>::new());
}

#[test]
fn more_refusals_and_a_failing_external_find() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    io500(dir.path(), 1, &[&cfg, "--timestamp=a/b"]).fails(2, "--timestamp=a/b: not usable");
    io500(dir.path(), 1, &[&cfg, "--verify", "nope.txt"]).fails(2, "nope.txt");
    assert_eq!(entries(dir.path()), ["config.ini"]);
    // An external find that fails: the phase fails, the run goes on and
    // exits 1 naming it.
    let script = dir.path().join("bad.sh");
    std::fs::write(&script, "#!/bin/sh\necho oops\nexit 3\n").unwrap();
    std::process::Command::new("chmod")
        .arg("755")
        .arg(&script)
        .status()
        .unwrap();
    let cfg = config(
        dir.path(),
        &format!("[find]\nexternal-script = {}\n", script.display()),
    );
    let r = io500(dir.path(), 1, &[&cfg, "--timestamp=TB"]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains("phases failed (see result.txt): find"),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("external find"), "{}", r.stdout);
    assert_eq!(results(&r.stdout)["find"], (0.0, true));
}
