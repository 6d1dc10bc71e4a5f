//! Data integrity end to end: every packet type round-trips (shared file and
//! `-F`, `-C` and `-Z` across fake nodes, `-W` and `-R`), and damaged data is
//! caught with exact error counts and offsets: a flipped bit, a truncated
//! file, swapped transfers (`-l o`), another signature, another task's data,
//! another transfer size; `-q`, `-K` and exit status 3.
//!
//! Local tasks (`PARIO_TASKS`), temporary directories only.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};

use crate::common::*;
use tempfile::tempdir;

/// The `-v -v -v` lines `task N: wrong data in F at offset O: expected E, read A`.
#[derive(Debug, PartialEq)]
struct Wrong {
    task: usize,
    file: String,
    offset: u64,
    expected: u64,
    actual: u64,
}

fn wrong_lines(stdout: &str) -> Vec<Wrong> {
    stdout
        .lines()
        .filter(|l| l.contains(": wrong data in "))
        .map(|l| {
            let (task, rest) = l
                .strip_prefix("task ")
                .and_then(|r| r.split_once(": wrong data in "))
                .unwrap_or_else(|| panic!("{l}"));
            let (file, rest) = rest.split_once(" at offset ").unwrap();
            let (offset, rest) = rest.split_once(": expected 0x").unwrap();
            let (expected, actual) = rest.split_once(", read 0x").unwrap();
            Wrong {
                task: task.parse().unwrap(),
                file: file.to_string(),
                offset: offset.parse().unwrap(),
                expected: u64::from_str_radix(expected, 16).unwrap(),
                actual: u64::from_str_radix(actual, 16).unwrap(),
            }
        })
        .collect()
}

/// The counts of the read (or write-check) warning:
/// `(errors, transfers checked, bytes wrong)`.
fn error_counts(stdout: &str, access: &str) -> Option<(u64, u64, u64)> {
    let prefix = format!("WARNING: incorrect data on {access} (");
    let line = stdout.lines().find(|l| l.starts_with(&prefix))?;
    let nums: Vec<u64> = line[prefix.len()..]
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .map(|s| s.parse().unwrap())
        .collect();
    // "N errors found: N of M transfers, B bytes wrong"
    assert_eq!(nums.len(), 4, "{line}");
    assert_eq!(nums[0], nums[1], "{line}");
    Some((nums[0], nums[2], nums[3]))
}

/// A data error: exit status 3, the counts on stderr, the warning on stdout.
fn assert_data_errors(run: &Run, errors: u64, checked: u64, bytes: u64) {
    assert_eq!(
        run.status, 3,
        "stdout:\n{}\nstderr:\n{}",
        run.stdout, run.stderr
    );
    assert_eq!(
        error_counts(&run.stdout, "read"),
        Some((errors, checked, bytes)),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.contains(&format!(
            "{errors} errors found: {errors} transfers and {bytes} bytes were wrong"
        )),
        "{}",
        run.stderr
    );
}

fn edit(path: &Path, f: impl FnOnce(&mut Vec<u8>)) {
    let mut data = std::fs::read(path).unwrap();
    f(&mut data);
    std::fs::write(path, data).unwrap();
}

/// Word `i` of a transfer written by `rank` with `-l t -G g`.
fn t_word(g: u64, rank: u64, i: u64) -> u64 {
    (rank << 32) | (g + i)
}

const VVV: [&str; 3] = ["-v", "-v", "-v"];

// -- round trips ------------------------------------------------------------

