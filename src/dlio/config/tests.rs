use super::*;
use crate::dlio::config::schema::{Draw, Shuffle};
use crate::dlio::options::{Content, Departure, Follow};
use crate::dlio::workloads;
use crate::random::splitmix64;

fn load_args(args: &[&str]) -> Result<Loaded, String> {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    load(&args, None, &chrono::Local::now())
}

#[test]
fn every_shipped_workload_loads() {
    for (name, _) in workloads::DLIO.iter().chain(workloads::MLPERF) {
        let loaded =
            load_args(&[&format!("workload={name}")]).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            loaded.run_dir.starts_with("./hydra_log/"),
            "{}",
            loaded.run_dir
        );
    }
}

#[test]
fn unet3d_is_typed_as_dlio_reads_it() {
    let c = load_args(&["workload=unet3d_h100"]).expect("unet3d").config;
    assert_eq!(c.dataset.record_length_bytes, 146600628.0);
    assert_eq!(c.dataset.data_folder, "data/unet3d");
    assert_eq!(c.train.computation_time, Draw::Fixed { mean: 0.323 });
    assert_eq!(c.reader.file_shuffle, Shuffle::Seed);
    assert!(c.reader.file_shuffle_given);
    assert_eq!(c.model.model_size, Some(499153191));
    assert_eq!(c.model.model_size_bytes, 10240);
    assert_eq!(c.checkpoint.checkpoint_folder, "checkpoints/unet3d");
    assert_eq!((c.dimension(), c.max_dimension()), (12107, 1448));
    let c = load_args(&["workload=resnet50_h100"])
        .expect("resnet50")
        .config;
    assert_eq!(
        (c.dimension(), c.max_dimension(), c.dimension_stdev()),
        (338, 387, 0.0)
    );
}

#[test]
fn durations_and_yaml_booleans() {
    let c = load_args(&[
        "workload=unet3d_h100",
        "++workload.train.computation_time_stdev=0.01",
        "++workload.reader.file_shuffle=off",
        "++workload.evaluation.eval_time={type: uniform, min: 1, max: 2}",
    ])
    .expect("load")
    .config;
    assert_eq!(
        c.train.computation_time,
        Draw::Normal {
            mean: 0.323,
            stdev: 0.01
        }
    );
    assert_eq!(c.reader.file_shuffle, Shuffle::Off);
    assert!(c.reader.file_shuffle_given);
    assert_eq!(c.evaluation.eval_time, Draw::Uniform { min: 1.0, max: 2.0 });
}

#[test]
fn every_refusal_is_one_line_naming_the_key() {
    for (arg, says) in [
        (
            "++workload.dataset.bogus=1",
            "unknown key workload.dataset.bogus",
        ),
        (
            "++workload.dataset.record_length=5",
            "this DLIO names it workload.dataset.record_length_bytes",
        ),
        (
            "++workload.dataset.num_files_train=-1",
            "workload.dataset.num_files_train=-1: expected a count",
        ),
        (
            "++workload.dataset.format=bmp",
            "workload.dataset.format=bmp: expected one of",
        ),
        (
            "++workload.dataset.compression=gzip",
            "not modelled by pario",
        ),
        ("++workload.reader.reader_classname=a.B", "Python classes"),
        ("++workload.checkpoint.ksm={await_time: 1}", "KSM"),
        (
            "++workload.train.computation_time={type: weibull}",
            "unknown type 'weibull'",
        ),
        (
            "++workload.train.computation_time={mean: 1, sd: 2}",
            "unknown parameter 'sd'",
        ),
        ("++workload.reader={x: 1}", "unknown key workload.reader.x"),
        ("++workload.dataset=5", "unknown key workload.dataset"),
        ("pario.as=maybe", "pario.as takes rules|dlio"),
        ("pario.nothing=1", "pario has no setting nothing"),
    ] {
        let e = load_args(&["workload=unet3d_h100", arg]).unwrap_err();
        assert!(e.contains(says), "{arg}: {e}");
        assert!(!e.contains('\n'), "{arg}: {e}");
    }
    // Unmodelled keys at DLIO's default are accepted.
    load_args(&[
        "workload=unet3d_h100",
        "++workload.dataset.compression=none",
    ])
    .expect("none");
}

