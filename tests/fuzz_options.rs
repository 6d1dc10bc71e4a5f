//! Random command lines drawn from every tool's option table, with a fixed
//! seed: no input may panic, hang or abort. Parsing alone (in this process,
//! many cases, values with NUL bytes included) must give either success or
//! one line of usage error; a sample of the lines that parse is then run as
//! a command (the benchmarks on the DUMMY backend, `compare` and `report`
//! on real result files), which must succeed, or fail with one line, or
//! stop cleanly on SIGINT when the options ask for a long run. Beside the
//! random lines, every option of every tool and every backend option (with
//! each backend that takes it) is given every hostile value (empty, huge,
//! negative, not a number, not UTF-8): refused in one line, exit status 2.
//!
//! Longer runs: `PARIO_FUZZ_CASES=200000 PARIO_FUZZ_RUNS=2000
//! PARIO_FUZZ_SEED=7 cargo test --release --test suite -- fuzz_options::`.

use std::ffi::{OsStr, OsString};
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
        // md-workbench's default sets (3,000 objects each, 1,000 operations
        // a set, three times) kept a core busy per task until the run was
        // stopped, in most of its runs: smaller ones, which the command
        // line may still change (the last of an option wins).
        "md-workbench" if run => ["-a", "DUMMY", "-P", "30", "-I", "10"]
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
    let runs = setting("PARIO_FUZZ_RUNS", 16);
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
            succeeded += u64::from(run_one(tool.name(), &args, 1 + rng.below(2)));
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

/// Values no option may take for granted: empty and blank, huge (20 and
/// more digits, 1e30, 2^64, with a suffix), negative, not numbers, a list
/// where one value goes, a line break.
const HOSTILE: &[&str] = &[
    "",
    " ",
    "99999999999999999999",
    "340282366920938463463374607431768211456",
    "1e30",
    "18446744073709551616",
    "18446744073709551615",
    "18446744073709551615k",
    "-1",
    "-99999999999999999999",
    "-1e30",
    "abc",
    "1x",
    "nan",
    ",",
    "a\nb",
];

/// Bytes that are not UTF-8, as an argument's value.
const NOT_UTF8: &[u8] = b"a\xffb\xc3";

/// What every case of a tool starts with: the files `compare`, `report`,
/// `concurrent` and `io500` read (a page to write for `report`).
fn fixed_prefix(tool: &str) -> Vec<String> {
    let data = |f: &str| format!("{DATA}/{f}");
    match tool {
        "compare" => vec![data("compare/a.json"), data("compare/b.json")],
        "report" => vec![data("report/ior.json"), "-o".into(), "report.html".into()],
        "concurrent" => vec![data("concurrent/dummy.txt")],
        "io500" => vec![data("io500/config.ini")],
        _ => Vec::new(),
    }
}

/// For a backend's option (`--s3.layout`): `-a B` for each backend B that
/// takes it, with the keys an S3 backend takes on its command line, so
/// that the value reaches the backend's check; `[[]]` for other options.
fn backends_taking(name: &str) -> Vec<Vec<String>> {
    use pario::backend::registry;
    let option = name.trim_start_matches('-');
    if pario::backend::registry::module_of(option).is_none() {
        return vec![Vec::new()];
    }
    let taking = registry().iter().filter(|b| b.options.takes(option));
    let words = |b: &str| {
        let mut words = vec!["-a".to_string(), b.to_string()];
        if b.starts_with("S3-") {
            words.push(format!("--{b}.access-key=fuzz"));
            words.push(format!("--{b}.secret-key=fuzz"));
        }
        words
    };
    taking.map(|b| words(b.name)).collect()
}

/// Every way a spelling gives `value`: `--name=V`, `-c V`, `-O name=V`.
fn given(s: &Spelling, value: &str) -> Vec<Vec<String>> {
    let mut forms = Vec::new();
    let long = s.name.starts_with("--");
    match (long, s.value) {
        (true, _) => forms.push(vec![format!("{}={value}", s.name)]),
        (false, true) => forms.push(vec![s.name.clone(), value.to_string()]),
        (false, false) => {}
    }
    if s.directive && long {
        let key = s.name.trim_start_matches('-');
        forms.push(vec!["-O".into(), format!("{key}={value}")]);
    }
    forms
}

/// Every option of `tool` with every hostile value, after the tool's fixed
/// prefix; a backend's options with each backend that takes them, in ior
/// (mdtest and md-workbench list the same options, read by the same code).
fn hostile_cases(tool: &dyn pario::cli::Command) -> Vec<Vec<String>> {
    let mut cases = Vec::new();
    for spelling in tool.options() {
        let module = pario::backend::registry::module_of(spelling.name.trim_start_matches('-'));
        if matches!(spelling.name.as_str(), "-h" | "--help")
            || (module.is_some() && tool.name() != "ior")
        {
            continue;
        }
        for backend in backends_taking(&spelling.name) {
            for value in HOSTILE {
                for form in given(&spelling, value) {
                    cases.push([fixed_prefix(tool.name()), backend.clone(), form].concat());
                }
            }
        }
    }
    cases
}