#[test]
fn every_packet_type_round_trips_shared_and_file_per_process() {
    let dir = tempdir().unwrap();
    for packet in ["t", "o", "i", "r"] {
        for layout in [&[][..], &["-F"][..]] {
            // Odd transfer sizes (IOR's must be multiples of 8): a partial
            // last 4 KiB group of 244 words, and one of a single word.
            for (t, b) in [("47008", "94016"), ("4104", "8208")] {
                let mut args = vec![
                    "-w", "-W", "-r", "-R", "-t", t, "-b", b, "-s", "3", "-l", packet, "-o", "rt",
                ];
                args.extend_from_slice(layout);
                let run = ior(dir.path(), 3, &args);
                assert_clean(&run, &format!("-l {packet} {layout:?} -t {t}"));
            }
        }
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn reordered_reads_across_nodes_verify_against_the_writer() {
    let dir = tempdir().unwrap();
    for packet in ["t", "o", "i", "r"] {
        for layout in [&[][..], &["-F"][..]] {
            for reorder in [&["-C"][..], &["-Z", "-X", "5"][..]] {
                let mut args = vec![
                    "-w", "-W", "-r", "-R", "-t", "8k", "-b", "24k", "-s", "2", "-l", packet, "-o",
                    "cz", "-v", "-v",
                ];
                args.extend_from_slice(layout);
                args.extend_from_slice(reorder);
                let run = ior_env(dir.path(), 4, &args, &TWO_NODES);
                let what = format!("-l {packet} {layout:?} {reorder:?}");
                assert_clean(&run, &what);
                // The data really came from other tasks.
                let from_others = run
                    .stdout
                    .lines()
                    .filter(|l| l.contains(") reads the data of task "))
                    .filter(|l| {
                        let reader = l.split_whitespace().nth(1).unwrap();
                        let writer = l.split_whitespace().nth(9).unwrap();
                        reader != writer
                    })
                    .count();
                assert!(from_others > 0, "{what}:\n{}", run.stdout);
            }
        }
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn c_reads_the_other_node_and_expects_its_writer() {
    // -C with two nodes of two tasks: task 0 reads the data of task 2.
    let dir = tempdir().unwrap();
    let common = ["-t", "4k", "-b", "16k", "-F", "-G", "1000", "-k", "-o", "f"];
    ior_env(dir.path(), 4, &[&["-w"], &common[..]].concat(), &TWO_NODES).ok();
    edit(&dir.path().join("f.00000002"), |d| d[4096 + 24] ^= 1);
    let args = [&["-r", "-R", "-C"], &common[..], &VVV[..]].concat();
    let run = ior_env(dir.path(), 4, &args, &TWO_NODES);
    assert_data_errors(&run, 1, 16, 8);
    assert_eq!(
        wrong_lines(&run.stdout),
        [Wrong {
            task: 0,
            file: "f.00000002".into(),
            offset: 4096 + 24,
            expected: t_word(1000, 2, 3),
            actual: t_word(1000, 2, 3) ^ 1,
        }]
    );
}

// -- damage -----------------------------------------------------------------

#[test]
fn one_flipped_bit_in_the_middle_of_a_file() {
    let dir = tempdir().unwrap();
    let common = [
        "-t", "4k", "-b", "64k", "-s", "2", "-G", "7", "-k", "-o", "f",
    ];
    // File per process: byte 70000 of task 1's file.
    ior(dir.path(), 2, &[&["-w", "-F"], &common[..]].concat()).ok();
    edit(&dir.path().join("f.00000001"), |d| d[70000] ^= 0x10);
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R", "-F"], &common[..], &VVV[..]].concat(),
    );
    assert_data_errors(&run, 1, 64, 8);
    // Transfer at 69632, word (70000 - 69632) / 8 = 46.
    let expected = t_word(7, 1, 46);
    assert_eq!(
        wrong_lines(&run.stdout),
        [Wrong {
            task: 1,
            file: "f.00000001".into(),
            offset: 70000,
            expected,
            actual: expected ^ 0x10,
        }]
    );
    // Without -v -v -v the counts are still there, the words are not.
    let run = ior(dir.path(), 2, &[&["-r", "-R", "-F"], &common[..]].concat());
    assert_data_errors(&run, 1, 64, 8);
    assert!(wrong_lines(&run.stdout).is_empty());

    // Shared file: byte 3 of word 1000 of the file (segment 0, task 0's
    // block, transfer 1, word 488) is task 0's; the same byte in the second
    // segment's task-1 block (offset 2·64k + 64k + 8000) is task 1's.
    ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
    edit(&dir.path().join("f"), |d| {
        d[8003] ^= 0x80;
        d[3 * 65536 + 8003] ^= 0x01;
    });
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R"], &common[..], &VVV[..]].concat(),
    );
    assert_data_errors(&run, 2, 64, 16);
    let mut lines = wrong_lines(&run.stdout);
    lines.sort_by_key(|w| w.task);
    let (e0, e1) = (t_word(7, 0, 488), t_word(7, 1, 488));
    assert_eq!(
        lines,
        [
            Wrong {
                task: 0,
                file: "f".into(),
                offset: 8000,
                expected: e0,
                actual: e0 ^ (0x80 << 24),
            },
            Wrong {
                task: 1,
                file: "f".into(),
                offset: 3 * 65536 + 8000,
                expected: e1,
                actual: e1 ^ (0x01 << 24),
            },
        ]
    );
}

#[test]
fn a_truncated_file() {
    let dir = tempdir().unwrap();
    let common = [
        "-t", "4k", "-b", "64k", "-s", "2", "-F", "-G", "7", "-k", "-o", "f",
    ];
    ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
    let file = dir.path().join("f.00000001");
    // Cut in the middle of a transfer: the read of that transfer is short,
    // which is an I/O failure (as in IOR), named with task and offset.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(65536 + 1000)
        .unwrap();
    let run = ior(dir.path(), 2, &[&["-r", "-R"], &common[..]].concat());
    run.fails(
        1,
        "task 1: cannot read f.00000001 at offset 65536: short read",
    );
    // Truncated and grown back to its size (a hole of zeros): the data of
    // the 16 transfers past the cut is wrong, every byte of it.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len(131072)
        .unwrap();
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R"], &common[..], &VVV[..]].concat(),
    );
    assert_data_errors(&run, 16, 64, 16 * 4096 - 1000);
    let lines = wrong_lines(&run.stdout);
    // The first ten wrong words of task 1: from the cut, word-aligned.
    assert_eq!(lines.len(), 10);
    assert_eq!(lines[0].offset, 65536 + 1000);
    assert_eq!(lines[0].expected, t_word(7, 1, 125));
    assert_eq!(lines[0].actual, 0);
    assert!(lines.windows(2).all(|w| w[1].offset == w[0].offset + 8));
}

#[test]
fn two_swapped_transfers_are_caught_with_offset_packets() {
    let dir = tempdir().unwrap();
    for packet in ["o", "t"] {
        let common = [
            "-t", "8k", "-b", "64k", "-F", "-l", packet, "-G", "7", "-k", "-o", "f",
        ];
        ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
        edit(&dir.path().join("f.00000000"), |d| {
            let (a, b) = d.split_at_mut(16384);
            a[8192..].swap_with_slice(&mut b[..8192]);
        });
        let run = ior(
            dir.path(),
            2,
            &[&["-r", "-R"], &common[..], &VVV[..]].concat(),
        );
        if packet == "t" {
            // Every transfer of `t` holds the same words: a swap is invisible.
            assert_clean(&run, "-l t swap");
            continue;
        }
        // Two transfers, each with its two offset stamps wrong.
        assert_data_errors(&run, 2, 16, 4 * 8);
        let stamp = |offset: u64, k: u64| (offset * k) & 0xffff_ffff;
        let got: Vec<(u64, u64, u64)> = wrong_lines(&run.stdout)
            .iter()
            .map(|w| (w.offset, w.expected, w.actual))
            .collect();
        assert_eq!(
            got,
            [
                (8192, stamp(8192, 1), stamp(16384, 1)),
                (12288, stamp(8192, 2), stamp(16384, 2)),
                (16384, stamp(16384, 1), stamp(8192, 1)),
                (20480, stamp(16384, 2), stamp(8192, 2)),
            ]
        );
    }
}

#[test]
fn data_written_with_another_signature() {
    let dir = tempdir().unwrap();
    let common = ["-t", "4k", "-b", "64k", "-s", "2", "-F", "-k", "-o", "f"];
    ior(dir.path(), 2, &[&["-w", "-G", "1"], &common[..]].concat()).ok();
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R", "-G", "2"], &common[..], &VVV[..]].concat(),
    );
    // Every word of every transfer.
    assert_data_errors(&run, 64, 64, 2 * 131072);
    let lines = wrong_lines(&run.stdout);
    assert_eq!(lines.len(), 20, "ten per task");
    let first = lines.iter().find(|w| w.task == 1).unwrap();
    assert_eq!(
        (first.offset, first.expected, first.actual),
        (0, t_word(2, 1, 0), t_word(1, 1, 0))
    );
    // The right signature reads it clean.
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R", "-G", "1"], &common[..]].concat(),
    );
    assert_clean(&run, "-G 1");
}

