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

#[test]
fn every_packet_type_round_trips_under_mpi() {
    let dir = tempdir().unwrap();
    for packet in ["t", "o", "i", "r"] {
        for api in [
            &["-a", "POSIX"][..],
            &["-a", "MPIIO"][..],
            &["-a", "MPIIO", "-c"][..],
        ] {
            for layout in [&[][..], &["-F"][..]] {
                if api.contains(&"-c") && layout.contains(&"-F") {
                    continue; // collective I/O is for a shared file
                }
                let mut args = vec![
                    "-w", "-W", "-r", "-R", "-t", "47008", "-b", "94016", "-s", "2", "-l", packet,
                    "-o", "m",
                ];
                args.extend_from_slice(api);
                args.extend_from_slice(layout);
                let run = mpirun(dir.path(), 2, &args, &[]);
                assert_clean(&run, &format!("-l {packet} {api:?} {layout:?}"));
            }
        }
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn reordered_reads_across_fake_nodes_under_mpi() {
    let dir = tempdir().unwrap();
    for packet in ["t", "o", "i", "r"] {
        for reorder in [&["-C"][..], &["-Z", "-X", "3"][..]] {
            for layout in [&[][..], &["-F"][..]] {
                let mut args = vec![
                    "-w", "-W", "-r", "-R", "-t", "8k", "-b", "16k", "-s", "2", "-l", packet, "-o",
                    "cz",
                ];
                args.extend_from_slice(reorder);
                args.extend_from_slice(layout);
                let run = mpirun(dir.path(), 4, &args, &TWO_NODES);
                assert_clean(&run, &format!("-l {packet} {reorder:?} {layout:?}"));
            }
        }
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn files_written_by_one_engine_verify_with_the_other() {
    let dir = tempdir().unwrap();
    for packet in ["t", "o", "i", "r"] {
        for layout in [&[][..], &["-F"][..]] {
            let mut common = vec![
                "-t", "8k", "-b", "32k", "-s", "2", "-l", packet, "-G", "-77", "-k", "-o", "x",
            ];
            common.extend_from_slice(layout);
            let what = format!("-l {packet} {layout:?}");
            // MPI ranks write, threads read and verify.
            mpirun(dir.path(), 2, &[&["-w"], &common[..]].concat(), &[]).ok();
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
