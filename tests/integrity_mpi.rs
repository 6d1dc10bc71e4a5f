//! Data integrity under the MPI engine (`--features mpi`, real `mpirun`):
//! every packet type round-trips through POSIX and MPI-IO (independent and
//! collective), shared file and `-F`, `-C`/`-Z` across fake nodes; files
//! written by one engine verify with the other; damage is counted over all
//! ranks and becomes the exit status.
#![cfg(feature = "mpi")]

use std::path::Path;

use crate::common;
use crate::common::{assert_clean, entries, ior, Run, TWO_NODES};
use tempfile::tempdir;

fn mpirun(dir: &Path, ranks: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    common::mpirun(crate::common::bin("ior"), dir, ranks, args, env)
}

/// Each packet type through every engine and layout, a test of one
/// script each: POSIX shared and `-F`, MPI-IO independent shared and
/// `-F`, MPI-IO collective on a shared file (collective I/O is for one).
#[test]
fn every_packet_type_round_trips_under_mpi() {
    let dir = tempdir().unwrap();
    let (_script, engines) = common::ior_script(&[
        &["api=POSIX"],
        &["filePerProc=1"],
        &["api=MPIIO", "filePerProc=0"],
        &["filePerProc=1"],
        &["filePerProc=0", "collective=1"],
    ]);
    for packet in ["t", "o", "i", "r"] {
        let args = [
            "-w", "-W", "-r", "-R", "-t", "47008", "-b", "94016", "-s", "2", "-l", packet, "-o",
            "m", "-f", &engines,
        ];
        let run = mpirun(dir.path(), 2, &args, &[]);
        assert_clean(&run, &format!("-l {packet}"));
        let apis = ["POSIX", "POSIX", "MPIIO", "MPIIO", "MPIIO"];
        assert_eq!(common::header_values(&run.stdout, "api"), apis);
        let (shared, per_task) = ("single-shared-file", "file-per-process");
        let layouts = [shared, per_task, shared, per_task, shared];
        assert_eq!(common::header_values(&run.stdout, "access"), layouts);
        let kinds = [
            "independent",
            "independent",
            "independent",
            "independent",
            "collective",
        ];
        assert_eq!(common::header_values(&run.stdout, "type"), kinds);
    }
    assert!(entries(dir.path()).is_empty());
}

/// Each packet type read back by another task (`-C`) and by tasks in a
/// random order (`-Z -X 3`), shared file and `-F`, on two fake nodes.
#[test]
fn reordered_reads_across_fake_nodes_under_mpi() {
    let dir = tempdir().unwrap();
    let (_script, orders) = common::ior_script(&[
        &["reorderTasks=1"],
        &["filePerProc=1"],
        &[
            "reorderTasks=0",
            "reorderTasksRandom=1",
            "reorderTasksRandomSeed=3",
            "filePerProc=0",
        ],
        &["filePerProc=1"],
    ]);
    for packet in ["t", "o", "i", "r"] {
        let args = [
            "-w", "-W", "-r", "-R", "-t", "8k", "-b", "16k", "-s", "2", "-l", packet, "-o", "cz",
            "-f", &orders,
        ];
        let run = mpirun(dir.path(), 4, &args, &TWO_NODES);
        assert_clean(&run, &format!("-l {packet}"));
        let (shared, per_task) = ("single-shared-file", "file-per-process");
        let layouts = [shared, per_task, shared, per_task];
        assert_eq!(common::header_values(&run.stdout, "access"), layouts);
        let (constant, random) = ("constant task offset", "random task offset");
        let expected = [constant, constant, random, random];
        let shown = common::header_values(&run.stdout, "ordering inter file");
        assert_eq!(shown, expected);
    }
    assert!(entries(dir.path()).is_empty());
}

/// Files of each packet type, shared and `-F` (a test each of one
/// script), written by MPI ranks and read by threads, then written by
/// threads and read by MPI ranks through MPI-IO.
#[test]
fn files_written_by_one_engine_verify_with_the_other() {
    let dir = tempdir().unwrap();
    let (_script, layouts) = common::ior_script(&[&["filePerProc=0"], &["filePerProc=1"]]);
    for packet in ["t", "o", "i", "r"] {
        let common = [
            "-t", "8k", "-b", "32k", "-s", "2", "-l", packet, "-G", "-77", "-k", "-o", "x", "-f",
            &layouts,
        ];
        let what = format!("-l {packet}");
        // MPI ranks write, threads read and verify.
        mpirun(dir.path(), 2, &[&["-w"], &common[..]].concat(), &[]).ok();
        assert_eq!(entries(dir.path()).len(), 3, "{what}: x and x.0000000[01]");
        assert_clean(
            &ior(dir.path(), 2, &[&["-r", "-R"], &common[..]].concat()),
            &what,
        );
        // Threads write, MPI ranks (through MPI-IO) read and verify.
        ior(dir.path(), 2, &[&["-w"], &common[..]].concat()).ok();
        let mpiio = [&["-r", "-R", "-a", "MPIIO"], &common[..]].concat();
        assert_clean(&mpirun(dir.path(), 2, &mpiio, &[]), &what);
        for f in entries(dir.path()) {
            std::fs::remove_file(dir.path().join(f)).unwrap();
        }
    }
}

#[test]
fn errors_are_summed_over_ranks_and_become_the_exit_status() {
    let dir = tempdir().unwrap();
    let common = [
        "-t", "4k", "-b", "64k", "-s", "2", "-F", "-G", "9", "-k", "-o", "e",
    ];
    mpirun(dir.path(), 2, &[&["-w"], &common[..]].concat(), &[]).ok();
    for (name, at) in [("e.00000000", 100), ("e.00000001", 70000)] {
        let path = dir.path().join(name);
        let mut d = std::fs::read(&path).unwrap();
        d[at] ^= 1;
        std::fs::write(&path, d).unwrap();
    }
    let args = [&["-r", "-R", "-v", "-v", "-v"], &common[..]].concat();
    let run = mpirun(dir.path(), 2, &args, &[]);
    assert_eq!(run.status, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(
        run.stdout.contains(
            "WARNING: incorrect data on read (2 errors found: 2 of 64 transfers, 16 bytes wrong)"
        ),
        "{}",
        run.stdout
    );
    // Both ranks list their word (9 + 12 = 0x15, byte 4 is the rank half; 9 + 46 = 0x37).
    assert!(run.stdout.contains(
        "task 0: wrong data in e.00000000 at offset 96: expected 0x0000000000000015, read 0x0000000100000015"
    ), "{}", run.stdout);
    assert!(run.stdout.contains(
        "task 1: wrong data in e.00000001 at offset 70000: expected 0x0000000100000037, read 0x0000000100000036"
    ), "{}", run.stdout);
    assert_eq!(
        run.stderr
            .matches("2 errors found: 2 transfers and 16 bytes were wrong")
            .count(),
        1,
        "reported once:\n{}",
        run.stderr
    );
}
