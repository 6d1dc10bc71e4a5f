//! Numbers as a person reads them: the unit that suits a figure (GiB/s
//! rather than 9000 MiB/s, k ops/s, µs or ms), at most three significant
//! digits and no `.0` tails, and round tick values for an axis.

// Said the same in compare's workload lines, below the report.
pub use crate::units::{readable_number as number, readable_size as bytes};

/// A unit to show values in: its name, and what a value in the figure's
/// own unit is multiplied by.
#[derive(Debug, Clone, PartialEq)]
pub struct Scale {
    pub unit: String,
    pub factor: f64,
}

impl Scale {
    fn new(unit: &str, factor: f64) -> Scale {
        Scale {
            unit: unit.into(),
            factor,
        }
    }

    /// A value of the figure's own unit, in this one.
    pub fn of(&self, v: f64) -> f64 {
        v * self.factor
    }

    /// `1.21 GiB/s`.
    pub fn text(&self, v: f64) -> String {
        match self.unit.as_str() {
            "" => number(self.of(v)),
            "%" => format!("{} %", number(self.of(v))),
            u => format!("{} {u}", number(self.of(v))),
        }
    }
}

/// The unit that suits values up to `max` of a figure given in `unit`
/// (the tools' `MiB/s`, `ops/s`, `iops/s`, io500's `GiB/s` and `kIOPS`,
/// `s`); a unit it does not know stays as it is.
pub fn scale_for(unit: &str, max: f64) -> Scale {
    let max = max.abs();
    match unit {
        "MiB/s" => bytes_per_second(max * 1024.0 * 1024.0, 1.0 / (1024.0 * 1024.0)),
        "GiB/s" => bytes_per_second(max * 1024.0 * 1024.0 * 1024.0, 1.0 / 1024.0_f64.powi(3)),
        "ops/s" | "iops/s" | "IOPS" => operations(max, 1.0),
        "kIOPS" => operations(max * 1e3, 1e-3),
        "s" => seconds(max),
        other => Scale::new(other, 1.0),
    }
}

/// `max` in bytes per second; `per_byte` converts the figure's unit to
/// bytes.
fn bytes_per_second(max: f64, per_byte: f64) -> Scale {
    let units = ["B/s", "KiB/s", "MiB/s", "GiB/s", "TiB/s", "PiB/s"];
    // Never four digits: 1000 MiB/s is 0.977 GiB/s.
    let mut k = 0;
    while k + 1 < units.len() && max >= 1000.0 * 1024f64.powi(k as i32) {
        k += 1;
    }
    Scale::new(units[k], 1.0 / (per_byte * 1024f64.powi(k as i32)))
}

/// `max` in operations per second; `per_op` converts the figure's unit.
fn operations(max: f64, per_op: f64) -> Scale {
    let (unit, div) = match max {
        m if m >= 1e9 => ("G ops/s", 1e9),
        m if m >= 1e6 => ("M ops/s", 1e6),
        m if m >= 1e3 => ("k ops/s", 1e3),
        _ => ("ops/s", 1.0),
    };
    Scale::new(unit, 1.0 / (per_op * div))
}

/// Seconds in the unit that suits `max`.
pub fn seconds(max: f64) -> Scale {
    match max {
        m if m >= 1.0 || m == 0.0 => Scale::new("s", 1.0),
        m if m >= 1e-3 => Scale::new("ms", 1e3),
        m if m >= 1e-6 => Scale::new("µs", 1e6),
        _ => Scale::new("ns", 1e9),
    }
}

/// A duration with its own unit: `1.5 ms`.
pub fn duration(secs: f64) -> String {
    seconds(secs).text(secs)
}

/// A ratio as `×1.20`.
pub fn ratio(r: f64) -> String {
    match r.is_finite() {
        true => format!("×{r:.2}"),
        false => "-".into(),
    }
}

/// Round tick values from `lo` to `hi`, about `count` of them: steps of 1,
/// 2 or 5 times a power of ten.
pub fn ticks(lo: f64, hi: f64, count: usize) -> Vec<f64> {
    let span = hi - lo;
    if !(span.is_finite() && span > 0.0) {
        return vec![lo];
    }
    let rough = span / count.max(1) as f64;
    let power = 10f64.powf(rough.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * power)
        .find(|s| *s >= rough)
        .unwrap_or(10.0 * power);
    let first = (lo / step).ceil() as i64;
    let last = (hi / step + 1e-9).floor() as i64;
    (first..=last).map(|k| k as f64 * step).collect()
}

