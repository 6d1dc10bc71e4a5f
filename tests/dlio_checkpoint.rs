//! `dlio_benchmark`'s checkpoint workload end to end, on threads: the files
//! DLIO's `mlperf_storage_v2.0` branch writes for the same shrunk
//! configurations (names and sizes from runs of it), fsync counted, the
//! page cache before a load, shifted reads, O_DIRECT, refusals before
//! anything is created, and the cleanup of a run and of an interrupted one.

use std::path::Path;
use std::process::Command;

use crate::common::{self, finish, Run};

/// `pario dlio args` on `tasks` threads in `dir`.
pub fn dlio(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    let out = Command::new(common::bin("pario"))
        .arg("dlio")
        .args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", tasks.to_string())
        .output()
        .expect("run pario dlio");
    finish(out)
}

/// The dimensions of the reference runs of DLIO (a llama3 shrunk).
pub const SHRUNK: &[&str] = &[
    "++workload.model.transformer.hidden_size=250",
    "++workload.model.transformer.ffn_hidden_size=500",
    "++workload.model.transformer.vocab_size=1001",
    "++workload.model.transformer.num_attention_heads=8",
    "++workload.model.transformer.num_kv_heads=2",
    "++workload.checkpoint.time_between_checkpoints=0",
    "++hydra.run.dir=out",
];

/// llama3_8b, 3 layers, ZeRO 3 over 4 ranks.
pub const ZERO3: &[&str] = &["workload=llama3_8b", "++workload.model.num_layers=3"];

/// llama3_405b, 5 layers, TP 2, PP 2, ZeRO 1, subset of data parallelism 2.
pub const SUBSET: &[&str] = &[
    "workload=llama3_405b",
    "++workload.model.num_layers=5",
    "++workload.model.parallelism.tensor=2",
    "++workload.model.parallelism.pipeline=2",
    "++workload.checkpoint.mode=subset",
    "++workload.model.parallelism.data=2",
];

/// What DLIO (mlperf_storage_v2.0, 4 ranks under mpirun) wrote for ZERO3.
pub const ZERO3_FILES: &[(&str, u64)] = &[
    ("zero_pp_rank_0_mp_rank_0_model_states.pt", 1053540),
    ("zero_pp_rank_0_mp_rank_0_optim_states.pt", 6303509),
    ("zero_pp_rank_1_mp_rank_0_model_states.pt", 1053540),
    ("zero_pp_rank_1_mp_rank_0_optim_states.pt", 6303509),
    ("zero_pp_rank_2_mp_rank_0_model_states.pt", 1053540),
    ("zero_pp_rank_2_mp_rank_0_optim_states.pt", 6303509),
    ("zero_pp_rank_3_mp_rank_0_model_states.pt", 1053540),
    ("zero_pp_rank_3_mp_rank_0_optim_states.pt", 6303509),
];

/// And for SUBSET.
const SUBSET_FILES: &[(&str, u64)] = &[
    ("layer_0-model_0_model_states.pt", 251817),
    ("layer_0-model_1_model_states.pt", 251817),
    ("layer_1-model_0_model_states.pt", 534613),
    ("layer_1-model_1_model_states.pt", 534613),
    ("layer_2-model_0_model_states.pt", 534613),
    ("layer_2-model_1_model_states.pt", 534613),
    ("layer_3-model_0_model_states.pt", 534613),
    ("layer_3-model_1_model_states.pt", 534613),
    ("layer_4-model_2_model_states.pt", 534613),
    ("layer_4-model_3_model_states.pt", 534613),
    ("layer_5-model_2_model_states.pt", 534613),
    ("layer_5-model_3_model_states.pt", 534613),
    ("layer_6-model_2_model_states.pt", 251817),
    ("layer_6-model_3_model_states.pt", 251817),
    ("layer_7-model_2_model_states.pt", 2025),
    ("layer_7-model_3_model_states.pt", 2025),
    ("zero_pp_rank_0_mp_rank_0_optim_states.pt", 4755029),
    ("zero_pp_rank_0_mp_rank_1_optim_states.pt", 4755029),
    ("zero_pp_rank_0_mp_rank_2_optim_states.pt", 4755029),
    ("zero_pp_rank_0_mp_rank_3_optim_states.pt", 4755029),
];

/// `workload` with SHRUNK, the counts, and `extra`.
pub fn args<'a>(
    workload: &[&'a str],
    writes: &'a str,
    reads: &'a str,
    extra: &[&'a str],
) -> Vec<String> {
    let mut a: Vec<String> = workload
        .iter()
        .chain(SHRUNK)
        .map(|s| s.to_string())
        .collect();
    a.push(format!(
        "++workload.checkpoint.num_checkpoints_write={writes}"
    ));
    a.push(format!(
        "++workload.checkpoint.num_checkpoints_read={reads}"
    ));
    a.extend(extra.iter().map(|s| s.to_string()));
    a
}

fn run(dir: &Path, tasks: usize, a: &[String]) -> Run {
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    dlio(dir, tasks, &a)
}

/// The files of a checkpoint directory, with their sizes.
pub fn files_in(dir: &Path) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                e.metadata().unwrap().len(),
            )
        })
        .collect();
    out.sort();
    out
}

