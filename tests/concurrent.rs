//! `pario concurrent FILE` on threads: which tasks ran what, each group's
//! report the same as its command run alone (DUMMY), the common deadline,
//! `--alone`, and the refusals.

use crate::common;

use std::path::Path;

use common::*;
use serde_json::Value;
use tempfile::tempdir;

fn concurrent(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    finish(
        output_in_session(
            local_command(bin("pario"), dir, tasks, &[])
                .arg("concurrent")
                .args(args),
        )
        .expect("run pario concurrent"),
    )
}

fn read_json(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// The figures of an ior report that do not depend on timing.
fn ior_shape(doc: &Value) -> Vec<Value> {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|t| t["Results"].as_array().unwrap().clone())
        .map(|r| {
            serde_json::json!([
                r["access"],
                r["bytes"],
                r["transfers"],
                r["tasks"],
                r["blockKiB"],
                r["xferKiB"],
                r["iteration"]
            ])
        })
        .collect()
}

const GROUPS: [(&str, &str); 3] = [
    ("25%", "-a DUMMY -w -t 64k -b 1m -s 3 -F -o easy"),
    (
        "50%",
        "-a DUMMY -w -r -t 4k -b 256k -z -o rnd --random-offset-seed=1",
    ),
    (
        "25%",
        "-a DUMMY -w -t 4k -b 512k -O rwmixRead=70 --random-offset-seed=2 -o mixed",
    ),
];

fn mix_file(dir: &Path) {
    let mut text = String::from("# three ior groups at once\n");
    for (share, args) in GROUPS {
        text.push_str(&format!("{share} ior {args}   # a comment\n"));
    }
    std::fs::write(dir.join("mix.txt"), text).unwrap();
}

