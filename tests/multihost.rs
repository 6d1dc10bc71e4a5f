//! pario on several hosts: three network and UTS namespaces made by the
//! test (tests/common/netns.rs), two MPI ranks on each, Open MPI over TCP
//! between them. ior sees 3 nodes of 2 tasks, `-C` and `-Z` read data
//! written on another host, `-M` is per host, mdtest's `-N` strides across
//! hosts, and a rank killed on one host ends the job.
//!
//! The group is `#[ignore]`d: scripts/test.sh runs it beside the other tests
//! (`cargo test --features mpi,hdf5 --test suite -- --ignored multihost::`).
//! Without root it says why and passes.
#![cfg(feature = "mpi")]

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::netns::{unavailable, Hosts};
use crate::common::{entries, finish, scratch, Run};

#[test]
#[ignore = "the multi-host group: scripts/test.sh runs it with --ignored"]
fn three_hosts_of_two_ranks() {
    if let Some(why) = unavailable() {
        eprintln!("skipped: the multi-host tests need root, iproute2 and Open MPI: {why}");
        return;
    }
    let hosts = Hosts::start().unwrap_or_else(|e| panic!("cannot make the hosts: {e}"));
    reads_cross_hosts(&hosts);
    memory_is_held_per_host(&hosts);
    mdtest_strides_across_hosts(&hosts);
    a_killed_rank_ends_the_job(&hosts);
}

fn run(hosts: &Hosts, binary: &str, dir: &Path, args: &[&str]) -> Run {
    finish(hosts.mpirun(binary, dir, args).output().unwrap())
}

fn header(stdout: &str, key: &str) -> String {
    let prefix = format!("{key:<20}: ");
    let line = stdout.lines().find_map(|l| l.strip_prefix(&prefix));
    line.unwrap_or_else(|| panic!("no {key} in\n{stdout}"))
        .to_string()
}

/// `(reader, reader's node, writer, writer's node)` of `-v -v`'s reader map.
fn reader_map(stdout: &str) -> Vec<(usize, usize, usize, usize)> {
    stdout
        .lines()
        .filter(|l| l.contains(" reads the data of task "))
        .map(|l| {
            let n: Vec<usize> = l
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|w| w.parse().ok())
                .collect();
            (n[0], n[1], n[2], n[3])
        })
        .collect()
}

fn reads_cross_hosts(hosts: &Hosts) {
    for reorder in ["-C", "-Z"] {
        let dir = scratch("pario-hosts-scratch");
        let f = dir.path().join("f");
        let args = [
            "-t", "64k", "-b", "256k", "-F", reorder, "-w", "-r", "-R", "-v", "-v",
        ];
        let r = run(
            hosts,
            crate::common::bin("ior"),
            dir.path(),
            &[&args[..], &["-o", f.to_str().unwrap()]].concat(),
        );
        assert_eq!(r.status, 0, "{reorder}: {}\n{}", r.stdout, r.stderr);
        assert_eq!(header(&r.stdout, "nodes"), "3");
        assert_eq!(header(&r.stdout, "tasks"), "6");
        assert_eq!(header(&r.stdout, "clients per node"), "2");
        assert!(
            header(&r.stdout, "Machine").contains(&hosts.name(1)),
            "rank 0 on host 1"
        );
        let map = reader_map(&r.stdout);
        assert_eq!(map.len(), 6, "{reorder}: {}", r.stdout);
        for (reader, reader_node, writer, writer_node) in map {
            assert_ne!(
                reader_node, writer_node,
                "{reorder}: task {reader} reads task {writer}"
            );
            assert_eq!(
                (reader_node, writer_node),
                (reader / 2, writer / 2),
                "block placement"
            );
        }
        assert!(r.stdout.contains("reads cross nodes"), "{}", r.stdout);
        assert!(entries(dir.path()).is_empty());
    }
}

/// `-M 1%`: each host's share is split among its two tasks.
fn memory_is_held_per_host(hosts: &Hosts) {
    let dir = scratch("pario-hosts-scratch");
    let f = dir.path().join("f");
    let args = [
        "-t",
        "64k",
        "-b",
        "64k",
        "-M",
        "1%",
        "-O",
        "summaryFormat=JSON",
        "-o",
    ];
    let r = run(
        hosts,
        crate::common::bin("ior"),
        dir.path(),
        &[&args[..], &[f.to_str().unwrap()]].concat(),
    );
    assert_eq!(r.status, 0, "{}", r.stderr);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let p = &doc["tests"][0]["Parameters"];
    let (task, node) = (
        p["memoryPerTask"].as_u64().unwrap(),
        p["memoryPerNode"].as_u64().unwrap(),
    );
    assert!(
        task > 0 && node.abs_diff(2 * task) <= 1,
        "{task} per task, {node} per node"
    );
    assert_eq!(
        (p["nodes"].as_u64(), p["tasksPerNode"].as_u64()),
        (Some(3), Some(2))
    );
}

