//! `dlio_benchmark`'s training on local tasks (threads), end to end on tiny
//! datasets the program generates first: DLIO's output files parsed (keys,
//! types, counts), pario's JSON report read through its own types, the
//! requests the report counts against the C library's (an interposer),
//! and every refusal in one line before anything is created.

use std::path::Path;
use std::process::Command;

use crate::common::{self, finish, Run};
use crate::interpose::interposer;
use pario::dlio::report::DlioReport;

/// `pario dlio ARGS` with `tasks` local tasks in `dir`.
fn dlio(dir: &Path, tasks: usize, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(common::bin("pario"));
    cmd.arg("dlio")
        .args(args)
        .current_dir(dir)
        .env("PARIO_TASKS", tasks.to_string())
        .envs(env.iter().copied());
    finish(cmd.output().expect("run pario dlio"))
}

/// A tiny unet3d: 8 npz files of about 40 KB, batch 2, no computation, a
/// 10 KiB model checkpoint after epoch 2.
pub(crate) const UNET3D: &[&str] = &[
    "workload=unet3d_h100",
    "++workload.dataset.data_folder=data",
    "++workload.dataset.num_files_train=8",
    "++workload.dataset.record_length_bytes=40000",
    "++workload.dataset.record_length_bytes_stdev=4000",
    "++workload.reader.batch_size=2",
    "++workload.train.epochs=2",
    "++workload.train.computation_time=0",
    "++workload.checkpoint.checkpoint_after_epoch=2",
    "++workload.model.model_size=10240",
];

fn with<'a>(base: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
    base.iter().chain(more).copied().collect()
}

