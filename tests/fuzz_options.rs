//! Random command lines drawn from every tool's option table, with a fixed
//! seed: no input may panic, hang or abort. Parsing alone (in this process,
//! many cases, values with NUL bytes included) must give either success or
//! one line of usage error; a sample of the lines that parse is then run as
//! a command (the benchmarks on the DUMMY backend, `compare` and `report`
//! on real result files), which must succeed, or fail with one line, or
//! stop cleanly on SIGINT when the options ask for a long run.
//!
//! Longer runs: `PARIO_FUZZ_CASES=200000 PARIO_FUZZ_RUNS=2000
//! PARIO_FUZZ_SEED=7 cargo test --release --test suite -- fuzz_options::`.

use std::process::Command;
use std::sync::mpsc;
use std::time::Duration;

use crate::common::running::Running;
use pario::cli::{Spelling, TOOLS};
use rustix::process::Signal;

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A small deterministic generator (xorshift64*), so a failure can be
/// replayed from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Values: edge numbers, every suffix, 20 digits, garbage, empty.
const VALUES: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "8",
    "64",
    "4096",
    "1k",
    "3k",
    "1m",
    "16m",
    "1g",
    "1t",
    "8e",
    "16e",
    "1p",
    "2K",
    "4M",
    "0k",
    "-1m",
    "9223372036854775807",
    "9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999",
    "-99999999999999999999",
    "1.5",
    "1e3",
    "0x10",
    "k",
    "m",
    "abc",
    "",
    " ",
    ",",
    "=",
    "==",
    "1,2",
    "JSON",
    "CSV",
    "JSON,CSV",
    "DUMMY",
    "POSIX",
    "MMAP",
    "x",
    "-",
    "--",
    "%d",
    "1:2",
    "1@2",
    "4294967296",
    "65536",
    "2147483648",
];

/// Only in-process: values a command line cannot carry or that name places
/// outside a scratch directory.
const PARSE_ONLY: &[&str] = &["\0", "a\0b", "1\0", "/", "../x", "/dev/null"];

fn value(rng: &mut Rng, parse_only: bool) -> String {
    match rng.below(10) {
        0 => (0..20)
            .map(|_| char::from(b'0' + rng.below(10) as u8))
            .collect(),
        1 if parse_only => rng.pick(PARSE_ONLY).to_string(),
        _ => rng.pick(VALUES).to_string(),
    }
}

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");

/// Result files of every tool, and the CSV files that go after them.
const RESULTS: [(&str, &[&str]); 6] = [
    (
        "report/ior.json",
        &["report/ior-latency.csv", "report/ior-tasks.csv"],
    ),
    ("report/mdtest.json", &["report/mdtest-latency.csv"]),
    ("report/md-workbench.json", &[]),
    ("report/io500.json", &[]),
    ("compare/a.json", &[]),
    ("compare/b.json", &[]),
];

/// What a command line starts with: the files `compare` and `report`
/// read (a page to write for `report`), the DUMMY backend for the
/// benchmarks when they run.
fn prefix(tool: &str, rng: &mut Rng, run: bool) -> Vec<String> {
    let mut pick = |with_sides: bool| {
        let (json, sides) = rng.pick(&RESULTS);
        let mut words = vec![format!("{DATA}/{json}")];
        if with_sides && rng.below(2) == 0 {
            words.extend(sides.iter().map(|s| format!("{DATA}/{s}")));
        }
        words
    };
    match tool {
        "compare" => [pick(false), pick(false)].concat(),
        "report" => {
            // Two results at most: a debug build draws --images' PNGs slowly.
            let mut words: Vec<String> = (0..2).flat_map(|_| pick(true)).collect();
            words.truncate(words.len().min(4));
            words.extend(["-o".into(), "report.html".into()]);
            words
        }
        // A file of groups on DUMMY.
        "concurrent" => vec![format!("{DATA}/concurrent/dummy.txt")],
        // DLIO's command line has no backend option: a tiny generation.
        "dlio" => [
            "workload=cosmoflow_datagen",
            "++workload.dataset.num_files_train=2",
            "++workload.dataset.record_length_bytes=1024",
            "++workload.dataset.record_length_bytes_stdev=0",
            "++hydra.run.dir=run",
        ]
        .map(String::from)
        .to_vec(),
        _ if run => vec!["-a".into(), "DUMMY".into()],
        _ => Vec::new(),
    }
}

/// One random command line of up to six options.
fn command_line(rng: &mut Rng, table: &[Spelling], parse_only: bool) -> Vec<String> {
    let mut args = Vec::new();
    for _ in 0..=rng.below(6) {
        let o = rng.pick(table);
        let v = value(rng, parse_only);
        match (o.value, rng.below(4)) {
            (false, 0) => args.extend([o.name.clone(), o.name.clone()]),
            (false, _) => args.push(o.name.clone()),
            (true, 0) if o.name.starts_with("--") => args.push(format!("{}={v}", o.name)),
            (true, 1) if !o.name.starts_with("--") => args.push(format!("{}{v}", o.name)),
            (true, 2) => {
                // A directive from the table.
                let d = rng.pick(table);
                let key = d.name.trim_start_matches('-');
                args.extend(["-O".to_string(), format!("{key}={v}")]);
            }
            (true, _) => args.extend([o.name.clone(), v]),
        }
        if rng.below(20) == 0 {
            args.push(
                rng.pick(&["-", "--", "-Z", "stray", "-O", "--no-such"])
                    .to_string(),
            );
        }
    }
    args
}

