//! The result files rank 0 writes at the end: `result_summary.txt` (what
//! stdout showed) and `result.txt` (an ini: `[run]`, a section per phase,
//! `[SCORE]` and in extended mode `[SCOREX]`, each score with its hash).

use std::fmt::Write as _;

use super::dirs::{write, Dirs};
use super::finished::Finished;
use super::hash;
use super::json::ResultJson;
use super::results::{key_value, Line, PhaseOutcome, Score};
use super::Io500Run;
use crate::error::Result;
use crate::run::info::local_time;

pub fn write_all(
    r: &Io500Run,
    dirs: &Dirs,
    began: &str,
    run_notes: &[Line],
    f: &Finished,
) -> Result<()> {
    let extended = f.extended.is_some();
    write(
        &dirs.results,
        "result_summary.txt",
        &summary(r, f, extended),
    )?;
    write(
        &dirs.results,
        "result.txt",
        &result_txt(r, dirs, began, run_notes, f),
    )?;
    let json = ResultJson::of(r, dirs, began, f, |s, x| hash_of(s, &f.outcomes, x));
    write(&dirs.results, "result.json", &json.text())
}

fn summary(r: &Io500Run, f: &Finished, extended: bool) -> String {
    let mut s = format!("IO500 version {} ({})\n", super::version(), r.mode.name());
    for o in &f.outcomes {
        let _ = writeln!(s, "{}", o.result_line(extended));
    }
    let _ = writeln!(s, "{}", f.score.line("SCORE "));
    if let Some(x) = &f.extended {
        let _ = writeln!(s, "{}", x.line("SCOREX"));
    }
    for line in f.concurrent.iter().flat_map(|x| x.summary_lines()) {
        let _ = writeln!(s, "{line}");
    }
    s
}

fn result_txt(r: &Io500Run, dirs: &Dirs, began: &str, notes: &[Line], f: &Finished) -> String {
    let mut s = format!("[{RUN}]\n");
    for (k, v) in [
        ("procs", f.procs.to_string()),
        (VERSION, super::version()),
        (CONFIG_HASH, format!("{:X}", r.config.config_hash())),
        ("result-dir", dirs.results.clone()),
        ("mode", r.mode.name().to_string()),
        ("api", r.api()),
    ] {
        let _ = writeln!(s, "{}", key_value(k, v));
    }
    let _ = writeln!(s, "; START {began}");
    for line in notes {
        if let Line::Invalid(why) = line {
            let _ = writeln!(s, "; ERROR INVALID {why}");
        }
    }
    s.push_str("\n\n");
    for o in &f.outcomes {
        let _ = writeln!(s, "{}", o.section());
    }
    s.push_str(&score_section("SCORE", &f.score, &f.outcomes, false));
    if let Some(x) = &f.extended {
        s.push('\n');
        s.push_str(&score_section("SCOREX", x, &f.outcomes, true));
    }
    // pario's extension: after the official sections, marked as such.
    if let Some(x) = &f.concurrent {
        s.push('\n');
        s.push_str(&x.section());
    }
    let _ = writeln!(s, "; END {}", local_time());
    s
}

/// The harness's hash of a score section: `[SCORE]` covers the version and
/// the standard phases, `[SCOREX]` the extended mode's own phases only.
fn hash_of(score: &Score, outcomes: &[PhaseOutcome], extended: bool) -> u32 {
    let scored: Vec<(&str, f64)> = outcomes
        .iter()
        .filter(|o| in_hash(o.phase, extended))
        .map(|o| (o.phase.name, o.score))
        .collect();
    let version = (!extended).then(super::version);
    hash::score_hash(
        version.as_deref(),
        &scored,
        score.md,
        score.bw,
        score.total,
        score.valid,
    )
}

/// Whether a phase's score is in the `[SCORE]` (or `[SCOREX]`) hash.
pub fn in_hash(p: &super::phases::Phase, extended: bool) -> bool {
    use super::phases::Scored;
    match extended {
        false => p.counts(false),
        true => p.scored == Scored::ExtendedMetadata,
    }
}

/// The section of the run, and its keys --verify reads back.
pub const RUN: &str = "run";
pub const VERSION: &str = "version";
pub const CONFIG_HASH: &str = "config-hash";

/// The keys of a score section, as written and read back.
const MD: &str = "MD";
const BW: &str = "BW";
const TOTAL: &str = "SCORE";
const HASH: &str = "hash";
/// What marks an invalid score or phase.
const INVALID: &str = " [INVALID]";

fn score_section(name: &str, score: &Score, outcomes: &[PhaseOutcome], extended: bool) -> String {
    let invalid = if score.valid { "" } else { INVALID };
    let h = hash_of(score, outcomes, extended);
    let mut s = format!("[{name}]\n");
    let _ = writeln!(s, "{}", key_value(MD, format!("{:.6}", score.md)));
    let _ = writeln!(s, "{}", key_value(BW, format!("{:.6}", score.bw)));
    let _ = writeln!(
        s,
        "{}",
        key_value(TOTAL, format!("{:.6}{invalid}", score.total))
    );
    let _ = writeln!(s, "{}", key_value(HASH, format!("{h:X}")));
    s
}

/// A section of `result.txt` read back: key -> value.
pub type Section = std::collections::BTreeMap<String, String>;

/// `key` of the section `name`, or the reason it is not there.
pub fn value<'a>(section: &'a Section, name: &str, key: &str) -> Result<&'a str, String> {
    match section.get(key) {
        Some(v) => Ok(v),
        None => Err(format!("[{name}] has no {key}")),
    }
}

/// A number of the section `name` (the first word of its value: a score
/// may be followed by `[INVALID]`).
pub fn number(section: &Section, name: &str, key: &str) -> Result<f64, String> {
    let v = value(section, name, key)?;
    let word = v.split_whitespace().next().unwrap_or("");
    match word.parse::<f64>() {
        Ok(n) if n.is_finite() => Ok(n),
        _ => Err(format!("[{name}] {key}: '{v}' is not a number")),
    }
}

/// A score section read back as it was written: the score and its hash.
pub fn read_score(section: &Section, name: &str) -> Result<(Score, String), String> {
    let score = Score {
        md: number(section, name, MD)?,
        bw: number(section, name, BW)?,
        total: number(section, name, TOTAL)?,
        valid: !value(section, name, TOTAL)?.ends_with(INVALID.trim_start()),
    };
    Ok((score, value(section, name, HASH)?.to_string()))
}