fn owned(files: &[(&str, u64)]) -> Vec<(String, u64)> {
    files.iter().map(|(n, s)| (n.to_string(), *s)).collect()
}

/// pario's JSON document's checkpoint part.
pub fn checkpoint_json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["checkpoint"].clone()
}

#[test]
fn the_files_dlio_writes_and_a_later_run_reads_them() {
    let dir = common::scratch("dlio-ckpt-files");
    let d = dir.path();
    for (workload, folder, want) in [(ZERO3, "ck3", ZERO3_FILES), (SUBSET, "ck1", SUBSET_FILES)] {
        let f = format!("++workload.checkpoint.checkpoint_folder={folder}");
        // Writes only: auto keeps them, for the read run.
        run(d, 4, &args(workload, "2", "0", &[&f])).ok();
        for k in 1..=2 {
            let got = files_in(&d.join(format!("{folder}/global_epoch1_step{k}")));
            assert_eq!(got, owned(want), "{folder} step {k}");
        }
        // A run that only reads leaves them where they are.
        let json = format!("--summaryFile={folder}.json");
        let r = run(
            d,
            4,
            &args(workload, "0", "2", &[&f, "--summaryFormat=JSON", &json]),
        );
        r.ok();
        let c = checkpoint_json(&d.join(format!("{folder}.json")));
        assert_eq!(c["loads"]["steps"].as_array().unwrap().len(), 2);
        assert_eq!(c["saves"]["steps"].as_array().map_or(0, |s| s.len()), 0);
        let bytes: u64 = want.iter().map(|f| f.1).sum();
        assert_eq!(c["bytes"], bytes);
        assert!(c["loads"]["bytes"].as_u64().unwrap() >= 2 * bytes);
        assert_eq!(
            files_in(&d.join(format!("{folder}/global_epoch1_step1"))),
            owned(want)
        );
    }
}

#[test]
fn fsync_counted_and_dlio_behaviour_on_request() {
    let dir = common::scratch("dlio-ckpt-fsync");
    let d = dir.path();
    let r = run(
        d,
        4,
        &args(
            ZERO3,
            "2",
            "1",
            &["--summaryFormat=JSON", "--summaryFile=rules.json"],
        ),
    );
    r.ok();
    assert!(r.stdout.contains("fsync on"), "{}", r.stdout);
    let c = checkpoint_json(&d.join("rules.json"));
    // One fsync per file and checkpoint; the slowest rank's time.
    assert_eq!(c["saves"]["fsyncs"], 16);
    assert_eq!(c["duration_rule"], "slowest");
    let step = &c["saves"]["steps"][0];
    assert_eq!(step["duration"], step["slowest"]);
    assert_eq!(step["ranks"].as_array().unwrap().len(), 4);
    // DLIO's code: no fsync, rank 0's time.
    let r = run(
        d,
        4,
        &args(
            ZERO3,
            "2",
            "1",
            &[
                "pario.as=dlio",
                "--summaryFormat=JSON",
                "--summaryFile=dlio.json",
            ],
        ),
    );
    r.ok();
    assert!(r.stdout.contains("fsync off"), "{}", r.stdout);
    let c = checkpoint_json(&d.join("dlio.json"));
    assert_eq!(c["saves"]["fsyncs"], 0);
    assert_eq!(c["duration_rule"], "rank_zero");
    let step = &c["saves"]["steps"][0];
    assert_eq!(step["duration"], step["rank0"]);
    // DLIO's figures and keys: the metric block.
    assert!(
        r.stdout
            .contains("[METRIC] Checkpoint save duration (seconds): "),
        "{}",
        r.stdout
    );
    assert!(r
        .stdout
        .contains("[METRIC] Checkpoint load I/O Throughput (GB/second): "));
    assert!(!d.join("checkpoints").exists(), "removed at the end");
    // DLIO's files: its keys, every rank's own saves and loads.
    let text = std::fs::read_to_string(d.join("out/summary.json")).unwrap();
    let summary: serde_json::Value = serde_json::from_str(&text).unwrap();
    let want = [
        "save_checkpoint_io_mean_GB_per_second",
        "save_checkpoint_io_stdev_GB_per_second",
        "save_checkpoint_duration_mean_seconds",
        "save_checkpoint_duration_stdev_seconds",
        "load_checkpoint_io_mean_GB_per_second",
        "load_checkpoint_io_stdev_GB_per_second",
        "load_checkpoint_duration_mean_seconds",
        "load_checkpoint_duration_stdev_seconds",
        "checkpoint_size_GB",
    ];
    assert_eq!(summary["metric"].as_object().unwrap().len(), want.len());
    assert_eq!(in_order(&text, &want), want);
    assert_eq!(summary["num_accelerators"], 4);
    assert_eq!(summary["epochs"], 0);
    for rank in 0..4 {
        let text =
            std::fs::read_to_string(d.join(format!("out/{rank}_per_epoch_stats.json"))).unwrap();
        let stats: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(stats["1"].as_object().unwrap().len(), 5);
        let want = ["save_ckpt1", "save_ckpt2", "load_ckpt1"];
        assert_eq!(in_order(&text, &want), want);
        assert!(stats["1"]["save_ckpt1"]["throughput"].as_f64().unwrap() > 0.0);
    }
}

