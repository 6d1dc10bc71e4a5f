//! Fixed-time runs: -D, wear-out, status files (local engine).

use std::time::{Duration, Instant};

use crate::common::*;
use tempfile::tempdir;

/// `(min, max)` from the stonewalling log line.
fn pairs(stdout: &str) -> (u64, u64) {
    let line = stdout
        .lines()
        .find(|l| l.starts_with("stonewalling pairs accessed min: "))
        .unwrap_or_else(|| panic!("no stonewalling line in\n{stdout}"));
    let f: Vec<&str> = line.split_whitespace().collect();
    (f[4].parse().unwrap(), f[6].parse().unwrap())
}

/// A 1 s deadline that only rank 0 misses: it needs 1 ms for each of its
/// 2048 transfers, while the other tasks finish at once.
const RANK0_MISSES_THE_DEADLINE: [&str; 11] = [
    "-a",
    "DUMMY",
    "--dummy.delay-xfer=1000",
    "--dummy.delay-only-rank0",
    "-t",
    "1k",
    "-b",
    "2m",
    "-w",
    "-D",
    "1",
];

#[test]
fn wear_out_brings_every_task_to_the_maximum() {
    let dir = tempdir().unwrap();
    // Wear-out makes rank 0 catch up.
    let mut args = RANK0_MISSES_THE_DEADLINE.to_vec();
    args.extend([
        "-O",
        "stoneWallingWearOut=1",
        "-O",
        "saveRankPerformanceDetailsCSV=ranks.csv",
    ]);
    let run = ior(dir.path(), 4, &args);
    run.ok();
    let (min, max) = pairs(&run.stdout);
    assert!(min < 2048, "rank 0 stopped at the deadline: {min}");
    assert_eq!(max, 2048);
    let ranks = rank_rows(&dir.path().join("ranks.csv"));
    assert_eq!(ranks.len(), 4);
    assert!(
        ranks.iter().all(|(_, _, transfers)| *transfers == 2048),
        "{ranks:?}"
    );
    let summary = summary(&run.stdout);
    assert_ne!(summary[0][10], "NA", "Stonewall(s) column is filled");
    assert!(run
        .stdout
        .contains("stonewallingTime    : 1\nstoneWallingWearOut : 1\n"));
}

#[test]
fn without_wear_out_tasks_stop_where_they_are() {
    let dir = tempdir().unwrap();
    let mut args = RANK0_MISSES_THE_DEADLINE.to_vec();
    args.extend([
        "-O",
        "saveRankPerformanceDetailsCSV=ranks.csv",
        "-O",
        "summaryFormat=JSON",
        "-O",
        "summaryFile=out.json",
        "-v",
    ]);
    let run = ior(dir.path(), 2, &args);
    run.ok();
    let ranks = rank_rows(&dir.path().join("ranks.csv"));
    assert!(ranks[0].2 < 2048 && ranks[1].2 == 2048, "{ranks:?}");
    assert!(run
        .stdout
        .contains("write phase 0 stopped at the -D 1 s deadline"));
    assert!(
        run.stdout
            .contains("Stonewalling:\n  write-0                 stopped at the deadline after "),
        "{}",
        run.stdout
    );
    // Bandwidth counts only the bytes moved.
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("out.json")).unwrap()).unwrap();
    let result = &doc["tests"][0]["Results"][0];
    assert_eq!(result["bytes"], (ranks[0].2 + 2048) * 1024);
    assert_eq!(result["stonewall"]["hit"], true);
    assert_eq!(result["stonewall"]["pairsMax"], 2048);
    assert!(doc["summary"][0]["StoneWallTime"].as_f64().unwrap() > 0.0);
    assert!(doc["summary"][0]["StoneWallbwMeanMIB"].as_f64().unwrap() > 0.0);
}

#[test]
fn status_file_carries_the_count_to_a_read_run() {
    let dir = tempdir().unwrap();
    std::fs::create_dir(dir.path().join("easy")).unwrap();
    // Eight-byte transfers into files far too big to finish in a second.
    let easy = ior_easy("8", "64g");
    let mut write = easy.clone();
    write.extend([
        "-w",
        "-D",
        "1",
        "-O",
        "stoneWallingWearOut=300",
        "-O",
        "saveRankPerformanceDetailsCSV=w.csv",
    ]);
    let run = ior(dir.path(), 2, &write);
    run.ok();
    let (_, max) = pairs(&run.stdout);
    let count: u64 = std::fs::read_to_string(dir.path().join("easy/stonewall"))
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(count, max);
    assert!(rank_rows(&dir.path().join("w.csv"))
        .iter()
        .all(|r| r.2 == count));
    for rank in 0..2 {
        let file = dir
            .path()
            .join(format!("easy/{rank}/ior_file_easy.{rank:08}"));
        assert_eq!(std::fs::metadata(file).unwrap().len(), count * 8);
    }
    let mut read = easy;
    read.extend(["-r", "-R", "-O", "saveRankPerformanceDetailsCSV=r.csv"]);
    let run = ior(dir.path(), 2, &read);
    run.ok();
    assert!(!run.stdout.contains("incorrect data"), "{}", run.stdout);
    assert!(
        rank_rows(&dir.path().join("r.csv"))
            .iter()
            .all(|r| r.2 == count),
        "reads exactly the stored count"
    );
    // The files (kept with -k) and the status file are left for the user.
    assert!(dir.path().join("easy/stonewall").exists());
}