#[test]
fn data_written_by_another_task() {
    let dir = tempdir().unwrap();
    // File per process: the two files exchanged.
    let common = [
        "-t", "4k", "-b", "64k", "-s", "2", "-F", "-G", "7", "-k", "-o", "f",
    ];
    ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
    let (a, b) = (dir.path().join("f.00000000"), dir.path().join("f.00000001"));
    let tmp = dir.path().join("swap");
    std::fs::rename(&a, &tmp).unwrap();
    std::fs::rename(&b, &a).unwrap();
    std::fs::rename(&tmp, &b).unwrap();
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R"], &common[..], &VVV[..]].concat(),
    );
    assert_data_errors(&run, 64, 64, 2 * 131072);
    let task0 = wrong_lines(&run.stdout)
        .into_iter()
        .find(|w| w.task == 0)
        .unwrap();
    assert_eq!(
        task0,
        Wrong {
            task: 0,
            file: "f.00000000".into(),
            offset: 0,
            expected: t_word(7, 0, 0),
            actual: t_word(7, 1, 0),
        }
    );

    // Shared file: task 0's block of segment 1 copied over task 1's.
    let common = [
        "-t", "4k", "-b", "64k", "-s", "2", "-G", "7", "-k", "-o", "s",
    ];
    ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
    edit(&dir.path().join("s"), |d| {
        let (seg1_task0, seg1_task1) = (2 * 65536, 3 * 65536);
        d.copy_within(seg1_task0..seg1_task0 + 65536, seg1_task1);
    });
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R"], &common[..], &VVV[..]].concat(),
    );
    assert_data_errors(&run, 16, 64, 65536);
    let lines = wrong_lines(&run.stdout);
    assert!(lines.iter().all(|w| w.task == 1 && w.file == "s"));
    assert_eq!(
        (lines[0].offset, lines[0].expected, lines[0].actual),
        (3 * 65536, t_word(7, 1, 0), t_word(7, 0, 0))
    );
}

