//! `io500 CONFIG.ini --verify RESULT.txt`: recomputes the configuration's
//! hash and each score's hash from the values in the result file, as the
//! official verifier does, and says which match.

use std::collections::BTreeMap;
use std::process::ExitCode;

use super::config::Config;
use super::hash;
use super::phases::PHASES;

/// A result file's sections: name -> key -> value (comments dropped).
pub type Sections = BTreeMap<String, BTreeMap<String, String>>;

pub fn parse(text: &str) -> Sections {
    let mut out = Sections::new();
    let mut current = String::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with(';') || line.starts_with('#') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = name.to_string();
            out.entry(current.clone()).or_default();
        } else if let Some((k, v)) = line.split_once('=') {
            let section = out.entry(current.clone()).or_default();
            section.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    out
}

/// The checks of a result file against a configuration: (what, expected,
/// found) for each hash.
pub fn checks(config: &Config, result: &Sections) -> Vec<(String, String, String)> {
    let get = |s: &str, k: &str| {
        result
            .get(s)
            .and_then(|m| m.get(k))
            .cloned()
            .unwrap_or_default()
    };
    let mut out = vec![(
        "config-hash".to_string(),
        format!("{:X}", config.config_hash()),
        get("run", "config-hash"),
    )];
    let version = get("run", "version");
    for (section, extended) in [("SCORE", false), ("SCOREX", true)] {
        if !result.contains_key(section) {
            continue;
        }
        let scored: Vec<(&str, f64)> = PHASES
            .iter()
            .filter(|p| super::files::in_hash(p, extended) && result.contains_key(p.name))
            .map(|p| (p.name, get(p.name, "score").parse().unwrap_or(0.0)))
            .collect();
        let number = |k: &str| -> f64 {
            get(section, k)
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or(0.0)
        };
        let valid = !get(section, "SCORE").contains("INVALID");
        let version = (!extended).then_some(version.as_str());
        let h = hash::score_hash(
            version,
            &scored,
            number("MD"),
            number("BW"),
            number("SCORE"),
            valid,
        );
        out.push((
            format!("{section} hash"),
            format!("{h:X}"),
            get(section, "hash"),
        ));
    }
    out
}

/// Prints each check; exit 0 when every hash matches, 1 otherwise, 2 when a
/// file cannot be read.
pub fn main(config_file: &str, result_file: &str) -> ExitCode {
    let read = |f: &str| std::fs::read_to_string(f).map_err(|e| format!("{f}: {e}"));
    let loaded = read(config_file).and_then(|text| {
        let config = Config::parse(config_file, &text).map_err(|e| e.to_string())?;
        Ok((config, read(result_file)?))
    });
    let (config, result) = match loaded {
        Ok(v) => v,
        Err(e) => {
            eprintln!("io500: error: {e}");
            return ExitCode::from(2);
        }
    };
    let mut ok = true;
    for (what, expected, found) in checks(&config, &parse(&result)) {
        let matches = expected.eq_ignore_ascii_case(&found);
        ok &= matches;
        match matches {
            true => println!("{what}: OK ({found})"),
            false => {
                println!("{what}: MISMATCH: the file says {found}, its values give {expected}")
            }
        }
    }
    match ok {
        true => ExitCode::SUCCESS,
        false => ExitCode::from(1),
    }
}
