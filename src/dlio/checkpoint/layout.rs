//! Which files each rank writes and what they hold, exactly as DLIO's
//! `mlperf_storage_v2.0` branch decides (checkpointing/base_checkpointing.py):
//! the rank's place in the tensor × pipeline × data grid, the layers of its
//! pipeline stage, each layer's tensors (sharded by tensor parallelism, and
//! by data parallelism under ZeRO 3), the optimizer's six tensors, the file
//! names per ZeRO stage, and the checkpoint size DLIO reports.

use std::rc::Rc;

use super::model::{Dtype, Model};
use super::state::{Dict, Key, Tensor, Value};

/// A rank's place in the parallelism grid (base_checkpointing.py:57-67).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Place {
    pub rank: u64,
    pub model_parallelism: u64,
    pub data_parallelism: u64,
    pub pipeline_rank: u64,
    pub tensor_rank: u64,
    pub data_rank: u64,
    pub model_rank: u64,
}

impl Place {
    pub fn of(model: &Model, rank: u64, ranks: u64) -> Place {
        let p = &model.parallelism;
        let mp = model.model_parallelism();
        Place {
            rank,
            model_parallelism: mp,
            data_parallelism: model.data_parallelism(ranks),
            pipeline_rank: (rank / p.tensor) % p.pipeline,
            tensor_rank: rank % p.tensor,
            data_rank: rank / mp,
            model_rank: rank % mp,
        }
    }

    /// Whether the rank holds and writes state: under ZeRO 0 only the
    /// first model-parallel group (`rank_to_checkpoint`).
    pub fn checkpoints(&self, model: &Model) -> bool {
        model.parallelism.zero_stage != 0 || self.rank < self.model_parallelism
    }
}

/// The layers of a pipeline stage, first and last included
/// (`get_layer_index`): layer 0 is the embedding, 1..=L the transformer
/// layers, L+1 the lm_head, L+2 the final norm. With predefined layer
/// sizes only the transformer layers are counted. Python's floor division
/// is kept for a model without layers.
pub fn layer_range(model: &Model, pipeline_rank: u64, predefined: bool) -> (i64, i64) {
    let pp = model.parallelism.pipeline as i64;
    let l = model.num_layers;
    let (per, rem) = (l.div_euclid(pp), l.rem_euclid(pp));
    let r = pipeline_rank as i64;
    let (mut start, mut end) = if r < rem {
        let start = r * (per + 1) + 1;
        (start, start + per)
    } else {
        let start = rem * (per + 1) + (r - rem) * per + 1;
        (start, start + per - 1)
    };
    if !predefined {
        if r == pp - 1 {
            end = l + 2;
        }
        if r == 0 {
            start = 0;
        }
    }
    (start, end)
}

/// Elements of each tensor of a layer (`get_layer_parameters`), divided
/// step by step as DLIO divides them.
pub fn layer_sizes(model: &Model, layer: i64, data_parallelism: u64) -> Vec<i64> {
    if model.num_layers <= 0 {
        return Vec::new();
    }
    let t = &model.transformer;
    let (h, f, tp) = (t.hidden_size, t.ffn_hidden_size, model.parallelism.tensor);
    let s = if model.parallelism.zero_stage < 3 {
        1
    } else {
        data_parallelism.max(1)
    };
    let kv = h / t.num_attention_heads * t.num_kv_heads;
    let sizes = if layer == 0 || layer == model.num_layers + 1 {
        vec![h * t.vocab_size / tp / s]
    } else if layer == model.num_layers + 2 {
        vec![h / s]
    } else {
        vec![
            h / s,
            h * (h + 2 * kv) / tp / s,
            h * h / tp / s,
            h / s,
            h * 2 * f / tp / s,
            h * f / tp / s,
        ]
    };
    sizes.into_iter().map(|n| n as i64).collect()
}

