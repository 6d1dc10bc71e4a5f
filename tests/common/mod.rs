//! Helpers for end-to-end tests: run a pario binary, parse its output.
#![allow(dead_code)]

pub mod fuzz;
pub mod hosts;
pub mod mount;
pub mod netns;
pub mod running;
pub mod s3;
pub mod slurm;
pub mod throttle;

use std::path::Path;
use std::process::{Command, Output};

use tempfile::TempDir;

/// A scratch directory on tmpfs (`/dev/shm`: fast, and a test's files stay
/// out of the disk's page cache), removed with its contents when dropped;
/// `prefix` tells whose it is.
pub fn scratch(prefix: &str) -> TempDir {
    scratch_in("/dev/shm", prefix)
}

/// A scratch directory on the root file system (`/var/tmp`, not tmpfs), for
/// what tmpfs cannot do, such as O_DIRECT.
pub fn disk_scratch(prefix: &str) -> TempDir {
    scratch_in("/var/tmp", prefix)
}

fn scratch_in(base: &str, prefix: &str) -> TempDir {
    tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(base)
        .unwrap_or_else(|e| panic!("a scratch directory in {base}: {e}"))
}

/// The path of one of pario's programs (`ior`, `mdtest`, `md-workbench`,
/// `io500`, `pario`): the one Cargo built beside this suite, or the one in
/// `PARIO_TEST_BIN_DIR` when that is set. scripts/test.sh runs the MPI group
/// against programs linked with MPICH that way, without building the suite a
/// second time.
pub fn bin(name: &str) -> &'static str {
    const BUILT: [(&str, &str); 6] = [
        ("ior", env!("CARGO_BIN_EXE_ior")),
        ("mdtest", env!("CARGO_BIN_EXE_mdtest")),
        ("md-workbench", env!("CARGO_BIN_EXE_md-workbench")),
        ("io500", env!("CARGO_BIN_EXE_io500")),
        ("pario", env!("CARGO_BIN_EXE_pario")),
        ("dlio_benchmark", env!("CARGO_BIN_EXE_dlio_benchmark")),
    ];
    // Worked out once: tests look programs up in loops (a rank's process
    // among /proc's entries).
    static PATHS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    let paths = PATHS.get_or_init(|| {
        let dir = std::env::var("PARIO_TEST_BIN_DIR").ok();
        BUILT
            .iter()
            .map(|(program, built)| match &dir {
                Some(dir) => format!("{dir}/{program}"),
                None => built.to_string(),
            })
            .collect()
    });
    let index = BUILT
        .iter()
        .position(|(program, _)| *program == name)
        .unwrap_or_else(|| panic!("pario has no program {name}"));
    &paths[index]
}

/// Whether the programs under test were built with cargo feature `feature`
/// (their `--version` names it). CI runs the tests of threads on programs
/// built without features from the suite built with them, so a test of
/// what a build without MPI or HDF5 does asks the programs, not `cfg!`.
pub fn programs_built_with(feature: &str) -> bool {
    static FEATURES: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let features = FEATURES.get_or_init(|| {
        let out = Command::new(bin("pario")).arg("--version").output();
        let out = out.expect("run pario --version");
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let line = text.lines().find_map(|l| l.strip_prefix("features:"));
        line.expect("a features line in pario --version")
            .to_string()
    });
    features.split_whitespace().any(|f| f == feature)
}

