//! Summary statistics over repetitions, iterations or tasks.

use serde::{Deserialize, Serialize};

/// Which standard deviation [`Stats::of`] computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Deviation {
    /// Over n (IOR's summary).
    Population,
    /// Over n - 1, and 0 for a single value (mdtest's summary).
    Sample,
    /// Over n - 1 as C computes it: 0/0 for a single value, the NaN x86
    /// makes, which glibc prints `-nan` (md-workbench's summary).
    SampleAsC,
    /// None: the deviation is 0 (mdtest's per-rank columns print none).
    Zero,
}

/// Maximum, minimum, mean and standard deviation of a series (all 0 for an
/// empty one). Every tool's summary uses it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub max: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub min: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub mean: f64,
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub stddev: f64,
}

impl Stats {
    pub fn of(values: &[f64], deviation: Deviation) -> Stats {
        if values.is_empty() {
            return Stats::default();
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let squares = || values.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>();
        let stddev = match deviation {
            Deviation::Population => (squares() / n).sqrt(),
            Deviation::Sample | Deviation::SampleAsC if values.len() > 1 => {
                (squares() / (n - 1.0)).sqrt()
            }
            Deviation::SampleAsC => -f64::NAN,
            Deviation::Sample | Deviation::Zero => 0.0,
        };
        Stats {
            max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            min: values.iter().copied().fold(f64::INFINITY, f64::min),
            mean,
            stddev,
        }
    }
}

pub mod verdict;

/// The middle value (the mean of the two middle ones for an even count;
/// NaN for none).
pub fn median(values: &[f64]) -> f64 {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert!(median(&[]).is_nan());
    }

    #[test]
    fn population_stddev() {
        let s = Stats::of(&[3529.68, 1184.92], Deviation::Population);
        assert!((s.mean - 2357.30).abs() < 1e-9);
        assert!((s.stddev - 1172.38).abs() < 1e-9);
        assert_eq!(s.max, 3529.68);
        assert_eq!(s.min, 1184.92);
        assert_eq!(Stats::of(&[5.0], Deviation::Population).stddev, 0.0);
    }

    #[test]
    fn the_deviation_kinds() {
        let values = [1.0, 2.0, 3.0, 6.0];
        let of = |d| Stats::of(&values, d);
        assert_eq!(of(Deviation::Population).stddev, 3.5f64.sqrt());
        assert_eq!(of(Deviation::Sample).stddev, (14.0f64 / 3.0).sqrt());
        assert_eq!(
            of(Deviation::Zero),
            Stats {
                max: 6.0,
                min: 1.0,
                mean: 3.0,
                stddev: 0.0
            }
        );
        assert_eq!(Stats::of(&[], Deviation::Sample), Stats::default());
        assert_eq!(of(Deviation::SampleAsC).stddev, (14.0f64 / 3.0).sqrt());
        let one = Stats::of(&[2.0], Deviation::SampleAsC).stddev;
        assert!(one.is_nan() && one.is_sign_negative());
    }
}