/// Elements of the optimizer's tensors (`get_optimization_groups`): the
/// rank's share of the parameters three times, each with `5·hidden`.
pub fn optimizer_sizes(model: &Model, data_parallelism: u64) -> Vec<i64> {
    if model.num_layers <= 0 {
        return Vec::new();
    }
    let share = match model.parallelism.zero_stage {
        0 => model.model_parallelism(),
        _ => data_parallelism.max(1) * model.model_parallelism(),
    };
    let n = (model.parameters() / share) as i64;
    let h5 = 5 * model.transformer.hidden_size as i64;
    match n > 0 {
        true => vec![n, h5, n, h5, n, h5],
        false => Vec::new(),
    }
}

/// One file a rank writes: its name under the checkpoint's directory,
/// without the `.pt`, and the dict it holds.
#[derive(Debug, Clone)]
pub struct RankFile {
    pub stem: String,
    pub state: Rc<Dict>,
    pub kind: FileKind,
}

/// Which of DLIO's states a file holds (DLIO times the layers' files and
/// the optimizer's apart, on rank 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// A model that is not a transformer: one tensor.
    Model,
    Layers,
    Optimizer,
}

/// What a rank holds and writes.
#[derive(Debug, Clone, Default)]
pub struct RankState {
    pub files: Vec<RankFile>,
    /// Model and optimizer bytes as DLIO counts them towards
    /// `checkpoint_size` (predefined sizes are not counted; under ZeRO 2 a
    /// rank counts model state it does not write).
    pub counted_model: u64,
    pub counted_optimizer: u64,
}

impl RankState {
    /// Bytes of tensors the rank writes.
    pub fn tensor_bytes(&self) -> u64 {
        self.files.iter().map(|f| f.state.tensor_bytes()).sum()
    }
}

fn fresh(n: i64) -> Key {
    Key::Fresh(n.to_string())
}

fn int8(numel: i64) -> Value {
    Value::Tensor(Tensor {
        dtype: Dtype::Int8,
        numel: numel.max(0) as u64,
    })
}

/// The layers' dict and the bytes DLIO counts for it.
fn layer_state(model: &Model, place: &Place, range: (i64, i64)) -> (Dict, u64) {
    let layers = range.0..=range.1;
    if !model.layer_parameters.is_empty() {
        // One dict object under every layer (the older, predefined path).
        let tp = model.parallelism.tensor as i64;
        let shared = Dict(
            model
                .layer_parameters
                .iter()
                .enumerate()
                .filter(|(_, &n)| n > 0)
                .map(|(i, &n)| (fresh(i as i64), int8(n.div_euclid(tp))))
                .collect(),
        );
        let shared = Rc::new(shared);
        let dict = layers.map(|l| (fresh(l), Value::Dict(shared.clone())));
        return (Dict(dict.collect()), 0);
    }
    let zero = model.parallelism.zero_stage;
    if model.num_layers <= 0 || (zero == 1 && place.data_rank != 0) {
        return (Dict::default(), 0);
    }
    let dict: Vec<(Key, Value)> = layers
        .map(|l| {
            let sizes = layer_sizes(model, l, place.data_parallelism);
            (
                fresh(l),
                Value::Dict(Rc::new(Dict::indexed(&sizes, model.model_dtype))),
            )
        })
        .collect();
    let dict = Dict(dict);
    let bytes = dict.tensor_bytes();
    (dict, bytes)
}

/// The optimizer's dict and the bytes DLIO counts for it.
fn optimizer_state(model: &Model, place: &Place) -> (Dict, u64) {
    if model.optimization_groups.is_empty() {
        let sizes = optimizer_sizes(model, place.data_parallelism);
        let dict = Dict::indexed(&sizes, model.optimizer_dtype);
        let bytes = dict.tensor_bytes();
        return (dict, bytes);
    }
    // The older, predefined path: two int8 tensors a group, then one of
    // them all.
    let mut items = Vec::new();
    let mut total = 0;
    for (i, &n) in model.optimization_groups.iter().enumerate() {
        if n > 0 {
            let pair = Dict(vec![
                (Key::Literal("a"), int8(n)),
                (Key::Literal("b"), int8(n)),
            ]);
            items.push((fresh(i as i64), Value::Dict(Rc::new(pair))));
            total += n;
        }
    }
    items.push((Key::Literal("combined"), int8(total)));
    (Dict(items), 0)
}