#[test]
fn seed_commands_scaled_down() {
    let dir = tempdir().unwrap();
    std::fs::create_dir(dir.path().join("easy")).unwrap();
    let mut write = ior_easy("512k", "64m");
    write.extend(["-w", "-D", "1", "-O", "stoneWallingWearOut=300"]);
    ior(dir.path(), 2, &write).ok();
    let mut read = ior_easy("512k", "64m");
    read.extend(["-r", "-R"]);
    let run = ior(dir.path(), 2, &read);
    run.ok();
    assert!(!run.stdout.contains("incorrect data"));
}

#[test]
fn ior_hard_shape_ends_at_the_deadline() {
    let dir = tempdir().unwrap();
    let start = Instant::now();
    let run = ior(
        dir.path(),
        2,
        &[
            "-C",
            "-Q",
            "1",
            "-g",
            "-G",
            "1",
            "-k",
            "-e",
            "-o",
            "hard",
            "-t",
            "47008",
            "-b",
            "47008",
            "-s",
            "10000000",
            "-D",
            "1",
            "-O",
            "stoneWallingWearOut=1",
            "-a",
            "DUMMY",
            "--dummy.delay-xfer=100",
            "-w",
        ],
    );
    run.ok();
    assert!(
        start.elapsed() < Duration::from_secs(60),
        "it would otherwise write 470 GB"
    );
    let (min, max) = pairs(&run.stdout);
    assert!(min > 0 && max < 10_000_000);
    assert!(run.stdout.contains("aggregate filesize  : 875.59 GiB"));
}

#[test]
fn iterations_limit_without_a_deadline() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-w",
            "-r",
            "-R",
            "-k",
            "-t",
            "4k",
            "-b",
            "8k",
            "-s",
            "4",
            "-O",
            "stoneWallingWearOutIterations=5",
            "-O",
            "saveRankPerformanceDetailsCSV=r.csv",
            "-o",
            "it",
        ],
    );
    run.ok();
    assert!(rank_rows(&dir.path().join("r.csv"))
        .iter()
        .all(|r| r.2 == 5));
    assert_eq!(
        std::fs::metadata(dir.path().join("it")).unwrap().len(),
        2 * 16384 + 8192 + 4096,
        "the count runs across segments: task 1 ends in segment 2"
    );
}

#[test]
fn min_time_repeats_the_phase() {
    let dir = tempdir().unwrap();
    let start = Instant::now();
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
            "10k",
            "-w",
            "-O",
            "minTimeDuration=1",
            "-O",
            "saveRankPerformanceDetailsCSV=r.csv",
        ],
    );
    run.ok();
    assert!(start.elapsed() >= Duration::from_secs(1));
    assert!(
        rank_rows(&dir.path().join("r.csv"))
            .iter()
            .all(|r| r.2 > 10 && r.2 % 10 == 0),
        "whole passes over the 10 transfers"
    );
}

