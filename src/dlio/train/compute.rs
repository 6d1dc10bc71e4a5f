//! The emulated computation of a step (`train.computation_time`,
//! `evaluation.eval_time`), as DLIO's `sleep()` reads it: a number or
//! `{mean}` sleeps exactly that; `{mean, stdev}` draws `normal(mean,
//! stdev)`; `{type: normal|uniform|gamma|exponential|poisson, ...}` draws
//! from that distribution; the sleep is the draw's absolute value. Draws
//! come from numpy's global stream, one per step.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::super::random_state::RandomState;

/// A step's computation time.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum Sleep {
    /// `{}`, absent or 0: no sleep.
    None,
    Fixed {
        mean: f64,
    },
    Normal {
        mean: f64,
        stdev: f64,
    },
    Uniform {
        min: f64,
        max: f64,
    },
    Gamma {
        shape: f64,
        scale: f64,
    },
    Exponential {
        scale: f64,
    },
    Poisson {
        lam: f64,
    },
}

impl Sleep {
    /// Whether it draws from the random stream.
    pub fn draws(&self) -> bool {
        !matches!(self, Sleep::None | Sleep::Fixed { .. })
    }

    /// The seconds of one step (drawing when it draws).
    pub fn seconds(&self, rs: &mut RandomState) -> f64 {
        let value = match *self {
            Sleep::None => 0.0,
            Sleep::Fixed { mean } => mean,
            Sleep::Normal { mean, stdev } => rs.normal(mean, stdev),
            Sleep::Uniform { min, max } => rs.uniform(min, max),
            Sleep::Gamma { shape, scale } => rs.gamma(shape, scale),
            Sleep::Exponential { scale } => rs.exponential(scale),
            Sleep::Poisson { lam } => rs.poisson(lam) as f64,
        };
        value.abs()
    }

    /// How DLIO's lines show the set value (`set value: {...}`).
    pub fn describe(&self) -> String {
        match *self {
            Sleep::None => "{}".into(),
            Sleep::Fixed { mean } => format!("{{'mean': {mean}}}"),
            Sleep::Normal { mean, stdev } => format!("{{'mean': {mean}, 'stdev': {stdev}}}"),
            Sleep::Uniform { min, max } => {
                format!("{{'type': 'uniform', 'min': {min}, 'max': {max}}}")
            }
            Sleep::Gamma { shape, scale } => {
                format!("{{'type': 'gamma', 'shape': {shape}, 'scale': {scale}}}")
            }
            Sleep::Exponential { scale } => format!("{{'type': 'exponential', 'scale': {scale}}}"),
            Sleep::Poisson { lam } => format!("{{'type': 'poisson', 'lam': {lam}}}"),
        }
    }
}

/// Sleeps `seconds` (a signal cuts it short).
pub fn sleep(seconds: f64) {
    if seconds > 0.0 && seconds.is_finite() {
        crate::run::stop::sleep(Duration::from_secs_f64(seconds));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_times_do_not_draw_and_draws_are_absolute() {
        let mut rs = RandomState::new(1);
        assert_eq!(Sleep::Fixed { mean: 0.323 }.seconds(&mut rs), 0.323);
        assert_eq!(Sleep::None.seconds(&mut rs), 0.0);
        assert!(!Sleep::Fixed { mean: 1.0 }.draws());
        let wide = Sleep::Normal {
            mean: 0.0,
            stdev: 1.0,
        };
        assert!((0..100).all(|_| wide.seconds(&mut rs) >= 0.0));
        // np.random.seed(124); ... the draw equals numpy's (sampler tests
        // check the stream; here only that the same state gives the same).
        let (mut a, mut b) = (RandomState::new(7), RandomState::new(7));
        let g = Sleep::Gamma {
            shape: 2.0,
            scale: 0.1,
        };
        assert_eq!(g.seconds(&mut a), g.seconds(&mut b));
    }

    #[test]
    fn serialises_with_its_type() {
        let s = Sleep::Normal {
            mean: 0.5,
            stdev: 0.1,
        };
        let json = serde_json::to_string(&s).unwrap();
        assert_eq!(json, r#"{"type":"normal","mean":0.5,"stdev":0.1}"#);
        assert_eq!(serde_json::from_str::<Sleep>(&json).unwrap(), s);
    }
}
