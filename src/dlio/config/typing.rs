//! How a workload value becomes a field of the typed config: counts,
//! integers, numbers, booleans, names of an enumeration, durations; each
//! refusal says what was expected.

use super::schema::*;
use super::value::Value;

/// Stores a typed value (the rows' common step).
pub(super) fn put<T>(slot: &mut T, value: Result<T, String>) -> Result<(), String> {
    *slot = value?;
    Ok(())
}

pub(super) fn count(v: &Value) -> Result<u64, String> {
    match v {
        Value::Int(i) if *i >= 0 => Ok(*i as u64),
        _ => Err(format!(
            "expected a count (an integer >= 0), got {}",
            v.kind()
        )),
    }
}

pub(super) fn signed(v: &Value) -> Result<i64, String> {
    match v {
        Value::Int(i) => Ok(*i),
        _ => Err(format!("expected an integer, got {}", v.kind())),
    }
}

pub(super) fn float(v: &Value) -> Result<f64, String> {
    number(v).ok_or_else(|| format!("expected a number, got {}", v.kind()))
}

pub(super) fn boolean(v: &Value) -> Result<bool, String> {
    match v {
        Value::Bool(b) => Ok(*b),
        _ => Err(format!("expected True or False, got {}", v.kind())),
    }
}

pub(super) fn text(v: &Value) -> Result<String, String> {
    match v {
        Value::Str(s) => Ok(s.clone()),
        _ => Err(format!("expected a string, got {}", v.kind())),
    }
}

pub(super) fn optional_text(v: &Value) -> Result<Option<String>, String> {
    match v {
        Value::Null => Ok(None),
        v => text(v).map(Some),
    }
}

/// A name of an enumeration.
pub(super) fn one_of<T>(
    v: &Value,
    parse: fn(&str) -> Option<T>,
    names: &[&str],
) -> Result<T, String> {
    let Value::Str(s) = v else {
        return Err(format!(
            "expected one of {}, got {}",
            names.join(", "),
            v.kind()
        ));
    };
    parse(s).ok_or_else(|| format!("expected one of {}", names.join(", ")))
}

pub(super) fn counts(v: &Value) -> Result<Vec<u64>, String> {
    match v {
        Value::List(items) => items.iter().map(count).collect(),
        _ => Err(format!("expected a list of counts, got {}", v.kind())),
    }
}

/// A shuffle: YAML 1.1 reads `off` as False.
pub(super) fn shuffle(v: &Value) -> Result<Shuffle, String> {
    match v {
        Value::Bool(false) => Ok(Shuffle::Off),
        v => one_of(v, Shuffle::parse, Shuffle::NAMES),
    }
}

/// A duration: a number (its mean), or a mapping as `utility.sleep` reads
/// it.
pub(super) fn draw(v: &Value) -> Result<Draw, String> {
    let Value::Map(m) = v else {
        return Ok(Draw::Fixed { mean: float(v)? });
    };
    for (k, _) in &m.0 {
        let known = [
            "mean", "stdev", "type", "min", "max", "shape", "scale", "lam",
        ];
        if !known.contains(&k.as_str()) {
            return Err(format!(
                "unknown parameter '{k}' (known: {})",
                known.join(", ")
            ));
        }
    }
    let param = |name: &str| -> Result<f64, String> {
        m.get(name)
            .ok_or_else(|| format!("needs '{name}'"))
            .and_then(|v| float(v).map_err(|e| format!("{name}: {e}")))
    };
    let Some(kind) = m.get("type") else {
        return Ok(match (m.get("mean"), m.get("stdev")) {
            (None, _) => Draw::None,
            (Some(_), None) => Draw::Fixed {
                mean: param("mean")?,
            },
            (Some(_), Some(_)) => Draw::Normal {
                mean: param("mean")?,
                stdev: param("stdev")?,
            },
        });
    };
    Ok(match text(kind)?.as_str() {
        "normal" => Draw::Normal {
            mean: param("mean")?,
            stdev: param("stdev")?,
        },
        "uniform" => Draw::Uniform {
            min: param("min")?,
            max: param("max")?,
        },
        "gamma" => Draw::Gamma {
            shape: param("shape")?,
            scale: param("scale")?,
        },
        "exponential" => Draw::Exponential {
            scale: param("scale")?,
        },
        "poisson" => Draw::Poisson { lam: param("lam")? },
        other => {
            return Err(format!(
                "unknown type '{other}' (normal, uniform, gamma, exponential, poisson)"
            ))
        }
    })
}

/// `*_stdev` beside a duration: the mean becomes a normal draw.
pub(super) fn with_stdev(d: &mut Draw, v: &Value) -> Result<(), String> {
    let stdev = float(v)?;
    *d = match *d {
        Draw::Fixed { mean } | Draw::Normal { mean, .. } => Draw::Normal { mean, stdev },
        ref other => other.clone(),
    };
    Ok(())
}

pub(super) fn ksm(c: &mut Config, v: &Value) -> Result<(), String> {
    let mut k = Ksm {
        madv_mergeable_id: 12,
        high_ram_trigger: 30.0,
        low_ram_exit: 15.0,
        await_time: 200,
    };
    if let Value::Map(m) = v {
        for (name, value) in &m.0 {
            match name.as_str() {
                "madv_mergeable_id" => k.madv_mergeable_id = count(value)?,
                "high_ram_trigger" => k.high_ram_trigger = float(value)?,
                "low_ram_exit" => k.low_ram_exit = float(value)?,
                "await_time" => k.await_time = count(value)?,
                other => return Err(format!("unknown ksm parameter '{other}'")),
            }
        }
    }
    c.checkpoint.ksm = Some(k);
    Ok(())
}
