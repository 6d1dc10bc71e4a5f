//! ior's mixed access (issue 28): `-O rwmixRead`, `randomDistribution`,
//! `transferSizeSplit` end to end: the mix achieved within statistical
//! bounds, reads and writes reported apart, every mixed read verified (a
//! corrupted byte caught), reproducible offsets, refusals in one line.

use crate::common;

use common::*;
use serde_json::Value;
use tempfile::tempdir;

fn json(dir: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(dir.join("out.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The operations a run traced (`-vvvvv`), sorted.
pub fn traced(stdout: &str) -> Vec<String> {
    let mut ops: Vec<String> = stdout
        .lines()
        .filter(|l| l.starts_with("task ") && (l.contains(": read ") || l.contains(": write ")))
        .map(str::to_string)
        .collect();
    ops.sort();
    ops
}

#[test]
fn rwmix_ratio_on_dummy_within_bounds_and_kinds_apart() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-a",
            "DUMMY",
            "-w",
            "-t",
            "4k",
            "-b",
            "4m",
            "-s",
            "4",
            "--random-offset-seed=3",
            "-O",
            "rwmixRead=70,summaryFormat=JSON,summaryFile=out.json",
        ],
    );
    run.ok();
    let doc = json(dir.path());
    let row = &doc["tests"][0]["Results"][0];
    assert_eq!(row["access"], "mixed");
    let mix = &row["mix"];
    let reads = mix["read"]["ops"].as_u64().unwrap();
    let writes = mix["write"]["ops"].as_u64().unwrap();
    let n = 2 * 4 * 1024;
    assert_eq!(reads + writes, n);
    assert_eq!(row["transfers"].as_u64().unwrap(), n);
    // Binomial(n, 0.7): within four standard deviations.
    let sd = (n as f64 * 0.7 * 0.3).sqrt();
    assert!(
        (reads as f64 - 0.7 * n as f64).abs() < 4.0 * sd,
        "{reads} reads"
    );
    assert_eq!(mix["rwmixRead"], 70);
    assert_eq!(mix["read"]["bytes"].as_u64().unwrap(), reads * 4096);
    for kind in ["read", "write"] {
        let p = &mix[kind]["latencyPercentiles"];
        assert_eq!(
            p["count"].as_u64().unwrap(),
            mix[kind]["ops"].as_u64().unwrap()
        );
        assert!(mix[kind]["bwMiB"].as_f64().unwrap() > 0.0);
    }
    // The text shows each kind on its own line.
    assert!(
        run.stdout.contains("Mixed access (per kind):"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("  mixed-0 read "));
    assert!(run.stdout.contains("  mixed-0 write "));
    assert!(run.stdout.contains("reads were "));
}

#[test]
fn size_split_moves_the_whole_data_in_drawn_sizes() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        1,
        &[
            "-a",
            "DUMMY",
            "-w",
            "-r",
            "-t",
            "4k",
            "-b",
            "64m",
            "-z",
            "-z",
            "--random-offset-seed=9",
            "-O",
            "transferSizeSplit=4k/50:64k/30:1m/20,summaryFormat=JSON,summaryFile=out.json",
        ],
    )
    .ok();
    let doc = json(dir.path());
    for row in doc["tests"][0]["Results"].as_array().unwrap() {
        assert_eq!(row["bytes"].as_u64().unwrap(), 64 << 20, "{row}");
        // Mean size 0.5·4k + 0.3·64k + 0.2·1m ≈ 224 KiB: about 292 operations.
        let ops = row["transfers"].as_u64().unwrap();
        assert!((200..400).contains(&ops), "{ops} operations");
        assert_eq!(row["mix"]["transferSizeSplit"], "4k/50:64k/30:1m/20");
    }
}

