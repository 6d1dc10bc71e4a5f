//! Whether two sets of repetitions differ: the one decision `pario compare`
//! and `pario report` share.
//!
//! The estimate is the ratio of the medians (B over A). Its 95 % confidence
//! interval is the exact distribution-free one of the two-sample rank test
//! (Mann-Whitney) inverted for a change of scale: the pairwise ratios
//! `b_j / a_i` sorted, cut where the test's exact permutation distribution
//! puts 2.5 % on each side (Bauer 1972; Hollander and Wolfe). It needs no
//! seed (it is exact) and assumes nothing of the distribution, so two runs
//! of one command are called different in at most 5 % of comparisons
//! whatever the noise looks like. A difference is real only when the whole
//! interval lies beyond the noise threshold, as criterion.rs decides; and
//! when the sizes cannot reach 95 % at all (fewer than 3 repetitions a
//! side, or 3 against 3 or 4, where even fully separated repetitions happen
//! by chance in more than 5 % of runs), there are too few repetitions to
//! tell.

use serde::{Deserialize, Serialize};

use crate::units::nan_if_null;

/// A change smaller than this (as a fraction) is not reported even when it
/// is certain: criterion's noise threshold, wider for storage, whose runs
/// vary more than a CPU loop's.
pub const NOISE: f64 = 0.02;

/// The confidence of the interval.
pub const CONFIDENCE: f64 = 0.95;

/// The fewest repetitions a side that can tell anything.
pub const FEWEST: usize = 3;

/// What a comparison of B against A says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The interval reaches into the noise threshold.
    WithinNoise,
    Faster,
    Slower,
    /// The repetitions cannot show a difference at 95 %.
    TooFew,
}

impl Verdict {
    /// The verdict in a few words, without the ratio (the report's
    /// overview).
    pub fn words(self) -> &'static str {
        match self {
            Verdict::WithinNoise => "within the noise",
            Verdict::Faster => "faster, beyond the noise",
            Verdict::Slower => "slower, beyond the noise",
            Verdict::TooFew => "too few repetitions to tell",
        }
    }
}

/// One side's repetitions (a figure JSON cannot hold, NaN, is written
/// `null` and read back as NaN).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Spread {
    pub n: usize,
    #[serde(deserialize_with = "nan_if_null")]
    pub median: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub mean: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub min: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub max: f64,
    /// Coefficient of variation: the sample standard deviation over the
    /// mean (0 for one repetition).
    #[serde(deserialize_with = "nan_if_null")]
    pub cv: f64,
}

impl Spread {
    pub fn of(values: &[f64]) -> Spread {
        let s = super::Stats::of(values, super::Deviation::Sample);
        let cv = match s.mean {
            m if m != 0.0 => s.stddev / m.abs(),
            _ => f64::NAN,
        };
        Spread {
            n: values.len(),
            median: super::median(values),
            mean: if values.is_empty() { f64::NAN } else { s.mean },
            min: s.min,
            max: s.max,
            cv,
        }
    }
}

/// The comparison of B's repetitions with A's.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Judgement {
    /// B's median over A's.
    pub ratio: f64,
    /// The 95 % confidence interval of the ratio, when the sizes reach it.
    pub interval: Option<[f64; 2]>,
    pub verdict: Verdict,
}

/// Judges B against A (higher is better for the words `faster`/`slower`).
pub fn judge(a: &[f64], b: &[f64]) -> Judgement {
    let ratio = super::median(b) / super::median(a);
    let usable = |v: &[f64]| v.iter().all(|x| x.is_finite() && *x > 0.0);
    let interval = match a.len().min(b.len()) >= FEWEST && usable(a) && usable(b) {
        true => interval(a, b),
        false => None,
    };
    let verdict = match interval {
        None => Verdict::TooFew,
        Some([lo, _]) if lo > 1.0 + NOISE => Verdict::Faster,
        Some([_, hi]) if hi < 1.0 / (1.0 + NOISE) => Verdict::Slower,
        Some(_) => Verdict::WithinNoise,
    };
    Judgement {
        ratio,
        interval,
        verdict,
    }
}

/// The exact interval of the ratio: the pairwise ratios cut at the rank
/// test's critical count (none when the sizes cannot reach the confidence).
fn interval(a: &[f64], b: &[f64]) -> Option<[f64; 2]> {
    let k = critical(a.len(), b.len(), (1.0 - CONFIDENCE) / 2.0)?;
    let mut ratios: Vec<f64> = a
        .iter()
        .flat_map(|x| b.iter().map(move |y| y / x))
        .collect();
    ratios.sort_by(f64::total_cmp);
    Some([ratios[k], ratios[ratios.len() - 1 - k]])
}

/// The largest `k` with P(U <= k) <= `tail` under the permutation
/// distribution of the Mann-Whitney count U for sizes `m` and `n`.
fn critical(m: usize, n: usize, tail: f64) -> Option<usize> {
    let counts = arrangements(m, n);
    let total: f64 = counts.iter().sum();
    let mut below = 0.0;
    let mut k = None;
    for (u, c) in counts.iter().enumerate() {
        below += c;
        if below / total > tail {
            break;
        }
        k = Some(u);
    }
    k
}

/// How many of the orderings of `m` A's and `n` B's have each count U of
/// (A, B) pairs with B first: the coefficients of the Gaussian binomial
/// [m+n choose m], built one factor at a time (each step's polynomial is
/// [n+i choose i], so the divisions are exact).
fn arrangements(m: usize, n: usize) -> Vec<f64> {
    let mut poly = vec![0.0; m * n + 1];
    poly[0] = 1.0;
    for i in 1..=m {
        // Times (1 - q^(n+i)), then over (1 - q^i).
        for u in (n + i..poly.len()).rev() {
            poly[u] -= poly[u - n - i];
        }
        for u in i..poly.len() {
            poly[u] += poly[u - i];
        }
    }
    poly
}

#[cfg(test)]
mod tests;
