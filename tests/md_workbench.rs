//! md-workbench end to end (local tasks): the exact objects after each
//! phase, a split run resumed through the run-info file, `-X` catching a
//! corrupted object, the text lines and the JSON.

use std::collections::BTreeSet;
use std::path::Path;

use crate::common;
use crate::common::{entries, md_workbench};
use tempfile::tempdir;

/// Every file and directory under `root`, relative to it.
fn tree(root: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            out.insert(path.strip_prefix(root).unwrap().display().to_string());
            if path.is_dir() {
                stack.push(path);
            }
        }
    }
    out
}

/// The geometry of a run, and md-workbench's model of which objects exist.
struct Model {
    tasks: usize,
    sets: u64,
    precreate: u64,
    per_iteration: u64,
    offset: i64,
}

impl Model {
    /// Two tasks, two datasets of four objects, two per iteration.
    fn small() -> Model {
        Model {
            tasks: 2,
            sets: 2,
            precreate: 4,
            per_iteration: 2,
            offset: 1,
        }
    }

    fn precreated(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for r in 0..self.tasks {
            for d in 0..self.sets {
                out.insert(format!("{r}_{d}"));
                for f in 0..self.precreate {
                    out.insert(format!("{r}_{d}/file-{f}"));
                }
            }
        }
        out
    }

    /// After `iterations` benchmark phases from `start`: each rank moved
    /// one object per iteration and dataset from the reader's set to the
    /// writer's.
    fn after_benchmark(
        &self,
        mut objects: BTreeSet<String>,
        start: u64,
        iterations: u64,
    ) -> BTreeSet<String> {
        let n = self.tasks as i64;
        for i in 0..iterations * self.per_iteration {
            let prev = start + i;
            for r in 0..n {
                for d in 0..self.sets {
                    let shift = self.offset * (d as i64 + 1);
                    let reader = (r - shift).rem_euclid(n);
                    let writer = (r + shift).rem_euclid(n);
                    assert!(objects.remove(&format!("{reader}_{d}/file-{prev}")));
                    objects.insert(format!("{writer}_{d}/file-{}", self.precreate + prev));
                }
            }
        }
        objects
    }

    fn args(&self) -> Vec<String> {
        vec![
            format!("-D={}", self.sets),
            format!("-P={}", self.precreate),
            format!("-I={}", self.per_iteration),
            format!("-O={}", self.offset),
            "-G=7".into(),
        ]
    }
}

fn run(dir: &Path, m: &Model, more: &[&str]) -> common::Run {
    let mut args: Vec<String> = m.args();
    args.push(format!("-o={}", dir.join("out").display()));
    args.push(format!("--run-info-file={}", dir.join("status").display()));
    args.extend(more.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = md_workbench(dir, m.tasks, &args);
    run.ok();
    run
}

#[test]
fn objects_move_between_ranks_as_md_workbench_moves_them() {
    for m in [
        Model::small(),
        Model {
            tasks: 3,
            sets: 3,
            precreate: 3,
            per_iteration: 1,
            offset: 2,
        },
        Model {
            tasks: 3,
            sets: 2,
            precreate: 5,
            per_iteration: 2,
            offset: -1,
        },
    ] {
        let dir = tempdir().unwrap();
        let out = dir.path().join("out");
        run(dir.path(), &m, &["-1"]);
        let precreated = m.precreated();
        assert_eq!(tree(&out), precreated);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("status")).unwrap(),
            "pos: 0\n"
        );
        let r = run(dir.path(), &m, &["-2", "-R=2", "-X"]);
        assert!(!r.stdout.contains("errs!!!"), "{}", r.stdout);
        assert_eq!(tree(&out), m.after_benchmark(precreated, 0, 2));
        let next = 2 * m.per_iteration;
        assert_eq!(
            std::fs::read_to_string(dir.path().join("status")).unwrap(),
            format!("pos: {next}\n")
        );
        let r = run(dir.path(), &m, &["-3"]);
        assert!(
            r.stdout.contains(&format!("Using start position {next}")),
            "{}",
            r.stdout
        );
        assert_eq!(
            entries(dir.path()),
            ["status"],
            "cleanup leaves only the run-info file"
        );
    }
}