#[test]
fn a_file_written_with_another_transfer_size() {
    let dir = tempdir().unwrap();
    let common = ["-b", "64k", "-s", "2", "-F", "-G", "7", "-k", "-o", "f"];
    ior(dir.path(), 2, &[&["-w", "-t", "8k"], &common[..]].concat()).ok();
    // Read in 4 KiB transfers: the second half of each 8 KiB transfer holds
    // words 512.. where a 4 KiB transfer starts again at word 0.
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R", "-t", "4k"], &common[..], &VVV[..]].concat(),
    );
    assert_data_errors(&run, 32, 64, 32 * 4096);
    let first = wrong_lines(&run.stdout)
        .into_iter()
        .find(|w| w.task == 0)
        .unwrap();
    assert_eq!(
        (first.offset, first.expected, first.actual),
        (4096, t_word(7, 0, 0), t_word(7, 0, 512))
    );
}

// -- -q, -K, -W, listing ----------------------------------------------------

#[test]
fn q_stops_each_task_at_its_first_wrong_transfer() {
    let dir = tempdir().unwrap();
    let common = [
        "-t", "4k", "-b", "64k", "-s", "2", "-F", "-G", "7", "-k", "-o", "f",
    ];
    ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
    // Transfers 3, 4 and 20 of both files.
    for name in ["f.00000000", "f.00000001"] {
        edit(&dir.path().join(name), |d| {
            for t in [3, 4, 20] {
                d[t * 4096 + 100] ^= 1;
            }
        });
    }
    let run = ior(dir.path(), 2, &[&["-r", "-R"], &common[..]].concat());
    assert_data_errors(&run, 6, 64, 6 * 8);
    // With -q each task checks transfers 0..=3 and stops.
    let run = ior(dir.path(), 2, &[&["-r", "-R", "-q"], &common[..]].concat());
    assert_data_errors(&run, 2, 8, 2 * 8);
}

