//! Sizes and numbers as users type them (`4k`, `16m`, `-5`) and as IOR prints them
//! (`1 MiB`, `262144 bytes`).

pub const KIB: u64 = 1 << 10;
pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;
pub const TIB: u64 = 1 << 40;
/// Decimal megabyte, for IOR's `(… MB/sec)` figures.
pub const MB: f64 = 1_000_000.0;

/// Parses a byte count: decimal digits with an optional power-of-two suffix
/// `k`, `m`, `g`, `t`, `p` or `e` (case-insensitive). Rejects signs, fractions,
/// unknown suffixes and overflow with a reason suitable for an error message.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("an empty value is not a size".into());
    }
    if s.starts_with('-') {
        return Err(format!("'{text}' is negative; sizes must be positive"));
    }
    let s = s.strip_prefix('+').unwrap_or(s);
    let digits_end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    if digits_end == 0 {
        return Err(format!(
            "'{text}' is not a size (expected digits with an optional k, m, g, t suffix)"
        ));
    }
    let (digits, suffix) = s.split_at(digits_end);
    let shift = match suffix.to_ascii_lowercase().as_str() {
        "" => 0,
        "k" => 10,
        "m" => 20,
        "g" => 30,
        "t" => 40,
        "p" => 50,
        "e" => 60,
        _ => {
            return Err(format!(
                "'{text}' has an unknown size suffix '{suffix}' (use k, m, g, t, p or e)"
            ))
        }
    };
    let base: u64 = digits
        .parse()
        .map_err(|_| format!("'{text}' is too large"))?;
    base.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("'{text}' is too large"))
}

/// Parses a signed integer (no suffix).
pub fn parse_int(text: &str) -> Result<i64, String> {
    let s = text.trim();
    s.parse::<i64>()
        .map_err(|_| format!("'{text}' is not an integer"))
}

/// A non-negative integer (no suffix).
pub fn parse_non_negative(text: &str) -> Result<u64, String> {
    let n = parse_int(text)?;
    u64::try_from(n).map_err(|_| format!("'{text}' must not be negative"))
}

/// C's `%.<precision>e`: `1.234560e+05`, `9.5367e-07` (Rust's `{:e}` writes
/// `9.5367e-7`).
pub fn c_exp(v: f64, precision: usize) -> String {
    let s = format!("{v:.precision$e}");
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.abs())
}

/// C's `%.<precision>f`, with glibc's `nan` and `-nan` where Rust writes
/// `NaN` (the sign matters: x86's 0/0 is `-nan`, as md-workbench prints a
/// single rank's deviation, and io500 hashes a score that is not a number).
pub fn c_fixed(v: f64, precision: usize) -> String {
    match (v.is_nan(), v.is_sign_negative()) {
        (true, false) => "nan".into(),
        (true, true) => "-nan".into(),
        _ => format!("{v:.precision$}"),
    }
}

/// Seconds, whole or decimal (`-d 0.1`), not negative.
pub fn parse_seconds(text: &str) -> Result<f64, String> {
    let s = text.trim();
    match s.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        Ok(_) => Err(format!("'{text}' must be a number of seconds, 0 or more")),
        Err(_) => Err(format!("'{text}' is not a number of seconds")),
    }
}

/// Seconds for a report: a whole number as an integer (`5`, as IOR writes
/// it), otherwise as it is (`0.1`).
pub fn serialize_seconds<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.fract() == 0.0 && *v < 9.0e15 {
        s.serialize_u64(*v as u64)
    } else {
        s.serialize_f64(*v)
    }
}

/// A figure read back from a report: JSON has no NaN or infinity, and
/// serde_json writes them as `null` (md-workbench's deviation of one rank,
/// a rate over no time), so a `null` reads back as NaN.
pub fn nan_if_null<'de, D: serde::Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    let v: Option<f64> = serde::Deserialize::deserialize(d)?;
    Ok(v.unwrap_or(f64::NAN))
}

/// A part of a report flattened into it, read with the path of a field
/// it gets wrong in the error (`#[serde(flatten, deserialize_with =
/// "with_path")]`): serde reads a flattened part from what it buffered,
/// beyond where serde_path_to_error sees.
pub fn with_path<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::Deserialize<'de>,
{
    serde_path_to_error::deserialize(d).map_err(serde::de::Error::custom)
}

/// A name from a fixed set that a report writes (an access, an operation,
/// a signal) and reads back with [`one_of`]. An alias, because serde's
/// derive borrows a field spelt `&str` from its input.
pub type StaticName = &'static str;

/// A name read back from a report that writes one of `names` (a `&'static
/// str` field: an access, an operation, a signal): the same static name, or
/// an error that lists them.
pub fn one_of<'de, D: serde::Deserializer<'de>>(
    d: D,
    names: &[&'static str],
) -> Result<&'static str, D::Error> {
    let text: String = serde::Deserialize::deserialize(d)?;
    name_among(&text, names)
}

/// `text` as the static name among `names` it is, or an error that lists
/// them.
pub fn name_among<E: serde::de::Error>(
    text: &str,
    names: &[&'static str],
) -> Result<&'static str, E> {
    match names.iter().find(|n| **n == text) {
        Some(name) => Ok(name),
        None => Err(E::custom(format!(
            "unknown value {text:?}, expected one of {}",
            names.join(", ")
        ))),
    }
}

