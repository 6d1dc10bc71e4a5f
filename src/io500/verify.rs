//! `io500 CONFIG.ini --verify RESULT.txt` (or `--verify BUNDLE.tar`, see
//! [`bundle`]): recomputes the configuration's
//! hash and each score's hash from the values in the result file, as the
//! official verifier does, and says which match.

use std::collections::BTreeMap;
use std::process::ExitCode;

use super::bundle;
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

/// Prints each check; exit 0 when every hash (and an archive's every
/// checksum) matches, 1 otherwise, 2 when a file cannot be read or lacks
/// what the hashes need.
pub fn main(config_file: &str, result_file: &str) -> ExitCode {
    let loaded = match super::bundle::is_archive(result_file) {
        true => from_archive(config_file, result_file),
        false => from_files(config_file, result_file),
    };
    let (config, result, mut ok) = match loaded {
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

fn read(file: &str) -> Result<String, String> {
    std::fs::read_to_string(file).map_err(|e| format!("{file}: {e}"))
}

/// The configuration and the result file, each as given.
fn from_files(config_file: &str, result_file: &str) -> Result<(Config, String, bool), String> {
    let text = read(config_file)?;
    let config = Config::parse(config_file, &text).map_err(|e| e.to_string())?;
    Ok((config, read(result_file)?, true))
}

/// An archive of `--bundle`: its checksums printed and judged, then its
/// `result.txt` against the configuration given, else its own.
fn from_archive(config_file: &str, archive: &str) -> Result<(Config, String, bool), String> {
    let members = bundle::unpack(archive)?;
    let problems = bundle::check_sums(&members).map_err(|e| format!("{archive}: {e}"))?;
    for p in &problems {
        println!("checksums: MISMATCH: {p}");
    }
    if problems.is_empty() {
        println!("checksums: OK ({} files)", members.len() - 1);
    }
    let inside =
        |name: &str| bundle::text_of(&members, name).map_err(|e| format!("{archive}: {e}"));
    let (name, text) = match config_file.is_empty() {
        true => ("config-orig.ini", inside("config-orig.ini")?),
        false => (config_file, read(config_file)?),
    };
    let config = Config::parse(name, &text).map_err(|e| e.to_string())?;
    Ok((config, inside("result.txt")?, problems.is_empty()))
}
