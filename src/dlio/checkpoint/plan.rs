//! How a checkpoint-only run goes ([`RunPlan`], from the configuration by
//! `setup::plan_of`) and the lines it says ([`Said`]).

use serde::{Deserialize, Serialize};

use super::report::DurationRule;

/// How the run goes.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPlan {
    pub writes: u64,
    pub reads: u64,
    /// Seconds slept before each save and load (`abs` of
    /// `time_between_checkpoints`, as DLIO's sleep takes it).
    pub pause: f64,
    pub rank_sync: bool,
    /// Ranks a reader is shifted by (0: each rank reads its own files).
    pub shift: usize,
    pub cache: CachePolicy,
    pub keep: bool,
    pub rule: DurationRule,
}

/// A line for the outputs (rank 0): one of DLIO's `[OUTPUT]` messages,
/// or pario's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Said<'a> {
    Dlio(&'a str),
    Pario(&'a str),
}

/// What to do about the page cache before a load.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CachePolicy {
    /// Drop it where the node allows, and mark the load when it stays.
    #[default]
    Evict,
    /// Leave it, and mark the load when it serves.
    Keep,
    /// Drop it, and refuse the load when it stays.
    Refuse,
}

impl CachePolicy {
    pub fn parse(text: &str) -> Option<CachePolicy> {
        match text {
            "evict" => Some(CachePolicy::Evict),
            "keep" => Some(CachePolicy::Keep),
            "refuse" => Some(CachePolicy::Refuse),
            _ => None,
        }
    }
}
