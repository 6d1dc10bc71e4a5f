//! `-a HDF5` (`--features hdf5`, real `mpirun` and parallel HDF5): every
//! packet type round-trips, shared file and `-F`, independent and
//! collective, on 2 and 4 ranks and on threads; the files have IOR's layout
//! (looked at with the HDF5 bindings); the module options reach the file;
//! damage is caught; refused combinations touch nothing; HDF5's failures are
//! one line.
#![cfg(feature = "hdf5")]

use std::path::Path;

use crate::common;
use crate::common::{assert_clean, entries, ior, word, Run, TWO_NODES};
use hdf5_metno as h5;
use tempfile::tempdir;

fn mpirun(dir: &Path, ranks: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    common::mpirun(crate::common::bin("ior"), dir, ranks, args, env)
}

/// The lines pario printed on stderr (mpirun adds its own).
fn ior_lines(run: &Run) -> usize {
    run.stderr.lines().filter(|l| l.starts_with("ior:")).count()
}

fn with<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(extra).copied().collect()
}

/// Three segments of an odd number of transfers per block: IOR's own `-R`
/// reads the wrong dataset there (see the reference); pario must not.
const ODD: [&str; 10] = ["-w", "-W", "-r", "-R", "-t", "8k", "-b", "24k", "-s", "3"];

/// A script of four tests: shared file and `-F`, each independent and
/// collective (one mpirun for the four).
fn four_modes() -> (tempfile::TempDir, String) {
    common::ior_script(&[
        &["filePerProc=0", "collective=0"],
        &["collective=1"],
        &["filePerProc=1", "collective=0"],
        &["collective=1"],
    ])
}

/// Each test of `four_modes` ran, in its order, with its file layout and
/// I/O type.
fn assert_four_modes(run: &Run) {
    let kinds = ["independent", "collective", "independent", "collective"];
    assert_eq!(common::header_values(&run.stdout, "type"), kinds);
    let (shared, per_task) = ("single-shared-file", "file-per-process");
    let layouts = [shared, shared, per_task, per_task];
    assert_eq!(common::header_values(&run.stdout, "access"), layouts);
}

/// Each packet type, in each of `four_modes`.
#[test]
fn every_packet_type_round_trips_on_two_ranks() {
    let dir = tempdir().unwrap();
    let (_script, modes) = four_modes();
    for packet in ["t", "o", "i", "r"] {
        let args = with(&ODD, &["-a", "HDF5", "-l", packet, "-o", "h", "-f", &modes]);
        let run = mpirun(dir.path(), 2, &args, &[]);
        assert_clean(&run, &format!("-l {packet}"));
        assert_eq!(run.stdout.matches("apiVersion          : 1.10").count(), 4);
        assert_four_modes(&run);
    }
    assert!(entries(dir.path()).is_empty());
}