#[test]
fn v_v_v_lists_ten_wrong_words_per_task_and_phase() {
    let dir = tempdir().unwrap();
    let common = ["-t", "4k", "-b", "64k", "-F", "-G", "7", "-k", "-o", "f"];
    ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
    edit(&dir.path().join("f.00000001"), |d| {
        d[4096..8192].fill(0xff);
        d[40000] ^= 4;
    });
    let run = ior(
        dir.path(),
        2,
        &[&["-r", "-R"], &common[..], &VVV[..]].concat(),
    );
    assert_data_errors(&run, 2, 32, 4096 + 8);
    let lines = wrong_lines(&run.stdout);
    assert_eq!(lines.len(), 10);
    for (j, w) in lines.iter().enumerate() {
        assert_eq!(w.task, 1);
        assert_eq!(w.offset, 4096 + 8 * j as u64);
        assert_eq!(w.expected, t_word(7, 1, j as u64));
        assert_eq!(w.actual, u64::MAX);
    }
}

#[test]
fn task_lines_keep_json_on_stdout_parseable() {
    let dir = tempdir().unwrap();
    let common = ["-t", "4k", "-b", "64k", "-F", "-G", "7", "-k", "-o", "f"];
    ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
    edit(&dir.path().join("f.00000001"), |d| d[5000] ^= 2);
    let json = ["-O", "summaryFormat=JSON"];
    // -v -v -v lists the wrong words; -v five times also traces every transfer.
    for verbosity in [&VVV[..], &["-v"; 5][..]] {
        let run = ior(
            dir.path(),
            2,
            &[&["-r", "-R"], &common[..], verbosity, &json[..]].concat(),
        );
        assert_eq!(
            run.status, 3,
            "stdout:\n{}\nstderr:\n{}",
            run.stdout, run.stderr
        );
        let doc: serde_json::Value = serde_json::from_str(&run.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}):\n{}", run.stdout));
        assert_eq!(doc["tests"][0]["dataErrors"]["transfers"], 1, "{doc}");
        // The task lines went to stderr instead.
        let wrong = wrong_lines(&run.stderr);
        assert_eq!(wrong.len(), 1, "{}", run.stderr);
        assert_eq!((wrong[0].task, wrong[0].offset), (1, 5000));
        let traced = run
            .stderr
            .contains("task 1: read 4096 bytes at offset 4096 of f.00000001");
        assert_eq!(traced, verbosity.len() == 5, "{}", run.stderr);
    }
}

