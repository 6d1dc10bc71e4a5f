//! What a training run does, in plain values (the configuration converts
//! into it), and what each rank records of it.

use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::read::ReadOptions;
use super::sampler::Sharding;
use crate::dlio::config::schema::Draw;
use crate::dlio::metrics::{Figures, Steps, Window};
use crate::dlio::options::Follow;

/// A training run.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainPlan {
    /// The training throughput's formula (`pario.throughput`).
    pub throughput: Follow,
    pub epochs: usize,
    /// Steps of an epoch (after `total_training_steps`' cap).
    pub steps: usize,
    /// Whether `total_training_steps` set them (DLIO's line says so).
    pub steps_overridden: bool,
    pub train: Sharding,
    pub computation: Draw,
    pub window: Window,
    pub reading: Reading,
    pub eval: Option<EvalPlan>,
    pub checkpoint: Option<CheckpointPlan>,
}

/// How batches are read.
#[derive(Debug, Clone, PartialEq)]
pub enum Reading {
    /// PyTorch's DataLoader with a per-sample reader.
    PyTorch {
        options: ReadOptions,
        read_threads: usize,
        prefetch_size: usize,
    },
    /// tf.data's TFRecord pipeline.
    TensorFlow {
        read_threads: usize,
        transfer: usize,
        shuffle_size: usize,
        prefetch_size: usize,
        computation_threads: usize,
    },
}

/// `workflow.evaluation`.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalPlan {
    pub sharding: Sharding,
    pub steps: usize,
    pub time: Draw,
    pub after_epoch: usize,
    pub every: usize,
}

/// Checkpoints during training (`workflow.checkpoint`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CheckpointPlan {
    pub after_epoch: usize,
    pub every_epochs: usize,
    /// `steps_between_checkpoints`: when 0 or more, checkpoints go by
    /// steps (and end a block) instead of by epochs.
    pub every_steps: i64,
}

/// A point in time as DLIO writes it (local, `%Y-%m-%dT%H:%M:%S.%f`).
pub fn stamp() -> String {
    chrono::Local::now()
        .format("%Y-%m-%dT%H:%M:%S%.6f")
        .to_string()
}

/// Seconds between two stamps, as pandas subtracts them.
pub fn seconds_between(start: &str, end: &str) -> f64 {
    let parse = |s: &str| chrono::NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S%.f").ok();
    match (parse(start), parse(end)) {
        (Some(a), Some(b)) => (b - a).num_microseconds().unwrap_or(0) as f64 / 1e6,
        _ => 0.0,
    }
}

/// A block of training steps on one rank.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BlockRecord {
    pub start: String,
    pub end: String,
    /// Seconds, two decimals, as DLIO writes it.
    pub duration: String,
    pub steps: Steps,
    pub figures: Figures,
    /// When its clock started (the branch closes a block twice).
    #[serde(skip)]
    pub began: Option<Instant>,
}

/// A checkpoint saved during training, as this rank timed it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SaveRecord {
    pub block: usize,
    pub start: String,
    pub end: String,
    #[serde(deserialize_with = "crate::dlio::metrics::nan_if_null")]
    pub duration: f64,
    /// GB (2^30 bytes) of the whole checkpoint per second.
    #[serde(deserialize_with = "crate::dlio::metrics::nan_if_null")]
    pub throughput: f64,
}

/// An evaluation on one rank.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalRecord {
    pub start: String,
    pub end: String,
    pub duration: String,
    pub steps: Steps,
    pub figures: Figures,
}

/// An epoch on one rank.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EpochRecord {
    pub epoch: usize,
    pub start: String,
    pub end: String,
    pub duration: String,
    /// When the epoch (and the next evaluation) ended.
    pub closed: String,
    pub blocks: Vec<BlockRecord>,
    pub figures: Figures,
    pub eval: Option<EvalRecord>,
    pub saves: Vec<SaveRecord>,
    /// `/proc/meminfo` when the epoch started.
    pub meminfo: Vec<(String, String)>,
}

/// Two decimals of seconds, as DLIO's `'{:.2f}'.format(...)`.
pub fn two_decimals(seconds: f64) -> String {
    format!("{seconds:.2}")
}

/// DLIO's events, told to rank 0's outputs (`[OUTPUT]` lines).
pub trait TrainEvents {
    fn epoch_started(&mut self, _epoch: usize, _steps: usize, _overridden: bool) {}
    fn block_started(&mut self, _block: usize) {}
    /// `figures` are rank 0's own; DLIO shows the throughput times ranks.
    fn block_ended(&mut self, _end: &BlockEnd<'_>) {}
    fn epoch_ended(&mut self, _epoch: usize, _steps: usize, _duration: &str) {}
    fn eval_started(&mut self, _steps: usize) {}
    fn eval_ended(&mut self, _epoch: usize, _steps: usize, _duration: &str, _figures: Figures) {}
    fn checkpoint_started(&mut self, _epoch: usize, _block: usize, _step: usize) {}
    fn checkpoint_ended(&mut self, _epoch: usize, _block: usize, _seconds: f64, _rate: f64) {}
}

/// What a block's end line shows.
pub struct BlockEnd<'a> {
    pub epoch: usize,
    pub block: usize,
    pub steps: usize,
    pub duration: &'a str,
    pub figures: Figures,
    /// Mean and deviation of the counted steps' computation time.
    pub compute: (f64, f64),
    pub set: &'a Draw,
}

/// A rank that tells no one.
pub struct Silent;

impl TrainEvents for Silent {}
