//! End-to-end runs of `mdtest` with local tasks in a temporary directory.

use std::path::Path;

use crate::common::*;
use tempfile::tempdir;

const OPERATIONS: [&str; 10] = [
    "Directory creation",
    "Directory stat",
    "Directory rename",
    "Directory removal",
    "File creation",
    "File stat",
    "File read",
    "File removal",
    "Tree creation",
    "Tree removal",
];

#[test]
fn a_full_run_leaves_nothing_and_prints_mdtests_table() {
    let dir = tempdir().unwrap();
    let run = mdtest(
        dir.path(),
        2,
        &["-n", "20", "-z", "1", "-b", "2", "-i", "2", "-d", "out"],
    );
    run.ok();
    assert!(
        !dir.path().join("out").exists(),
        "the run created out and must remove it"
    );
    assert!(run.stdout.starts_with("-- started at "));
    assert!(run
        .stdout
        .contains("was launched with 2 total task(s) on 1 node(s)"));
    assert!(run.stdout.contains("Command line used: "));
    assert!(run.stdout.contains("'-n' '20' '-z' '1'"));
    assert!(run.stdout.contains("Nodemap: 11\n"));
    // -n 20 over three directories: six per directory, 18 per task.
    assert!(run.stdout.contains("\n2 tasks, 36 files/directories\n"));
    let tables = mdtest_rows(&run.stdout, "SUMMARY rate");
    assert_eq!(tables.len(), 1);
    let names: Vec<&str> = tables[0].iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, OPERATIONS);
    for (name, [max, min, mean, sd]) in &tables[0] {
        assert!(*max >= *mean && *mean >= *min && *min > 0.0, "{name}");
        assert!(*sd >= 0.0);
    }
    assert!(run
        .stdout
        .contains("\nSUMMARY rate (in ops/sec): (of 2 iterations)\n"));
    assert!(run.stdout.trim_end().ends_with("--") && run.stdout.contains("-- finished at "));
}

#[test]
fn files_only_directories_only_and_times() {
    let dir = tempdir().unwrap();
    let run = mdtest(dir.path(), 1, &["-n", "5", "-F", "-P", "-d", "out"]);
    run.ok();
    let rate = mdtest_rows(&run.stdout, "SUMMARY rate");
    let names: Vec<&str> = rate[0].iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, &OPERATIONS[4..]);
    let time = mdtest_rows(&run.stdout, "SUMMARY time");
    assert_eq!(time[0].len(), 6);
    assert!(run
        .stdout
        .contains("SUMMARY time (in seconds): (of 1 iterations)"));
    let d = mdtest(dir.path(), 1, &["-n", "5", "-D", "-Z", "-d", "out"]);
    d.ok();
    assert!(!d.stdout.contains("SUMMARY rate"));
    let names: Vec<String> = mdtest_rows(&d.stdout, "SUMMARY time")[0]
        .iter()
        .map(|(n, _)| n.clone())
        .collect();
    assert_eq!(
        names,
        [
            "Directory creation",
            "Directory stat",
            "Directory rename",
            "Directory removal",
            "Tree creation",
            "Tree removal"
        ]
    );
    assert!(d.stdout.contains("1 tasks, 5 directories"));
}

#[test]
fn phases_not_run_print_zero() {
    let dir = tempdir().unwrap();
    let run = mdtest(dir.path(), 1, &["-C", "-n", "5", "-d", "out"]);
    run.ok();
    let rows = &mdtest_rows(&run.stdout, "SUMMARY rate")[0];
    for (name, v) in rows {
        let ran = name.ends_with("creation");
        assert_eq!(v[0] > 0.0, ran, "{name}: {v:?}");
    }
}

#[test]
fn written_data_follow_iors_patterns() {
    let dir = tempdir().unwrap();
    mdtest(
        dir.path(),
        2,
        &["-C", "-F", "-n", "3", "-w", "4100", "-G", "1234", "-d", "t"],
    )
    .ok();
    let file = |task: u64, k: u64, d: &str| {
        std::fs::read(dir.path().join(format!(
            "{d}/test-dir.0-0/mdtest_tree.0/file.mdtest.{task}.{k}"
        )))
        .unwrap()
    };
    let data = file(1, 2, "t");
    assert_eq!(data.len(), 4100);
    // Timestamp: word i is rank << 32 | (G + i); trailing bytes their index.
    assert_eq!(word(&data, 0), (1 << 32) | 1234);
    assert_eq!(word(&data, 8 * 511), (1 << 32) | (1234 + 511));
    assert_eq!(data[4099], (4099 % 256) as u8);
    // Offset: every 4 KiB word k*item (k from 1) | rank << 32.
    mdtest(
        dir.path(),
        1,
        &[
            "-C",
            "-F",
            "-n",
            "3",
            "-w",
            "8192",
            "-G",
            "1234",
            "--dataPacketType=o",
            "-d",
            "o",
        ],
    )
    .ok();
    let data = file(0, 2, "o");
    assert_eq!(word(&data, 0), 2);
    assert_eq!(word(&data, 4096), 4);
    assert_eq!(word(&data, 8), 1234 + 1);
}