/// Each of `four_modes`, reading what the other fake node wrote.
#[test]
fn four_ranks_read_other_nodes_data() {
    let dir = tempdir().unwrap();
    let (_script, modes) = four_modes();
    let args = with(
        &ODD,
        &["-a", "HDF5", "-l", "o", "-C", "-o", "h", "-f", &modes],
    );
    let run = mpirun(dir.path(), 4, &args, &TWO_NODES);
    assert_clean(&run, "-C on two fake nodes");
    assert_four_modes(&run);
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn threads_round_trip_a_file_each_and_refuse_a_shared_one() {
    let dir = tempdir().unwrap();
    for packet in ["t", "o", "i", "r"] {
        let args = with(&ODD, &["-a", "HDF5", "-F", "-l", packet, "-o", "h"]);
        assert_clean(&ior(dir.path(), 3, &args), packet);
    }
    let shared = with(&ODD, &["-a", "HDF5", "-o", "h"]);
    ior(dir.path(), 2, &shared).fails(2, "-a HDF5 with threads needs -F");
    let collective = with(&ODD, &["-a", "HDF5", "-F", "-c", "-o", "h"]);
    ior(dir.path(), 2, &collective).fails(2, "-c with -a HDF5 needs MPI ranks");
    assert!(entries(dir.path()).is_empty());
}

/// The file of `ior -a HDF5 -w -t 64k -b 256k -s 2 -k` on 2 ranks, as
/// h5dump showed IOR's.
#[test]
fn the_layout_is_iors() {
    let dir = tempdir().unwrap();
    let args = [
        "-a", "HDF5", "-w", "-k", "-t", "64k", "-b", "256k", "-s", "2", "-l", "o", "-o", "h",
    ];
    mpirun(dir.path(), 2, &args, &[]).ok();
    let path = dir.path().join("h");
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1050624);
    let file = h5::File::open(&path).unwrap();
    assert_eq!(
        file.member_names().unwrap(),
        ["Dataset-0000.0000", "Dataset-0000.0001"]
    );
    let mut offsets = Vec::new();
    for name in file.member_names().unwrap() {
        let d = file.dataset(&name).unwrap();
        assert_eq!(d.shape(), [65536]);
        assert_eq!(d.dtype().unwrap().size(), 8);
        assert!(d.dtype().unwrap().is::<i64>());
        assert_eq!(d.chunk(), None);
        offsets.push(d.offset().unwrap());
    }
    assert_eq!(offsets, [2048, 526336]);
    // Element e of segment k holds the word of logical offset k*segment + 8e:
    // rank 1's block starts half way through each dataset.
    let data = std::fs::read(&path).unwrap();
    assert_eq!(word(&data, 2048), 0);
    assert_eq!(word(&data, 2048 + 262144), 262144 | (1 << 32));
    assert_eq!(word(&data, 526336), 524288);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn alignment_chunks_and_fill_reach_the_file() {
    let dir = tempdir().unwrap();
    let base = [
        "-a", "HDF5", "-w", "-k", "-t", "64k", "-b", "256k", "-s", "2", "-o", "h",
    ];
    let path = dir.path().join("h");
    mpirun(
        dir.path(),
        2,
        &with(&base, &["--hdf5.setAlignment=64k"]),
        &[],
    )
    .ok();
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 1114112);
    let file = h5::File::open(&path).unwrap();
    let offsets: Vec<u64> = ["Dataset-0000.0000", "Dataset-0000.0001"]
        .iter()
        .map(|n| file.dataset(n).unwrap().offset().unwrap())
        .collect();
    assert_eq!(offsets, [65536, 589824]);
    drop(file);
    let chunked = ["--hdf5.chunkSize=8192", "--hdf5.noFill"];
    mpirun(dir.path(), 2, &with(&base, &chunked), &[]).ok();
    let file = h5::File::open(&path).unwrap();
    let d = file.dataset("Dataset-0000.0001").unwrap();
    assert_eq!(d.chunk(), Some(vec![8192]));
    assert_eq!(
        d.dcpl().unwrap().fill_time(),
        h5::plist::dataset_create::FillTime::Never
    );
    drop((d, file));
    // Chunked and filled, read back and checked.
    let checked = with(&base, &["-r", "-R", "-W", "--hdf5.chunkSize=4096"]);
    assert_clean(&mpirun(dir.path(), 2, &checked, &[]), "chunked");
    // Without noFill the fill time is H5Pcreate's default, as IOR's.
    let file = h5::File::open(&path).unwrap();
    let d = file.dataset("Dataset-0000.0000").unwrap();
    assert_eq!(
        d.dcpl().unwrap().fill_time(),
        h5::plist::dataset_create::FillTime::IfSet
    );
    drop((d, file));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_corrupted_element_is_caught_by_r() {
    let dir = tempdir().unwrap();
    let base = [
        "-a", "HDF5", "-t", "64k", "-b", "256k", "-s", "2", "-l", "o", "-G", "77", "-o", "h",
    ];
    mpirun(dir.path(), 2, &with(&base, &["-w", "-k"]), &[]).ok();
    let path = dir.path().join("h");
    let mut data = std::fs::read(&path).unwrap();
    data[526336 + 8 * 1000] ^= 0xff; // element 1000 of the second dataset
    std::fs::write(&path, &data).unwrap();
    let run = mpirun(dir.path(), 2, &with(&base, &["-r", "-R", "-k"]), &[]);
    assert_eq!(run.status, 3, "{}\n{}", run.stdout, run.stderr);
    assert!(run
        .stdout
        .contains("incorrect data on read (1 errors found"));
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn refused_combinations_touch_nothing() {
    let dir = tempdir().unwrap();
    let base = ["-a", "HDF5", "-w", "-t", "8k", "-b", "16k", "-o", "h"];
    for (extra, message) in [
        (
            &["-z"][..],
            "-z: random offsets are not available with -a HDF5",
        ),
        (
            &["-D", "5"][..],
            "-D with -a HDF5 on a shared file needs -c",
        ),
        (
            &["--hdf5.individualDataSets"][..],
            "individual datasets are not implemented",
        ),
        (&["--hdf5.setAlignment=0"][..], "at least 1 byte"),
        (
            &["--posix.odirect"][..],
            "--posix.odirect applies to -a POSIX, not -a HDF5",
        ),
    ] {
        let run = mpirun(dir.path(), 2, &with(&base, extra), &[]);
        run.fails(2, message);
        assert_eq!(ior_lines(&run), 1, "{}", run.stderr);
    }
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn failures_are_one_line_without_hdf5s_stack() {
    let dir = tempdir().unwrap();
    let run = mpirun(dir.path(), 2, &["-a", "HDF5", "-r", "-o", "missing"], &[]);
    run.fails(1, "cannot open for reading");
    assert!(run.stderr.contains("H5Fopen"), "{}", run.stderr);
    assert!(run.stderr.contains("missing"), "{}", run.stderr);
    for text in [&run.stdout, &run.stderr] {
        assert!(!text.contains("HDF5-DIAG"), "{text}");
    }
    assert_eq!(ior_lines(&run), 1, "{}", run.stderr);
    // A file shorter than the read: one line naming the dataset call.
    let small = ["-a", "HDF5", "-t", "8k", "-b", "8k", "-o", "h"];
    mpirun(dir.path(), 1, &with(&small, &["-w", "-k"]), &[]).ok();
    let run = mpirun(
        dir.path(),
        1,
        &["-a", "HDF5", "-r", "-t", "8k", "-b", "16k", "-o", "h"],
        &[],
    );
    run.fails(1, "H5Dread");
    assert!(!run.stdout.contains("HDF5-DIAG") && !run.stderr.contains("HDF5-DIAG"));
    std::fs::remove_file(dir.path().join("h")).unwrap();
    assert!(entries(dir.path()).is_empty());
}

#[test]
fn hints_are_passed_and_shown() {
    let dir = tempdir().unwrap();
    let hints = dir.path().join("hints");
    std::fs::write(&hints, "IOR_HINT__MPI__pario_test_hint=yes\n").unwrap();
    let file = format!("--hdf5.hintsFileName={}", hints.display());
    let args = [
        "-a",
        "HDF5",
        "-w",
        "-t",
        "8k",
        "-b",
        "16k",
        "-o",
        "h",
        "--hdf5.showHints",
        &file,
        "--hdf5.collectiveMetadata",
    ];
    let run = mpirun(dir.path(), 2, &args, &[]);
    run.ok();
    assert!(
        run.stdout
            .contains("hints passed to access property list {\n\tpario_test_hint = yes\n}"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout.contains("hints returned from opened file {"),
        "{}",
        run.stdout
    );
    std::fs::remove_file(hints).unwrap();
    assert!(entries(dir.path()).is_empty());
}

/// dlio_benchmark's hdf5 generation (one rank: an MPI singleton): DLIO's
/// names, and in each file the datasets its generator writes, read back
/// through the HDF5 library: `records` (samples, dim1, dim2) of uint8 and
/// `labels` (samples) of int64. 4096-byte records: 64 x 64 images.
#[test]
fn dlio_generates_hdf5_as_dlio_does() {
    let dir = tempdir().unwrap();
    let run = common::finish(
        common::output_in_session(
            std::process::Command::new(common::bin("dlio_benchmark"))
                .args([
                    "workload=unet3d_datagen",
                    "++workload.dataset.format=hdf5",
                    "++workload.dataset.num_files_train=2",
                    "++workload.dataset.num_samples_per_file=3",
                    "++workload.dataset.record_length_bytes=4096",
                    "++workload.dataset.record_length_bytes_stdev=0",
                    "++workload.dataset.data_folder=data",
                    "++hydra.run.dir=run",
                ])
                .current_dir(dir.path()),
        )
        .unwrap(),
    );
    run.ok();
    let train = dir.path().join("data/train");
    let mut names = entries(&train);
    names.sort();
    assert_eq!(names, ["img_0_of_2.hdf5", "img_1_of_2.hdf5"]);
    for name in names {
        let file = h5::File::open(train.join(&name)).unwrap();
        let records = file.dataset("records").unwrap();
        assert_eq!(records.shape(), [3, 64, 64], "{name}");
        assert!(records.dtype().unwrap().is::<u8>(), "{name}");
        let labels = file.dataset("labels").unwrap();
        assert_eq!(labels.shape(), [3], "{name}");
        assert!(labels.dtype().unwrap().is::<i64>(), "{name}");
        assert_eq!(labels.read_raw::<i64>().unwrap(), [0, 0, 0], "{name}");
    }
}