#[test]
fn impossible_combinations_are_rejected() {
    let dir = tempdir().unwrap();
    for (args, message) in [
        (
            &["-O", "stoneWallingWearOut=1", "-w"][..],
            "needs a deadline",
        ),
        (&["-D", "1", "-w", "-W"], "-D cannot be combined with -W"),
        (&["-O", "stoneWallingStatusFile=s", "-r"], "needs -k"),
        (
            &["-O", "stoneWallingStatusFile=s", "-w", "-k", "-D", "1"],
            "needs -O stoneWallingWearOut=1",
        ),
    ] {
        let run = ior(dir.path(), 2, args);
        assert_eq!(run.status, 2, "{args:?}");
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
    let run = ior(
        dir.path(),
        2,
        &[
            "-r",
            "-k",
            "-O",
            "stoneWallingStatusFile=missing",
            "-o",
            "x",
        ],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("cannot read the stonewalling status file missing"),
        "{}",
        run.stderr
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_status_file_that_cannot_be_written_fails_the_run() {
    let dir = tempdir().unwrap();
    // The count is written after every stonewalled write with wear-out,
    // whether or not the deadline was reached: 4 DUMMY transfers never
    // reach 60 s.
    let run = ior(
        dir.path(),
        2,
        &[
            "-a",
            "DUMMY",
            "-w",
            "-k",
            "-t",
            "1k",
            "-b",
            "4k",
            "-D",
            "60",
            "-O",
            "stoneWallingWearOut=1",
            "-O",
            "stoneWallingStatusFile=nowhere/sw",
        ],
    );
    run.fails(
        1,
        "task 0: cannot write the stonewalling status file nowhere/sw: No such file or directory",
    );
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn split_runs_carry_the_stonewall_count() {
    let dir = tempdir().unwrap();
    let args = |phase: &'static str, n: &'static str| {
        vec![
            phase, "-n", n, "-F", "-u", "-N", "1", "-w", "48", "-e", "48", "-G", "5", "-x", "sw",
            "-d", "out",
        ]
    };
    // IO500's sequence: create with a stonewall, then stat, read and verify,
    // remove, each a separate run.
    let mut create = args("-C", "30");
    create.extend(["-W", "100", "-Y"]);
    mdtest(dir.path(), 2, &create).ok();
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sw")).unwrap(),
        "30"
    );
    assert_eq!(tree_of(&dir.path().join("out")).len(), 1 + 2 + 60);
    // Later runs take the count from -x, whatever -n says.
    std::fs::write(dir.path().join("sw"), "20").unwrap();
    let stat = mdtest(dir.path(), 2, &args("-T", "1000"));
    stat.ok();
    let rows = &mdtest_rows(&stat.stdout, "SUMMARY rate")[0];
    assert!(rows.iter().any(|(n, v)| n == "File stat" && v[0] > 0.0));
    let mut read = args("-E", "1000");
    read.push("-X");
    mdtest(dir.path(), 2, &read).ok();
    mdtest(dir.path(), 2, &args("-r", "1000")).ok();
    // Items 20..29 of each task were not part of the count: they stay,
    // with their tree.
    let left = tree_of(&dir.path().join("out"));
    assert_eq!(left.len(), 1 + 2 + 20, "{left:?}");
    assert!(left.iter().all(|p| p.contains('.')));
    std::fs::write(dir.path().join("sw"), "30").unwrap();
    let mut rest = args("-r", "30");
    rest.retain(|a| *a != "-x" && *a != "sw");
    // Without -x: -n 30, but 0..19 are gone: the failure names the path.
    let fail = mdtest(dir.path(), 2, &rest);
    assert_eq!(fail.status, 1);
    assert!(fail.stderr.contains("cannot remove") && fail.stderr.contains("No such file"));
}

#[test]
fn the_stonewall_makes_every_task_finish_the_same_count() {
    let dir = tempdir().unwrap();
    // Task 0 creates slowly (5 ms per file, DUMMY): after the 1 s stonewall
    // it has at most 200 of 400; the others have all 400. Every task then
    // creates up to the largest count.
    let run = mdtest(
        dir.path(),
        3,
        &[
            "-a",
            "DUMMY",
            "--dummy.delay-create=5000",
            "--dummy.delay-only-rank0",
            "-C",
            "-F",
            "-n",
            "400",
            "-W",
            "1",
            "-x",
            "sw",
            "-d",
            "out",
            "--summaryFormat=JSON",
        ],
    );
    run.ok();
    let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let it = &doc["tests"][0]["iterations"][0];
    let sw = &it["stonewall"];
    assert_eq!(sw["items_max"], 400);
    assert!(sw["items_min"].as_u64().unwrap() <= 200, "{sw}");
    let create = it["phases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["operation"] == "File creation")
        .unwrap();
    assert_eq!(create["items"], 3 * 400);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("sw")).unwrap(),
        "400"
    );
    assert!(run.stderr.contains("Continue stonewall hit min: "));
}

#[test]
fn an_unreadable_stonewall_status_file_is_a_warning() {
    let dir = tempdir().unwrap();
    mdtest(dir.path(), 1, &["-C", "-F", "-n", "3", "-d", "out"]).ok();
    std::fs::write(dir.path().join("garbled"), "no count").unwrap();
    for status in ["missing", "garbled"] {
        let run = mdtest(
            dir.path(),
            1,
            &["-T", "-F", "-n", "3", "-x", status, "-d", "out"],
        );
        run.ok();
        assert!(
            run.stdout
                .contains("WARNING: Could not read stonewall status file"),
            "{status}: {}",
            run.stdout
        );
        // -n stands: all three files are stat'ed.
        assert!(run.stdout.contains("1 tasks, 3 files"), "{}", run.stdout);
    }
    mdtest(dir.path(), 1, &["-r", "-F", "-n", "3", "-d", "out"]).ok();
    assert!(tree_of(&dir.path().join("out")).is_empty());
}