/// The state of rank `rank` of `ranks` and the files it writes
/// (`__init__` and `save_checkpoint`).
pub fn rank_state(model: &Model, rank: u64, ranks: u64) -> RankState {
    let place = Place::of(model, rank, ranks);
    let mut out = RankState::default();
    if !place.checkpoints(model) {
        return out;
    }
    let predefined = !model.layer_parameters.is_empty();
    let range = layer_range(model, place.pipeline_rank, predefined);
    let (layers, model_bytes) = layer_state(model, &place, range);
    let (optimizer, optimizer_bytes) = optimizer_state(model, &place);
    out.counted_model = model_bytes;
    out.counted_optimizer = optimizer_bytes;
    let mut file =
        |stem: String, state: Rc<Dict>, kind| out.files.push(RankFile { stem, state, kind });
    if model.size_bytes > 0 && !model.is_transformer() {
        let state = Dict(vec![(Key::Literal("a"), int8(model.size_bytes))]);
        file(
            format!("model_states-{rank}"),
            Rc::new(state),
            FileKind::Model,
        );
    }
    let (dp, mp) = (place.data_rank, place.model_rank);
    let zero = model.parallelism.zero_stage;
    if !layers.is_empty() {
        if (1..3).contains(&zero) {
            if dp == 0 && model.num_layers > 0 {
                if model.parallelism.pipeline > 1 {
                    for (key, value) in &layers.0 {
                        if let Value::Dict(d) = value {
                            let stem = format!("layer_{}-model_{mp}_model_states", key.text());
                            file(stem, d.clone(), FileKind::Layers);
                        }
                    }
                } else {
                    file(
                        format!("model_{mp}_model_states"),
                        Rc::new(layers),
                        FileKind::Layers,
                    );
                }
            }
        } else {
            let stem = format!("zero_pp_rank_{dp}_mp_rank_{mp}_model_states");
            file(stem, Rc::new(layers), FileKind::Layers);
        }
    }
    if !optimizer.is_empty() {
        let stem = format!("zero_pp_rank_{dp}_mp_rank_{mp}_optim_states");
        file(stem, Rc::new(optimizer), FileKind::Optimizer);
    }
    out
}

/// DLIO's `checkpoint_size` of a run on `ranks` ranks: model and optimizer
/// bytes summed over the ranks (an allreduce in DLIO), the model replaced by
/// `model_size_bytes` for a model that is not a transformer.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckpointSize {
    pub model_bytes: u64,
    pub optimizer_bytes: u64,
    /// Bytes of tensors the ranks write (what pario measures rates with).
    pub written_tensor_bytes: u64,
    /// Files a checkpoint has.
    pub files: u64,
}

impl CheckpointSize {
    pub fn of(model: &Model, ranks: u64) -> CheckpointSize {
        let mut size = CheckpointSize {
            model_bytes: 0,
            optimizer_bytes: 0,
            written_tensor_bytes: 0,
            files: 0,
        };
        for rank in 0..ranks {
            let state = rank_state(model, rank, ranks);
            size.model_bytes += state.counted_model;
            size.optimizer_bytes += state.counted_optimizer;
            size.written_tensor_bytes += state.tensor_bytes();
            size.files += state.files.len() as u64;
        }
        if !model.is_transformer() && model.size_bytes > 0 {
            size.model_bytes = model.size_bytes as u64;
        }
        size
    }

    /// `checkpoint_size_GB` (GiB, as DLIO divides by 1024³ three times).
    pub fn gb(&self) -> f64 {
        gib(self.model_bytes) + gib(self.optimizer_bytes)
    }
}

/// Bytes in GiB, as DLIO computes them (`/1024./1024./1024.`).
pub fn gib(bytes: u64) -> f64 {
    bytes as f64 / 1024.0 / 1024.0 / 1024.0
}

#[cfg(test)]
mod tests;