pub struct Run {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn ok(&self) -> &Self {
        assert_eq!(
            self.status, 0,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        self
    }
}

impl Run {
    /// Asserts that the run ended with `status` and said `message` on stderr.
    pub fn fails(&self, status: i32, message: &str) -> &Self {
        assert_eq!(
            self.status, status,
            "stdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
        assert!(self.stderr.contains(message), "{}", self.stderr);
        self
    }
}

pub fn finish(out: Output) -> Run {
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// Runs `ior` with `tasks` local tasks in `dir`.
pub fn ior(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    ior_env(dir, tasks, args, &[])
}

pub fn ior_env(dir: &Path, tasks: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    tool_env("ior", dir, tasks, args, env)
}

/// Runs one of pario's programs with `tasks` local tasks in `dir`, with
/// `env` besides (a fake topology, say).
pub fn tool_env(name: &str, dir: &Path, tasks: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = local_command(bin(name), dir, tasks, args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    finish(output_in_session(&mut cmd).unwrap_or_else(|e| panic!("run {name}: {e}")))
}

pub fn pario(dir: &Path, args: &[&str]) -> Run {
    finish(
        output_in_session(Command::new(bin("pario")).args(args).current_dir(dir))
            .expect("run pario"),
    )
}

/// A Results table row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub access: String,
    pub bw: f64,
    pub iops: f64,
    pub latency: f64,
    pub block_kib: f64,
    pub xfer_kib: f64,
    pub open: f64,
    pub wr_rd: f64,
    pub close: f64,
    pub total: f64,
    pub iter: u64,
}

/// The rows of every Results table, parsed the way IOR parsers do: lines
/// starting with `write` or `read` up to the summary.
pub fn rows(stdout: &str) -> Vec<Row> {
    let table = stdout.split("Summary of all tests:").next().unwrap();
    table
        .lines()
        .filter(|l| l.starts_with("write ") || l.starts_with("read "))
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            assert_eq!(f.len(), 11, "row {l:?}");
            let n = |i: usize| {
                f[i].parse::<f64>()
                    .unwrap_or_else(|_| panic!("cell {i} of {l:?}"))
            };
            Row {
                access: f[0].into(),
                bw: n(1),
                iops: n(2),
                latency: n(3),
                block_kib: n(4),
                xfer_kib: n(5),
                open: n(6),
                wr_rd: n(7),
                close: n(8),
                total: n(9),
                iter: f[10].parse().unwrap(),
            }
        })
        .collect()
}

/// The rows of "Summary of all tests", as whitespace-separated fields.
pub fn summary(stdout: &str) -> Vec<Vec<String>> {
    let Some(after) = stdout.split("Summary of all tests:\n").nth(1) else {
        return Vec::new();
    };
    after
        .lines()
        .skip(1)
        .take_while(|l| !l.starts_with("Finished"))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// The 64-bit little-endian word at byte `offset` of a file's contents.
pub fn word(data: &[u8], offset: usize) -> u64 {
    u64::from_le_bytes(data[offset..offset + 8].try_into().unwrap())
}

/// Names of the entries in a directory, sorted.
pub fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// The per-task rows of a `saveRankPerformanceDetailsCSV` file:
/// (access, rank, transfers).
pub fn rank_rows(path: &Path) -> Vec<(String, usize, u64)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].to_string(),
                f[2].parse().unwrap(),
                f[10].parse().unwrap(),
            )
        })
        .collect()
}

/// Two nodes of two tasks: `-C` and `-Z` then read another node's data.
pub const TWO_NODES: [(&str, &str); 2] =
    [("IOR_FAKE_NODES", "2"), ("IOR_FAKE_TASK_PER_NODES", "2")];

/// An ior script (`-f`) of one test per entry of `runs`, each entry the
/// directives (`key=value`) that test changes from the one before, the
/// command line's options holding for all; in a directory of its own, so
/// that the run's directory holds only what the run made. Starting MPI
/// ranks costs more than a small test: the combinations one mpirun can
/// take go in one script.
pub fn ior_script(runs: &[&[&str]]) -> (TempDir, String) {
    let dir = tempfile::tempdir().expect("a directory for the script");
    let mut text = String::from("IOR START\n");
    for directives in runs {
        for d in directives.iter() {
            text.push_str(&format!("  {d}\n"));
        }
        text.push_str("RUN\n");
    }
    text.push_str("IOR STOP\n");
    let path = dir.path().join("tests.ior");
    std::fs::write(&path, text).expect("write the script");
    let path = path.to_string_lossy().into_owned();
    (dir, path)
}