#[test]
fn validation_and_the_workflows_this_build_runs() {
    for (args, says) in [
        (
            vec!["workload=unet3d_h100", "++workload.workflow.profiling=True"],
            "workload.workflow.profiling=True: not modelled",
        ),
        (
            vec![
                "workload=resnet50_datagen",
                "++workload.reader.data_loader=pytorch",
            ],
            "no PyTorch reader of TFRecords",
        ),
        (
            vec![
                "workload=unet3d_datagen",
                "++workload.framework=tensorflow",
                "++workload.reader.data_loader=pytorch",
            ],
            "does not go with",
        ),
        (
            vec![
                "workload=unet3d_datagen",
                "++workload.dataset.format=hdf5_opt",
            ],
            "DLIO has no generator for it",
        ),
        (
            vec![
                "workload=unet3d_datagen",
                "++workload.dataset.record_length_bytes=0",
            ],
            "above 0",
        ),
        (
            vec![
                "workload=unet3d_datagen",
                "++workload.storage.storage_type=parallel_fs",
            ],
            "refuses it",
        ),
    ] {
        let loaded = load_args(&args).expect("loads");
        let e = validate(&loaded.config).unwrap_err();
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(!e.contains('\n'), "{e}");
    }
    for valid in [
        &["workload=cosmoflow_datagen"][..],
        // Checkpoint-only runs (issue 40).
        &["workload=unet3d_h100", "++workload.workflow.train=False"],
    ] {
        validate(&load_args(valid).expect("load").config).expect("valid");
    }
}

#[test]
fn pario_settings_from_the_command_line_and_the_workload() {
    let o = load_args(&["workload=unet3d_datagen"])
        .expect("load")
        .options;
    assert_eq!(o.follows(Departure::ModelSize), Follow::Rules);
    assert_eq!(o.content, Content::Fast);
    let o = load_args(&[
        "workload=unet3d_datagen",
        "++workload.pario.as=dlio",
        "pario.model_size=rules",
        "++pario.content=exact",
    ])
    .expect("load")
    .options;
    assert_eq!(o.follows(Departure::ModelSize), Follow::Rules);
    assert_eq!(o.follows(Departure::PytorchShuffle), Follow::Dlio);
    assert_eq!(o.content, Content::Exact);
    assert!(o.describe().contains("pytorch_shuffle"));
}

/// Seeded fuzz: overrides of real keys with random values load or fail in
/// one line, never panic.
#[test]
fn fuzzed_overrides_never_panic() {
    let keys: Vec<&str> = keys::KEYS.iter().map(|k| k.path).collect();
    let values = [
        "1",
        "-1",
        "0.5",
        "x",
        "off",
        "True",
        "null",
        "[1,2]",
        "{mean: 1}",
        "{type: gamma, shape: 1, scale: 2}",
        "''",
        "1e400",
        "${workload.model.name}",
        "${x}",
        "99999999999999999999",
    ];
    let mut state = 11u64;
    for _ in 0..600 {
        let mut args = vec!["workload=unet3d_datagen".to_string()];
        for _ in 0..3 {
            state = splitmix64(state);
            let key = keys[(state % keys.len() as u64) as usize];
            let value = values[((state >> 20) % values.len() as u64) as usize];
            args.push(format!("++workload.{key}={value}"));
        }
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        match load_args(&refs) {
            Ok(l) => {
                if let Err(e) = validate(&l.config) {
                    assert!(!e.contains('\n'), "{args:?}: {e}");
                }
            }
            Err(e) => assert!(!e.contains('\n'), "{args:?}: {e}"),
        }
    }
}
