//! Issue 28 under a real `mpirun -n 4`: `pario concurrent`'s groups on split
//! MPI communicators (which ranks ran what, each group's report equal to
//! its command alone), and ior's drawn operations the same under MPI as on
//! threads.
#![cfg(feature = "mpi")]

use crate::common;
use crate::mixed::traced;

use common::*;
use serde_json::Value;
use tempfile::tempdir;

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn rows_of(doc: &Value) -> Vec<Value> {
    doc["tests"][0]["Results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| serde_json::json!([r["access"], r["bytes"], r["transfers"], r["tasks"]]))
        .collect()
}

/// Each group's first and last rank.
fn spans(groups: &[Value]) -> Vec<(u64, u64)> {
    let rank = |g: &Value, key: &str| g[key].as_u64().unwrap();
    groups
        .iter()
        .map(|g| (rank(g, "firstRank"), rank(g, "lastRank")))
        .collect()
}

#[test]
fn groups_on_split_mpi_communicators() {
    let dir = tempdir().unwrap();
    let first = "-a MPIIO -w -r -t 4k -b 64k -s 2 -o shared -W -R";
    let second = "-a DUMMY -w -t 4k -b 128k -O rwmixRead=50 --random-offset-seed=3 -o m";
    std::fs::write(
        dir.path().join("mix.txt"),
        format!("75% ior {first}\n25% ior {second}\n"),
    )
    .unwrap();
    let run = mpirun(
        crate::common::bin("pario"),
        dir.path(),
        4,
        &["concurrent", "--json", "out.json", "mix.txt"],
        &[],
    );
    run.ok();
    let doc = read_json(&dir.path().join("out.json"));
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(spans(groups), [(0, 2), (3, 3)]);
    for (g, (args, tasks)) in groups.iter().zip([(first, 3), (second, 1)]) {
        let mut alone: Vec<&str> = args.split_whitespace().collect();
        alone.extend(["-O", "summaryFormat=JSON,summaryFile=alone.json"]);
        mpirun(crate::common::bin("ior"), dir.path(), tasks, &alone, &[]).ok();
        let alone = read_json(&dir.path().join("alone.json"));
        assert_eq!(rows_of(&g["report"]), rows_of(&alone), "{args}");
        assert_eq!(g["report"]["tests"][0]["dataErrors"]["transfers"], 0);
        std::fs::remove_file(dir.path().join("alone.json")).unwrap();
    }
    std::fs::remove_file(dir.path().join("out.json")).unwrap();
    assert_eq!(entries(dir.path()), ["mix.txt"]);
}

#[test]
fn drawn_operations_match_between_threads_and_mpi() {
    let dir = tempdir().unwrap();
    let args = [
        "-a",
        "DUMMY",
        "-w",
        "-r",
        "-t",
        "4k",
        "-b",
        "64k",
        "-s",
        "2",
        "-vvvvv",
        "--random-offset-seed=21",
        "-O",
        "rwmixRead=30,randomDistribution=zipf:1.1,transferSizeSplit=4k/70:16k/30",
    ];
    let threads = traced(&ior(dir.path(), 4, &args).ok().stdout);
    let mpi = traced(
        &mpirun(crate::common::bin("ior"), dir.path(), 4, &args, &[])
            .ok()
            .stdout,
    );
    assert!(threads.len() > 50);
    assert_eq!(threads, mpi);
}

/// A common deadline under `mpirun -n 4`: both groups were told it, in
/// their own words, and the ior group's row says it stonewalled there (no
/// timing is asserted).
#[test]
fn a_common_deadline_on_split_mpi_communicators() {
    let dir = tempdir().unwrap();
    std::fs::write(
        dir.path().join("mix.txt"),
        "50% ior -a DUMMY -w -t 1m -b 4m -F -o a\n50% md-workbench -a DUMMY -I 5 -P 5 -D 1\n",
    )
    .unwrap();
    let args = ["concurrent", "-D", "1", "--json", "out.json", "mix.txt"];
    mpirun(crate::common::bin("pario"), dir.path(), 4, &args, &[]).ok();
    let doc = read_json(&dir.path().join("out.json"));
    assert_eq!(doc["ending"], "deadline");
    assert_eq!(doc["deadlineSeconds"], 1);
    let groups = doc["groups"].as_array().unwrap();
    assert_eq!(spans(groups), [(0, 1), (2, 3)]);
    let ior = &groups[0]["report"]["tests"][0];
    assert_eq!(ior["Parameters"]["deadlineForStonewall"], 1);
    assert!(ior["Results"][0]["stonewall"].is_object(), "{ior}");
    let mdw = groups[1]["report"]["args"].as_str().unwrap();
    assert!(mdw.ends_with("\"-w\" \"1\""), "{mdw}");
    std::fs::remove_file(dir.path().join("out.json")).unwrap();
    assert_eq!(entries(dir.path()), ["mix.txt"]);
}