/// The values of a header line of ior's (`api                 : POSIX`),
/// one per test the output holds.
pub fn header_values<'a>(stdout: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("{key:<20}: ");
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .collect()
}

/// A run that succeeded and verified its data: `what` names the case.
pub fn assert_clean(run: &Run, what: &str) {
    assert_eq!(
        run.status, 0,
        "{what}\nstdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert!(
        !run.stdout.contains("incorrect data") && !run.stdout.contains("wrong data"),
        "{what}:\n{}",
        run.stdout
    );
}

/// The options IO500's ior-easy write and read phases share (docs/ior.md,
/// "Fixed-time runs"), in `easy/` (which the caller creates), with the
/// transfer and block sizes each test scales down. Add `-w -D ...` or `-r -R`.
pub fn ior_easy<'a>(transfer: &'a str, block: &'a str) -> Vec<&'a str> {
    vec![
        "-C",
        "-Q",
        "1",
        "-g",
        "-G",
        "760427273",
        "-k",
        "-e",
        "-o",
        "easy/ior_file_easy",
        "-O",
        "stoneWallingStatusFile=easy/stonewall",
        "-t",
        transfer,
        "-b",
        block,
        "-u",
        "-F",
        "-a",
        "POSIX",
    ]
}

/// Runs `mdtest` with `tasks` local tasks in `dir`.
pub fn mdtest(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    finish(
        output_in_session(&mut local_command(bin("mdtest"), dir, tasks, args)).expect("run mdtest"),
    )
}

/// Runs `md-workbench` with `tasks` local tasks in `dir`.
pub fn md_workbench(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    finish(
        output_in_session(&mut local_command(bin("md-workbench"), dir, tasks, args))
            .expect("run md-workbench"),
    )
}

pub fn io500(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    finish(
        output_in_session(&mut local_command(bin("io500"), dir, tasks, args)).expect("run io500"),
    )
}

/// Runs `cmd` to its end with an Open MPI session directory base of its
/// own, in cargo's scratch directory for tests, removed afterwards: an MPI
/// build started as a single task is an MPI singleton, and singletons
/// started together race on the shared /tmp/ompi.<host>.<uid> ("unable to
/// create ... File exists").
pub fn output_in_session(cmd: &mut Command) -> std::io::Result<Output> {
    let base = tempfile::Builder::new()
        .prefix("ompi-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))?;
    cmd.env("OMPI_MCA_orte_tmpdir_base", base.path()).output()
}

/// `binary args` in `dir` with `tasks` local tasks, and none of the fake
/// topologies a developer's environment may carry.
pub fn local_command(binary: &str, dir: &Path, tasks: usize, args: &[&str]) -> Command {
    let mut cmd = Command::new(binary);
    cmd.args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", tasks.to_string());
    for var in [
        "IOR_FAKE_NODES",
        "IOR_FAKE_TASK_PER_NODES",
        "PARIO_FAKE_PLACEMENT",
    ] {
        cmd.env_remove(var);
    }
    cmd
}

/// The rows of every mdtest `SUMMARY rate` table: (operation, [max, min,
/// mean, stddev]), parsed as mdtest parsers do (a name, then four numbers).
pub fn mdtest_rows(stdout: &str, title: &str) -> Vec<Vec<(String, [f64; 4])>> {
    stdout
        .split(title)
        .skip(1)
        .map(|table| {
            table
                .lines()
                .skip(3)
                .take_while(|l| l.starts_with("   ") && !l.trim().is_empty())
                .map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    let n = f.len();
                    let nums: Vec<f64> = f[n - 4..].iter().map(|v| v.parse().unwrap()).collect();
                    (f[..n - 4].join(" "), [nums[0], nums[1], nums[2], nums[3]])
                })
                .collect()
        })
        .collect()
}