/// `-N 1` shifts by a host's tasks, so each task stats, reads and removes
/// the files of a task on the next host.
fn mdtest_strides_across_hosts(hosts: &Hosts) {
    let dir = scratch("pario-hosts-scratch");
    let md = dir.path().join("md");
    let args = [
        "-n",
        "10",
        "-F",
        "-N",
        "1",
        "-w",
        "64",
        "-e",
        "64",
        "-d",
        md.to_str().unwrap(),
    ];
    let r = run(hosts, crate::common::bin("mdtest"), dir.path(), &args);
    assert_eq!(r.status, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("launched with 6 total task(s) on 3 node(s)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("Nodemap: 110000"), "{}", r.stdout);
    assert!(
        r.stdout.contains("Shifting ranks by 2 for each phase."),
        "{}",
        r.stdout
    );
    assert!(entries(dir.path()).is_empty());
}

/// The pid of the process with `OMPI_COMM_WORLD_RANK=rank` whose command
/// line names `dir`.
fn rank_pid(dir: &Path, rank: usize) -> Option<u32> {
    let wanted = format!("OMPI_COMM_WORLD_RANK={rank}");
    let dir = dir.to_str().unwrap();
    std::fs::read_dir("/proc").ok()?.flatten().find_map(|e| {
        let pid: u32 = e.file_name().to_str()?.parse().ok()?;
        let cmdline =
            String::from_utf8_lossy(&std::fs::read(e.path().join("cmdline")).ok()?).into_owned();
        if !cmdline.starts_with(crate::common::bin("ior")) || !cmdline.contains(dir) {
            return None;
        }
        let environ =
            String::from_utf8_lossy(&std::fs::read(e.path().join("environ")).ok()?).into_owned();
        environ.split('\0').any(|v| v == wanted).then_some(pid)
    })
}

fn a_killed_rank_ends_the_job(hosts: &Hosts) {
    let dir = scratch("pario-hosts-scratch");
    let t = dir.path().join("t");
    let ior = crate::common::bin("ior");
    let args = ["-w", "-t", "8", "-b", "8g", "-F", "-o", t.to_str().unwrap()];
    // Each write a millisecond late (tests/interpose/slow.c): the ranks
    // wait for their end instead of keeping the cores busy.
    let preload = crate::interpose::slow_writes();
    let (binary, args) = match &preload {
        Some(preload) => ("env", [&[preload.as_str(), ior][..], &args].concat()),
        None => (ior, args.to_vec()),
    };
    let child = hosts
        .mpirun(binary, dir.path(), &args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let end = Instant::now() + Duration::from_secs(60);
    while entries(dir.path()).len() < 6 {
        assert!(Instant::now() < end, "the job's files never appeared");
        std::thread::sleep(Duration::from_millis(100));
    }
    // Rank 3 runs on host 2.
    let victim = rank_pid(dir.path(), 3).expect("rank 3's process");
    let pid = rustix::process::Pid::from_raw(victim as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
    let r = finish(child.wait_with_output().unwrap());
    assert_ne!(r.status, 0, "{}", r.stderr);
    // Open MPI names the killed rank, unless a survivor's exit (stopped by
    // mpirun's SIGTERM) reaches mpirun before the death does: on a loaded
    // machine it then reports that exit instead (seen with both layouts of
    // the tests, with the machine's load about 10 on 2 cores).
    let named = r.stderr.contains("process rank 3");
    let aborted = r.stderr.contains("returned\na non-zero exit code");
    assert!(named || aborted, "{}", r.stderr);
    // The survivors on host 1 remove their files. Across hosts, Open MPI
    // may end a survivor before it answers (seen in CI: rank 4's file left
    // on a loaded machine), so only the dead rank's host and the next are
    // allowed leftovers; the scratch directory goes with the test.
    let left = entries(dir.path());
    assert!(
        !left.iter().any(|f| f == "t.00000000" || f == "t.00000001"),
        "{left:?}"
    );
}
