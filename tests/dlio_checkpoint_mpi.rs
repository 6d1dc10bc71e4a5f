#![cfg(feature = "mpi")]
//! The checkpoint workload under `mpirun`, one rank a process: the files
//! DLIO writes for the same configuration, fsynced, read back.

use crate::common;
use crate::dlio_checkpoint::{args, checkpoint_json, files_in, ZERO3, ZERO3_FILES};

#[test]
fn mpi_ranks_write_dlios_files_and_load_them() {
    let dir = common::scratch("dlio-ckpt-mpi");
    let d = dir.path();
    let extra = [
        "pario.keep_checkpoints=true",
        "--summaryFormat=JSON",
        "--summaryFile=m.json",
    ];
    let a = args(ZERO3, "2", "1", &extra);
    let mut full = vec!["dlio"];
    full.extend(a.iter().map(String::as_str));
    common::mpirun(common::bin("pario"), d, 4, &full, &[]).ok();
    for k in 1..=2 {
        let got = files_in(&d.join(format!("checkpoints/llama_8b/global_epoch1_step{k}")));
        let want: Vec<(String, u64)> = ZERO3_FILES
            .iter()
            .map(|(n, s)| (n.to_string(), *s))
            .collect();
        assert_eq!(got, want);
    }
    let c = checkpoint_json(&d.join("m.json"));
    assert_eq!(c["ranks"], 4);
    assert_eq!(c["saves"]["fsyncs"], 16);
    assert_eq!(c["loads"]["steps"][0]["ranks"].as_array().unwrap().len(), 4);
}
