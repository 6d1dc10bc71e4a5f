//! The MLPerf Storage v2.0 checkpoint workloads at full scale (computed,
//! nothing written), against the table in the reference notes (dlio.md §2)
//! and DLIO's formulas.

use super::*;
use crate::dlio::checkpoint::model::{Mode, Parallelism, Transformer};

/// (name, layers, hidden, ffn, heads, kv heads, TP, PP, ZeRO, CLOSED ranks)
type Llama = (&'static str, i64, u64, u64, u64, u64, u64, u64, u64, u64);

const LLAMA3: [Llama; 4] = [
    ("8b", 32, 4096, 14336, 32, 8, 1, 1, 3, 8),
    ("70b", 80, 8192, 28672, 128, 8, 8, 1, 3, 64),
    ("405b", 126, 16384, 53248, 128, 8, 8, 32, 1, 512),
    ("1t", 128, 25872, 98304, 192, 32, 8, 64, 1, 1024),
];

fn llama(l: &Llama) -> Model {
    Model {
        kind: Some("transformer".into()),
        num_layers: l.1,
        parallelism: Parallelism {
            tensor: l.6,
            pipeline: l.7,
            data: -1,
            zero_stage: l.8,
        },
        transformer: Transformer {
            vocab_size: 128256,
            hidden_size: l.2,
            ffn_hidden_size: l.3,
            num_attention_heads: l.4,
            num_kv_heads: l.5,
        },
        ..Model::default()
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[test]
fn parameters_of_the_llama3_models() {
    let params: Vec<u64> = LLAMA3.iter().map(|l| llama(l).parameters()).collect();
    assert_eq!(
        params,
        [
            8_030_261_248,
            69_882_617_856,
            405_853_388_800,
            1_183_035_102_480
        ]
    );
}

#[test]
fn closed_sizes_and_files_as_dlio_computes_them() {
    // (model GiB, optimizer GiB, total, files, smallest and largest rank GiB)
    let want = [
        (14.96, 89.75, 104.70, 16, 13.09, 13.09),
        (130.18, 781.03, 911.21, 128, 14.24, 14.24),
        (756.01, 4536.23, 5292.25, 1544, 8.86, 12.32),
        (2203.66, 13222.93, 15426.59, 2072, 12.91, 17.97),
    ];
    for (l, w) in LLAMA3.iter().zip(want) {
        let model = llama(l);
        model.check(l.9).unwrap();
        let size = CheckpointSize::of(&model, l.9);
        let got = (
            round2(gib(size.model_bytes)),
            round2(gib(size.optimizer_bytes)),
            round2(size.gb()),
            size.files,
        );
        assert_eq!(got, (w.0, w.1, w.2, w.3), "llama3-{}", l.0);
        let per_rank: Vec<f64> = (0..l.9)
            .map(|r| gib(rank_state(&model, r, l.9).tensor_bytes()))
            .collect();
        let min = per_rank.iter().cloned().fold(f64::MAX, f64::min);
        let max = per_rank.iter().cloned().fold(0.0, f64::max);
        assert_eq!((round2(min), round2(max)), (w.4, w.5), "llama3-{}", l.0);
        // Everything counted is written (no ZeRO 2 here).
        assert_eq!(
            size.written_tensor_bytes,
            size.model_bytes + size.optimizer_bytes
        );
    }
}

#[test]
fn subset_runs_on_eight_ranks() {
    // data parallelism as mlpstorage sets it: 70b 8, 405b and 1t 2.
    let want = [
        ("70b", 8, 113.90, 16),
        ("405b", 2, 98.54, 48),
        ("1t", 2, 143.72, 32),
    ];
    for (name, dp, gb, files) in want {
        let l = LLAMA3.iter().find(|l| l.0 == name).unwrap();
        let mut model = llama(l);
        model.mode = Mode::Subset;
        model.parallelism.data = dp;
        model.check(8).unwrap();
        let size = CheckpointSize::of(&model, 8);
        assert_eq!(
            (round2(size.gb()), size.files),
            (gb, files),
            "llama3-{name}"
        );
    }
    // 8b's subset on 8 ranks is the CLOSED run; DLIO refuses more ranks
    // than data × model parallelism.
    let mut model = llama(&LLAMA3[0]);
    model.mode = Mode::Subset;
    model.parallelism.data = 1;
    assert!(model
        .check(2)
        .unwrap_err()
        .contains("more than the 3D parallelism 1"));
}

#[test]
fn file_names_per_zero_stage_and_pipeline() {
    let names = |model: &Model, rank, ranks| -> Vec<String> {
        rank_state(model, rank, ranks)
            .files
            .into_iter()
            .map(|f| f.stem)
            .collect()
    };
    // ZeRO 3: every rank writes its model and optimizer shards.
    let m = llama(&LLAMA3[1]);
    assert_eq!(
        names(&m, 13, 64),
        [
            "zero_pp_rank_1_mp_rank_5_model_states",
            "zero_pp_rank_1_mp_rank_5_optim_states"
        ]
    );
    // ZeRO 1 with PP: DP rank 0 writes a file a layer; the first stage
    // has the embedding, the last the lm_head and final norm.
    let m = llama(&LLAMA3[2]);
    let first = names(&m, 0, 512);
    assert_eq!(first[0], "layer_0-model_0_model_states");
    assert_eq!(first.len(), 1 + 4 + 1);
    let last = names(&m, 255, 512);
    assert_eq!(
        &last[last.len() - 3..last.len() - 1],
        [
            "layer_127-model_255_model_states",
            "layer_128-model_255_model_states"
        ]
    );
    assert_eq!(
        names(&m, 256, 512),
        ["zero_pp_rank_1_mp_rank_0_optim_states"]
    );
    // ZeRO 1 without PP: one model file per model-parallel rank.
    let mut m = llama(&LLAMA3[0]);
    m.parallelism.zero_stage = 1;
    assert_eq!(
        names(&m, 0, 2),
        [
            "model_0_model_states",
            "zero_pp_rank_0_mp_rank_0_optim_states"
        ]
    );
    assert_eq!(names(&m, 1, 2), ["zero_pp_rank_1_mp_rank_0_optim_states"]);
    // ZeRO 0: only the first model-parallel group writes.
    m.parallelism.zero_stage = 0;
    assert_eq!(names(&m, 0, 2).len(), 2);
    assert!(names(&m, 1, 2).is_empty());
}

#[test]
fn zero2_counts_model_state_that_only_dp_rank_0_writes() {
    let mut m = llama(&LLAMA3[0]);
    m.parallelism.zero_stage = 2;
    let size = CheckpointSize::of(&m, 4);
    let one_model = rank_state(&m, 0, 4).counted_model;
    assert_eq!(size.model_bytes, 4 * one_model);
    assert_eq!(size.written_tensor_bytes, one_model + size.optimizer_bytes);
}

#[test]
fn a_model_that_is_not_a_transformer() {
    // unet3d: `model.model_size` is not DLIO's key, so the default 10240.
    let m = Model {
        kind: Some("cnn".into()),
        ..Model::default()
    };
    let size = CheckpointSize::of(&m, 4);
    assert_eq!(
        (size.model_bytes, size.optimizer_bytes, size.files),
        (10240, 0, 1)
    );
    let files = rank_state(&m, 0, 4).files;
    assert_eq!(files[0].stem, "model_states-0");
    assert_eq!(files[0].state.tensor_bytes(), 10240);
    assert!(rank_state(&m, 1, 4).files.is_empty());
}

#[test]
fn predefined_sizes_are_shared_and_not_counted() {
    // megatron_deepspeed_LLNL: 40 layers, TP 4, PP 8, ZeRO 1.
    let m = Model {
        kind: Some("megatron_deepspeed".into()),
        num_layers: 40,
        optimization_groups: vec![1009254400, 865075200, 793600],
        layer_parameters: vec![52583936, 209715200],
        parallelism: Parallelism {
            tensor: 4,
            pipeline: 8,
            data: -1,
            zero_stage: 1,
        },
        ..Model::default()
    };
    let state = rank_state(&m, 0, 32);
    let stems: Vec<&str> = state.files.iter().map(|f| f.stem.as_str()).collect();
    assert_eq!(stems[0], "model_states-0");
    assert_eq!(stems[1], "layer_1-model_0_model_states");
    assert_eq!(stems.len(), 1 + 5 + 1);
    assert_eq!(
        state.files[1].state.tensor_bytes(),
        (52583936 + 209715200) / 4
    );
    let opt = state.files.last().unwrap().state.tensor_bytes();
    // a and b for each group, then all of them combined.
    assert_eq!(opt, 3 * (1009254400 + 865075200 + 793600));
    assert_eq!((state.counted_model, state.counted_optimizer), (0, 0));
    assert_eq!(CheckpointSize::of(&m, 32).model_bytes, 10240);
}

#[test]
fn layers_per_pipeline_stage() {
    let m = llama(&LLAMA3[2]); // 126 layers over 32 stages
    assert_eq!(layer_range(&m, 0, false), (0, 4));
    assert_eq!(layer_range(&m, 29, false), (117, 120));
    assert_eq!(layer_range(&m, 30, false), (121, 123));
    assert_eq!(layer_range(&m, 31, false), (124, 128));
    assert_eq!(layer_range(&m, 0, true), (1, 4));
}

#[test]
fn dlio_refusals() {
    let mut m = llama(&LLAMA3[1]);
    assert!(m
        .check(60)
        .unwrap_err()
        .contains("not a multiple of the model parallelism 8"));
    m.parallelism.data = 8;
    assert!(m
        .check(64)
        .unwrap_err()
        .contains("should not be set in default"));
    m.mode = Mode::Subset;
    m.parallelism.data = -1;
    assert!(m
        .check(8)
        .unwrap_err()
        .contains("needs the target data parallelism"));
    let mut m = llama(&LLAMA3[2]);
    m.parallelism.zero_stage = 3;
    assert!(m
        .check(512)
        .unwrap_err()
        .contains("not compatible with pipeline"));
    m.parallelism.zero_stage = 1;
    m.num_layers = 16;
    assert!(m.check(512).unwrap_err().contains("should be larger than"));
}
