//! End-to-end runs of `ior` with local tasks in a temporary directory.

use crate::common;
use crate::common::*;
use tempfile::tempdir;

const G: u64 = 1234567;

/// The word IOR's default pattern puts at word `i` of a transfer by `rank`.
fn expected(rank: u64, i: u64) -> u64 {
    (rank << 32) | (G + i)
}

#[test]
fn shared_file_write_read_four_tasks() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        4,
        &[
            "-w", "-r", "-t", "4k", "-b", "16k", "-s", "2", "-G", "1234567", "-k", "-o", "shared",
        ],
    );
    run.ok();
    let rows = rows(&run.stdout);
    assert_eq!(
        rows.iter().map(|r| r.access.as_str()).collect::<Vec<_>>(),
        ["write", "read"]
    );
    for r in &rows {
        assert_eq!((r.block_kib, r.xfer_kib, r.iter), (16.0, 4.0, 0));
        assert!(r.total >= r.wr_rd && r.bw > 0.0 && r.iops > 0.0);
    }
    // Layout: segment s, task t, transfer j at s*N*b + t*b + j*t.
    let data = std::fs::read(dir.path().join("shared")).unwrap();
    assert_eq!(data.len(), 4 * 16384 * 2);
    for s in 0..2u64 {
        for t in 0..4u64 {
            for j in 0..4u64 {
                let offset = (s * 4 * 16384 + t * 16384 + j * 4096) as usize;
                assert_eq!(
                    word(&data, offset),
                    expected(t, 0),
                    "segment {s} task {t} transfer {j}"
                );
                assert_eq!(word(&data, offset + 4088), expected(t, 511));
            }
        }
    }
    assert!(run.stdout.contains("Max Write: "));
    assert!(run.stdout.contains("Max Read:  "));
    assert!(run.stdout.contains("\nFinished            : "));
}

#[test]
fn file_per_process_names_sizes_and_contents() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        4,
        &[
            "-w", "-F", "-t", "8k", "-b", "32k", "-s", "3", "-G", "1234567", "-k", "-o", "fpp",
        ],
    )
    .ok();
    assert_eq!(
        entries(dir.path()),
        [
            "fpp.00000000",
            "fpp.00000001",
            "fpp.00000002",
            "fpp.00000003"
        ]
    );
    for t in 0..4u64 {
        let data = std::fs::read(dir.path().join(format!("fpp.{t:08}"))).unwrap();
        assert_eq!(data.len(), 3 * 32768);
        for offset in (0..data.len()).step_by(8192) {
            assert_eq!(word(&data, offset), expected(t, 0));
            assert_eq!(word(&data, offset + 8), expected(t, 1));
        }
    }
}

#[test]
fn files_are_removed_without_k_and_user_files_survive() {
    let dir = tempdir().unwrap();
    std::fs::write(dir.path().join("precious.txt"), b"keep me").unwrap();
    ior(
        dir.path(),
        4,
        &["-F", "-t", "4k", "-b", "8k", "-o", "t", "-i", "2"],
    )
    .ok();
    ior(dir.path(), 2, &["-t", "4k", "-b", "8k", "-o", "shared"]).ok();
    ior(
        dir.path(),
        2,
        &["-F", "-u", "-t", "4k", "-b", "8k", "-o", "sub/x"],
    )
    .ok_dir_missing();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    ior(
        dir.path(),
        2,
        &["-F", "-u", "-t", "4k", "-b", "8k", "-o", "sub/x"],
    )
    .ok();
    assert_eq!(entries(dir.path()), ["precious.txt", "sub"]);
    assert!(
        entries(&dir.path().join("sub")).is_empty(),
        "-u directories created by the run are removed"
    );
    assert_eq!(
        std::fs::read(dir.path().join("precious.txt")).unwrap(),
        b"keep me"
    );
}

trait MissingDir {
    fn ok_dir_missing(&self);
}