/// `keys` in the order the JSON text has them (serde_json's map sorts).
fn in_order<'a>(text: &str, keys: &[&'a str]) -> Vec<&'a str> {
    let mut found: Vec<(usize, &str)> = keys
        .iter()
        .map(|k| (text.find(&format!("\"{k}\"")).unwrap_or(usize::MAX), *k))
        .collect();
    found.sort();
    found.into_iter().map(|(_, k)| k).collect()
}

#[test]
fn refused_in_one_line_before_anything_is_created() {
    let cases: &[(&[&str], usize, &str)] = &[
        // 3 ranks do not divide into TP 2 × PP 2.
        (
            &["++workload.model.parallelism.tensor=2"],
            3,
            "not a multiple of the model parallelism 2",
        ),
        (
            &["++workload.model.parallelism.data=2"],
            2,
            "should not be set in default checkpoint mode",
        ),
        (
            &[
                "++workload.checkpoint.mode=subset",
                "++workload.model.parallelism.data=1",
            ],
            2,
            "2 ranks are more than the 3D parallelism 1",
        ),
        (
            &["++workload.checkpoint.num_checkpoints_read=3"],
            1,
            "num_checkpoints_read=3 is more than num_checkpoints_write=2",
        ),
        (
            &["++workload.framework=tensorflow"],
            1,
            "tf.train.Checkpoint",
        ),
        (
            &["++workload.model.model_datatype=fp8"],
            1,
            "workload.model.model_datatype: 'fp8' is not a datatype",
        ),
        (
            &["++workload.model.parallelism.pipeline=2"],
            2,
            "ZeRO stage 3 does not go with pipeline parallelism",
        ),
        (
            &["pario.checkpoint_cache=sometimes"],
            1,
            "pario.checkpoint_cache takes evict|keep|refuse",
        ),
        (
            &["pario.checkpoint_requests=huge"],
            1,
            "pario.checkpoint_requests takes torch|SIZE",
        ),
    ];
    for (extra, tasks, message) in cases {
        let dir = common::scratch("dlio-ckpt-refused");
        let r = run(dir.path(), *tasks, &args(ZERO3, "2", "1", extra));
        r.fails(2, message);
        assert_eq!(r.stderr.lines().count(), 1, "{}", r.stderr);
        assert!(
            common::entries(dir.path()).is_empty(),
            "{:?}",
            common::entries(dir.path())
        );
    }
    // Checkpoints to read that were never written.
    let dir = common::scratch("dlio-ckpt-refused");
    run(dir.path(), 1, &args(ZERO3, "0", "1", &[]))
        .fails(2, "zero_pp_rank_0_mp_rank_0_model_states.pt is missing");
    assert!(common::entries(dir.path()).is_empty());
    // llama3-1t's subset on 8 ranks (144 GiB a checkpoint) on this tmpfs.
    let dir = common::scratch("dlio-ckpt-refused");
    let big = [
        "workload=llama3_1t",
        "++workload.checkpoint.mode=subset",
        "++workload.model.parallelism.data=2",
        "++hydra.run.dir=out",
    ];
    let r = dlio(dir.path(), 8, &big);
    r.fails(2, "workload llama_1t: 10 checkpoint(s) of 143.7");
    assert!(r.stderr.contains("free"), "{}", r.stderr);
    assert!(common::entries(dir.path()).is_empty());
}

#[test]
fn the_page_cache_of_tmpfs_is_marked_or_refused() {
    let dir = common::scratch("dlio-ckpt-cache");
    let d = dir.path();
    let r = run(
        d,
        2,
        &args(
            ZERO3,
            "1",
            "1",
            &["--summaryFormat=JSON", "--summaryFile=c.json"],
        ),
    );
    r.ok();
    let c = checkpoint_json(&d.join("c.json"));
    let cache = &c["loads"]["steps"][0]["cache"];
    assert_eq!(
        cache["cachedBeforeRead"]["resident"],
        cache["cachedBeforeRead"]["total"]
    );
    assert!(
        cache["warning"]
            .as_str()
            .unwrap()
            .contains("eviction had no effect"),
        "{cache}"
    );
    assert!(r.stdout.contains("pario: load 1: WARNING"), "{}", r.stdout);
    // Refused: the run stops before the load and removes what it wrote.
    let r = run(
        d,
        2,
        &args(ZERO3, "1", "1", &["pario.checkpoint_cache=refuse"]),
    );
    r.fails(1, "served from the page cache");
    assert!(!d.join("checkpoints").exists());
}

