//! Numbers you can explain: latency percentiles, stragglers, page-cache
//! residency and eviction, live progress (local engine).

use std::path::Path;
use std::process::Command;

use crate::common::*;
use tempfile::tempdir;

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The file system type of a directory, from `statfs` (the field's integer
/// type varies by platform).
#[allow(clippy::unnecessary_cast)]
fn fs_type(dir: &Path) -> i64 {
    rustix::fs::statfs(dir)
        .map(|s| s.f_type as i64)
        .unwrap_or(0)
}

const TMPFS_MAGIC: i64 = 0x0102_1994;
const EXT4_MAGIC: i64 = 0xef53;
const XFS_MAGIC: i64 = 0x5846_5342;
const BTRFS_MAGIC: i64 = 0x9123_683e;

#[test]
fn percentiles_of_fixed_delays_land_in_their_bucket() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        4,
        &[
            "-a",
            "DUMMY",
            "--dummy.delay-xfer=2000",
            "-t",
            "1k",
            "-b",
            "20k",
            "-w",
            "-O",
            "summaryFormat=JSON",
            "-O",
            "summaryFile=out.json",
            "-O",
            "latencyHistogramFile=lat.csv",
        ],
    );
    run.ok();
    let doc = json(&dir.path().join("out.json"));
    let p = &doc["tests"][0]["Results"][0]["latencyPercentiles"];
    assert_eq!(p["count"], 80, "every transfer of the 4 tasks is counted");
    for key in ["min", "p50", "p90", "p99", "p99.9", "max", "mean"] {
        let v = p[key].as_f64().unwrap();
        // sleep(2 ms) never returns early; a generous upper bound only.
        assert!((0.002..5.0).contains(&v), "{key} = {v}");
    }
    // The text block after the Results table.
    assert!(run.stdout.contains("Latency per transfer (s): count"));
    assert!(run
        .stdout
        .contains("\n  write-0                 80         0.00"));
    // The full histogram file.
    let csv = std::fs::read_to_string(dir.path().join("lat.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(
        lines[0],
        "test,access,iteration,latency_s,cumulative_fraction,count"
    );
    let total: u64 = lines[1..]
        .iter()
        .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(total, 80);
    assert!(lines.last().unwrap().contains(",1.000000,"));
}

#[test]
fn latency_recording_can_be_turned_off() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-a",
            "DUMMY",
            "-t",
            "8",
            "-b",
            "8k",
            "-w",
            "-O",
            "recordLatency=0",
            "-O",
            "summaryFormat=JSON",
        ],
    );
    run.ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert!(doc["tests"][0]["Results"][0]
        .get("latencyPercentiles")
        .is_none());
}

#[test]
fn stragglers_are_named() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        3,
        &[
            "-a",
            "DUMMY",
            "--dummy.delay-xfer=20000",
            "--dummy.delay-only-rank0",
            "-t",
            "1k",
            "-b",
            "10k",
            "-w",
            "-j",
            "0",
            "-O",
            "summaryFormat=JSON",
            "-O",
            "summaryFile=out.json",
        ],
    );
    run.ok();
    let doc = json(&dir.path().join("out.json"));
    let spread = &doc["tests"][0]["Results"][0]["taskTimes"];
    assert_eq!(spread["slowest"], 0);
    assert!(
        spread["xferMax"].as_f64().unwrap() >= 0.2,
        "ten 20 ms transfers"
    );
    assert!(spread["xferMin"].as_f64().unwrap() < spread["xferMax"].as_f64().unwrap());
    assert!(run.stdout.contains("Task times (s):"));
    assert!(run.stdout.contains(" task 0 ("), "{}", run.stdout);
}

#[test]
fn outlier_threshold_warns_about_far_tasks() {
    let dir = tempdir().unwrap();
    // Rank 0 needs 5 x 400 ms = 2 s, the others next to nothing: the mean is
    // about 0.67 s, so with -j 1 only task 0 is an outlier, with -j 60 none.
    let args = |j: &'static str| {
        vec![
            "-a",
            "DUMMY",
            "--dummy.delay-xfer=400000",
            "--dummy.delay-only-rank0",
            "-t",
            "1k",
            "-b",
            "5k",
            "-w",
            "-j",
            j,
        ]
    };
    let run = ior(dir.path(), 3, &args("1"));
    run.ok();
    assert!(
        run.stdout.contains("WARNING: task 0 took "),
        "{}",
        run.stdout
    );
    let run = ior(dir.path(), 3, &args("60"));
    run.ok();
    assert!(!run.stdout.contains("WARNING: task"));
}