/// Runs `ior` with `-d 3` (3 s before each phase) and damages the file
/// between the write and the read phase: as soon as the write row is
/// printed, the read phase is 3 s away.
fn run_damaged_between_phases(dir: &Path, args: &[&str], damage: impl FnOnce()) -> Run {
    let mut child = Command::new(crate::common::bin("ior"))
        .args(args)
        .args(["-d", "3"])
        .current_dir(dir)
        .env("PARIO_TASKS", "2")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = String::new();
    let mut damage = Some(damage);
    for line in BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.unwrap();
        if line.starts_with("write ") {
            if let Some(d) = damage.take() {
                d();
            }
        }
        stdout.push_str(&line);
        stdout.push('\n');
    }
    let out = child.wait_with_output().unwrap();
    assert!(damage.is_none(), "no write row:\n{stdout}");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout,
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn big_k_keeps_files_with_errors_and_only_those() {
    let dir = tempdir().unwrap();
    let args = [
        "-w", "-r", "-R", "-t", "4k", "-b", "32k", "-F", "-G", "7", "-o", "f",
    ];
    let flip = || edit(&dir.path().join("f.00000001"), |d| d[5000] ^= 2);
    // -K: a repetition with errors keeps its files.
    let run = run_damaged_between_phases(dir.path(), &[&args[..], &["-K"]].concat(), flip);
    assert_data_errors(&run, 1, 16, 8);
    assert_eq!(entries(dir.path()), ["f.00000000", "f.00000001"]);
    for f in entries(dir.path()) {
        std::fs::remove_file(dir.path().join(f)).unwrap();
    }
    // -q -K: the run stops on the error and still keeps them.
    let run = run_damaged_between_phases(dir.path(), &[&args[..], &["-q", "-K"]].concat(), flip);
    assert_eq!(run.status, 3, "{}\n{}", run.stdout, run.stderr);
    assert_eq!(entries(dir.path()), ["f.00000000", "f.00000001"]);
    for f in entries(dir.path()) {
        std::fs::remove_file(dir.path().join(f)).unwrap();
    }
    // Without -K they are removed as always, with -q too.
    let run = run_damaged_between_phases(dir.path(), &[&args[..], &["-q"]].concat(), flip);
    assert_eq!(run.status, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(entries(dir.path()).is_empty());
    let run = run_damaged_between_phases(dir.path(), &args, flip);
    assert_data_errors(&run, 1, 16, 8);
    assert!(entries(dir.path()).is_empty());
    // -K without errors removes them too.
    let run = ior(dir.path(), 2, &[&args[..], &["-K"]].concat());
    assert_clean(&run, "-K, no errors");
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn w_checks_what_was_just_written() {
    let dir = tempdir().unwrap();
    let run = ior(
        dir.path(),
        2,
        &[
            "-w", "-W", "-t", "47008", "-b", "94016", "-s", "2", "-l", "o", "-o", "w", "-v",
        ],
    );
    assert_clean(&run, "-W");
    assert!(run
        .stdout
        .contains("Verifying contents of the file(s) just written."));
}

/// `-v` names the verification kernel that ran; `PARIO_VERIFY_KERNEL`
/// forces one the CPU has, and the verification (of a damaged file too)
/// finds the same with each.
#[test]
fn verbose_output_names_the_verification_kernel() {
    let dir = tempdir().unwrap();
    let args = [
        "-w", "-r", "-R", "-k", "-G", "7", "-t", "4104", "-b", "41040", "-o", "k",
    ];
    let kernel_line = |stdout: &str| {
        stdout
            .lines()
            .find(|l| l.starts_with("Verification kernel"))
            .map(|l| l.split(": ").nth(1).unwrap_or("").trim().to_string())
    };
    let quiet = ior(dir.path(), 2, &args);
    quiet.ok();
    assert_eq!(kernel_line(&quiet.stdout), None, "{}", quiet.stdout);
    let verbose = [&["-v"][..], &args].concat();
    let chosen = ior(dir.path(), 2, &verbose);
    chosen.ok();
    let name = kernel_line(&chosen.stdout).expect("a Verification kernel line");
    assert!(
        ["generic", "AVX2", "AVX-512"].contains(&name.as_str()),
        "{name}"
    );
    let mut forced = vec![("generic", "generic")];
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            forced.push(("avx2", "AVX2"));
        }
        if std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
        {
            forced.push(("avx512", "AVX-512"));
        }
    }
    // A flipped bit in the middle of a transfer of the first task's file.
    let file = dir.path().join("k");
    let mut data = std::fs::read(&file).unwrap();
    data[4104 * 3 + 2001] ^= 0x04;
    std::fs::write(&file, &data).unwrap();
    let read = [
        "-v", "-r", "-R", "-G", "7", "-t", "4104", "-b", "41040", "-o", "k",
    ];
    for (spelling, name) in forced {
        let run = ior_env(dir.path(), 2, &read, &[("PARIO_VERIFY_KERNEL", spelling)]);
        assert_data_errors(&run, 1, 20, 8);
        assert_eq!(
            kernel_line(&run.stdout).as_deref(),
            Some(name),
            "{spelling}"
        );
    }
}
