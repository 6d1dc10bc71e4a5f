//! Throughput over time in the JSON of ior, mdtest and md-workbench: each
//! task's bins and their total, which add up to what the phase did.

use serde_json::Value;
use tempfile::tempdir;

use crate::common::{ior, md_workbench, mdtest, Run};

fn json(r: Run) -> Value {
    r.ok();
    serde_json::from_str(&r.stdout).unwrap()
}

/// A phase's timeline: the width, the unit, and each task's bins adding
/// up to the total's (returned).
fn checked(timeline: &Value, unit: &str, tasks: usize) -> Vec<u64> {
    let bins = |v: &Value| -> Vec<u64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_u64().unwrap())
            .collect()
    };
    let width = timeline["binSeconds"].as_f64().unwrap();
    // 1 ms, doubled as the run grew.
    assert!(
        width >= 0.001 && (width / 0.001).log2().fract() == 0.0,
        "{width}"
    );
    assert_eq!(timeline["unit"], unit);
    let total = bins(&timeline["total"]);
    let each: Vec<Vec<u64>> = timeline["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(bins)
        .collect();
    assert_eq!(each.len(), tasks);
    assert!(total.len() <= crate_bins() && each.iter().all(|t| t.len() <= total.len()));
    for (i, t) in total.iter().enumerate() {
        let sum: u64 = each.iter().map(|b| b.get(i).copied().unwrap_or(0)).sum();
        assert_eq!(*t, sum, "bin {i}");
    }
    total
}

/// Bins per series, whatever the run's length.
fn crate_bins() -> usize {
    64
}

#[test]
fn ior_phases_record_their_transfers_over_time() {
    let dir = tempdir().unwrap();
    let args = ["-a", "DUMMY", "-w", "-r", "-t", "4k", "-b", "2m", "-i", "2"];
    let mut all = args.to_vec();
    all.extend(["-O", "summaryFormat=JSON"]);
    let doc = json(ior(dir.path(), 3, &all));
    let rows = doc["tests"][0]["Results"].as_array().unwrap();
    assert_eq!(rows.len(), 4);
    for r in rows {
        let total = checked(&r["timeline"], "transfers", 3);
        assert_eq!(total.iter().sum::<u64>(), r["transfers"].as_u64().unwrap());
        assert_eq!(total.iter().sum::<u64>(), 3 * 512);
    }
}

#[test]
fn mdtest_and_md_workbench_phases_record_their_items_over_time() {
    let dir = tempdir().unwrap();
    let args = ["-a", "DUMMY", "-n", "50", "--summaryFormat=JSON"];
    let doc = json(mdtest(dir.path(), 2, &args));
    let phases = doc["tests"][0]["iterations"][0]["phases"]
        .as_array()
        .unwrap();
    for p in phases {
        match p["operation"].as_str().unwrap().starts_with("Tree") {
            true => assert!(p.get("timeline").is_none()),
            false => {
                let total = checked(&p["timeline"], "items", 2);
                assert_eq!(total.iter().sum::<u64>(), p["items"].as_u64().unwrap());
            }
        }
    }
    let args = [
        "-a",
        "DUMMY",
        "-D=1",
        "-P=4",
        "-I=2",
        "-R=1",
        "--summaryFormat=JSON",
    ];
    let doc = json(md_workbench(dir.path(), 2, &args));
    let phases = doc["phases"].as_array().unwrap();
    let bench = phases.iter().find(|p| p["phase"] == "benchmark").unwrap();
    // Every timed operation: the objects read, stated, deleted, created.
    let total = checked(&bench["timeline"], "operations", 2);
    let ops: u64 = ["objs_read", "objs_stat", "objs_deleted", "objs_created"]
        .iter()
        .map(|k| bench[k].as_u64().unwrap())
        .sum();
    assert_eq!(total.iter().sum::<u64>(), ops, "{bench}");
    assert!(
        dir.path().read_dir().unwrap().next().is_none(),
        "files left"
    );
}
