//! The emulated computation of a step (`train.computation_time`,
//! `evaluation.eval_time`, typed as [`Draw`]): one sleep in the rank's own
//! thread, its length drawn per step from numpy's global stream when the
//! workload gives a spread or a distribution.

use std::time::Duration;

use crate::dlio::config::schema::Draw;

/// Sleeps `seconds` (a signal cuts it short).
pub fn sleep(seconds: f64) {
    if seconds > 0.0 && seconds.is_finite() {
        crate::run::stop::sleep(Duration::from_secs_f64(seconds));
    }
}

/// A float as Python's `repr` writes it (`1.0`, `0.323`).
fn py_float(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e16 {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// The set value as DLIO's block line shows it (its dict's `repr`).
pub fn describe(d: &Draw) -> String {
    let f = py_float;
    match *d {
        Draw::None => "{}".into(),
        Draw::Fixed { mean } => format!("{{'mean': {}}}", f(mean)),
        Draw::Normal { mean, stdev } => format!("{{'mean': {}, 'stdev': {}}}", f(mean), f(stdev)),
        Draw::Uniform { min, max } => {
            format!(
                "{{'type': 'uniform', 'min': {}, 'max': {}}}",
                f(min),
                f(max)
            )
        }
        Draw::Gamma { shape, scale } => {
            format!(
                "{{'type': 'gamma', 'shape': {}, 'scale': {}}}",
                f(shape),
                f(scale)
            )
        }
        Draw::Exponential { scale } => format!("{{'type': 'exponential', 'scale': {}}}", f(scale)),
        Draw::Poisson { lam } => format!("{{'type': 'poisson', 'lam': {}}}", f(lam)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_values_as_python_shows_them() {
        assert_eq!(describe(&Draw::Fixed { mean: 0.323 }), "{'mean': 0.323}");
        assert_eq!(
            describe(&Draw::Normal {
                mean: 1.0,
                stdev: 0.25
            }),
            "{'mean': 1.0, 'stdev': 0.25}"
        );
        assert_eq!(describe(&Draw::None), "{}");
    }
}
