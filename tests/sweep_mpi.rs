//! `ior -O sweep=...` under a real `mpirun`: each step's ranks on an MPI
//! communicator of their own (MPI-IO opens its files over the step's ranks
//! only), the other ranks waiting.
#![cfg(feature = "mpi")]

use crate::common::{entries, mpirun, rows};
use serde_json::Value;

fn swept(dir: &std::path::Path, api: &str, sweep: &str, extra: &[&str]) -> Value {
    let directives = format!("sweep={sweep},summaryFormat=JSON,summaryFile=out.json");
    let mut args = vec![
        "-a",
        api,
        "-t",
        "4k",
        "-b",
        "16k",
        "-s",
        "2",
        "-w",
        "-r",
        "-W",
        "-R",
        "-O",
        &directives,
        "-o",
        "f",
    ];
    args.extend_from_slice(extra);
    let env = [("IOR_FAKE_NODES", "2"), ("IOR_FAKE_TASK_PER_NODES", "2")];
    let run = mpirun(crate::common::bin("ior"), dir, 4, &args, &env);
    run.ok();
    assert_eq!(rows(&run.stdout).len(), 4, "{}", run.stdout);
    let doc = std::fs::read_to_string(dir.join("out.json")).unwrap();
    std::fs::remove_file(dir.join("out.json")).unwrap();
    assert!(entries(dir).is_empty(), "{:?}", entries(dir));
    serde_json::from_str(&doc).unwrap()
}

fn steps(doc: &Value) -> Vec<(u64, u64, u64)> {
    doc["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let s = &t["sweepStep"];
            let bytes = t["Results"][0]["bytes"].as_u64().unwrap();
            (
                s["nodes"].as_u64().unwrap(),
                s["tasks"].as_u64().unwrap(),
                bytes,
            )
        })
        .collect()
}

#[test]
fn node_sweep_over_mpi_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let doc = swept(dir.path(), "POSIX", "nodes", &["-F", "-C"]);
    assert_eq!(steps(&doc), [(2, 4, 4 * 32768), (1, 2, 2 * 32768)]);
}

#[test]
fn task_sweep_with_collective_mpiio() {
    let dir = tempfile::tempdir().unwrap();
    let doc = swept(dir.path(), "MPIIO", "3,1", &["-c"]);
    assert_eq!(steps(&doc), [(2, 3, 3 * 32768), (1, 1, 32768)]);
    assert_eq!(doc["scaling"].as_array().unwrap().len(), 4);
}

#[test]
fn mdtest_sweep_over_mpi_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "-n", "3", "-F", "-f", "1", "-l", "4", "-s", "3", "-d", "out",
    ];
    let run = mpirun(crate::common::bin("mdtest"), dir.path(), 4, &args, &[]);
    run.ok();
    assert!(
        run.stdout.contains("\n1 tasks, 3 files\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("\n4 tasks, 12 files\n"),
        "{}",
        run.stdout
    );
    assert!(entries(dir.path()).is_empty());
}