#[test]
fn mixed_reads_of_blocks_written_in_the_same_phase_verify() {
    let dir = tempdir().unwrap();
    // zipf repeats hot blocks: reads meet blocks this phase wrote.
    let run = ior(
        dir.path(),
        3,
        &[
            "-w",
            "-W",
            "-R",
            "-t",
            "4k",
            "-b",
            "64k",
            "-s",
            "3",
            "-G",
            "77",
            "--random-offset-seed=4",
            "-o",
            "shared",
            "-O",
            "rwmixRead=50,randomDistribution=zipf:1.2,transferSizeSplit=4k/60:16k/40",
            "-O",
            "summaryFormat=JSON,summaryFile=out.json",
        ],
    );
    run.ok();
    let doc = json(dir.path());
    let test = &doc["tests"][0];
    assert_eq!(test["dataErrors"]["transfers"], 0);
    // Every read checked per 4k piece: the mixed reads, -W, then -R.
    let mixed_read_bytes = test["Results"][0]["mix"]["read"]["bytes"].as_u64().unwrap();
    let read_bytes = test["Results"][1]["bytes"].as_u64().unwrap();
    let all = 3 * 3 * 64 * 1024;
    assert_eq!(
        test["dataErrors"]["checked"].as_u64().unwrap() * 4096,
        mixed_read_bytes + all + read_bytes
    );
    assert!(mixed_read_bytes > 0);
    std::fs::remove_file(dir.path().join("out.json")).unwrap();
    assert!(entries(dir.path()).is_empty(), "{:?}", entries(dir.path()));
}

/// Each kind's operation count and latency count in a JSON row.
fn kinds(doc: &Value) -> [(u64, u64); 2] {
    let mix = &doc["tests"][0]["Results"][0]["mix"];
    ["read", "write"].map(|k| {
        let ops = mix[k]["ops"].as_u64().unwrap();
        (ops, mix[k]["latencyPercentiles"]["count"].as_u64().unwrap())
    })
}

#[test]
fn slow_and_synced_mixed_operations_are_each_counted_and_timed() {
    let dir = tempdir().unwrap();
    let json_out = "summaryFormat=JSON,summaryFile=out.json";
    // DUMMY at 100 us a transfer: reads and writes timed apart, run by run.
    let slow = [
        "-a",
        "DUMMY",
        "--dummy.delay-xfer=100",
        "-w",
        "-t",
        "4k",
        "-b",
        "256k",
        "--random-offset-seed=5",
        "-O",
        "rwmixRead=40",
        "-O",
        json_out,
    ];
    ior(dir.path(), 1, &slow).ok();
    let [(reads, read_times), (writes, write_times)] = kinds(&json(dir.path()));
    assert_eq!(reads + writes, 64);
    assert!(reads > 0 && writes > 0);
    assert_eq!((read_times, write_times), (reads, writes));
    // -Y: one operation at a time, each write synced; -W checks the result.
    let synced = [
        "-w",
        "-W",
        "-Y",
        "-t",
        "4k",
        "-b",
        "128k",
        "-G",
        "9",
        "-o",
        "y",
        "-O",
        "rwmixRead=50",
        "-O",
        json_out,
    ];
    ior(dir.path(), 2, &synced).ok();
    let doc = json(dir.path());
    let [(reads, read_times), (writes, write_times)] = kinds(&doc);
    assert_eq!(reads + writes, 2 * 32);
    assert_eq!((read_times, write_times), (reads, writes));
    let checked = doc["tests"][0]["dataErrors"]["checked"].as_u64().unwrap();
    assert_eq!(checked, reads + 2 * 32);
    assert_eq!(doc["tests"][0]["dataErrors"]["transfers"], 0);
}

#[test]
fn unchecked_mixed_writes_from_one_place_lay_data_a_later_read_verifies() {
    let dir = tempdir().unwrap();
    // No -W/-R: unchecked reads and unstamped writes share one place of
    // their buffers, whatever their drawn sizes.
    let base = ["-t", "4k", "-b", "256k", "-s", "2", "-G", "8", "-o", "f"];
    let mut mixed = vec!["-w", "-k", "--random-offset-seed=6"];
    mixed.extend(base);
    mixed.extend(["-O", "rwmixRead=30,transferSizeSplit=4k/50:16k/30:64k/20"]);
    ior(dir.path(), 2, &mixed).ok();
    let mut read = vec!["-r", "-R", "-O", "summaryFormat=JSON,summaryFile=out.json"];
    read.extend(base);
    ior(dir.path(), 2, &read).ok();
    let errors = &json(dir.path())["tests"][0]["dataErrors"];
    assert_eq!(errors["checked"].as_u64().unwrap(), 2 * 2 * 64);
    assert_eq!(errors["transfers"], 0);
}