/// Every path under `dir`, relative to it, sorted.
pub fn tree_of(dir: &Path) -> Vec<String> {
    fn walk(base: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let e = e.unwrap();
            let path = e.path();
            out.push(
                path.strip_prefix(base)
                    .unwrap()
                    .to_string_lossy()
                    .into_owned(),
            );
            if e.file_type().unwrap().is_dir() {
                walk(base, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    if dir.exists() {
        walk(dir, dir, &mut out);
    }
    out.sort();
    out
}

/// `mpirun -n ranks binary args...` in `dir`, with `env` forwarded to the
/// ranks, under `timeout` so that a hang fails the test instead of stalling
/// it. The launcher is Open MPI's `mpirun`, or the one `PARIO_TEST_MPIEXEC`
/// names for a build against another MPI (`mpiexec.mpich`: MPICH's hydra).
pub fn mpirun(binary: &str, dir: &Path, ranks: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    if let Some(mpiexec) = hydra() {
        return hydra_run(&mpiexec, binary, dir, ranks, args, env);
    }
    // A session directory of its own: mpiruns started together in the
    // shared /tmp/ompi.<host>.<uid> race (one removes it as another makes
    // it: "A call to mkdir was unable to create the desired directory").
    // In memory where there is /dev/shm: Open MPI maps files there that
    // its processes write, and on a disk each write of a new page
    // allocated a block (a tenth of a two-rank run's CPU).
    let session = if Path::new("/dev/shm").is_dir() {
        tempfile::Builder::new()
            .prefix("pario-ompi-")
            .tempdir_in("/dev/shm")
    } else {
        tempfile::tempdir()
    }
    .expect("a session directory");
    let mut cmd = Command::new("timeout");
    // Open MPI as root needs the two variables, and `--oversubscribe` on a
    // machine with fewer cores than ranks.
    cmd.args(["120", "mpirun", "--oversubscribe", "-n", &ranks.to_string()])
        .current_dir(dir)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_orte_tmpdir_base", session.path())
        .env_remove("PARIO_TASKS");
    for var in [
        "IOR_FAKE_NODES",
        "IOR_FAKE_TASK_PER_NODES",
        "PARIO_FAKE_PLACEMENT",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v).args(["-x", k]);
    }
    cmd.arg(binary).args(args);
    finish(cmd.output().expect("run mpirun"))
}

/// The hydra `mpiexec` the MPI tests run under (`PARIO_TEST_MPIEXEC`), when
/// they do.
pub fn hydra() -> Option<String> {
    std::env::var("PARIO_TEST_MPIEXEC")
        .ok()
        .filter(|m| !m.trim().is_empty())
}

/// `mpiexec -n ranks binary args...` of hydra (MPICH, Intel MPI): it needs
/// no flag as root or to put more ranks than cores on the local host, and
/// hands the ranks its whole environment.
fn hydra_run(
    mpiexec: &str,
    binary: &str,
    dir: &Path,
    ranks: usize,
    args: &[&str],
    env: &[(&str, &str)],
) -> Run {
    let mut cmd = Command::new("timeout");
    cmd.args(["120", mpiexec, "-n", &ranks.to_string()])
        .current_dir(dir)
        .env_remove("PARIO_TASKS");
    for var in [
        "IOR_FAKE_NODES",
        "IOR_FAKE_TASK_PER_NODES",
        "PARIO_FAKE_PLACEMENT",
    ] {
        cmd.env_remove(var);
    }
    cmd.envs(env.iter().copied());
    cmd.arg(binary).args(args);
    finish(cmd.output().expect("run mpiexec"))
}

/// Why a test group that starts real components cannot run here: not root,
/// or the first of `tools` not on the PATH (`packages` says where from).
pub fn missing(tools: &[&str], packages: &str) -> Option<String> {
    if !rustix::process::geteuid().is_root() {
        return Some("not root".into());
    }
    let on_path = |tool: &&str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let tool = tools.iter().find(|t| !on_path(t))?;
    Some(format!("{tool} is not installed (Debian: {packages})"))
}