#[test]
fn one_invocation_runs_every_phase_and_leaves_nothing() {
    let m = Model::small();
    let dir = tempdir().unwrap();
    let r = run(dir.path(), &m, &["-R=2"]);
    let phases: Vec<&str> = r
        .stdout
        .lines()
        .filter_map(|l| {
            l.split(" process max:")
                .next()
                .filter(|_| l.contains(" process max:"))
        })
        .collect();
    assert_eq!(phases, ["precreate", "benchmark", "benchmark", "cleanup"]);
    assert_eq!(entries(dir.path()), Vec::<String>::new());
    let bench = r
        .stdout
        .lines()
        .find(|l| l.starts_with("benchmark"))
        .unwrap();
    // 2 ranks x 2 datasets x 2 iterations objects read, four operations each.
    assert!(bench.contains(" objects:8 "), "{bench}");
    assert!(bench.contains(" (0 errs) read("), "{bench}");
    for op in ["read(", "stat(", "create(", "delete("] {
        let group = bench.split(op).nth(1).unwrap().split(')').next().unwrap();
        let cells: Vec<&str> = group.split(", ").collect();
        assert_eq!(cells.len(), 7, "{group}");
        // C's %.4e: a two-digit exponent.
        assert!(
            cells.iter().all(|c| c.len() == 11 && c.ends_with('s')),
            "{group}"
        );
    }
    assert!(r.stdout.starts_with("Args: "), "{}", r.stdout);
    assert!(r.stdout.contains("\nNodemap: 11\n"), "{}", r.stdout);
    assert!(r
        .stdout
        .contains("MD-Workbench total objects: 32 workingset size: 0.060 MiB"));
}

#[test]
fn verification_catches_a_corrupted_object() {
    let m = Model {
        tasks: 2,
        sets: 1,
        precreate: 3,
        per_iteration: 2,
        offset: 1,
    };
    let dir = tempdir().unwrap();
    run(dir.path(), &m, &["-1"]);
    // Rank 0 reads dataset 0 of rank 1, starting with object 0.
    let victim = dir.path().join("out/1_0/file-0");
    let mut data = std::fs::read(&victim).unwrap();
    data[100] ^= 0xff;
    std::fs::write(&victim, data).unwrap();
    let r = run(dir.path(), &m, &["-2", "-R=1", "-X", "--process-reports"]);
    let global = r
        .stdout
        .lines()
        .find(|l| l.starts_with("benchmark"))
        .unwrap();
    assert!(global.contains("objects:3 "), "{global}");
    assert!(global.contains("(1 errs!!!)"), "{global}");
    let rank0 = r
        .stdout
        .lines()
        .find(|l| l.starts_with("0: benchmark"))
        .unwrap();
    assert!(rank0.contains("(1 errs!!!)"), "{rank0}");
    run(dir.path(), &m, &["-3"]);
}

#[test]
fn the_json_report_carries_every_phase() {
    let m = Model {
        tasks: 2,
        sets: 2,
        precreate: 2,
        per_iteration: 1,
        offset: 1,
    };
    let dir = tempdir().unwrap();
    let r = run(dir.path(), &m, &["-R=1", "--summaryFormat=JSON"]);
    let doc: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let phases = doc["phases"].as_array().unwrap();
    assert_eq!(phases.len(), 3);
    assert_eq!(phases[0]["phase"], "precreate");
    assert_eq!(phases[0]["objs_created"], 8);
    assert_eq!(phases[1]["objs_read"], 4);
    assert_eq!(phases[2]["objs_deleted"], 8);
    assert_eq!(phases[1]["ranks"].as_array().unwrap().len(), 2);
    assert_eq!(phases[1]["quantiles"][0]["op"], "read");
    assert_eq!(doc["seed"], 7);
}

#[test]
fn bad_options_are_refused_before_anything_starts() {
    let dir = tempdir().unwrap();
    for (args, message) in [
        (
            &["-L=no/such/dir/lat"][..],
            "task 0: latency files no/such/dir/lat-*: no/such/dir: No such file or directory",
        ),
        (
            &["-L=lat", "--recordLatency=0"][..],
            "-L needs every operation's time: drop --recordLatency=0",
        ),
        (
            &["-T", "--recordLatency=0"][..],
            "-T needs every operation's time",
        ),
        (&["--allocateBufferOnGPU=1"][..], "pario has no GPU support"),
        (&["-D=0"][..], "-D 0: at least one data set"),
        (&["-a", "MMAP"][..], "md-workbench runs on"),
        (&["-2"][..], "cannot read the run-info file"),
        (
            &["-D=8e", "-a", "DUMMY"][..],
            "more objects or bytes than 64 bits can count",
        ),
        (
            &["-S=1t"][..],
            "-S: the 1 task(s) on this node need 1 TiB of buffers",
        ),
    ] {
        let r = md_workbench(dir.path(), 1, args);
        assert_ne!(r.status, 0, "{args:?}");
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
        assert_eq!(entries(dir.path()), Vec::<String>::new());
    }
}

