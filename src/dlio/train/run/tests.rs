//! Whole training runs on threads over small real files.

use std::ffi::CString;

use super::*;
use crate::backend::posix::Posix;
use crate::comm::{local, Topology};
use crate::dlio::checkpoint::engine::{Checkpoints, Pattern, Settings};
use crate::dlio::checkpoint::model::Model;
use crate::dlio::config::schema::Draw as Sleep;
use crate::dlio::metrics::Window;
use crate::dlio::options::Follow;
use crate::dlio::train::checkpoint::{Checkpointer, NoCheckpoint};
use crate::dlio::train::plan::{CheckpointPlan, EvalPlan, Silent};
use crate::dlio::train::read::{ReadOptions, SampleFormat};
use crate::dlio::train::sampler::{Loader, Shuffle};

/// `n` npy files of `bytes` bytes of data each.
fn npy_files(dir: &std::path::Path, n: usize, bytes: usize) -> Vec<CString> {
    (0..n)
        .map(|i| {
            let mut h = b"\x93NUMPY\x01\x00\x76\x00".to_vec();
            h.extend_from_slice(
                format!("{{'descr': '|u1', 'fortran_order': False, 'shape': ({bytes}, 1, 1), }}")
                    .as_bytes(),
            );
            h.resize(127, b' ');
            h.push(b'\n');
            h.resize(128 + bytes, 9);
            let path = dir.join(format!("img_{i}_of_{n}.npy"));
            std::fs::write(&path, h).unwrap();
            CString::new(path.to_str().unwrap()).unwrap()
        })
        .collect()
}

/// `n` TFRecord files of `records` records of `bytes` bytes.
fn tf_files(dir: &std::path::Path, n: usize, records: usize, bytes: u64) -> Vec<CString> {
    (0..n)
        .map(|i| {
            let mut out = Vec::new();
            for _ in 0..records {
                out.extend_from_slice(&bytes.to_le_bytes());
                out.extend_from_slice(&[0; 4]);
                out.resize(out.len() + bytes as usize + 4, 1);
            }
            let path = dir.join(format!("img_{i}_of_{n}.tfrecord"));
            std::fs::write(&path, out).unwrap();
            CString::new(path.to_str().unwrap()).unwrap()
        })
        .collect()
}

fn sharding(loader: Loader, files: usize, spf: usize, batch: usize, ranks: usize) -> Sharding {
    Sharding {
        loader,
        files,
        samples_per_file: spf,
        batch,
        ranks,
        file_shuffle: false,
        sample_shuffle: Shuffle::Seed,
        seed: 123,
        seed_change_epoch: true,
        pytorch_shuffles: true,
        tf_sorts: false,
    }
}

fn torch_plan(files: usize, batch: usize, ranks: usize) -> TrainPlan {
    let train = sharding(Loader::PyTorch, files, 1, batch, ranks);
    TrainPlan {
        throughput: Follow::Rules,
        epochs: 2,
        steps: train.max_steps(),
        steps_overridden: false,
        train,
        computation: Sleep::Fixed { mean: 0.001 },
        window: Window::default(),
        reading: Reading::PyTorch {
            options: ReadOptions {
                format: SampleFormat::Npy,
                odirect: false,
                block: 4096,
                reopen: true,
            },
            read_threads: 2,
            prefetch_size: 2,
        },
        eval: None,
        checkpoint: None,
    }
}

fn run_all(
    ranks: usize,
    plan: &TrainPlan,
    files: &[CString],
    eval: &[CString],
) -> Vec<Result<RankTrain>> {
    let files = files.to_vec();
    let eval = eval.to_vec();
    local::run(Topology::single_node(ranks), |comm| {
        let backend = Posix::new(false);
        let inputs = Inputs {
            backend: &backend,
            train_files: &files,
            eval_files: &eval,
            posix: true,
        };
        train(comm, plan, &inputs, &mut NoCheckpoint, &mut Silent, None)
    })
    .into_iter()
    .map(|r| r.expect("the task ran"))
    .collect()
}

#[test]
fn pytorch_epochs_read_every_sample_of_the_rank_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let files = npy_files(dir.path(), 8, 5000);
    let plan = torch_plan(8, 2, 2);
    for result in run_all(2, &plan, &files, &[]) {
        let run = result.unwrap();
        assert_eq!(run.epochs.len(), 2);
        for e in &run.epochs {
            assert_eq!(e.blocks.len(), 1);
            assert_eq!(e.blocks[0].steps.len(), 2);
            assert!(e.figures.au > 0.0, "{e:?}");
            assert!(e.duration.parse::<f64>().is_ok());
        }
        // 4 samples an epoch, 2 epochs: every byte of each file each time.
        assert_eq!(run.train_reads.opens, 8);
        assert!(
            run.train_reads.bytes >= 8 * 5128,
            "{}",
            run.train_reads.bytes
        );
        assert_eq!(run.train_reads.sample_latency.len(), 8);
    }
}

