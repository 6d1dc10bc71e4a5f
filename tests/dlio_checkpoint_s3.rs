//! The checkpoint workload on S3 (SeaweedFS on loopback): one object per
//! file, named and sized as the file on a file system, written in parts,
//! read back, and removed at the end (directory markers included).

use std::path::Path;
use std::process::Command;

use crate::common::s3::{Server, BUCKET};
use crate::common::{self, finish, Run};
use crate::dlio_checkpoint::{checkpoint_json, dlio, files_in};

/// A llama3_8b of one small layer, ZeRO 3 over 2 ranks.
const TINY: &[&str] = &[
    "workload=llama3_8b",
    "++workload.model.num_layers=1",
    "++workload.model.transformer.hidden_size=64",
    "++workload.model.transformer.ffn_hidden_size=96",
    "++workload.model.transformer.vocab_size=100",
    "++workload.checkpoint.time_between_checkpoints=0",
    "++workload.checkpoint.num_checkpoints_write=1",
    "++workload.checkpoint.num_checkpoints_read=1",
    "++workload.checkpoint.checkpoint_folder=ck",
    "++hydra.run.dir=out",
];

fn on_s3(server: &Server, dir: &Path, extra: &[&str]) -> Run {
    let root = format!("++workload.storage.storage_root={BUCKET}");
    let out = Command::new(common::bin("pario"))
        .arg("dlio")
        .args(TINY)
        .args(["++workload.storage.storage_type=s3", &root])
        .args(extra)
        .current_dir(dir)
        .env("PARIO_TASKS", "2")
        .envs(server.env())
        .output()
        .unwrap();
    finish(out)
}

#[test]
fn checkpoints_are_objects_of_the_files_sizes() {
    let fs = common::scratch("dlio-ckpt-s3-files");
    let mut a = TINY.to_vec();
    a.push("pario.keep_checkpoints=true");
    dlio(fs.path(), 2, &a).ok();
    let files = files_in(&fs.path().join("ck/global_epoch1_step1"));
    assert_eq!(files.len(), 4);
    let server = Server::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Written, read back and removed.
    let r = on_s3(
        &server,
        d,
        &["--summaryFormat=JSON", "--summaryFile=s.json"],
    );
    r.ok();
    assert!(
        r.stdout.contains("S3: free space not checked"),
        "{}",
        r.stdout
    );
    let c = checkpoint_json(&d.join("s.json"));
    assert_eq!(c["loads"]["steps"].as_array().unwrap().len(), 1);
    assert!(c["loads"]["bytes"].as_u64().unwrap() >= c["bytes"].as_u64().unwrap());
    let (objects, uploads) = server.leftovers("ck");
    assert!(
        objects.is_empty() && uploads.is_empty(),
        "{objects:?} {uploads:?}"
    );
    // Kept: an object a file, of the file's size.
    on_s3(&server, d, &["pario.keep_checkpoints=true"]).ok();
    let client = server.client();
    for (name, size) in files {
        let key = format!("ck/global_epoch1_step1/{name}");
        assert_eq!(client.head(BUCKET, &key).unwrap(), Some(size), "{key}");
    }
}