impl MissingDir for Run {
    fn ok_dir_missing(&self) {
        self.fails(1, "cannot create directory sub/");
    }
}

#[test]
fn unique_dir_layout_matches_ior() {
    let dir = tempdir().unwrap();
    std::fs::create_dir(dir.path().join("easy")).unwrap();
    ior(
        dir.path(),
        2,
        &[
            "-w",
            "-F",
            "-u",
            "-k",
            "-t",
            "4k",
            "-b",
            "8k",
            "-o",
            "easy/ior_file_easy",
        ],
    )
    .ok();
    assert_eq!(entries(&dir.path().join("easy")), ["0", "1"]);
    assert_eq!(
        entries(&dir.path().join("easy/1")),
        ["ior_file_easy.00000001"]
    );
    // A later read run (-C reads the neighbour's directory) and cleanup.
    ior(
        dir.path(),
        2,
        &[
            "-r",
            "-R",
            "-G",
            "0",
            "-F",
            "-u",
            "-C",
            "-t",
            "4k",
            "-b",
            "8k",
            "-o",
            "easy/ior_file_easy",
        ],
    );
}

#[test]
fn multi_file_suffixes() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        2,
        &[
            "-w", "-m", "-i", "2", "-k", "-F", "-t", "4k", "-b", "4k", "-o", "m",
        ],
    )
    .ok();
    assert_eq!(
        entries(dir.path()),
        [
            "m.00000000.0",
            "m.00000000.1",
            "m.00000001.0",
            "m.00000001.1"
        ]
    );
}

#[test]
fn verification_round_trips_for_every_packet_type() {
    let dir = tempdir().unwrap();
    for packet in ["t", "o", "i", "r"] {
        for layout in [&["-F"][..], &[][..], &["-z"][..], &["-F", "-z", "-C"][..]] {
            let mut args = vec![
                "-w", "-W", "-r", "-R", "-t", "8k", "-b", "32k", "-s", "2", "-l", packet, "-o", "v",
            ];
            args.extend_from_slice(layout);
            let run = ior(dir.path(), 4, &args);
            run.ok();
            assert!(
                !run.stdout.contains("incorrect data"),
                "{packet} {layout:?}: {}",
                run.stdout
            );
        }
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn shuffled_shared_file_is_complete() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        4,
        &[
            "-w",
            "-z",
            "--random-offset-seed=3",
            "-l",
            "o",
            "-G",
            "1234567",
            "-t",
            "4k",
            "-b",
            "16k",
            "-s",
            "2",
            "-k",
            "-o",
            "z",
        ],
    )
    .ok();
    let data = std::fs::read(dir.path().join("z")).unwrap();
    assert_eq!(data.len(), 4 * 16384 * 2);
    // With -l o the first word of each transfer is its offset stamp: every
    // transfer slot was written exactly where it belongs.
    for offset in (0..data.len()).step_by(4096) {
        assert_eq!(word(&data, offset) & 0xffff_ffff, offset as u64);
    }
}

#[test]
fn bad_options_exit_2_with_one_line_and_touch_nothing() {
    let dir = tempdir().unwrap();
    for args in [
        &["-b", "-5"][..],
        &["-t", "1x"],
        &["-b", "abc"],
        &["-s", "0"],
        &["-N", "0"],
        &["--bogus"],
        &["-a", "NOPE"],
        &["-f", "missing.ior"],
        &["-t", "3m", "-b", "4m", "-o", "x"],
        &["-c", "-o", "x"],
        &["-O", "summaryFormat=xml", "-o", "x"],
    ] {
        let run = ior(dir.path(), 2, args);
        assert_eq!(run.status, 2, "{args:?}: {}", run.stderr);
        assert_eq!(run.stderr.lines().count(), 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.starts_with("ior: error: "), "{}", run.stderr);
        assert!(run.stdout.is_empty());
        assert!(entries(dir.path()).is_empty(), "{args:?} created files");
    }
    let env = ior_env(dir.path(), 2, &["-o", "x"], &[("PARIO_TASKS", "zero")]);
    assert_eq!(env.status, 2);
    assert!(env.stderr.contains("PARIO_TASKS=zero"));
}

