//! Where a run ran, in every tool's JSON (`pario.system` of ior, mdtest
//! and md-workbench; dlio_benchmark's `system`, checked with its report in
//! `report.rs`): the node by name, its CPUs and memory, its kernel, the
//! file system of the run's directory, pario's version; no submitter's
//! blanks (those are io500's `system.json`'s).

use std::path::Path;

use serde_json::Value;

use crate::common::{self, pario};
use pario::run::system::mounts::FileSystem;

/// The machine's logical processors, as `/proc/cpuinfo` lists them.
fn cpus() -> usize {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap();
    info.lines()
        .filter(|l| l.split(':').next().map(str::trim) == Some("processor"))
        .count()
}

/// `system` describes this machine and the file system holding `dir`.
pub fn check_system(system: &Value, dir: &Path) {
    let want = FileSystem::of(dir).expect("the scratch directory's file system");
    let clients = system["clients"].as_array().expect("clients");
    assert_eq!(clients.len(), 1, "{system}");
    let node = &clients[0];
    let host = rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned();
    assert_eq!(node["hosts"], serde_json::json!([host]));
    assert_eq!(node["file_system"]["fs_type"], want.fs_type.as_str());
    assert_eq!(
        node["file_system"]["mount_point"],
        want.mount_point.as_str()
    );
    assert_eq!(node["file_system"]["source"], want.source.as_str());
    assert_eq!(node["cpu"]["logical"], cpus());
    assert!(node["memory_bytes"].as_u64().unwrap() > 0, "{node}");
    let release = rustix::system::uname()
        .release()
        .to_string_lossy()
        .into_owned();
    assert!(node["kernel"].as_str().unwrap().starts_with(&release));
    assert_eq!(system["pario"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(system["pario"]["features"].is_array());
    assert_eq!(system["engine"], "threads");
    assert!(system.get("submitter").is_none(), "{system}");
}

#[test]
fn ior_mdtest_and_md_workbench_record_where_they_ran() {
    let scratch = common::scratch("system-record");
    let d = scratch.path();
    let at = |name: &str| d.join(name).display().to_string();
    let (file, tree, sets) = (at("f"), at("tree"), at("sets"));
    let runs: [(&str, Vec<&str>); 3] = [
        (
            "ior",
            vec!["-a", "POSIX", "-w", "-b", "4k", "-t", "4k", "-o", &file],
        ),
        ("mdtest", vec!["-a", "POSIX", "-n", "2", "-d", &tree]),
        (
            "md-workbench",
            vec!["-a", "POSIX", "-D=1", "-P=2", "-I=1", "-R=1", "-o", &sets],
        ),
    ];
    for (tool, args) in runs {
        let json = match tool {
            "ior" => ["-O", "summaryFormat=JSON"].as_slice(),
            _ => ["--summaryFormat=JSON"].as_slice(),
        };
        let words: Vec<&str> = [tool].iter().chain(&args).chain(json).copied().collect();
        let r = pario(d, &words);
        r.ok();
        let doc: Value = serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{tool}: {e}"));
        check_system(&doc["pario"]["system"], d);
    }
    let left: Vec<_> = std::fs::read_dir(d).unwrap().collect();
    assert!(left.is_empty(), "the runs remove what they made: {left:?}");
}
