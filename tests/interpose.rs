//! pario under an `LD_PRELOAD` library, as a file system or profiler that
//! lives behind the C library (libpil4dfs, libioil, Darshan) sees it. The
//! test builds tests/interpose/count.c with the C compiler: it counts each
//! exported file-system function of the C library called on the test's
//! directory, every name of a family apart (`open` and `open64`, `stat64`
//! and `__xstat64`...). Each count must equal what the tool reports it did:
//! a call made with a raw system call would be missing.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use common::{finish, Run};
use tempfile::tempdir;

/// `LD_PRELOAD=<tests/interpose/slow.c built>`, to put after `env` before
/// a program that writes until stopped: each of its writes a millisecond
/// late, so it waits instead of keeping a core busy. `None` without a C
/// compiler (the program then writes at full speed). Its users (the Slurm
/// and multi-host groups) need MPI.
#[cfg(feature = "mpi")]
pub fn slow_writes() -> Option<String> {
    interposer("slow").map(|lib| format!("LD_PRELOAD={}", lib.display()))
}

/// Builds `tests/interpose/NAME.c` into a shared library, once per test
/// process, in cargo's scratch directory for tests: one file a library
/// however many runs (built under a name of its own, then renamed over
/// the last; a program still running keeps the one it loaded); `None` (the
/// test is skipped) without a C compiler.
pub fn interposer(name: &str) -> Option<PathBuf> {
    static BUILT: OnceLock<std::sync::Mutex<BTreeMap<String, PathBuf>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    let mut built = built.lock().unwrap();
    if let Some(lib) = built.get(name) {
        return Some(lib.clone());
    }
    if let Some(why) = common::missing(&["gcc"], "gcc") {
        eprintln!("skipped: {why}");
        return None;
    }
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/interpose/{name}.c"));
    let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let building = scratch.join(format!("interpose-{name}-{}.so", std::process::id()));
    let lib = scratch.join(format!("interpose-{name}.so"));
    let out = Command::new("gcc")
        .args(["-shared", "-fPIC", "-O2", "-Wall", "-Werror", "-o"])
        .arg(&building)
        .arg(&source)
        .arg("-ldl")
        .output()
        .expect("run gcc");
    assert!(
        out.status.success(),
        "gcc {}: {}",
        source.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::rename(&building, &lib).expect("move the library in place");
    built.insert(name.into(), lib.clone());
    Some(lib)
}

/// Runs `binary` with `tasks` local tasks in `dir` under the library
/// `lib`, with the paths `env` names for it.
fn preloaded(
    binary: &str,
    tasks: usize,
    lib: &Path,
    dir: &Path,
    args: &[&str],
    env: &[(&str, &Path)],
) -> Run {
    let mut cmd = common::local_command(binary, dir, tasks, args);
    cmd.env("LD_PRELOAD", lib);
    for (name, path) in env {
        cmd.env(name, path);
    }
    finish(common::output_in_session(&mut cmd).expect("run the tool"))
}

/// Calls per C library function, under `prefix`.
type Counts = BTreeMap<String, u64>;

/// Runs `binary` with `tasks` local tasks under the counting library;
/// its calls on paths under `prefix`.
fn counted(binary: &str, tasks: usize, prefix: &Path, args: &[&str]) -> Option<(Run, Counts)> {
    let lib = interposer("count")?;
    let scratch = tempdir().unwrap();
    let file = scratch.path().join("counts");
    let env = [("COUNT_PREFIX", prefix), ("COUNT_FILE", &file)];
    let run = preloaded(binary, tasks, &lib, scratch.path(), args, &env);
    run.ok();
    // Every process that loaded the library appends its lines: sum them.
    let text = std::fs::read_to_string(&file).unwrap_or_default();
    let mut counts = Counts::new();
    for (name, n) in text.lines().filter_map(|l| l.split_once(' ')) {
        *counts.entry(name.to_string()).or_default() += n.parse::<u64>().unwrap();
    }
    Some((run, counts))
}

/// Asserts that `counts` holds exactly `expected` (every other function
/// uncalled) but for the names in `also`, which may have any count.
fn assert_counts(counts: &Counts, expected: &[(&str, u64)], also: &[&str], what: &str) {
    let seen: Counts = counts
        .iter()
        .filter(|(name, _)| !also.contains(&name.as_str()))
        .map(|(k, v)| (k.clone(), *v))
        .collect();
    let want: Counts = expected
        .iter()
        .filter(|(_, n)| *n > 0)
        .map(|(k, v)| (k.to_string(), *v))
        .collect();
    assert_eq!(seen, want, "{what}: all counts {counts:?}");
}

fn json(run: &Run) -> serde_json::Value {
    serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}: {}", run.stdout))
}

