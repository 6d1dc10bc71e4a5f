//! `io500 CONFIG.ini --verify RESULT.txt`: recomputes the configuration's
//! hash and each score's hash from the values in the result file, as the
//! official verifier does, and says which match.

use std::collections::BTreeMap;
use std::process::ExitCode;

use super::config::Config;
use super::files::{number, read_score, value, Section, CONFIG_HASH, RUN, VERSION};
use super::hash;
use super::phases::PHASES;
use super::results::PHASE_SCORE;

/// A result file's sections: name -> key -> value (comments dropped).
pub type Sections = BTreeMap<String, Section>;

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
/// found) for each hash; a section or value the hashes need that is not
/// there (or not a number) is the error.
pub fn checks(config: &Config, result: &Sections) -> Result<Vec<(String, String, String)>, String> {
    let run = result.get(RUN).ok_or(format!("no [{RUN}] section"))?;
    let mut out = vec![(
        CONFIG_HASH.to_string(),
        format!("{:X}", config.config_hash()),
        value(run, RUN, CONFIG_HASH)?.to_string(),
    )];
    let version = value(run, RUN, VERSION)?;
    for (name, extended) in [("SCORE", false), ("SCOREX", true)] {
        let Some(found) = result.get(name) else {
            continue;
        };
        let mut scored: Vec<(&str, f64)> = Vec::new();
        for p in PHASES.iter().filter(|p| super::files::in_hash(p, extended)) {
            if let Some(phase) = result.get(p.name) {
                scored.push((p.name, number(phase, p.name, PHASE_SCORE)?));
            }
        }
        let (score, hash) = read_score(found, name)?;
        let version = (!extended).then_some(version);
        let h = hash::score_hash(
            version,
            &scored,
            score.md,
            score.bw,
            score.total,
            score.valid,
        );
        out.push((format!("{name} hash"), format!("{h:X}"), hash));
    }
    Ok(out)
}

/// Prints each check; exit 0 when every hash matches, 1 otherwise, 2 when a
/// file cannot be read or lacks what the hashes need.
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
    let checked = match checks(&config, &parse(&result)) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("io500: error: {result_file}: {e}");
            return ExitCode::from(2);
        }
    };
    let mut ok = true;
    for (what, expected, found) in checked {
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