#[test]
fn missing_directory_is_a_clear_runtime_error() {
    let dir = tempdir().unwrap();
    let run = ior(dir.path(), 4, &["-F", "-o", "nowhere/f"]);
    assert_eq!(run.status, 1);
    assert_eq!(run.stderr.lines().count(), 1, "{}", run.stderr);
    assert!(run.stderr.starts_with("ior: error: task 0: cannot open for writing nowhere/f.00000000: No such file or directory"), "{}", run.stderr);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn a_failing_task_stops_everyone_and_its_files_are_removed() {
    let dir = tempdir().unwrap();
    // Task 2's file is a directory, so only task 2 fails to open.
    std::fs::create_dir(dir.path().join("f.00000002")).unwrap();
    let run = ior(
        dir.path(),
        4,
        &["-F", "-E", "-t", "4k", "-b", "8k", "-o", "f"],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("task 2: cannot open for writing f.00000002: Is a directory"),
        "{}",
        run.stderr
    );
    assert_eq!(
        entries(dir.path()),
        ["f.00000002"],
        "files the run created are gone"
    );
    // With -g the failure surfaces at the barrier after open.
    let run = ior(
        dir.path(),
        4,
        &["-F", "-E", "-g", "-t", "4k", "-b", "8k", "-o", "f"],
    );
    assert_eq!(run.status, 1);
    assert!(run.stderr.contains("task 2: "));
}

#[test]
fn short_file_on_read_names_task_and_offset() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        2,
        &["-w", "-k", "-t", "4k", "-b", "16k", "-o", "s"],
    )
    .ok();
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(dir.path().join("s"))
        .unwrap();
    f.set_len(16384 + 8192).unwrap();
    let run = ior(dir.path(), 2, &["-r", "-t", "4k", "-b", "16k", "-o", "s"]);
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("task 1: cannot read s at offset 24576: short read"),
        "{}",
        run.stderr
    );
    assert_eq!(
        entries(dir.path()),
        ["s"],
        "a read run never removes files it did not write"
    );
}

#[test]
fn read_of_missing_file_fails_cleanly() {
    let dir = tempdir().unwrap();
    let run = ior(dir.path(), 2, &["-r", "-o", "absent"]);
    assert_eq!(run.status, 1);
    assert!(run
        .stderr
        .contains("task 0: cannot open for reading absent: No such file or directory"));
}

#[test]
fn existing_files_with_e_are_kept() {
    let dir = tempdir().unwrap();
    std::fs::write(dir.path().join("old"), vec![0u8; 100]).unwrap();
    ior(
        dir.path(),
        2,
        &["-w", "-E", "-t", "4k", "-b", "8k", "-o", "old"],
    )
    .ok();
    assert_eq!(
        std::fs::metadata(dir.path().join("old")).unwrap().len(),
        16384,
        "overwritten in place, not removed"
    );
}