/// The top of an axis that starts at zero: a little above `max`, on a
/// tick.
pub fn axis_top(max: f64, count: usize) -> f64 {
    let max = if max > 0.0 { max } else { 1.0 };
    let ticks = ticks(0.0, max * 1.05, count);
    let step = match ticks.len() {
        0 | 1 => max,
        _ => ticks[1] - ticks[0],
    };
    (max * 1.05 / step).ceil() * step
}

/// Log-axis ticks over `[lo, hi]`: 1, 2 and 5 times each power of ten
/// when the range spans a few decades, the powers alone when it spans
/// more.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    if !(lo > 0.0 && hi.is_finite()) {
        return Vec::new();
    }
    let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
    let steps: &[f64] = if b - a <= 3 { &[1.0, 2.0, 5.0] } else { &[1.0] };
    (a..=b)
        .flat_map(|p| steps.iter().map(move |m| m * 10f64.powi(p)))
        .filter(|v| *v >= lo * 0.999 && *v <= hi * 1.001)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_that_suit_the_figures() {
        let s = scale_for("MiB/s", 9000.0);
        assert_eq!(s.unit, "GiB/s");
        assert_eq!(s.text(9000.0), "8.79 GiB/s");
        assert_eq!(scale_for("MiB/s", 300.0).text(300.0), "300 MiB/s");
        assert_eq!(scale_for("MiB/s", 1009.0).text(1009.0), "0.985 GiB/s");
        assert_eq!(scale_for("MiB/s", 0.5).text(0.5), "512 KiB/s");
        assert_eq!(scale_for("ops/s", 300_000.0).text(300_000.0), "300 k ops/s");
        assert_eq!(scale_for("iops/s", 2.5e6).text(2.5e6), "2.5 M ops/s");
        assert_eq!(scale_for("GiB/s", 0.36).text(0.36), "369 MiB/s");
        assert_eq!(scale_for("kIOPS", 119.87).text(119.87), "120 k ops/s");
        assert_eq!(duration(0.000_025), "25 µs");
        assert_eq!(duration(0.0123), "12.3 ms");
        assert_eq!(duration(2.0), "2 s");
    }

    #[test]
    fn numbers_without_tails() {
        let cases = [
            (9000.0, "9000"),
            (300_000.0, "300\u{2009}000"),
            (1.0, "1"),
            (1.5, "1.5"),
            (0.25, "0.25"),
            (0.000_123_4, "0.000123"),
            (12.04, "12"),
            (0.0, "0"),
            (-0.0001, "-0.0001"),
        ];
        for (v, text) in cases {
            assert_eq!(number(v), text, "{v}");
        }
    }

    #[test]
    fn sizes() {
        assert_eq!(bytes(1 << 20), "1 MiB");
        assert_eq!(bytes(4096), "4 KiB");
        assert_eq!(bytes(3 << 29), "1.5 GiB");
        assert_eq!(bytes(3901), "3901 bytes");
        assert_eq!(bytes(47_008), "47008 bytes");
    }

    #[test]
    fn round_ticks() {
        assert_eq!(ticks(0.0, 9.3, 5), [0.0, 2.0, 4.0, 6.0, 8.0]);
        assert_eq!(ticks(0.0, 1.0, 4), [0.0, 0.5, 1.0]);
        let t: Vec<String> = ticks(0.0, 0.35, 5).into_iter().map(number).collect();
        assert_eq!(t, ["0", "0.1", "0.2", "0.3"]);
        assert_eq!(axis_top(9.3, 5), 10.0);
        let t: Vec<String> = log_ticks(1e-6, 1e-4).into_iter().map(duration).collect();
        assert_eq!(
            t,
            ["1 µs", "2 µs", "5 µs", "10 µs", "20 µs", "50 µs", "100 µs"]
        );
        assert_eq!(log_ticks(1e-7, 1.0).len(), 8);
    }
}