/// A duration of `secs` seconds (longer than any clock counts: the longest).
pub fn duration_of(secs: f64) -> std::time::Duration {
    std::time::Duration::try_from_secs_f64(secs).unwrap_or(std::time::Duration::MAX)
}

/// An integer of at least 1.
pub fn parse_positive(text: &str) -> Result<u64, String> {
    match parse_non_negative(text)? {
        0 => Err("must be at least 1".into()),
        n => Ok(n),
    }
}

/// Parses a count that may carry a size suffix, as IOR reads `-s` and mdtest
/// reads `-n` and `-I` (`1k` is 1024).
pub fn parse_count(text: &str) -> Result<u64, String> {
    parse_size(text)
}

/// IOR's `HumanReadable(value, BASE_TWO)`: whole or two-decimal MiB/GiB/TiB,
/// plain bytes below one MiB.
pub fn human_bytes(value: u64) -> String {
    for (unit, name) in [(TIB, "TiB"), (GIB, "GiB"), (MIB, "MiB")] {
        if value >= unit {
            return if value % unit == 0 {
                format!("{} {}", value / unit, name)
            } else {
                format!("{:.2} {}", value as f64 / unit as f64, name)
            };
        }
    }
    format!("{value} bytes")
}

/// IOR's table cell: left-justified in 10 characters, 6 decimals below 1,
/// 2 below 3600, none above; a negative number prints as `-`.
pub fn table_cell(number: f64) -> String {
    if number < 0.0 || number.is_nan() {
        return format!("{:<10}", "   -");
    }
    let precision = if number < 1.0 {
        6
    } else if number < 3600.0 {
        2
    } else {
        0
    };
    format!("{number:<10.precision$}")
}

/// A number as a person reads it (the report, compare): at most three significant digits (all the integer digits of larger
/// numbers, thousands separated by a thin space), no trailing zeros.
pub fn readable_number(v: f64) -> String {
    if !v.is_finite() {
        return "-".into();
    }
    let a = v.abs();
    let decimals = match a {
        a if a >= 100.0 || a == 0.0 => 0,
        a if a >= 10.0 => 1,
        a if a >= 1.0 => 2,
        a => (2 - a.log10().floor() as i32).clamp(0, 9) as usize,
    };
    let text = trim(format!("{v:.decimals$}"));
    match a >= 10_000.0 {
        true => thousands(&text),
        false => text,
    }
}

fn trim(text: String) -> String {
    if !text.contains('.') {
        return text;
    }
    let t = text.trim_end_matches('0').trim_end_matches('.');
    match t {
        "-0" => "0".into(),
        t => t.into(),
    }
}

fn thousands(digits: &str) -> String {
    let (sign, digits) = match digits.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", digits),
    };
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    format!("{sign}{out}")
}

/// A size in bytes: `1 MiB`, `4 KiB`, `1.5 GiB`, `3901 bytes`.
pub fn readable_size(v: u64) -> String {
    let units = [
        (1u64 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    // Exact in quarters of a unit, else approximate from a MiB up (odd
    // transfer sizes stay exact in bytes).
    let suits = |size: u64| v >= size && (v % (size / 4) == 0 || size >= 1 << 20);
    match units.iter().find(|(size, _)| suits(*size)) {
        Some((size, name)) => format!("{} {name}", readable_number(v as f64 / *size as f64)),
        None => format!("{v} bytes"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_suffixes() {
        assert_eq!(parse_size("8"), Ok(8));
        assert_eq!(parse_size("4k"), Ok(4096));
        assert_eq!(parse_size("4K"), Ok(4096));
        assert_eq!(parse_size("16m"), Ok(16 << 20));
        assert_eq!(parse_size("1g"), Ok(1 << 30));
        assert_eq!(parse_size("2T"), Ok(2 << 40));
        assert_eq!(parse_size("47008"), Ok(47008));
        assert_eq!(parse_size(" 1m "), Ok(1 << 20));
    }

    #[test]
    fn bad_sizes_are_explained() {
        assert!(parse_size("-5").unwrap_err().contains("negative"));
        assert!(parse_size("1x")
            .unwrap_err()
            .contains("unknown size suffix 'x'"));
        assert!(parse_size("abc").unwrap_err().contains("not a size"));
        assert!(parse_size("").unwrap_err().contains("empty"));
        assert!(parse_size("1.5m")
            .unwrap_err()
            .contains("unknown size suffix"));
        assert!(parse_size("99999999999e")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("99999999999999999999999")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn human_readable_matches_ior() {
        assert_eq!(human_bytes(1 << 20), "1 MiB");
        assert_eq!(human_bytes(64 << 20), "64 MiB");
        assert_eq!(human_bytes(262144), "262144 bytes");
        assert_eq!(human_bytes(47008), "47008 bytes");
        assert_eq!(human_bytes(3 << 29), "1.50 GiB");
        assert_eq!(human_bytes(20 << 30), "20 GiB");
        assert_eq!(human_bytes(5 << 40), "5 TiB");
    }

    #[test]
    fn table_cells_match_ior_precision() {
        assert_eq!(table_cell(3529.678), "3529.68   ");
        assert_eq!(table_cell(10061.3), "10061     ");
        assert_eq!(table_cell(0.000566), "0.000566  ");
        assert_eq!(table_cell(1024.0), "1024.00   ");
        assert_eq!(table_cell(16384.0), "16384     ");
        assert_eq!(table_cell(-1.0), "   -      ");
    }
}