/// Parses in a thread so that a parse that never returns fails the test.
fn parse_all(cases: u64, seed: u64) {
    for tool in TOOLS {
        let (tx, rx) = mpsc::channel();
        let table = tool.options();
        std::thread::spawn(move || {
            let mut rng = Rng(seed);
            for _ in 0..cases {
                let mut args = prefix(tool.name(), &mut rng, false);
                args.extend(command_line(&mut rng, &table, true));
                if tx.send((args.clone(), None)).is_err() {
                    return;
                }
                let parse = std::panic::AssertUnwindSafe(|| tool.check(tool.name(), &args));
                let outcome = std::panic::catch_unwind(parse);
                if tx.send((args, Some(outcome.map_err(|_| ())))).is_err() {
                    return;
                }
            }
        });
        let mut last = Vec::new();
        for _ in 0..cases * 2 {
            let (args, outcome) = rx
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|_| panic!("{} {last:?}: the parse did not return", tool.name()));
            let Some(outcome) = outcome else {
                last = args;
                continue;
            };
            match outcome {
                Err(()) => panic!("{} {args:?}: parsing panicked", tool.name()),
                Ok(Err(e)) => {
                    let text = e.to_string();
                    assert!(
                        !text.is_empty() && !text.contains('\n'),
                        "{args:?}: {text:?}"
                    );
                }
                Ok(Ok(())) => {}
            }
        }
    }
}

#[test]
fn random_command_lines_parse_or_fail_with_one_line() {
    let seed = setting("PARIO_FUZZ_SEED", 1) | 1;
    parse_all(setting("PARIO_FUZZ_CASES", 3000), seed);
}

/// Runs accepted command lines as commands: the benchmarks on DUMMY,
/// `compare` and `report` on real results.
#[test]
fn accepted_command_lines_run_fail_with_one_line_or_stop() {
    let mut rng = Rng(setting("PARIO_FUZZ_SEED", 1) | 1);
    let runs = setting("PARIO_FUZZ_RUNS", 24);
    // io500 needs a configuration file, not options on DUMMY: its runs are
    // in tests/io500.rs.
    for tool in TOOLS.iter().filter(|t| t.name() != "io500") {
        let table = tool.options();
        let (mut done, mut succeeded) = (0, 0);
        while done < runs {
            let mut args = prefix(tool.name(), &mut rng, true);
            let given = args.len();
            args.extend(command_line(&mut rng, &table, false));
            // DUMMY stays the backend: every run leaves nothing behind.
            let benchmark = args[0] == "-a";
            if benchmark
                && args[given..]
                    .iter()
                    .any(|a| a.contains("-a") || a.contains("api"))
            {
                continue;
            }
            if tool.check(tool.name(), &args).is_err() {
                continue;
            }
            done += 1;
            succeeded += u64::from(run_one(tool.name(), &args, 1 + rng.below(3)));
        }
        // The command lines reach the tool's work, not only its errors.
        eprintln!("{}: {succeeded} of {runs} runs succeeded", tool.name());
        assert!(succeeded > 0, "{}: no run succeeded", tool.name());
    }
}

/// Runs a command line; whether it succeeded.
fn run_one(tool: &str, args: &[String], tasks: usize) -> bool {
    // Named ahead, in case the run never ends.
    eprintln!("running: {tool} {args:?} with {tasks} tasks");
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(crate::common::bin("pario"));
    cmd.arg(tool)
        .args(args)
        .current_dir(dir.path())
        .env("PARIO_TASKS", tasks.to_string());
    let mut run = Running::start(cmd);
    // A long run is fine; one that does not stop on SIGINT is not. The
    // benchmarks run on DUMMY, which keeps a core busy per task, so a run
    // still going after a second is stopped then: one that stops is all
    // this checks, and longer runs only burned the cores the tests beside
    // share. compare and report have no run to stop: they read and write
    // (report draws PNGs with --images, seconds in a debug build), then end.
    let patience = match tool {
        "compare" | "report" => 120,
        _ => 1,
    };
    let finished = run.wait_for(Duration::from_secs(patience));
    if !finished {
        run.signal(Signal::INT);
    }
    let end = run.ended();
    let shown = format!("{tool} {args:?} ({tasks} tasks): {end:?}");
    match end.status {
        Some(0) => {}
        Some(130) if !finished => {}
        Some(1..=3) => {
            let lines: Vec<&str> = end.stderr.lines().filter(|l| !l.is_empty()).collect();
            assert!(
                lines.iter().filter(|l| l.contains("error")).count() == 1,
                "{shown}"
            );
        }
        _ => panic!("{shown}"),
    }
    assert!(!end.stderr.contains("panicked"), "{shown}");
    end.status == Some(0)
}