#[test]
fn verification_catches_a_corrupted_file() {
    let dir = tempdir().unwrap();
    let common = ["-F", "-n", "4", "-G", "77", "-d", "out"];
    let with = |extra: &[&'static str]| {
        let mut v: Vec<&str> = extra.to_vec();
        v.extend_from_slice(&common);
        v
    };
    mdtest(dir.path(), 2, &with(&["-C", "-w", "64", "--verify-write"])).ok();
    mdtest(dir.path(), 2, &with(&["-E", "-X", "-e", "64"])).ok();
    let victim = dir
        .path()
        .join("out/test-dir.0-0/mdtest_tree.0/file.mdtest.1.2");
    let mut data = std::fs::read(&victim).unwrap();
    data[20] ^= 0xff;
    std::fs::write(&victim, &data).unwrap();
    let bad = mdtest(dir.path(), 2, &with(&["-E", "-X", "-e", "64"]));
    assert_eq!(bad.status, 3, "{}{}", bad.stdout, bad.stderr);
    assert!(bad.stdout.contains(
        "ERROR: verifying the data on read (1 errors)! Take the performance values with care!"
    ));
    assert!(
        bad.stderr.contains("1 errors found: 1 files and "),
        "{}",
        bad.stderr
    );
    // -v names the wrong file, on the line of the task that read it.
    let named = mdtest(dir.path(), 2, &with(&["-E", "-X", "-e", "64", "-v"]));
    assert_eq!(named.status, 3, "{}{}", named.stdout, named.stderr);
    let lines: Vec<&str> = named
        .stdout
        .lines()
        .filter(|l| l.contains("verification error in file"))
        .collect();
    assert_eq!(lines.len(), 1, "{}", named.stdout);
    assert!(lines[0].starts_with("task 1: verification error in file: "));
    assert!(
        lines[0].ends_with("/mdtest_tree.0/file.mdtest.1.2"),
        "{}",
        lines[0]
    );
    // A different seed makes every file wrong.
    let seed = mdtest(
        dir.path(),
        1,
        &[
            "-E", "-X", "-e", "64", "-F", "-n", "4", "-G", "78", "-d", "out",
        ],
    );
    assert_eq!(seed.status, 3);
    assert!(seed.stdout.contains("(4 errors)"));
    // Reading past the end is a failure with the path named.
    let short = mdtest(dir.path(), 1, &with(&["-E", "-e", "65"]));
    assert_eq!(short.status, 1);
    assert!(short.stderr.contains("cannot read") && short.stderr.contains("file.mdtest.0.0"));
    mdtest(dir.path(), 2, &with(&["-r"])).ok();
    assert!(tree_of(&dir.path().join("out")).is_empty());
}

#[test]
fn user_files_survive_every_phase_and_failure() {
    let dir = tempdir().unwrap();
    let out = dir.path().join("out");
    std::fs::create_dir_all(out.join("mine/sub")).unwrap();
    std::fs::write(out.join("keep.txt"), b"precious").unwrap();
    std::fs::write(out.join("mine/sub/data"), b"more").unwrap();
    let before = tree_of(&out);
    let check = |what: &str| {
        assert_eq!(tree_of(&out), before, "after {what}");
        assert_eq!(std::fs::read(out.join("keep.txt")).unwrap(), b"precious");
    };
    let base = [
        "-n", "6", "-z", "1", "-b", "2", "-w", "8", "-e", "8", "-d", "out",
    ];
    let with = |extra: &[&'static str]| {
        let mut v: Vec<&str> = extra.to_vec();
        v.extend_from_slice(&base);
        v
    };
    mdtest(dir.path(), 2, &with(&[])).ok();
    check("a full run");
    for phase in ["-C", "-T", "-E", "-U", "-r"] {
        mdtest(dir.path(), 2, &with(&[phase])).ok();
    }
    check("split runs");
    // Failures: stat of nothing, then a create that meets a file in its way
    // (the run removes what it created, and only that).
    let fail = mdtest(dir.path(), 2, &with(&["-T"]));
    assert_eq!(fail.status, 1);
    check("a failed stat");
    mdtest(dir.path(), 2, &with(&["-C", "-D"])).ok();
    // -n 6 over three directories: items 4 and 5 are in directory 2.
    let in_the_way = out.join("test-dir.0-0/mdtest_tree.0/mdtest_tree.2/file.mdtest.1.4");
    std::fs::write(&in_the_way, b"user").unwrap();
    let fail = mdtest(dir.path(), 2, &with(&["-C", "-F"]));
    assert_eq!(fail.status, 1, "{}", fail.stdout);
    assert!(
        fail.stderr.contains("task 1: cannot create")
            && fail.stderr.contains("file.mdtest.1.4")
            && fail.stderr.contains("File exists"),
        "{}",
        fail.stderr
    );
    assert_eq!(std::fs::read(&in_the_way).unwrap(), b"user");
    // Nothing of the failed run is left: only the earlier -D run's tree.
    assert!(!tree_of(&out).iter().any(|p| p.contains("file.mdtest.0")));
    std::fs::remove_file(&in_the_way).unwrap();
    mdtest(dir.path(), 2, &with(&["-r", "-D"])).ok();
    check("the clean-up of the -D run");
}