/// Existence checks and the file system's capacity (`statx` through the C
/// library, by Rust's std; `statvfs64`): not operations a tool reports.
const CHECKS: [&str; 2] = ["statx", "statvfs64"];

/// The run's system description (in its JSON, gathered once before the
/// first phase) looks at the target once: its file system.
const SYSTEM_STATS: u64 = 1;

#[test]
fn ior_calls_reach_the_c_library() {
    let tasks = 2;
    for per_task in [false, true] {
        let dir = tempdir().unwrap();
        let file = dir.path().join("f");
        let mut args = vec!["-w", "-r", "-e", "-t", "4k", "-b", "64k", "-s", "2"];
        args.extend(["--summaryFormat=JSON", "-o", file.to_str().unwrap()]);
        if per_task {
            args.push("-F");
        }
        let Some((run, counts)) = counted(crate::common::bin("ior"), tasks, dir.path(), &args)
        else {
            return;
        };
        let doc = json(&run);
        let test = &doc["tests"][0]["Parameters"];
        let (block, transfer) = (test["blockSize"].as_u64(), test["transferSize"].as_u64());
        let segments = test["segmentCount"].as_u64().unwrap();
        let transfers = tasks as u64 * segments * block.unwrap() / transfer.unwrap();
        let files = if per_task { tasks as u64 } else { 1 };
        // Each task opens its file to write, to read, and once to look at
        // the page cache before the read (pario's cache report).
        let opens = 3 * tasks as u64;
        assert_counts(
            &counts,
            &[
                ("open64", opens),
                ("close", opens),
                ("pwrite64", transfers),
                ("pread64", transfers),
                ("fsync", tasks as u64),
                ("unlink", files),
                ("stat64", SYSTEM_STATS),
            ],
            &CHECKS,
            &format!("ior -F {per_task}"),
        );
    }
}

/// The items of each phase of every mdtest iteration, summed by name.
fn mdtest_items(doc: &serde_json::Value) -> BTreeMap<String, u64> {
    let mut items = BTreeMap::new();
    for test in doc["tests"].as_array().unwrap() {
        for iteration in test["iterations"].as_array().unwrap() {
            for phase in iteration["phases"].as_array().unwrap() {
                let name = phase["operation"].as_str().unwrap().to_string();
                *items.entry(name).or_default() += phase["items"].as_u64().unwrap();
            }
        }
    }
    items
}

#[test]
fn mdtest_calls_reach_the_c_library() {
    let cases: [(usize, &[&str]); 4] = [
        (1, &["-n", "100"]),
        (2, &["-n", "40", "-u", "-i", "2"]),
        (
            2,
            &[
                "-n", "30", "-z", "2", "-b", "2", "-w", "100", "-e", "100", "-y",
            ],
        ),
        (
            3,
            &["-n", "20", "-F", "-u", "-N", "1", "-w", "10", "-e", "10"],
        ),
    ];
    for (tasks, extra) in cases {
        let dir = tempdir().unwrap();
        let root = dir.path().join("root");
        let mut args = extra.to_vec();
        args.extend(["--summaryFormat=JSON", "-d", root.to_str().unwrap()]);
        let Some((run, counts)) = counted(crate::common::bin("mdtest"), tasks, dir.path(), &args)
        else {
            return;
        };
        let doc = json(&run);
        let items = mdtest_items(&doc);
        let n = |phase: &str| items.get(phase).copied().unwrap_or(0);
        let p = &doc["Parameters"];
        let unique = p["unique_dir_per_task"].as_bool().unwrap();
        let iterations = p["iterations"].as_u64().unwrap();
        let data = |key: &str, phase: &str| match p[key].as_u64().unwrap() {
            0 => 0,
            _ => n(phase),
        };
        // The tree is counted once per task under -u (a tree each), and
        // every iteration makes and removes the test directory above it
        // (and mdtest's root, which it made, the first time).
        let trees = if unique { tasks as u64 } else { 1 };
        let made = n("Tree creation") * trees + iterations + 1;
        let what = format!("mdtest {extra:?} on {tasks} tasks");
        assert_eq!(n("Tree removal"), n("Tree creation"), "{what}");
        assert_counts(
            &counts,
            &[
                ("mkdir", n("Directory creation") + made),
                ("rmdir", n("Directory removal") + made),
                ("rename", n("Directory rename")),
                (
                    "stat64",
                    n("Directory stat") + n("File stat") + SYSTEM_STATS,
                ),
                ("open64", n("File creation") + n("File read")),
                ("close", n("File creation") + n("File read")),
                ("pwrite64", data("write_bytes", "File creation")),
                ("pread64", data("read_bytes", "File read")),
                (
                    "fsync",
                    u64::from(p["sync_file"] == true) * n("File creation"),
                ),
                ("unlink", n("File removal")),
            ],
            &CHECKS,
            &what,
        );
    }
}

