//! Gaps found when IOR's own usage was run against pario's `ior` (issue 14):
//! each behaves as IOR 4.1 does.

use crate::common;
use crate::common::ior;
use serde_json::Value;
use tempfile::tempdir;

/// `ior -a DUMMY -w` with `args`, its JSON document.
fn json_of(args: &[&str]) -> Value {
    let dir = tempdir().unwrap();
    let mut all = vec!["-a", "DUMMY", "-w", "-t", "1k", "-b", "4k"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-O", "summaryFormat=JSON"]);
    let run = ior(dir.path(), 1, &all);
    run.ok();
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

#[test]
fn a_stray_dash_inside_a_group_of_flags_is_ignored() {
    // IOR's parser reads `-z-k` as `-z -k`.
    let doc = json_of(&["-z-k"]);
    let test = &doc["tests"][0];
    assert_eq!(test["Parameters"]["randomOffset"], 1, "{test}");
    assert_eq!(test["Parameters"]["keepFile"], 1, "{test}");
}

#[test]
fn a_decimal_delay_is_accepted_and_kept() {
    let doc = json_of(&["-d", "0.1"]);
    assert_eq!(doc["tests"][0]["Parameters"]["interTestDelay"], 0.1);
    // A whole number stays an integer, as IOR writes it.
    let doc = json_of(&["-d", "0"]);
    let delay = &doc["tests"][0]["Parameters"]["interTestDelay"];
    assert!(delay.is_u64() && delay == 0, "{delay}");
}

#[test]
fn a_negative_or_non_numeric_delay_is_refused() {
    let dir = tempdir().unwrap();
    for bad in ["-1", "x", "inf"] {
        let run = ior(dir.path(), 1, &["-a", "DUMMY", "-d", bad]);
        run.fails(2, &format!("-d {bad}:"));
        assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    }
}

#[test]
fn e_flushes_inside_the_transfer_time() {
    // DUMMY's sync sleeps 0.3 s: IOR 4.1 calls it after the last transfer,
    // inside the transfer timer, so wr/rd(s) holds it.
    let doc = json_of(&["-e", "--dummy.delay-sync=300000"]);
    let write = &doc["tests"][0]["Results"][0];
    assert_eq!(write["access"], "write");
    let wr_rd = write["wrRdTime"].as_f64().unwrap();
    assert!(
        wr_rd >= 0.3,
        "wr/rd {wr_rd} s should hold the 0.3 s flush: {write}"
    );
}

#[test]
fn random_reads_stay_within_a_shorter_file() {
    // Written with one segment, read back as if it had four: IOR draws the
    // random offsets within the file's actual size.
    let dir = tempdir().unwrap();
    let target = dir.path().join("f");
    let target = target.to_str().unwrap();
    let geometry = ["-F", "-G", "42", "-t", "4k", "-b", "64k", "-o", target];
    ior(
        dir.path(),
        2,
        &[&["-w", "-k", "-s", "1"], &geometry[..]].concat(),
    )
    .ok();
    let read = [&["-r", "-s", "4", "-z", "-z", "-v"], &geometry[..]].concat();
    let run = ior(dir.path(), 2, &read);
    run.ok();
    let note = format!(
        "random offsets of the read phase drawn within the file's size: \
         16 of 64 transfers (65536 bytes in {target}.00000000)"
    );
    assert!(run.stdout.contains(&note), "{}", run.stdout);
    let rows = common::rows(&run.stdout);
    assert_eq!(rows.len(), 1, "{}", run.stdout);
    // A read-only run leaves the files it read.
    assert_eq!(common::entries(dir.path()), ["f.00000000", "f.00000001"]);
}