#[test]
fn a_failure_names_the_task_path_and_error() {
    let dir = tempdir().unwrap();
    mdtest(dir.path(), 3, &["-C", "-F", "-n", "4", "-d", "out"]).ok();
    let victim = dir
        .path()
        .join("out/test-dir.0-0/mdtest_tree.0/file.mdtest.2.3");
    std::fs::remove_file(&victim).unwrap();
    let run = mdtest(dir.path(), 3, &["-T", "-F", "-n", "4", "-d", "out"]);
    assert_eq!(run.status, 1);
    let line = run.stderr.lines().next().unwrap();
    assert_eq!(
        line,
        format!(
            "mdtest: error: task 2: cannot stat out/test-dir.0-0/mdtest_tree.0/file.mdtest.2.3: No such file or directory (os error 2)"
        )
    );
    assert!(!run.stdout.contains("SUMMARY"));
    // With -N 1 the task that stats task 2's files is task 1.
    let run = mdtest(
        dir.path(),
        3,
        &["-T", "-F", "-n", "4", "-N", "1", "-d", "out"],
    );
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("task 1: cannot stat"), "{}", run.stderr);
}

#[test]
fn rename_keeps_every_name() {
    let dir = tempdir().unwrap();
    mdtest(dir.path(), 2, &["-C", "-D", "-n", "5", "-d", "out"]).ok();
    let before = tree_of(&dir.path().join("out"));
    let run = mdtest(dir.path(), 2, &["-U", "-D", "-n", "5", "-d", "out"]);
    run.ok();
    let rows = &mdtest_rows(&run.stdout, "SUMMARY rate")[0];
    assert!(rows
        .iter()
        .any(|(n, v)| n == "Directory rename" && v[0] > 0.0));
    assert_eq!(tree_of(&dir.path().join("out")), before);
}

#[test]
fn sweeps_run_each_task_count() {
    let dir = tempdir().unwrap();
    let run = mdtest(
        dir.path(),
        3,
        &[
            "-n", "4", "-F", "-f", "1", "-l", "3", "-s", "1", "-d", "out",
        ],
    );
    run.ok();
    for n in 1..=3 {
        assert!(run
            .stdout
            .contains(&format!("\n{n} tasks, {} files\n", 4 * n)));
    }
    assert_eq!(mdtest_rows(&run.stdout, "SUMMARY rate").len(), 3);
    let too_many = mdtest(dir.path(), 2, &["-n", "1", "-l", "3", "-d", "x"]);
    assert_eq!(too_many.status, 2);
    assert!(!dir.path().join("x").exists());
}

#[test]
fn random_order_barriers_and_hooks() {
    let dir = tempdir().unwrap();
    let marks = dir.path().join("marks");
    let before = format!("--run-cmd-before-phase=echo b >> {}", marks.display());
    let after = format!("--run-cmd-after-phase=echo a >> {}", marks.display());
    let run = mdtest(
        dir.path(),
        2,
        &[
            "-n",
            "30",
            "-F",
            "-R",
            "--random-seed=9",
            "-B",
            "-e",
            "0",
            "-d",
            "out",
            &before,
            &after,
        ],
    );
    run.ok();
    assert!(run.stdout.contains("random seed: 9"));
    // Four file phases, each command once per task.
    let text = std::fs::read_to_string(&marks).unwrap();
    assert_eq!(text.matches('b').count(), 8);
    assert_eq!(text.matches('a').count(), 8);
}

