//! `dlio_benchmark` under real `mpirun` (built with `--features mpi`): a
//! rank is an accelerator; generation on 3 ranks writes the same files, byte
//! for byte, as on 3 threads (DLIO's content depends on the rank count, not
//! on the engine), and Hydra's files once.
#![cfg(feature = "mpi")]

use crate::common::{self, bin, scratch};

#[test]
fn three_ranks_write_what_three_threads_write() {
    let args = [
        "workload=cosmoflow_datagen",
        "++workload.dataset.num_files_train=7",
        "++workload.dataset.record_length_bytes=16384",
        "++workload.dataset.record_length_bytes_stdev=1024",
        "++hydra.run.dir=run",
        "++hydra.output_subdir=dlio_config",
        "pario.content=exact",
    ];
    let ranks = scratch("dlio-mpi");
    let run = common::mpirun(bin("dlio_benchmark"), ranks.path(), 3, &args, &[]);
    run.ok();
    assert!(
        run.stdout
            .contains("Running DLIO [Generating data] with 3 process(es)"),
        "{}",
        run.stdout
    );
    assert_eq!(
        run.stdout.matches("Generation done").count(),
        1,
        "{}",
        run.stdout
    );
    let threads = scratch("dlio-threads");
    let out = std::process::Command::new(bin("dlio_benchmark"))
        .args(args)
        .current_dir(threads.path())
        .env("PARIO_TASKS", "3")
        .output()
        .expect("threads");
    common::finish(out).ok();
    let tree = common::tree_of(&ranks.path().join("data"));
    assert_eq!(tree, common::tree_of(&threads.path().join("data")));
    let files: Vec<_> = tree.iter().filter(|f| f.ends_with(".tfrecord")).collect();
    assert_eq!(files.len(), 7);
    for f in tree.iter().filter(|f| f.contains('.')) {
        let a = std::fs::read(ranks.path().join("data").join(f)).expect("ranks");
        let b = std::fs::read(threads.path().join("data").join(f)).expect("threads");
        assert_eq!(a, b, "{f}");
    }
    assert!(ranks.path().join("run/dlio_config/config.yaml").is_file());
}