#[test]
fn a_corrupted_byte_is_caught_by_mixed_reads() {
    let dir = tempdir().unwrap();
    let base = ["-t", "4k", "-b", "256k", "-F", "-G", "5", "-k", "-o", "f"];
    let mut write = vec!["-w"];
    write.extend(base);
    ior(dir.path(), 1, &write).ok();
    // One wrong byte in every 4k transfer.
    let path = dir.path().join("f.00000000");
    let mut data = std::fs::read(&path).unwrap();
    for t in 0..64 {
        data[t * 4096 + 100] ^= 0x40;
    }
    std::fs::write(&path, &data).unwrap();
    // -z: each transfer once, so every mixed read meets an untouched
    // (corrupted) transfer, and every write repairs one.
    let mut mixed = vec!["-w", "-E", "-R", "-z", "--random-offset-seed=2"];
    mixed.extend(base);
    mixed.extend(["-O", "rwmixRead=60,summaryFormat=JSON,summaryFile=out.json"]);
    let run = ior(dir.path(), 1, &mixed);
    assert_eq!(run.status, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains("WARNING: incorrect data on mixed"),
        "{}",
        run.stdout
    );
    let doc = json(dir.path());
    let test = &doc["tests"][0];
    let reads = test["Results"][0]["mix"]["read"]["ops"].as_u64().unwrap();
    assert!(reads > 0 && reads < 64);
    // The mixed reads, then -R's read phase: it meets the same transfers
    // still wrong (the ones only read), and the repaired ones right.
    assert_eq!(test["dataErrors"]["transfers"].as_u64().unwrap(), 2 * reads);
    assert_eq!(test["dataErrors"]["checked"].as_u64().unwrap(), reads + 64);
    // What the writes left is right; what was only read is still wrong.
    let after = std::fs::read(&path).unwrap();
    let repaired = (0..64)
        .filter(|t| after[t * 4096 + 100] != data[t * 4096 + 100])
        .count();
    assert_eq!(repaired as u64, 64 - reads);
}

#[test]
fn the_same_seed_draws_the_same_operations() {
    let dir = tempdir().unwrap();
    let args = [
        "-a",
        "DUMMY",
        "-w",
        "-t",
        "4k",
        "-b",
        "64k",
        "-s",
        "2",
        "-vvvvv",
        "--random-offset-seed=12",
        "-O",
        "rwmixRead=40,randomDistribution=pareto:0.3,transferSizeSplit=4k/50:8k/50",
    ];
    let a = traced(&ior(dir.path(), 2, &args).ok().stdout);
    let b = traced(&ior(dir.path(), 2, &args).ok().stdout);
    assert!(a.len() > 20 && a.iter().any(|l| l.contains(": read ")));
    assert_eq!(a, b);
    let mut other = args.to_vec();
    other[10] = "--random-offset-seed=13";
    assert_ne!(a, traced(&ior(dir.path(), 2, &other).ok().stdout));
}

#[test]
fn bad_mix_values_are_refused_in_one_line() {
    let dir = tempdir().unwrap();
    for (args, message) in [
        (vec!["-w", "-O", "rwmixRead=101"], "rwmixRead=101"),
        (vec!["-r", "-O", "rwmixRead=50"], "add -w"),
        (
            vec!["-w", "-O", "randomDistribution=zipf:0"],
            "theta must be positive",
        ),
        (
            vec!["-w", "-O", "randomDistribution=lognormal"],
            "give uniform",
        ),
        (
            vec!["-w", "-O", "transferSizeSplit=4k/50:8k/30"],
            "add up to 80",
        ),
        (
            vec!["-w", "-t", "4k", "-O", "transferSizeSplit=6k/100"],
            "not a multiple",
        ),
        (
            vec!["-w", "-b", "1m", "-O", "transferSizeSplit=2m/100"],
            "larger than the block",
        ),
        (
            vec!["-w", "-z", "-t", "4k", "-O", "transferSizeSplit=8k/100"],
            "-z",
        ),
        (vec!["-w", "-c", "-O", "rwmixRead=50"], "collective"),
    ] {
        let mut all = vec!["-o", "never"];
        all.extend(args.iter().copied());
        let run = ior(dir.path(), 1, &all);
        run.fails(2, message);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
        assert!(entries(dir.path()).is_empty());
    }
}
