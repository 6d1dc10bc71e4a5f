//! What stonewalling did in an ior phase (`-D`, wear-out and status files
//! are in [`crate::run::stonewall`]): IO500 reads these numbers.

use serde::{Deserialize, Serialize};

use super::task_times::TaskTimes;
use crate::units::GIB;

/// What stonewalling did in one phase, over all tasks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StonewallResult {
    /// Whether any task stopped at the deadline.
    pub hit: bool,
    /// Transfers per task when the tasks stopped (before wear-out).
    #[serde(rename = "pairsMin")]
    pub pairs_min: u64,
    #[serde(rename = "pairsMax")]
    pub pairs_max: u64,
    /// Bytes per task when the tasks stopped.
    #[serde(rename = "minDataBytes")]
    pub data_min: u64,
    #[serde(
        rename = "meanDataBytes",
        deserialize_with = "crate::units::nan_if_null"
    )]
    pub data_mean: f64,
    /// Seconds from the start of the transfers to the stop (slowest task).
    #[serde(rename = "time", deserialize_with = "crate::units::nan_if_null")]
    pub time: f64,
    /// Bandwidth up to the stop: all tasks' bytes at the stop over `time`.
    #[serde(rename = "bwMiB", deserialize_with = "crate::units::nan_if_null")]
    pub bw_mib: f64,
}

impl StonewallResult {
    pub fn of(tasks: &[TaskTimes]) -> StonewallResult {
        let active: Vec<&TaskTimes> = tasks.iter().filter(|t| t.active).collect();
        let n = active.len().max(1) as f64;
        let total: u64 = active.iter().map(|t| t.stonewall_bytes).sum();
        let time = active.iter().map(|t| t.stonewall_time).fold(0.0, f64::max);
        StonewallResult {
            hit: active.iter().any(|t| t.hit_deadline),
            pairs_min: active.iter().map(|t| t.stonewall_pairs).min().unwrap_or(0),
            pairs_max: active.iter().map(|t| t.stonewall_pairs).max().unwrap_or(0),
            data_min: active.iter().map(|t| t.stonewall_bytes).min().unwrap_or(0),
            data_mean: total as f64 / n,
            time,
            bw_mib: if time > 0.0 {
                total as f64 / crate::units::MIB as f64 / time
            } else {
                0.0
            },
        }
    }

    /// IOR's log line.
    pub fn log_line(&self) -> String {
        format!(
            "stonewalling pairs accessed min: {} max: {} -- min data: {:.1} GiB mean data: {:.1} GiB time: {:.1}s",
            self.pairs_min,
            self.pairs_max,
            self.data_min as f64 / GIB as f64,
            self.data_mean / GIB as f64,
            self.time
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_task_records() {
        let t = |pairs: u64, hit: bool, time: f64| TaskTimes {
            active: true,
            stonewall_pairs: pairs,
            stonewall_bytes: pairs * 1024,
            stonewall_time: time,
            hit_deadline: hit,
            ..Default::default()
        };
        let r = StonewallResult::of(&[t(10, true, 1.0), t(30, true, 2.0), TaskTimes::default()]);
        assert_eq!(
            (r.pairs_min, r.pairs_max, r.data_min, r.hit),
            (10, 30, 10240, true)
        );
        assert_eq!(r.data_mean, 20480.0);
        assert_eq!(r.time, 2.0);
        assert_eq!(r.bw_mib, 40960.0 / (1 << 20) as f64 / 2.0);
        assert_eq!(
            r.log_line(),
            "stonewalling pairs accessed min: 10 max: 30 -- min data: 0.0 GiB mean data: 0.0 GiB time: 2.0s"
        );
    }
}
