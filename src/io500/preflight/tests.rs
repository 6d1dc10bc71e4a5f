use super::*;
use crate::run::system::host::Cpu;
use crate::run::system::mounts::FileSystem;
use crate::run::system::{Build, Clients, Node, Submitter};

fn config(text: &str) -> Config {
    Config::parse("t.ini", &format!("[global]\ndatadir = ./d\n{text}")).unwrap()
}

fn fs(fs_type: &str) -> FileSystem {
    FileSystem {
        path: "/x/data".into(),
        mount_point: "/x".into(),
        fs_type: fs_type.into(),
        magic: String::new(),
        source: "dev".into(),
        mount_options: "rw".into(),
        super_options: "rw".into(),
        client_version: None,
        layout: None,
    }
}

/// `hosts` nodes of 4 GiB each, their data on `fs_type`.
fn system(hosts: &[&str], fs_type: &str) -> System {
    let node = Node {
        tasks: 2,
        cpu: Cpu {
            model: "cpu".into(),
            logical: 2,
            sockets: 1,
        },
        memory_bytes: 4 << 30,
        kernel: "6.1.0 x86_64".into(),
        os: None,
        network: Vec::new(),
        infiniband: Vec::new(),
        file_system: Some(fs(fs_type)),
    };
    System {
        pario: Build::this(),
        engine: "threads".into(),
        mpi_library: None,
        tasks: 2 * hosts.len(),
        nodes: hosts.len(),
        clients: vec![Clients {
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            node,
        }],
        placement: Default::default(),
        object_store: None,
        submitter: Some(Submitter::default()),
    }
}

#[test]
fn a_results_directory_inside_the_data_directory_is_found() {
    assert!(results_inside_data("/a/data", "/a/data/results").is_some());
    assert!(
        results_inside_data("/a/data/", "/a/data").is_some(),
        "the same"
    );
    assert!(results_inside_data("/a/data", "/a/x/../data/r").is_some());
    assert!(results_inside_data("./d", "d/./r").is_some(), "relative");
    assert_eq!(results_inside_data("/a/data", "/a/data2"), None, "by name");
    assert_eq!(results_inside_data("/a/data", "/a/results"), None);
    assert_eq!(results_inside_data("/a/data/x", "/a/data"), None, "above");
    let line = results_inside_data("/a/d", "/a/d/r").unwrap();
    assert!(line.contains("set resultdir outside it") && !line.contains('\n'));
    let s3 = config("api = S3 --s3.host=localhost:1\n");
    assert_eq!(check_dirs(&s3, "b/p", "b/p/r"), None, "a key prefix");
}

#[test]
fn a_node_local_file_system_is_refused_across_hosts() {
    assert_eq!(unshared(&system(&["a"], "ext4")), None, "one node");
    assert_eq!(unshared(&system(&["a", "b"], "nfs4")), None, "shared");
    assert_eq!(unshared(&system(&["a", "b"], "fuse.x")), None, "unknown");
    match unshared(&system(&["a", "b"], "tmpfs")) {
        Some(Finding::Refusal(l)) => {
            assert!(l.contains("datadir /x/data is on tmpfs (/x on a)"), "{l}");
            assert!(l.contains("would not see each other's files"), "{l}");
        }
        other => panic!("{other:?}"),
    }
    match unshared(&system(&["a", "a", "a"], "ext4")) {
        Some(Finding::Warning(l)) => assert!(l.contains("the 3 nodes are one host"), "{l}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn random_reads_within_memory_warn_unless_direct() {
    let gib = 1u64 << 30;
    let c = config("[ior-easy]\nblockSize = 1g\n");
    let line = random_reads(&c, 4, 8 * gib).unwrap();
    assert!(line.contains("at most 4 GiB"), "{line}");
    assert!(line.contains("blockSize 1g x 4 tasks"), "{line}");
    assert!(line.contains("--posix.odirect"), "{line}");
    assert_eq!(random_reads(&c, 16, 8 * gib), None, "beyond memory");
    assert_eq!(random_reads(&c, 4, 0), None, "memory unknown");
    for direct in [
        "[ior-easy]\nblockSize = 1g\nAPI = POSIX --posix.odirect\n",
        "[ior-easy]\nblockSize = 1g\n[ior-rnd4K-easy-read]\nAPI = POSIX --posix.odirect\n",
        "api = POSIX --posix.odirect\n[ior-easy]\nblockSize = 1g\n",
        "[ior-easy]\nblockSize = 1g\n[ior-rnd4K-easy-read]\nrun = FALSE\n",
    ] {
        assert_eq!(random_reads(&config(direct), 4, 8 * gib), None, "{direct}");
    }
    // Under the harness's default blockSize (9920000m) it never fits.
    assert_eq!(random_reads(&config(""), 1, 1 << 40), None);
    // Fake nodes of one host share its memory: counted once.
    assert_eq!(system(&["a", "a"], "tmpfs").memory_bytes(), 4 * gib);
    assert_eq!(system(&["a", "b"], "tmpfs").memory_bytes(), 8 * gib);
    let found = findings(&c, &system(&["a", "b"], "tmpfs"), 4);
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn a_write_size_too_small_for_the_planned_rate_is_found() {
    let rate = |phase: &str, rate: f64| PlanRate {
        phase: phase.into(),
        rate,
        tasks: 2,
        margin: None,
    };
    // 1 GiB/s over 2 tasks: 512 MiB a task a second.
    let c = config(
        "[debug]\nstonewall-time = 10\n[ior-easy]\nblockSize = 4096m\n[mdtest-easy]\nn = 1000\n",
    );
    let found = short_writes(&c, &[rate("ior-easy-write", 1.0)], 10);
    let [Finding::Warning(w)] = found.as_slice() else {
        panic!("{found:?}");
    };
    assert!(w.contains("blockSize = 4096m lasts about 8.0 s"), "{w}");
    assert!(w.contains("set it to 10240m"), "{w}");
    // The margin the plan sized with, when its line gives one.
    let with = PlanRate {
        margin: Some(3.0),
        ..rate("ior-easy-write", 1.0)
    };
    let found = short_writes(&c, &[with], 10);
    assert!(
        matches!(found.as_slice(), [Finding::Warning(w)] if w.contains("set it to 15360m")),
        "{found:?}"
    );
    // 1000 files at 1 kIOPS over 2 tasks: 2 s of 10: refused.
    let found = short_writes(&c, &[rate("mdtest-easy-write", 1.0)], 10);
    assert!(
        matches!(found.as_slice(), [Finding::Refusal(r)] if r.contains("n = 1000 lasts about 2.0 s"))
    );
    // Long enough, not a write phase, or not running: nothing.
    assert!(short_writes(&c, &[rate("ior-easy-write", 0.5)], 10).is_empty());
    assert!(short_writes(&c, &[rate("ior-easy-read", 9.0)], 10).is_empty());
    let off = config("[mdtest-easy]\nn = 1\nrun = FALSE\n");
    assert!(short_writes(&off, &[rate("mdtest-easy-write", 9.0)], 10).is_empty());
}