/// Generates the dataset of `args` (without training or checkpoints).
fn generate(dir: &Path, args: &[&str]) {
    let gen = with(
        args,
        &[
            "++workload.workflow.generate_data=True",
            "++workload.workflow.train=False",
            "++workload.workflow.checkpoint=False",
            "++hydra.run.dir=gen",
        ],
    );
    dlio(dir, 2, &gen, &[]).ok();
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn unet3d_trains_and_writes_dlios_files() {
    let scratch = common::scratch("dlio-train-unet3d");
    let dir = scratch.path();
    generate(dir, UNET3D);
    let run = dlio(
        dir,
        2,
        &with(
            UNET3D,
            &[
                "++hydra.run.dir=out",
                "--summaryFormat=JSON",
                "--summaryFile=report.json",
            ],
        ),
        &[],
    );
    run.ok();
    let out = dir.join("out");
    let summary = json(&out.join("summary.json"));
    let metric = &summary["metric"];
    assert_eq!(summary["num_accelerators"], 2);
    assert_eq!(summary["epochs"], 2);
    assert_eq!(metric["train_au_percentage"].as_array().unwrap().len(), 2);
    assert!(metric["train_au_mean_percentage"].is_number());
    assert!(["success", "fail"].contains(&metric["train_au_meet_expectation"].as_str().unwrap()));
    assert!(
        metric["train_throughput_mean_samples_per_second"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert_eq!(
        metric["checkpoint_size_GB"].as_f64().unwrap(),
        10240.0 / (1u64 << 30) as f64
    );
    assert!(
        summary["host_memory_GB"].as_array().unwrap()[0]
            .as_f64()
            .unwrap()
            > 0.0
    );
    for rank in 0..2 {
        let output = json(&out.join(format!("{rank}_output.json")));
        let epoch = &output["2"];
        // 8 samples, batch 2, 2 ranks: 2 steps an epoch.
        assert_eq!(epoch["load"]["block1"].as_array().unwrap().len(), 2);
        assert_eq!(epoch["compute"]["block1"].as_array().unwrap().len(), 2);
        assert!(epoch["au"]["block1"].is_number());
        assert!(output["hostname"].is_string());
        let stats = json(&out.join(format!("{rank}_per_epoch_stats.json")));
        assert!(stats["1"]["block1"]["duration"].is_string());
        assert!(stats["2"]["save_ckpt1"]["throughput"].is_number());
    }
    let log = std::fs::read_to_string(out.join("dlio.log")).unwrap();
    assert!(
        log.contains("[METRIC] Number of Simulated Accelerators: 2 \n"),
        "{log}"
    );
    assert!(
        log.contains("Starting saving checkpoint 1 after total step 2 for epoch 2"),
        "{log}"
    );
    let report: DlioReport =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let t = report.training.expect("the training part");
    assert_eq!((t.epochs, t.steps_per_epoch, t.ranks.len()), (2, 2, 2));
    assert_eq!(t.train.au.len(), 2);
    assert_eq!(
        t.sample_latency.unwrap().count,
        16,
        "8 samples a epoch, 2 epochs"
    );
    assert!(t.bytes_read >= 2 * 8 * 36000, "{}", t.bytes_read);
    assert!(
        t.page_cache_warning.is_some(),
        "kilobytes under 5x the memory"
    );
    assert!(
        !dir.join("checkpoints").exists(),
        "the checkpoint is removed"
    );
}

#[test]
fn the_report_counts_the_requests_the_c_library_sees() {
    let Some(lib) = interposer("count") else {
        return;
    };
    let scratch = common::scratch("dlio-train-count");
    let dir = scratch.path();
    generate(dir, UNET3D);
    let counts = dir.join("counts");
    let data = dir.join("data").to_str().unwrap().to_string();
    let args = with(
        UNET3D,
        &[
            "++hydra.run.dir=out",
            "++workload.workflow.checkpoint=False",
            "++workload.dataset.data_folder=DATA",
            "--summaryFormat=JSON",
            "--summaryFile=report.json",
        ],
    );
    let args: Vec<String> = args.iter().map(|a| a.replace("DATA", &data)).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let env = [
        ("LD_PRELOAD", lib.to_str().unwrap()),
        ("COUNT_PREFIX", data.as_str()),
        ("COUNT_FILE", counts.to_str().unwrap()),
    ];
    dlio(dir, 2, &args, &env).ok();
    let text = std::fs::read_to_string(&counts).unwrap_or_default();
    let called = |name: &str| -> u64 {
        text.lines()
            .filter_map(|l| l.split_once(' '))
            .filter(|(n, _)| *n == name)
            .map(|(_, c)| c.parse::<u64>().unwrap())
            .sum()
    };
    let report: DlioReport =
        serde_json::from_str(&std::fs::read_to_string(dir.join("report.json")).unwrap()).unwrap();
    let t = report.training.unwrap();
    assert_eq!(called("pread64"), t.requests, "{text}");
    let opens: u64 = t.ranks.iter().map(|r| r.opens).sum();
    assert_eq!(
        called("open64") + called("openat64") + called("open"),
        opens,
        "{text}"
    );
}

#[test]
fn tensorflow_ranks_read_their_tfrecords() {
    let scratch = common::scratch("dlio-train-resnet");
    let dir = scratch.path();
    let resnet = [
        "workload=resnet50_h100",
        "++workload.dataset.data_folder=data",
        "++workload.dataset.num_files_train=4",
        "++workload.dataset.num_samples_per_file=6",
        "++workload.dataset.record_length_bytes=3000",
        "++workload.reader.batch_size=3",
        "++workload.reader.read_threads=2",
        "++workload.train.epochs=2",
        "++workload.train.computation_time=0",
    ];
    generate(dir, &resnet);
    let run = dlio(dir, 2, &with(&resnet, &["++hydra.run.dir=out"]), &[]);
    run.ok();
    assert!(
        run.stdout.contains("(tensorflow, tfrecord)"),
        "{}",
        run.stdout
    );
    let summary = json(&dir.join("out/summary.json"));
    assert_eq!(
        summary["metric"]["train_au_percentage"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    // 24 records, batch 3, 2 ranks: 4 steps an epoch.
    let output = json(&dir.join("out/1_output.json"));
    assert_eq!(output["1"]["proc"]["block1"].as_array().unwrap().len(), 4);
}

#[test]
fn evaluation_adds_dlios_eval_figures() {
    let scratch = common::scratch("dlio-train-eval");
    let dir = scratch.path();
    let args = with(
        UNET3D,
        &[
            "++workload.workflow.evaluation=True",
            "++workload.workflow.checkpoint=False",
            "++workload.dataset.num_files_eval=4",
            "++workload.reader.batch_size_eval=1",
            "++workload.evaluation.eval_time=0",
        ],
    );
    generate(dir, &args);
    dlio(dir, 2, &with(&args, &["++hydra.run.dir=out"]), &[]).ok();
    let summary = json(&dir.join("out/summary.json"));
    assert_eq!(
        summary["metric"]["eval_au_percentage"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
    let output = json(&dir.join("out/0_output.json"));
    assert_eq!(
        output["1"]["load"]["eval"].as_array().unwrap().len(),
        2,
        "4 files, batch 1, 2 ranks"
    );
    let log = std::fs::read_to_string(dir.join("out/dlio.log")).unwrap();
    assert!(log.contains("[METRIC] eval_au_meet_expectation: "), "{log}");
}

#[test]
fn missing_data_is_one_line_and_exit_1() {
    let scratch = common::scratch("dlio-train-nodata");
    let dir = scratch.path();
    let run = dlio(dir, 1, &with(UNET3D, &["++hydra.run.dir=out"]), &[]);
    run.fails(1, "No such file or directory");
    assert_eq!(
        run.stderr.lines().filter(|l| l.contains("error")).count(),
        1,
        "{}",
        run.stderr
    );
}

#[test]
fn refusals_are_one_line_exit_2_and_create_nothing() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["++workload.train.total_training_steps=3"],
            "only enough data for 1 steps but 3 wanted",
        ),
        (
            &[
                "++workload.reader.data_loader=dali",
                "++workload.framework=pytorch",
            ],
            "data_loader=dali: not modelled",
        ),
        (&["++workload.dataset.format=hdf5"], "format=hdf5"),
        (&["++workload.dataset.keep_files=False"], "keep_files=False"),
        (
            &[
                "++workload.reader.odirect=True",
                "++workload.dataset.format=csv",
            ],
            "no O_DIRECT reader of csv",
        ),
        (
            &[
                "++workload.dataset.num_files_train=10",
                "++workload.reader.batch_size=1",
            ],
            "the last rank gets",
        ),
        (
            &["++workload.reader.preprocess_time=0.1"],
            "preprocess_time",
        ),
        (&["++workload.model.type=transformer"], "non-transformer"),
    ];
    for (more, says) in cases {
        let scratch = common::scratch("dlio-train-refuse");
        let dir = scratch.path();
        let args = with(UNET3D, &with(more, &["++hydra.run.dir=out"]));
        let run = dlio(dir, 4, &args, &[]);
        run.fails(2, says);
        assert_eq!(
            run.stderr.trim().lines().count(),
            1,
            "{more:?}: {}",
            run.stderr
        );
        assert!(
            common::entries(dir).is_empty(),
            "{more:?}: {:?}",
            common::entries(dir)
        );
    }
}
