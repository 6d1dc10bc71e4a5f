//! io500 before its first phase: a results directory inside the data
//! directory refused with nothing made, the clients' description
//! (`system.json`, `--system=FILE`), a data directory local to each of
//! several (fake) nodes, random reads the page cache can serve, and
//! O_DIRECT given per phase as the harness takes it (`API = POSIX
//! --posix.odirect` in `[ior-easy]`, which ior-rnd4K-easy-read inherits).

use crate::common::{disk_scratch, entries, io500, tool_env};
use crate::io500::config;
use tempfile::tempdir;

/// resultdir/T1 inside datadir/T1 (datadir/results/T1 would not be: the
/// timestamps part them).
#[test]
fn a_results_directory_inside_the_data_directory_is_refused() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let d = dir.path().display();
    let text = std::fs::read_to_string(&cfg).unwrap();
    let text = text.replace(&format!("{d}/results"), &format!("{d}/data/T1/./results"));
    std::fs::write(&cfg, text).unwrap();
    let r = io500(dir.path(), 2, &[&cfg, "--timestamp=T1"]);
    r.fails(2, "is inside datadir");
    assert!(
        r.stderr.contains("set resultdir outside it"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
    assert_eq!(entries(dir.path()), ["config.ini"], "nothing made");
}

#[test]
fn the_system_is_described_and_checked_on_fake_nodes() {
    let dir = tempdir().unwrap();
    let cfg = config(dir.path(), "");
    let fake = [("IOR_FAKE_NODES", "2")];
    let args = [
        cfg.as_str(),
        "--dry-run",
        "--timestamp=T2",
        "--system=sys.json",
    ];
    let r = tool_env("io500", dir.path(), 2, &args, &fake);
    r.ok();
    // The data directory is on this host's own file system (/tmp): two
    // fake nodes share it, so a warning, not a refusal.
    assert!(
        r.stderr.contains("the 2 nodes are one host here"),
        "{}",
        r.stderr
    );
    // blockSize 2m x 2 tasks fits in memory, read through the page cache.
    assert!(
        r.stderr
            .contains("ior-rnd4K-easy-read re-reads at most 4 MiB"),
        "{}",
        r.stderr
    );
    let text = std::fs::read_to_string(dir.path().join("results/T2/system.json")).unwrap();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sys.json")).unwrap(),
        text
    );
    let s: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        (s["tasks"].as_u64(), s["nodes"].as_u64()),
        (Some(2), Some(2))
    );
    let clients = s["clients"].as_array().unwrap();
    assert_eq!(clients.len(), 1, "alike nodes are one entry: {text}");
    assert_eq!(clients[0]["hosts"].as_array().unwrap().len(), 2);
    assert_eq!(clients[0]["tasks"], 1);
    assert!(clients[0]["memory_bytes"].as_u64().unwrap() > 0);
    let fs = &clients[0]["file_system"];
    assert!(fs["path"].as_str().unwrap().ends_with("data/T2"), "{fs}");
    assert!(!fs["fs_type"].as_str().unwrap().is_empty(), "{fs}");
    assert_eq!(s["submitter"]["storage_media"], "FILL IN");
    assert_eq!(s["engine"], "threads");
}

#[test]
fn o_direct_in_the_ior_easy_section_reaches_its_three_phases() {
    // tmpfs takes no O_DIRECT on every kernel: a disk's file system.
    let dir = disk_scratch("pario-io500-odirect");
    let cfg = config(dir.path(), "[find]\nrun = FALSE\n");
    let mut text = std::fs::read_to_string(&cfg).unwrap();
    for (section, key) in [
        ("ior-easy", "API = POSIX --posix.odirect"),
        ("ior-hard", "run = FALSE"),
        ("mdtest-easy", "run = FALSE"),
        ("mdtest-hard", "run = FALSE"),
    ] {
        let head = format!("[{section}]\n");
        text = text.replace(&head, &format!("{head}{key}\n"));
    }
    std::fs::write(&cfg, text).unwrap();
    let r = io500(dir.path(), 2, &[&cfg, "--timestamp=T3"]);
    assert!(!r.stderr.contains("page cache"), "{}", r.stderr);
    let result = std::fs::read_to_string(dir.path().join("results/T3/result.txt")).unwrap();
    let mut section = "";
    let mut direct = Vec::new();
    for line in result.lines() {
        if line.starts_with('[') {
            section = line;
        } else if line.starts_with("exe") && line.contains(" -a POSIX --posix.odirect ") {
            direct.push(section);
        }
    }
    assert_eq!(
        direct,
        [
            "[ior-easy-write]",
            "[ior-easy-read]",
            "[ior-rnd4K-easy-read]"
        ],
        "{result}"
    );
    for phase in ["ior-easy-write", "ior-easy-read", "ior-rnd4K-easy-read"] {
        let line = r
            .stdout
            .lines()
            .find(|l| l.starts_with('[') && l.contains(phase));
        let line = line.unwrap_or_else(|| panic!("{phase}: {}", r.stdout));
        let score: f64 = line[8..]
            .split_whitespace()
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        assert!(score > 0.0, "{line}\n{}", r.stderr);
    }
    assert!(entries(&dir.path().join("data")).is_empty());
}
