//! The workload files pario ships, under DLIO's names: DLIO's own set (its
//! `mlperf_storage_v2.0` branch, found before `--config-dir` as in Hydra's
//! search path) and the files of MLPerf Storage v2.0 that DLIO lacks (its
//! `*_datagen` and `llama3_*` files, found after `--config-dir`).

/// DLIO's own workloads: `workload=NAME` finds these first.
pub static DLIO: &[(&str, &str)] = &[
    ("bert_v100", include_str!("dlio/bert_v100.yaml")),
    ("cosmoflow_a100", include_str!("dlio/cosmoflow_a100.yaml")),
    ("cosmoflow_h100", include_str!("dlio/cosmoflow_h100.yaml")),
    ("cosmoflow_v100", include_str!("dlio/cosmoflow_v100.yaml")),
    ("default", include_str!("dlio/default.yaml")),
    ("dlrm", include_str!("dlio/dlrm.yaml")),
    ("llama_1t", include_str!("dlio/llama_1t.yaml")),
    ("llama_405b", include_str!("dlio/llama_405b.yaml")),
    ("llama_70b", include_str!("dlio/llama_70b.yaml")),
    ("llama_70b_zero3", include_str!("dlio/llama_70b_zero3.yaml")),
    ("llama_7b", include_str!("dlio/llama_7b.yaml")),
    ("llama_7b_zero3", include_str!("dlio/llama_7b_zero3.yaml")),
    ("llama_8b_zero3", include_str!("dlio/llama_8b_zero3.yaml")),
    (
        "megatron_deepspeed_LLNL",
        include_str!("dlio/megatron_deepspeed_LLNL.yaml"),
    ),
    ("resnet50_a100", include_str!("dlio/resnet50_a100.yaml")),
    ("resnet50_h100", include_str!("dlio/resnet50_h100.yaml")),
    ("resnet50_tf", include_str!("dlio/resnet50_tf.yaml")),
    ("resnet50_v100", include_str!("dlio/resnet50_v100.yaml")),
    ("unet3d_a100", include_str!("dlio/unet3d_a100.yaml")),
    ("unet3d_h100", include_str!("dlio/unet3d_h100.yaml")),
    ("unet3d_v100", include_str!("dlio/unet3d_v100.yaml")),
];

/// MLPerf Storage v2.0's workloads that DLIO lacks: found after `--config-dir`.
pub static MLPERF: &[(&str, &str)] = &[
    (
        "cosmoflow_datagen",
        include_str!("mlperf/cosmoflow_datagen.yaml"),
    ),
    ("llama3_1t", include_str!("mlperf/llama3_1t.yaml")),
    ("llama3_405b", include_str!("mlperf/llama3_405b.yaml")),
    ("llama3_70b", include_str!("mlperf/llama3_70b.yaml")),
    ("llama3_8b", include_str!("mlperf/llama3_8b.yaml")),
    (
        "resnet50_datagen",
        include_str!("mlperf/resnet50_datagen.yaml"),
    ),
    ("unet3d_datagen", include_str!("mlperf/unet3d_datagen.yaml")),
];