#[test]
fn residency_after_a_buffered_write_and_after_eviction() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-F",
            "-t",
            "64k",
            "-b",
            "4m",
            "-o",
            "f",
            "-O",
            "evictBeforeRead=1",
            "-O",
            "summaryFormat=JSON",
            "-O",
            "summaryFile=out.json",
        ],
    );
    run.ok();
    let doc = json(&dir.path().join("out.json"));
    let read = &doc["tests"][0]["Results"][1];
    assert_eq!(read["access"], "read");
    let cache = &read["pageCache"];
    let before = &cache["cachedBeforeRead"];
    assert_eq!(before["total"], 2 * 4 * 1048576);
    assert_eq!(before["examined"], 2 * 4 * 1048576);
    let before_share = before["resident"].as_f64().unwrap() / before["examined"].as_f64().unwrap();
    assert!(before_share > 0.9, "just written: {before_share}");
    let after = &cache["afterEviction"];
    let after_share = after["resident"].as_f64().unwrap() / after["examined"].as_f64().unwrap();
    let fs = fs_type(dir.path());
    if [EXT4_MAGIC, XFS_MAGIC, BTRFS_MAGIC].contains(&fs) {
        assert!(
            after_share < 0.5,
            "eviction works on a disk file system: {after_share}"
        );
        assert!(!run.stdout.contains("eviction had no effect"));
    } else if after_share >= before_share - 0.01 {
        // Whatever the file system, the report must not claim an eviction
        // that did not happen.
        assert!(
            run.stdout.contains("(eviction had no effect)"),
            "{}",
            run.stdout
        );
    }
    assert!(run
        .stdout
        .contains("Page cache:\n  read-0                  cached before read: "));
    // Writes have no page-cache report.
    assert!(doc["tests"][0]["Results"][0].get("pageCache").is_none());
}

#[test]
fn tmpfs_eviction_is_reported_as_ineffective() {
    if !Path::new("/dev/shm").is_dir() || fs_type(Path::new("/dev/shm")) != TMPFS_MAGIC {
        return;
    }
    let dir = scratch("pario-explain");
    let run = ior(
        dir.path(),
        2,
        &["-t", "64k", "-b", "1m", "-o", "f", "--posix.evict"],
    );
    run.ok();
    assert!(
        run.stdout.contains(
            "cached before read: 100.0% of 2 MiB; after eviction: 100.0% (eviction had no effect)"
        ),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("WARNING: 100% of the data read was in this node's page cache; eviction had no effect on this file system"));
}

#[test]
fn reads_across_nodes_or_direct_io_do_not_warn() {
    let dir = tempdir().unwrap();
    let run = ior_env(
        dir.path(),
        4,
        &["-C", "-F", "-t", "64k", "-b", "1m", "-o", "f"],
        &TWO_NODES,
    );
    run.ok();
    assert!(run.stdout.contains("reads cross nodes"));
    assert!(!run.stdout.contains("likely measures memory"));
    let run = ior(dir.path(), 2, &["-t", "64k", "-b", "1m", "-o", "g"]);
    run.ok();
    assert!(
        run.stdout.contains("likely measures memory"),
        "same node, no eviction: {}",
        run.stdout
    );
    let run = ior(
        dir.path(),
        2,
        &["-t", "64k", "-b", "1m", "-o", "h", "-O", "cacheCheck=0"],
    );
    run.ok();
    assert!(!run.stdout.contains("Page cache:"));
}