#[test]
fn tensorflow_ranks_stream_their_files_each_epoch() {
    let dir = tempfile::tempdir().unwrap();
    let files = tf_files(dir.path(), 4, 4, 3000);
    let train = sharding(Loader::TensorFlow, 4, 4, 2, 2);
    let plan = TrainPlan {
        steps: train.max_steps(),
        train,
        reading: Reading::TensorFlow {
            read_threads: 2,
            transfer: 4096,
            shuffle_size: 0,
            prefetch_size: 2,
            computation_threads: 1,
        },
        ..torch_plan(4, 2, 2)
    };
    assert_eq!(plan.steps, 4);
    for result in run_all(2, &plan, &files, &[]) {
        let run = result.unwrap();
        assert_eq!(run.epochs.len(), 2);
        assert!(run.epochs.iter().all(|e| e.blocks[0].steps.len() == 4));
        // Two files of 4 records each an epoch, opened afresh every epoch;
        // what the pipeline read ahead may add a pass's first records.
        assert!(run.train_reads.opens >= 4, "{}", run.train_reads.opens);
        assert!(run.train_reads.bytes >= 2 * 2 * 4 * 3016);
    }
}

#[test]
fn a_missing_file_fails_every_rank_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = npy_files(dir.path(), 8, 100);
    files[6] = CString::new(dir.path().join("gone.npy").to_str().unwrap()).unwrap();
    let plan = torch_plan(8, 2, 2);
    for result in run_all(2, &plan, &files, &[]) {
        let e = result.unwrap_err().to_string();
        assert!(e.contains("gone.npy"), "{e}");
    }
}

#[test]
fn step_checkpoints_end_blocks_and_epochs_evaluate() {
    let dir = tempfile::tempdir().unwrap();
    let files = npy_files(dir.path(), 8, 100);
    let eval_dir = dir.path().join("valid");
    std::fs::create_dir(&eval_dir).unwrap();
    let eval_files = npy_files(&eval_dir, 4, 100);
    let mut plan = torch_plan(8, 1, 2);
    plan.checkpoint = Some(CheckpointPlan {
        after_epoch: 1,
        every_epochs: 1,
        every_steps: 2,
    });
    plan.eval = Some(EvalPlan {
        sharding: sharding(Loader::PyTorch, 4, 1, 1, 2),
        steps: 2,
        time: Sleep::None,
        after_epoch: 2,
        every: 1,
    });
    let folder = dir.path().join("ckpt").to_str().unwrap().to_string();
    let results = local::run(Topology::single_node(2), |comm| {
        let backend = Posix::new(false);
        let inputs = Inputs {
            backend: &backend,
            train_files: &files,
            eval_files: &eval_files,
            posix: true,
        };
        // unet3d's: a model of 10240 bytes, saved by rank 0.
        let settings = Settings {
            model: Model {
                kind: Some("cnn".into()),
                ..Model::default()
            },
            folder: folder.clone(),
            fsync: false,
            pattern: Pattern::Torch {
                block: 4096,
                max_request: 1 << 30,
            },
            part: 1 << 20,
        };
        let mut ckpt = Checkpoints::new(comm, &backend, settings).unwrap();
        let run = train(comm, &plan, &inputs, &mut ckpt, &mut Silent, None);
        let saved = dir
            .path()
            .join("ckpt/global_epoch1_step2/model_states-0.pt");
        let size = std::fs::metadata(&saved).map(|m| m.len()).ok();
        comm.barrier().unwrap();
        ckpt.remove_saved().unwrap();
        comm.barrier().unwrap();
        ckpt.remove_saved_dirs();
        (run, size)
    });
    for (rank, r) in results.into_iter().enumerate() {
        let (run, size) = r.unwrap();
        let run = run.unwrap();
        // torch.save({"a": int8[10240]}) is 11,817 bytes.
        assert_eq!(size, Some(11817));
        // 4 steps an epoch, a checkpoint after steps 2 and 4: two blocks.
        let e1 = &run.epochs[0];
        assert_eq!(
            e1.blocks.iter().map(|b| b.steps.len()).collect::<Vec<_>>(),
            [2, 2]
        );
        assert_eq!(e1.saves.len(), 2, "rank {rank} times the saves too");
        assert!(e1.eval.is_none() && run.epochs[1].eval.is_some());
        assert_eq!(run.epochs[1].eval.as_ref().unwrap().steps.len(), 2);
    }
    assert!(
        !dir.path().join("ckpt").exists(),
        "pario removes what it saved"
    );
}