/// The benchmark line of a DUMMY run slowed to 2 ms per create, stopped by
/// a one-second stonewall long before its 100,000 iterations.
fn stonewalled(extra: &[&str]) -> (u64, u64) {
    let dir = tempdir().unwrap();
    let out = format!("-o={}", dir.path().join("out").display());
    let mut args = vec!["-a", "DUMMY", "--dummy.delay-create=2000", &out];
    args.extend_from_slice(&["-D=1", "-P=10", "-I=100000", "-R=1", "-w=1"]);
    args.extend_from_slice(extra);
    let run = md_workbench(dir.path(), 2, &args);
    run.ok();
    let line = run
        .stdout
        .lines()
        .find(|l| l.starts_with("benchmark"))
        .unwrap();
    let field = |key: &str| -> u64 {
        let rest = line
            .split(key)
            .nth(1)
            .unwrap_or_else(|| panic!("{key} in {line}"));
        rest.split(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    (field(" objects:"), field("stonewall-iter:"))
}

#[test]
fn a_stonewall_stops_the_benchmark_and_wear_out_evens_the_ranks() {
    // With -W every rank does as many iterations as the one that did most.
    let (objects, iterations) = stonewalled(&["-W"]);
    assert!(iterations > 0 && iterations < 100_000, "{iterations}");
    assert_eq!(objects, 2 * iterations, "2 ranks x 1 dataset");
    // Without it each rank stops at its own count.
    let (objects, iterations) = stonewalled(&[]);
    assert!(iterations > 0 && iterations < 100_000, "{iterations}");
    assert!(
        objects <= 2 * iterations && objects >= iterations,
        "{objects} {iterations}"
    );
}

#[test]
fn a_stonewall_without_wear_out_in_a_split_run_is_warned_about() {
    let dir = tempdir().unwrap();
    let out = format!("-o={}", dir.path().join("out").display());
    let info = format!("--run-info-file={}", dir.path().join("st").display());
    let base = [
        "-a",
        "DUMMY",
        out.as_str(),
        info.as_str(),
        "-D=1",
        "-P=2",
        "-I=1",
    ];
    md_workbench(dir.path(), 1, &[&base[..], &["-1"]].concat()).ok();
    let run = md_workbench(
        dir.path(),
        1,
        &[&base[..], &["-2", "-R=1", "-w=5"]].concat(),
    );
    run.ok();
    assert!(
        run.stdout
            .contains("WARNING: Dangerous option combination: -w without -W"),
        "{}",
        run.stdout
    );
}

#[test]
fn detailed_statistics_are_md_workbenchs_tab_separated_rows() {
    let m = Model::small();
    let dir = tempdir().unwrap();
    let r = run(dir.path(), &m, &["-R=1", "--print-detailed-stats"]);
    let header = "phase\t\td name\tcreate\tdelete\tob nam\tcreate\tread\tstat\tdelete\tt_inc_b\tt_no_bar\tthp\tmax_t";
    assert!(r.stdout.lines().any(|l| l == header), "{}", r.stdout);
    let rows: Vec<Vec<&str>> = r
        .stdout
        .lines()
        .filter(|l| l.contains(" \t"))
        .map(|l| l.split('\t').collect())
        .collect();
    let counts: Vec<&[&str]> = rows.iter().map(|r| &r[..7]).collect();
    assert_eq!(
        counts,
        [
            &["precreate ", "4", "0", "16", "0", "0", "0"][..],
            &["benchmark ", "0", "0", "8", "8", "8", "8"][..],
            &["cleanup ", "0", "4", "0", "0", "0", "16"][..],
        ]
    );
    assert!(rows
        .iter()
        .all(|r| r[7].ends_with('s') && r[9].contains(" MiB/s ")));
    assert!(!r.stdout.contains("process max:"), "{}", r.stdout);
    // With errors the row is the six error counts: one object read wrong.
    run(dir.path(), &m, &["-1"]);
    let victim = dir.path().join("out/1_0/file-0");
    let mut data = std::fs::read(&victim).unwrap();
    data[0] ^= 1;
    std::fs::write(&victim, data).unwrap();
    let r = run(
        dir.path(),
        &m,
        &["-2", "-R=1", "-X", "--print-detailed-stats"],
    );
    assert!(
        r.stdout.contains("benchmark err\t0\t0\t0\t1\t0\t0\n"),
        "{}",
        r.stdout
    );
    run(dir.path(), &m, &["-3"]);
}

#[test]
fn failures_name_the_cause_and_leave_nothing_behind() {
    let dir = tempdir().unwrap();
    // A run-info file that is not one.
    std::fs::write(dir.path().join("st"), "garbage\n").unwrap();
    let r = md_workbench(dir.path(), 2, &["-2", "--run-info-file=st", "-o=out"]);
    r.fails(1, "st: not a run-info file (expected 'pos: N')");
    assert_eq!(entries(dir.path()), ["st"]);
    // A dataset directory that cannot be made: the prefix is a file.
    std::fs::write(dir.path().join("plain"), "x").unwrap();
    let r = md_workbench(
        dir.path(),
        2,
        &["-o=plain/sub", "-D=1", "-P=1", "-I=1", "-R=1"],
    );
    r.fails(1, "cannot create directory plain/sub");
    assert_eq!(entries(dir.path()), ["plain", "st"]);
}