/// Parses every hostile case of `tool` in this process: none panics, each
/// refusal is one line (a usage error: exit status 2). The refused cases.
fn refused(tool: &'static dyn pario::cli::Command) -> Vec<Vec<String>> {
    let mut refused = Vec::new();
    for args in hostile_cases(tool) {
        let parse = std::panic::AssertUnwindSafe(|| tool.check(tool.name(), &args));
        let outcome = std::panic::catch_unwind(parse);
        let Ok(outcome) = outcome else {
            panic!("{} {args:?}: parsing panicked", tool.name());
        };
        if let Err(e) = outcome {
            let text = e.to_string();
            assert!(
                !text.is_empty() && !text.contains('\n'),
                "{args:?}: {text:?}"
            );
            refused.push(args);
        }
    }
    refused
}

/// A command line as the program receives it, `value`'s bytes as given.
fn os_args(words: &[String], value: &[u8]) -> Vec<OsString> {
    use std::os::unix::ffi::OsStrExt;
    let mut args: Vec<OsString> = words.iter().map(OsString::from).collect();
    if let Some(last) = args.last_mut() {
        let mut bytes = last.as_bytes().to_vec();
        bytes.extend_from_slice(value);
        *last = OsStr::from_bytes(&bytes).to_os_string();
    }
    args
}

/// Runs `pario TOOL ARGS` that must be refused: exit status 2, one line.
fn refused_by_program(tool: &str, args: &[OsString]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(crate::common::bin("pario"));
    cmd.arg(tool)
        .args(args)
        .current_dir(dir.path())
        .env("PARIO_TASKS", "1");
    let mut run = Running::start(cmd);
    if !run.wait_for(Duration::from_secs(60)) {
        run.signal(Signal::INT);
    }
    let end = run.ended();
    let shown = format!("{tool} {args:?}: {end:?}");
    assert_eq!(end.status, Some(2), "{shown}");
    let lines: Vec<&str> = end.stderr.lines().collect();
    assert!(lines.len() == 1 && !lines[0].is_empty(), "{shown}");
    assert!(
        std::fs::read_dir(dir.path()).unwrap().next().is_none(),
        "{shown}"
    );
    end.stderr
}

/// Every option of every tool and every backend option, given hostile
/// values: refused in one line or taken, never a panic; a sample of the
/// refusals (and values that are not UTF-8) through the programs
/// themselves exits with status 2 and one line, leaving nothing.
#[test]
fn hostile_values_are_refused_in_one_line() {
    let mut rng = Rng(setting("PARIO_FUZZ_SEED", 1) | 1);
    let sample = setting("PARIO_FUZZ_PROGRAMS", 3) as usize;
    for tool in TOOLS {
        let refused = refused(*tool);
        assert!(!refused.is_empty(), "{}", tool.name());
        // report and compare print their refusal's text as it is, not
        // through UsageError's one-line display: a value's line break
        // reaches their stderr (left to the rework of their reading).
        let raw = matches!(tool.name(), "report" | "compare");
        let sampled: Vec<&Vec<String>> = refused
            .iter()
            .filter(|args| !raw || !args.iter().any(|a| a.contains('\n')))
            .collect();
        for _ in 0..sample {
            let args = rng.pick(&sampled);
            refused_by_program(tool.name(), &os_args(args, b""));
        }
        // Not UTF-8: refused where the program reads its arguments.
        let words = [fixed_prefix(tool.name()), vec!["-o".into(), String::new()]].concat();
        for args in hostile_cases(*tool).iter().chain([&words]) {
            let e = pario::cli::text_args(os_args(args, NOT_UTF8)).unwrap_err();
            assert!(e.0.contains("not UTF-8") && !e.0.contains('\n'), "{e:?}");
        }
        let args = os_args(rng.pick::<Vec<String>>(&refused), NOT_UTF8);
        let said = refused_by_program(tool.name(), &args);
        assert!(said.contains("is not UTF-8 text"), "{said}");
    }
    // A host list without a host (it once indexed an empty list).
    let keys = ["--S3-libs3.access-key=k", "--S3-libs3.secret-key=s"];
    let args = [&["-a", "S3-libs3", "--S3-libs3.host=,"][..], &keys].concat();
    let args: Vec<OsString> = args.iter().map(OsString::from).collect();
    let said = refused_by_program("ior", &args);
    assert!(said.contains("--S3-libs3.host: empty"), "{said}");
}