#[test]
fn groups_split_the_tasks_and_report_as_alone() {
    let dir = tempdir().unwrap();
    mix_file(dir.path());
    let run = concurrent(dir.path(), 8, &["--json", "out.json", "mix.txt"]);
    run.ok();
    let doc = read_json(&dir.path().join("out.json"));
    assert_eq!(doc["tasks"], 8);
    assert_eq!(doc["ending"], "each");
    // Where it ran, once for the groups (their own reports have none).
    assert_eq!(doc["system"]["tasks"], 8, "{doc}");
    assert_eq!(doc["system"]["clients"].as_array().unwrap().len(), 1);
    assert_eq!(doc["system"]["pario"]["version"], env!("CARGO_PKG_VERSION"));
    let groups = doc["groups"].as_array().unwrap();
    assert!(groups.iter().all(|g| g["report"]
        .get("pario")
        .and_then(|p| p.get("system"))
        .is_none()));
    let ranks: Vec<(u64, u64, u64)> = groups
        .iter()
        .map(|g| {
            (
                g["firstRank"].as_u64().unwrap(),
                g["lastRank"].as_u64().unwrap(),
                g["tasks"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(ranks, [(0, 1, 2), (2, 5, 4), (6, 7, 2)]);
    for (g, (_, args)) in groups.iter().zip(GROUPS) {
        let tasks = g["tasks"].as_u64().unwrap() as usize;
        let together = &g["report"];
        assert_eq!(together["tests"][0]["Results"][0]["tasks"], tasks as u64);
        // The same command alone on the same number of tasks.
        let mut alone: Vec<&str> = args.split_whitespace().collect();
        alone.extend(["-O", "summaryFormat=JSON,summaryFile=alone.json"]);
        ior(dir.path(), tasks, &alone).ok();
        let alone = read_json(&dir.path().join("alone.json"));
        assert_eq!(ior_shape(together), ior_shape(&alone), "{args}");
        assert_eq!(
            together["tests"][0]["dataErrors"], alone["tests"][0]["dataErrors"],
            "{args}"
        );
        std::fs::remove_file(dir.path().join("alone.json")).unwrap();
        // Start and end on the common clock, from the common barrier.
        let (start, end) = (g["start"].as_f64().unwrap(), g["end"].as_f64().unwrap());
        assert!(start >= 0.0 && end >= start);
    }
    // The rwmix group's kinds are there, apart.
    let mixed = &groups[2]["report"]["tests"][0]["Results"][0];
    assert_eq!(mixed["access"], "mixed");
    assert!(mixed["mix"]["read"]["ops"].as_u64().unwrap() > 0);
    // The text: each group's own full text, then the groups' table.
    for i in 1..=3 {
        assert!(
            run.stdout.contains(&format!("=== group {i} (ior, ranks")),
            "{}",
            run.stdout
        );
    }
    assert_eq!(run.stdout.matches("Summary of all tests:").count(), 3);
    assert!(run.stdout.contains("Concurrent groups:"));
    assert!(run
        .stdout
        .contains("group 2: 50% = 4 tasks (ranks 2-5): ior -a DUMMY -w -r"));
    std::fs::remove_file(dir.path().join("out.json")).unwrap();
    assert_eq!(entries(dir.path()), ["mix.txt"]);
}

#[test]
fn alone_then_together_with_a_common_deadline() {
    let dir = tempdir().unwrap();
    std::fs::write(
        dir.path().join("mix.txt"),
        "50% ior -a DUMMY -w -t 1m -b 4m -F -o a\n50% md-workbench -a DUMMY -I 5 -P 5 -D 1\n",
    )
    .unwrap();
    let run = concurrent(
        dir.path(),
        4,
        &["-D", "1", "--alone", "--json", "out.json", "mix.txt"],
    );
    run.ok();
    let doc = read_json(&dir.path().join("out.json"));
    assert_eq!(doc["ending"], "deadline");
    assert_eq!(doc["deadlineSeconds"], 1);
    let g = &doc["groups"][0];
    assert!(g["command"]
        .as_str()
        .unwrap()
        .ends_with("-D 1 -O minTimeDuration=1"));
    assert!(doc["groups"][1]["command"]
        .as_str()
        .unwrap()
        .ends_with("-w 1"));
    // ior stonewalled at the deadline: its row says so.
    assert!(g["report"]["tests"][0]["Results"][0]["stonewall"].is_object());
    // Every group's own report carries the common deadline (no timing is
    // asserted: what each tool was told, in its own words).
    let deadline = doc["deadlineSeconds"].as_u64().unwrap();
    for (g, pass) in doc["groups"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| [&g["report"], &g["aloneReport"]])
        .zip(["together", "alone"].iter().cycle())
    {
        match g["tests"].as_array() {
            Some(tests) => {
                let t = &tests[0];
                assert_eq!(t["Parameters"]["deadlineForStonewall"], deadline, "{pass}");
                assert_eq!(t["Options"]["stonewallingTime"], deadline, "{pass}");
                assert!(t["Results"][0]["stonewall"].is_object(), "{pass}");
            }
            None => {
                let args = g["args"].as_str().unwrap();
                assert!(
                    args.ends_with(&format!("\"-w\" \"{deadline}\"")),
                    "{pass}: {args}"
                );
            }
        }
    }
    for g in doc["groups"].as_array().unwrap() {
        assert!(g["aloneReport"].is_object());
        let f = &g["figures"][0];
        assert!(f["alone"].as_f64().unwrap() > 0.0, "{f}");
        assert!(f["slowDown"].as_f64().unwrap() > 0.0, "{f}");
    }
    assert!(run.stdout.contains("slow-down"));
}

#[test]
fn bad_files_are_refused_in_one_line() {
    let dir = tempdir().unwrap();
    for (text, tasks, message) in [
        ("50% ior -w\n40% ior -r\n", 4, "add up to 90%, not 100%"),
        (
            "20% ior -a DUMMY -w\n80% ior -a DUMMY -w\n",
            2,
            "group 1 (20%) gets no task of 2",
        ),
        ("100% io500 x.ini\n", 2, "not a tool a group can run"),
        ("100% ior -t 0\n", 2, "mix.txt:1: ior: -t 0"),
    ] {
        std::fs::write(dir.path().join("mix.txt"), text).unwrap();
        let run = concurrent(dir.path(), tasks, &["mix.txt"]);
        run.fails(2, message);
        assert_eq!(run.stderr.trim().lines().count(), 1, "{}", run.stderr);
    }
    concurrent(dir.path(), 1, &["missing.txt"]).fails(2, "cannot read missing.txt");
    concurrent(dir.path(), 1, &[]).fails(2, "one FILE");
    assert_eq!(entries(dir.path()), ["mix.txt"]);
}