#[test]
fn collective_creates_and_unique_dirs() {
    let dir = tempdir().unwrap();
    let run = mdtest(
        dir.path(),
        3,
        &[
            "-c", "-n", "3", "-w", "16", "-e", "16", "-X", "-G", "3", "-d", "out",
        ],
    );
    run.ok();
    assert!(!dir.path().join("out").exists());
    let run = mdtest(dir.path(), 2, &["-c", "-u", "-C", "-n", "2", "-d", "out"]);
    run.ok();
    let tree = tree_of(&dir.path().join("out"));
    assert!(tree.contains(&"test-dir.0-0/mdtest_tree.1.0/dir.mdtest.1.1".to_string()));
    mdtest(dir.path(), 2, &["-c", "-u", "-r", "-n", "2", "-d", "out"]).ok();
    assert!(tree_of(&dir.path().join("out")).is_empty());
}

#[test]
fn bad_options_are_one_line_and_create_nothing() {
    let dir = tempdir().unwrap();
    let cases: &[&[&str]] = &[
        &["-n", "-5"],
        &["-n", "10", "-I", "3"],
        &["-n", "10", "-I", "5", "-u"],
        &["-z", "2", "-b", "0"],
        &["-W", "5", "-b", "2", "-z", "1"],
        &["-B", "-N", "1"],
        &["-k", "-w", "10"],
        &["-X", "-e", "0"],
        &["-X", "-C", "-e", "8"],
        &["-E", "-X", "-e", "8"],
        &["-C", "-E", "-e", "9", "-w", "8"],
        &["-u", "-S"],
        &["-c", "-S"],
        &["-d", "a@b"],
        &["-d", "a@@b"],
        &["-a", "MMAP"],
        &["-a", "NOPE"],
        &["--dataPacketType=z"],
        &["-f", "3", "-l", "2"],
        &["-i", "0"],
        &["--nonsense"],
        &["-q"],
        &["--savePerOpDataCSV=x"],
        &["--verify-write"],
        &["-a", "DUMMY", "-w", "8", "--verify-write"],
    ];
    for args in cases {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(["-d", "never"]);
        if args.contains(&"-d") {
            all.truncate(args.len());
        }
        let run = mdtest(dir.path(), 2, &all);
        assert_eq!(run.status, 2, "{args:?}: {}{}", run.stdout, run.stderr);
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("mdtest: error: "), "{}", run.stderr);
        assert!(
            entries(dir.path()).is_empty(),
            "{args:?} created {:?}",
            entries(dir.path())
        );
    }
}

#[test]
fn help_and_the_pario_front_end() {
    let dir = tempdir().unwrap();
    let help = mdtest(dir.path(), 1, &["-h"]);
    help.ok();
    assert!(help.stdout.starts_with("Synopsis mdtest"));
    for opt in [
        "-n=0",
        "-I=0",
        "-z=0",
        "-b=1",
        "--verify-write",
        "--run-cmd-before-phase",
    ] {
        assert!(help.stdout.contains(opt), "{opt}");
    }
    let run = pario(dir.path(), &["mdtest", "-n", "2", "-d", "p"]);
    run.ok();
    assert!(run
        .stdout
        .contains("Command line used: pario mdtest '-n' '2' '-d' 'p'"));
    assert!(!Path::new(&dir.path().join("p")).exists());
}

#[test]
fn options_for_timing_and_reporting() {
    let dir = tempdir().unwrap();
    let run = mdtest(
        dir.path(),
        2,
        &[
            "-n",
            "5",
            "-w",
            "8",
            "-e",
            "8",
            "-y",
            "-Y",
            "-t",
            "-u",
            "-p",
            "0",
            "-i",
            "2",
            "-V",
            "1",
            "--showRankStatistics",
            "--print-all-procs",
            "--saveRankPerformanceDetails=ranks.csv",
            "-d",
            "out",
        ],
    );
    run.ok();
    assert!(run.stdout.contains(
        "   Operation     per Rank: Max            Min           Mean      per Iteration: Max"
    ));
    assert!(run
        .stdout
        .contains("\nPer process result (rate):\niteration: 0\nTest Directory creation "));
    assert!(run
        .stdout
        .contains("V-1: Rank   0 unique_dir_per_task     : True"));
    assert!(run.stdout.contains("V-1: Rank   0    File read         : "));
    let csv = std::fs::read_to_string(dir.path().join("ranks.csv")).unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0]
        .starts_with("rank,iteration,items,rate-Directory creation,time-Directory creation,"));
    // Per iteration: one row for all tasks, one per task.
    assert_eq!(lines.len(), 1 + 2 * 3);
    assert!(lines[1].starts_with("all,0,10,"));
    assert!(lines[2].starts_with("0,0,5,"));
    assert!(lines
        .iter()
        .skip(1)
        .all(|l| l.split(',').count() == 3 + 2 * 10));
    assert!(!dir.path().join("out").exists());
}