#[test]
fn md_workbench_calls_reach_the_c_library() {
    let dir = tempdir().unwrap();
    let root = dir.path().join("root");
    let args = [
        "-I=10",
        "-P=10",
        "-D=2",
        "-R=2",
        "--summaryFormat=JSON",
        "-o",
        root.to_str().unwrap(),
    ];
    let Some((run, counts)) = counted(crate::common::bin("md-workbench"), 2, dir.path(), &args)
    else {
        return;
    };
    let doc = json(&run);
    let sum = |key: &str| {
        doc["phases"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p[key].as_u64().unwrap())
            .sum::<u64>()
    };
    // One more directory made and removed than the data sets: the root.
    let opens = sum("objs_created") + sum("objs_read");
    assert_counts(
        &counts,
        &[
            ("mkdir", sum("dsets_created") + 1),
            ("rmdir", sum("dsets_removed") + 1),
            ("open64", opens),
            ("close", opens),
            ("pwrite64", sum("objs_created")),
            ("pread64", sum("objs_read")),
            ("stat64", sum("objs_stat") + SYSTEM_STATS),
            ("unlink", sum("objs_deleted")),
        ],
        &CHECKS,
        "md-workbench",
    );
}

/// A scaled io500 configuration in `dir` whose data and results live in
/// `root`. Every phase runs out of work long before its stonewall, so what
/// the run makes does not depend on the machine's load.
pub fn io500_config(dir: &Path, root: &Path) -> PathBuf {
    let text = format!(
        "[global]\ndatadir = {d}/data\nresultdir = {d}/results\n\n[debug]\nstonewall-time = 30\n\n\
         [ior-easy]\ntransferSize = 64k\nblockSize = 2m\n\n[mdtest-easy]\nn = 300\n\n\
         [ior-hard]\nsegmentCount = 40\n\n[mdtest-hard]\nn = 200\n\n\
         [mdworkbench]\nprecreatePerSet = 20\nfilesPerProc = 20\n\n[ior-rnd4K-easy-read]\nrun = FALSE\n",
        d = root.display()
    );
    let path = dir.join("config.ini");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn io500_find_lists_and_stats_through_the_c_library() {
    let dir = tempdir().unwrap();
    let config = io500_config(dir.path(), dir.path());
    let data = dir.path().join("data");
    let args = [config.to_str().unwrap()];
    let Some((_, counts)) = counted(crate::common::bin("io500"), 2, &data, &args) else {
        return;
    };
    // find.csv: a line per task, its `total` (entries scanned) and
    // `checked` (entries stat'ed) columns.
    let results = std::fs::read_dir(dir.path().join("results"))
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let csv = std::fs::read_to_string(results.join("find.csv")).unwrap();
    let column = |i: usize| -> u64 {
        csv.lines()
            .skip(2)
            .map(|l| l.split(", ").nth(i).unwrap().parse::<u64>().unwrap())
            .sum()
    };
    let (scanned, checked) = (column(4), column(5));
    // 2 tasks' mdtest-easy (300 files each) and mdtest-hard (200 each),
    // whose names matching `*01*` find stats.
    assert!(scanned > 1000 && checked > 0, "{csv}");
    let n = |name: &str| counts.get(name).copied().unwrap_or(0);
    // Only find stats entries by name in a directory it reads.
    assert_eq!(n("fstatat64"), checked, "{counts:?}");
    // Every entry scanned came from readdir64 (the cleanup's listings add
    // some); the directories were opened with fdopendir and closed.
    assert!(n("readdir64") > scanned, "{counts:?}");
    assert!(n("fdopendir") > 0, "{counts:?}");
    assert_eq!(n("fdopendir"), n("closedir"), "{counts:?}");
    for raw_only in ["getdents64", "readdir"] {
        assert_eq!(n(raw_only), 0, "{counts:?}");
    }
}

/// Runs `binary` with `tasks` local tasks under the redirecting library:
/// the made-up `virtual_root` is served from `real`.
fn redirected(
    binary: &str,
    tasks: usize,
    virtual_root: &Path,
    real: &Path,
    args: &[&str],
) -> Option<Run> {
    let lib = interposer("redirect")?;
    let scratch = tempdir().unwrap();
    let env = [("REDIRECT_FROM", virtual_root), ("REDIRECT_TO", real)];
    let run = preloaded(binary, tasks, &lib, scratch.path(), args, &env);
    assert!(
        !virtual_root.exists(),
        "{} was made by a call that bypassed the C library",
        virtual_root.display()
    );
    Some(run)
}

/// A path that exists nowhere: the redirecting library's prefix.
fn made_up(name: &str) -> PathBuf {
    PathBuf::from(format!("/pario-made-up-{}-{name}", std::process::id()))
}

#[test]
fn the_tools_run_on_a_file_system_behind_the_c_library() {
    let v = made_up("tools");
    let p = |rest: &str| format!("{}/{rest}", v.display());
    let (file, md, mdw) = (p("file"), p("md"), p("mdw"));
    let cases: [(&str, &[&str]); 6] = [
        (
            crate::common::bin("ior"),
            &[
                "-w", "-r", "-e", "-C", "-F", "-t", "4k", "-b", "64k", "-o", &file,
            ],
        ),
        (
            crate::common::bin("ior"),
            &[
                "-w", "-r", "-W", "-t", "4k", "-b", "64k", "-a", "MMAP", "-o", &file,
            ],
        ),
        (
            crate::common::bin("ior"),
            &["-w", "-r", "-k", "-t", "4k", "-b", "64k", "-o", &file],
        ),
        (
            crate::common::bin("mdtest"),
            &["-n", "40", "-u", "-w", "10", "-e", "10", "-d", &md],
        ),
        (
            crate::common::bin("mdtest"),
            &["-n", "40", "-z", "2", "-b", "2", "-Y", "-d", &md],
        ),
        (
            crate::common::bin("md-workbench"),
            &["-I=5", "-P=5", "-D=2", "-R=2", "-o", &mdw],
        ),
    ];
    for (binary, args) in cases {
        let real = tempdir().unwrap();
        let Some(run) = redirected(binary, 2, &v, real.path(), args) else {
            return;
        };
        run.ok();
        let left = common::entries(real.path());
        match args.contains(&"-k") {
            // The file kept is in the real directory.
            true => assert_eq!(left, ["file"], "{args:?}"),
            false => assert!(left.is_empty(), "{args:?}: {left:?}"),
        }
    }
}

#[test]
fn io500_runs_on_a_file_system_behind_the_c_library() {
    let v = made_up("io500");
    let real = tempdir().unwrap();
    // A real configuration file naming made-up directories.
    let local = tempdir().unwrap();
    let path = io500_config(local.path(), &v);
    let Some(run) = redirected(
        crate::common::bin("io500"),
        2,
        &v,
        real.path(),
        &[path.to_str().unwrap()],
    ) else {
        return;
    };
    run.ok();
    assert!(
        run.stdout.contains("[RESULT]                 find"),
        "{}",
        run.stdout
    );
    assert!(
        !run.stdout.contains("ERROR INVALID Errors"),
        "{}",
        run.stdout
    );
    // The results in the real directory; the data removed.
    assert_eq!(common::entries(real.path()), ["data", "results"]);
    let data = real.path().join("data");
    let runs = common::entries(&data);
    assert!(
        runs.iter()
            .all(|r| common::entries(&data.join(r)).is_empty()),
        "{runs:?}"
    );
}

#[test]
fn aio_under_an_interposer_says_what_it_cannot_see() {
    let dir = tempdir().unwrap();
    let args = ["-a", "AIO", "-w", "-t", "4k", "-b", "64k", "-o", "f"];
    for (preload, warned) in [
        ("/nonexistent/libpil4dfs.so", true),
        ("/nonexistent/libdarshan.so", true),
        ("/nonexistent/libother.so", false),
    ] {
        let run = finish(
            Command::new(crate::common::bin("ior"))
                .args(args)
                .current_dir(dir.path())
                .env("PARIO_TASKS", "1")
                .env("LD_PRELOAD", preload)
                .output()
                .unwrap(),
        );
        run.ok();
        let line = "WARNING: -a AIO submits its transfers through io_uring";
        assert_eq!(
            run.stdout.contains(line),
            warned,
            "{preload}: {}",
            run.stdout
        );
        assert!(common::entries(dir.path()).is_empty());
    }
}
