//! DLIO's `storage_type: s3` workloads on pario's S3 backend, against a
//! real SeaweedFS on loopback: TFRecord objects in the bucket (put by the
//! test), trained on by two ranks that list them and read them with
//! ranged GETs of `transfer_size`; training writes nothing to the bucket.

use std::path::Path;
use std::process::Command;

use crate::common::s3::{Server, BUCKET, SECRET};
use crate::common::{self, finish, Run};

fn dlio(dir: &Path, server: &Server, args: &[&str]) -> Run {
    let mut cmd = Command::new(common::bin("pario"));
    cmd.arg("dlio")
        .args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", "2")
        .envs(server.env());
    finish(cmd.output().expect("run pario dlio"))
}

/// `records` TFRecord framings of `bytes` bytes each (CRCs not checked).
fn tfrecords(records: usize, bytes: u64) -> Vec<u8> {
    let mut out = Vec::new();
    for _ in 0..records {
        out.extend_from_slice(&bytes.to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.resize(out.len() + bytes as usize + 4, 3);
    }
    out
}

#[test]
fn tfrecords_in_a_bucket_train_over_s3() {
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let root = format!("++workload.storage.storage_root={BUCKET}");
    let args = [
        "workload=resnet50_h100",
        "++workload.storage.storage_type=s3",
        root.as_str(),
        "++workload.dataset.data_folder=resnet",
        "++workload.dataset.num_files_train=4",
        "++workload.dataset.num_samples_per_file=5",
        "++workload.dataset.record_length_bytes=20000",
        "++workload.reader.batch_size=2",
        "++workload.reader.read_threads=2",
        "++workload.reader.transfer_size=65536",
        "++workload.train.epochs=2",
        "++workload.train.computation_time=0",
    ];
    let client = server.client();
    for i in 0..4 {
        let key = format!("resnet/train/img_{i}_of_4.tfrecord");
        client.put(BUCKET, &key, &tfrecords(5, 20048)).unwrap();
    }
    let mut train = args.to_vec();
    train.extend([
        "++hydra.run.dir=out",
        "--summaryFormat=JSON",
        "--summaryFile=report.json",
    ]);
    let run = dlio(dir.path(), &server, &train);
    run.ok();
    assert!(!run.stdout.contains(SECRET) && !run.stderr.contains(SECRET));
    let report: pario::dlio::report::DlioReport =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("report.json")).unwrap())
            .unwrap();
    let t = report.training.unwrap();
    // 20 records, batch 2, 2 ranks: 5 steps an epoch, every record read.
    assert_eq!((t.steps_per_epoch, t.train.au.len()), (5, 2));
    let file = 5 * (20048 + 16) as u64;
    assert!(
        t.bytes_read >= 2 * 4 * file * 9 / 10,
        "{} of {}",
        t.bytes_read,
        8 * file
    );
    // GETs of at most transfer_size.
    assert!(t.requests >= t.bytes_read / 65536, "{t:?}");
    let (after, _) = server.leftovers("");
    assert!(
        after.iter().all(|k| k.starts_with("resnet/")),
        "training wrote {after:?}"
    );
    assert!(dir.path().join("out/summary.json").exists());
}