#[test]
fn results_table_layout_is_unchanged() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &["-t", "64k", "-b", "1m", "-i", "2", "-o", "t"],
    );
    run.ok();
    let table: Vec<&str> = run
        .stdout
        .split("Results: \n\n")
        .nth(1)
        .unwrap()
        .lines()
        .take_while(|l| !l.starts_with("Max Write"))
        .collect();
    assert_eq!(
        table.len(),
        2 + 4,
        "header, rule and four rows, nothing in between: {table:?}"
    );
    for row in &table[2..] {
        // Ten cells of 10 characters plus a space, then the iteration.
        assert_eq!(row.len(), 10 + 9 * 11 + 1 + 4, "{row:?}");
        let first = row.split_whitespace().next().unwrap();
        assert!(first == "write" || first == "read");
    }
    // Nothing after the table starts with a word an IOR parser takes for a row.
    let after = run.stdout.split("Max Read:").nth(1).unwrap();
    for line in after.lines().take_while(|l| !l.starts_with("Summary")) {
        let first = line.split_whitespace().next().unwrap_or("");
        assert!(first != "write" && first != "read", "{line:?}");
    }
}

#[test]
fn progress_only_on_a_terminal_and_can_be_turned_off() {
    let dir = tempdir().unwrap();
    // Through pipes: never any progress output.
    let run = ior(
        dir.path(),
        2,
        &[
            "-a",
            "DUMMY",
            "--dummy.delay-xfer=1000",
            "-t",
            "1k",
            "-b",
            "3000k",
            "-w",
        ],
    );
    run.ok();
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    // On a pseudo-terminal (util-linux `script`), a phase longer than 2 s
    // shows a progress line, unless turned off.
    if Command::new("script").arg("--version").output().is_err() {
        return;
    }
    let on_tty = |extra: &str| {
        let cmd = format!(
            "PARIO_TASKS=2 {} -a DUMMY --dummy.delay-xfer=1000 -t 1k -b 3000k -w {extra}",
            crate::common::bin("ior")
        );
        let out = Command::new("script")
            .args(["-qfec", &cmd, "/dev/null"])
            .current_dir(dir.path())
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let shown = on_tty("");
    assert!(shown.contains("write-0 ["), "{shown}");
    assert!(shown.contains("MiB/s all tasks"));
    let hidden = on_tty("--progress=0");
    assert!(!hidden.contains("write-0 ["));
}

#[test]
fn mdtest_records_every_operations_latency() {
    let dir = tempdir().unwrap();
    let run = mdtest(
        dir.path(),
        2,
        &[
            "-a",
            "DUMMY",
            "--dummy.delay-create=2000",
            "-n",
            "10",
            "-F",
            "-C",
            "-d",
            "md",
            "--summaryFormat=JSON",
            "--summaryFile=out.json",
        ],
    );
    run.ok();
    let doc = json(&dir.path().join("out.json"));
    let phases = doc["tests"][0]["iterations"][0]["phases"]
        .as_array()
        .unwrap();
    let create = phases
        .iter()
        .find(|p| p["operation"] == "File creation")
        .unwrap();
    let l = &create["latencyPercentiles"];
    assert_eq!(l["count"], 20);
    assert!(l["p50"].as_f64().unwrap() >= 0.002, "{l}");
    assert!(run.stdout.contains("Latency per operation (s):"));
    assert!(
        run.stdout
            .contains("\n   File creation#0          20         0.00"),
        "{}",
        run.stdout
    );
    let full = mdtest(
        dir.path(),
        2,
        &[
            "-n",
            "10",
            "-F",
            "-d",
            "md3",
            "--latencyHistogramFile=lat.csv",
        ],
    );
    full.ok();
    let csv = std::fs::read_to_string(dir.path().join("lat.csv")).unwrap();
    assert!(csv.starts_with("tasks,operation,iteration,latency_s,cumulative_fraction,count\n"));
    for op in ["File creation", "File stat", "File read", "File removal"] {
        let count: u64 = csv
            .lines()
            .filter(|l| l.starts_with(&format!("2,{op},0,")))
            .map(|l| l.rsplit(',').next().unwrap().parse::<u64>().unwrap())
            .sum();
        assert_eq!(count, 20, "{op}");
    }
    let off = mdtest(
        dir.path(),
        2,
        &[
            "-a",
            "DUMMY",
            "-n",
            "10",
            "-F",
            "-C",
            "-d",
            "md2",
            "--recordLatency=0",
        ],
    );
    off.ok();
    assert!(!off.stdout.contains("Latency per operation"));
}