#[test]
fn the_page_cache_of_a_disk_is_dropped_before_a_load() {
    let dir = common::disk_scratch("dlio-ckpt-disk");
    let d = dir.path();
    run(
        d,
        2,
        &args(
            ZERO3,
            "1",
            "1",
            &["--summaryFormat=JSON", "--summaryFile=c.json"],
        ),
    )
    .ok();
    let c = checkpoint_json(&d.join("c.json"));
    let cache = &c["loads"]["steps"][0]["cache"];
    let total = cache["afterEviction"]["total"].as_u64().unwrap();
    assert!(total > 0);
    assert!(
        cache["afterEviction"]["resident"].as_u64().unwrap() * 2 < total,
        "{cache}"
    );
    assert!(cache.get("warning").is_none(), "{cache}");
    // Kept in the cache on request: marked.
    let r = run(
        d,
        2,
        &args(ZERO3, "1", "1", &["pario.checkpoint_cache=keep"]),
    );
    r.ok();
    assert!(r.stdout.contains("WARNING"), "{}", r.stdout);
}

#[test]
fn shifted_reads_and_o_direct() {
    let dir = common::disk_scratch("dlio-ckpt-direct");
    let d = dir.path();
    // Each rank loads the files the next rank wrote.
    let r = run(
        d,
        4,
        &args(
            ZERO3,
            "1",
            "1",
            &[
                "pario.checkpoint_read_shift=1",
                "--summaryFormat=JSON",
                "--summaryFile=s.json",
            ],
        ),
    );
    r.ok();
    assert_eq!(
        checkpoint_json(&d.join("s.json"))["loads"]["steps"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    // O_DIRECT: aligned requests, each file padded to 4 KiB.
    let direct = [
        "pario.checkpoint_odirect=true",
        "pario.keep_checkpoints=true",
        "pario.checkpoint_requests=1m",
    ];
    run(d, 4, &args(ZERO3, "1", "1", &direct)).ok();
    let got = files_in(&d.join("checkpoints/llama_8b/global_epoch1_step1"));
    let padded: Vec<(String, u64)> = ZERO3_FILES
        .iter()
        .map(|(n, s)| (n.to_string(), s.div_ceil(4096) * 4096))
        .collect();
    assert_eq!(got, padded);
}

#[test]
fn an_interrupted_run_removes_what_it_wrote() {
    let dir = common::scratch("dlio-ckpt-signal");
    let d = dir.path();
    let mut a = args(ZERO3, "3", "0", &[]);
    a.push("++workload.checkpoint.time_between_checkpoints=60".into());
    let child = Command::new(common::bin("pario"))
        .arg("dlio")
        .args(&a)
        .current_dir(d)
        .env("PARIO_TASKS", "2")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Rank 0 makes the first checkpoint's directory, then every rank
    // sleeps before the save: the run is stopped there. (A run that fails
    // after writing removes its files the same way: the refused load.)
    let first = d.join("checkpoints/llama_8b/global_epoch1_step1");
    let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !first.exists() && std::time::Instant::now() < until {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    assert!(first.exists());
    let _ = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!d.join("checkpoints").exists());
}

/// `pario compare` takes two runs' JSON, each checkpoint a repetition;
/// so does `pario report`.
#[test]
fn compare_and_report_take_two_runs() {
    let dir = common::scratch("dlio-ckpt-compare");
    let d = dir.path();
    for name in ["a.json", "b.json"] {
        let json = format!("--summaryFile={name}");
        let extra = ["--summaryFormat=JSON", json.as_str()];
        run(d, 4, &args(ZERO3, "2", "2", &extra)).ok();
    }
    let r = common::pario(d, &["compare", "a.json", "b.json"]);
    r.ok();
    for figure in ["checkpoint save", "checkpoint load"] {
        let line = r.stdout.lines().find(|l| l.starts_with(figure));
        let line = line.unwrap_or_else(|| panic!("{figure}: {}", r.stdout));
        assert!(line.contains("(n=2)"), "{line}");
    }
    common::pario(d, &["report", "a.json", "b.json", "-o", "r.html"]).ok();
    let html = std::fs::read_to_string(d.join("r.html")).unwrap();
    assert!(html.contains("data-chart=\"dlio_benchmark checkpoint load"));
}