#[test]
fn other_backends_and_flags() {
    let dir = tempdir().unwrap();
    ior(
        dir.path(),
        2,
        &[
            "-a", "MMAP", "-w", "-r", "-R", "-W", "-t", "4k", "-b", "64k", "-o", "m",
        ],
    )
    .ok();
    ior(
        dir.path(),
        2,
        &[
            "-a",
            "MMAP",
            "--mmap.madv_pattern",
            "--mmap.madv_dont_need",
            "-z",
            "-t",
            "4k",
            "-b",
            "64k",
            "-o",
            "m",
        ],
    )
    .ok();
    ior(
        dir.path(),
        2,
        &[
            "-e", "-Y", "-g", "-x", "-d", "0", "-t", "4k", "-b", "8k", "-o", "p",
        ],
    )
    .ok();
    ior(
        dir.path(),
        3,
        &[
            "-a",
            "DUMMY",
            "-t",
            "8",
            "-b",
            "800",
            "--dummy.delay-xfer=0",
        ],
    )
    .ok();
    ior(
        dir.path(),
        2,
        &["--dryRun", "-t", "4k", "-b", "8k", "-o", "dry"],
    )
    .ok();
    ior(
        dir.path(),
        2,
        &["-z", "-z", "-t", "4k", "-b", "64k", "-o", "rnd"],
    )
    .ok();
    ior(
        dir.path(),
        2,
        &[
            "-z",
            "--randomPrefill=16k",
            "-t",
            "4k",
            "-b",
            "64k",
            "-o",
            "pre",
            "-w",
            "-r",
            "-R",
        ],
    )
    .ok();
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn n_smaller_than_tasks_leaves_the_rest_idle() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        4,
        &[
            "-N", "2", "-F", "-w", "-k", "-t", "4k", "-b", "8k", "-o", "n",
        ],
    );
    run.ok();
    assert!(run.stdout.contains("tasks               : 2\n"));
    assert_eq!(entries(dir.path()), ["n.00000000", "n.00000001"]);
    assert_eq!(summary(&run.stdout)[0][13], "2", "#Tasks column");
}

#[test]
fn verbose_levels() {
    let dir = tempdir().unwrap();
    let quiet = ior(dir.path(), 2, &["-t", "4k", "-b", "8k", "-o", "v"]);
    assert!(!quiet.stdout.contains("remove    "));
    let v1 = ior(dir.path(), 2, &["-v", "-t", "4k", "-b", "8k", "-o", "v"]);
    assert!(v1.stdout.contains("\nremove    -          -"));
    assert!(v1.stdout.contains("Commencing read performance test: "));
    assert!(!v1.stdout.contains("task 0 file"));
    let v2 = ior(
        dir.path(),
        2,
        &["-v", "-v", "-F", "-C", "-t", "4k", "-b", "8k", "-o", "v"],
    );
    assert!(v2.stdout.contains("task 1 file : v.00000001"));
    assert!(v2
        .stdout
        .contains("task 0 (node 0) reads the data of task 0 (node 0)"));
    let v3 = ior(dir.path(), 2, &["-vvv", "-t", "4k", "-b", "8k", "-o", "v"]);
    assert!(v3.stdout.contains("\"transferSize\": 4096"));
}

#[test]
fn scripts_run_several_tests() {
    let dir = tempdir().unwrap();
    std::fs::write(
        dir.path().join("s.ior"),
        "IOR START\n  transferSize=4k\n  blockSize=8k  # small\n  testFile=scripted\nRUN\n  filePerProc=1\nRUN\nIOR STOP\n",
    )
    .unwrap();
    let run = ior(dir.path(), 2, &["-w", "-f", "s.ior"]);
    run.ok();
    assert_eq!(run.stdout.matches("TestID              : ").count(), 2);
    let summary = summary(&run.stdout);
    assert_eq!(summary.len(), 2);
    assert_eq!(
        (summary[0][12].as_str(), summary[1][12].as_str()),
        ("0", "1"),
        "Test# column"
    );
    assert_eq!(
        (summary[0][16].as_str(), summary[1][16].as_str()),
        ("0", "1"),
        "fPP column"
    );
}

#[test]
fn help_and_pario_front_end() {
    let dir = tempdir().unwrap();
    let help = ior(dir.path(), 1, &["-h"]);
    help.ok();
    assert!(help.stdout.starts_with("Synopsis ior"));
    // Every backend's options with their defaults (the list is checked
    // in src/ior/options/tests.rs), the same for --help.
    for line in [
        "\n  --aio.max-pending=128 ",
        "\n  --S3-curl.bucket=test-bucket ",
    ] {
        assert!(help.stdout.contains(line), "{line:?}");
    }
    let long = ior(dir.path(), 1, &["--help"]);
    long.ok();
    assert_eq!(long.stdout, help.stdout);
    let via_pario = pario(dir.path(), &["ior", "-t", "4k", "-b", "8k", "-o", "p"]);
    via_pario.ok();
    assert!(via_pario
        .stdout
        .contains("Command line        : pario ior -t 4k -b 8k -o p\n"));
    assert_eq!(pario(dir.path(), &["frobnicate"]).status, 2);
    assert!(pario(dir.path(), &["--help"]).stdout.contains("ior"));
}