#[test]
fn shared_files_this_run_did_not_create_are_never_written() {
    let dir = tempdir().unwrap();
    let args = ["-C", "-S", "-n", "2", "-w", "8", "-d", "out"];
    mdtest(dir.path(), 2, &args).ok();
    let shared = dir
        .path()
        .join("out/test-dir.0-0/mdtest_tree.0/file.mdtest.shared.0");
    std::fs::write(&shared, b"not mdtest's").unwrap();
    let before = tree_of(&dir.path().join("out"));
    let run = mdtest(dir.path(), 2, &args);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr.contains(
            "task 0: out/test-dir.0-0/mdtest_tree.0/file.mdtest.shared.0 exists already: -S would write into a file this run did not create"
        ),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(&shared).unwrap(), b"not mdtest's");
    assert_eq!(tree_of(&dir.path().join("out")), before);
}

#[test]
fn a_tree_directory_holding_other_files_is_left_with_a_warning() {
    for strict in [false, true] {
        let dir = tempdir().unwrap();
        mdtest(dir.path(), 1, &["-C", "-n", "2", "-d", "out"]).ok();
        let tree = dir.path().join("out/test-dir.0-0/mdtest_tree.0");
        std::fs::write(tree.join("user.txt"), b"mine").unwrap();
        let mut args = vec!["-r", "-n", "2", "-d", "out"];
        if strict {
            args.push("--warningAsErrors");
        }
        let run = mdtest(dir.path(), 1, &args);
        let warning =
            "WARNING: out/test-dir.0-0/mdtest_tree.0 is not empty: pario leaves it and what it holds in place";
        if strict {
            assert_eq!(run.status, 1);
            assert!(
                run.stderr
                    .contains(&format!("task 0: {warning} (--warningAsErrors)")),
                "{}",
                run.stderr
            );
        } else {
            run.ok();
            assert!(run.stdout.contains(warning), "{}", run.stdout);
        }
        assert_eq!(std::fs::read(tree.join("user.txt")).unwrap(), b"mine");
        assert_eq!(
            tree_of(&dir.path().join("out")),
            [
                "test-dir.0-0",
                "test-dir.0-0/mdtest_tree.0",
                "test-dir.0-0/mdtest_tree.0/user.txt"
            ],
            "strict: {strict}"
        );
    }
}

#[test]
fn phase_commands_that_fail_or_cannot_start() {
    let dir = tempdir().unwrap();
    // A command that fails is a warning.
    let run = mdtest(
        dir.path(),
        1,
        &["-F", "-n", "2", "-d", "out", "--run-cmd-after-phase=exit 3"],
    );
    run.ok();
    assert!(
        run.stdout
            .contains("WARNING: the epilogue \"exit 3\" exited with exit status: 3"),
        "{}",
        run.stdout
    );
    // A command that cannot start (no shell on the PATH) fails the run,
    // which removes what it created. Two tasks: the local engine, since a
    // single task built with MPI would start MPI, which needs the PATH.
    let out = std::process::Command::new(crate::common::bin("mdtest"))
        .args(["-F", "-n", "2", "-d", "out", "--run-cmd-before-phase=true"])
        .current_dir(dir.path())
        .env("PARIO_TASKS", "2")
        .env_remove("IOR_FAKE_NODES")
        .env_remove("IOR_FAKE_TASK_PER_NODES")
        .env_remove("PARIO_FAKE_PLACEMENT")
        .env("PATH", dir.path().join("no-such-dir"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("task 0: cannot run the prologue \"true\": No such file or directory"),
        "{stderr}"
    );
    assert!(tree_of(&dir.path().join("out")).is_empty());
}

#[test]
fn directives_cannot_be_nested() {
    let dir = tempdir().unwrap();
    let run = mdtest(dir.path(), 1, &["-O", "directives=items=1", "-d", "out"]);
    assert_eq!(run.status, 2);
    assert_eq!(
        run.stderr,
        "mdtest: error: directive 'directives' cannot be nested\n"
    );
    assert!(entries(dir.path()).is_empty());
}
