//! `dlio_benchmark`'s training under a real `mpirun` (built with
//! `--features mpi`): one simulated accelerator per rank, every rank's
//! files, the figures gathered on rank 0, and a failing rank stopping
//! them all.
#![cfg(feature = "mpi")]

use std::path::Path;

use crate::common::{self, Run};

fn dlio(dir: &Path, ranks: usize, args: &[&str]) -> Run {
    let mut all = vec!["dlio"];
    all.extend_from_slice(args);
    common::mpirun(common::bin("pario"), dir, ranks, &all, &[])
}

const SMALL: &[&str] = &[
    "workload=unet3d_h100",
    "++workload.dataset.data_folder=data",
    "++workload.dataset.num_files_train=12",
    "++workload.dataset.record_length_bytes=20000",
    "++workload.dataset.record_length_bytes_stdev=0",
    "++workload.reader.batch_size=2",
    "++workload.reader.read_threads=2",
    "++workload.train.epochs=2",
    "++workload.train.computation_time=0.001",
    "++workload.workflow.checkpoint=False",
];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

#[test]
fn three_ranks_train_and_write_their_files() {
    let dir = tempfile::tempdir().unwrap();
    let gen = with(
        SMALL,
        &[
            "++workload.workflow.generate_data=True",
            "++workload.workflow.train=False",
            "++hydra.run.dir=gen",
        ],
    );
    dlio(dir.path(), 3, &gen).ok();
    let run = dlio(dir.path(), 3, &with(SMALL, &["++hydra.run.dir=out"]));
    run.ok();
    assert!(
        run.stdout
            .contains("Running DLIO [Training] with 3 process(es)"),
        "{}",
        run.stdout
    );
    // One block line per epoch, from rank 0 only.
    assert_eq!(
        run.stdout.matches("Ending block 1 - 2 steps").count(),
        2,
        "{}",
        run.stdout
    );
    let out = dir.path().join("out");
    for rank in 0..3 {
        assert!(out.join(format!("{rank}_output.json")).exists());
        assert!(out.join(format!("{rank}_per_epoch_stats.json")).exists());
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["num_accelerators"], 3);
    assert_eq!(
        summary["metric"]["train_throughput_samples_per_second"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    assert!(
        run.stdout.contains("pario: time per rank (s):"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout.matches("pario:      2 ").count(),
        1,
        "{}",
        run.stdout
    );
}

#[test]
fn a_rank_missing_a_file_stops_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let gen = with(
        SMALL,
        &[
            "++workload.workflow.generate_data=True",
            "++workload.workflow.train=False",
            "++hydra.run.dir=gen",
        ],
    );
    dlio(dir.path(), 2, &gen).ok();
    // The last file, which only rank 1 reads, is no npz file any more.
    std::fs::write(
        dir.path().join("data/train/img_11_of_12.npz"),
        vec![7u8; 5000],
    )
    .unwrap();
    let run = dlio(dir.path(), 2, &with(SMALL, &["++hydra.run.dir=out"]));
    run.fails(1, "img_11_of_12.npz: not an npz file");
    assert!(run.stderr.contains("task 1"), "{}", run.stderr);
}