#[test]
fn n_flag_sets_local_tasks_without_env() {
    let dir = tempdir().unwrap();
    let run = common::ior_env(
        dir.path(),
        1,
        &[
            "-N", "3", "-F", "-w", "-k", "-t", "4k", "-b", "4k", "-o", "n",
        ],
        &[],
    );
    run.ok();
    assert_eq!(entries(dir.path()).len(), 3);
}

#[test]
fn a_file_larger_than_written_is_a_warning_and_stays_whole() {
    let dir = tempdir().unwrap();
    let data: Vec<u8> = (0..3 << 20).map(|i| (i % 251) as u8).collect();
    std::fs::write(dir.path().join("big"), &data).unwrap();
    let args = ["-w", "-E", "-k", "-t", "1m", "-b", "1m", "-o", "big"];
    let run = ior(dir.path(), 1, &args);
    run.ok();
    assert!(
        run.stdout.contains(
            "WARNING: Expected aggregate file size = 1048576; stat() of the file(s) reports 3145728"
        ),
        "{}",
        run.stdout
    );
    let mut strict = args.to_vec();
    strict.push("--warningAsErrors");
    let run = ior(dir.path(), 1, &strict);
    run.fails(1, "task 0: WARNING: Expected aggregate file size = 1048576; stat() of the file(s) reports 3145728 (--warningAsErrors)");
    // -E writes the first MiB in place: the rest of the file is untouched.
    let after = std::fs::read(dir.path().join("big")).unwrap();
    assert_eq!(after.len(), data.len());
    assert_eq!(after[1 << 20..], data[1 << 20..]);
}

#[test]
fn mmap_cannot_map_an_empty_file() {
    let dir = tempdir().unwrap();
    std::fs::write(dir.path().join("empty"), b"").unwrap();
    let run = ior(
        dir.path(),
        1,
        &["-a", "MMAP", "-r", "-t", "4k", "-b", "4k", "-o", "empty"],
    );
    assert_eq!(run.status, 1);
    assert!(
        run.stderr
            .contains("task 0: cannot open for reading empty: the file is empty"),
        "{}",
        run.stderr
    );
    assert_eq!(entries(dir.path()), ["empty"], "a read run removes nothing");
}

#[test]
fn directives_cannot_be_nested() {
    let dir = tempdir().unwrap();
    let run = ior(dir.path(), 1, &["-O", "directives=blockSize=1m", "-o", "x"]);
    assert_eq!(run.status, 2);
    assert_eq!(
        run.stderr,
        "ior: error: directive 'directives' cannot be nested\n"
    );
    assert!(entries(dir.path()).is_empty());
}

/// Without the `hdf5` feature, `-a HDF5` and its options say how to get it,
/// before anything is touched.
/// (Not named after HDF5: CI's MPI run takes every test whose name says it.)
#[test]
fn the_h5_api_of_a_build_without_it_needs_a_rebuild() {
    if common::programs_built_with("hdf5") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let run = common::ior(dir.path(), 1, &["-a", "HDF5", "-w", "-o", "h"]);
    run.fails(
        2,
        "-a HDF5: this API needs parallel HDF5: rebuild pario with '--features hdf5'",
    );
    let run = common::ior(dir.path(), 1, &["-a", "POSIX", "--hdf5.noFill", "-o", "h"]);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(common::entries(dir.path()).is_empty());
}
