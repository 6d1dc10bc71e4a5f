//! What each phase gave and how IO500 judges and scores it: the phase's
//! lines in `result.txt`, the `[RESULT]` lines, the validity rules and the
//! geometric means.

use std::fmt::Write as _;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::find::FindResult;
use super::phases::{Phase, Scored};
use crate::concurrent::tools::{typed, ToolReport};

/// A line of a phase's section in `result.txt`, in the order it arose.
#[derive(Debug, Clone, PartialEq)]
pub enum Line {
    Value(String, String),
    /// `; ERROR INVALID ...`: the phase (and a mandatory one, the run) is
    /// invalid.
    Invalid(String),
    /// `; WARNING ...`.
    Warning(String),
}

/// The report of what a phase ran, as `result.json` holds it: its tool's,
/// or the find's.
#[derive(Debug, Clone)]
pub enum PhaseReport {
    Tool(ToolReport),
    Find(FindResult),
}

impl Serialize for PhaseReport {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self {
            PhaseReport::Tool(r) => r.serialize(s),
            PhaseReport::Find(f) => f.serialize(s),
        }
    }
}

/// A key only the find's report has at its top.
#[derive(Deserialize)]
struct FindLayout {
    scanned: Option<serde::de::IgnoredAny>,
}

/// A tool's report or the find's, by its layout.
impl<'de> Deserialize<'de> for PhaseReport {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        let find = FindLayout::deserialize(&v).is_ok_and(|f| f.scanned.is_some());
        let report = match (ToolReport::kind_of(&v), find) {
            (None, true) => typed(&v).map(|f| PhaseReport::Find(*f)),
            _ => ToolReport::from_value(&v).map(PhaseReport::Tool),
        };
        report.map_err(serde::de::Error::custom)
    }
}

/// One phase's outcome.
#[derive(Debug, Clone)]
pub struct PhaseOutcome {
    pub phase: &'static Phase,
    /// The tool's command line (`exe =`); none for the timestamp.
    pub exe: Option<String>,
    pub t_start: String,
    pub t_end: String,
    /// The phase's wall time, seconds.
    pub t_delta: f64,
    /// GiB/s or kIOPS; 0 when it did not run or failed.
    pub score: f64,
    pub lines: Vec<Line>,
    /// `run = FALSE`.
    pub skipped: bool,
    /// The phase failed (an I/O error, a full disk): not merely invalid by
    /// the rules; the phases that need its files are skipped.
    pub failed: bool,
    /// The tool's own report (rank 0; for `result.json`).
    pub report: Option<PhaseReport>,
}

impl PhaseOutcome {
    pub fn new(phase: &'static Phase, t_start: String) -> PhaseOutcome {
        PhaseOutcome {
            phase,
            exe: None,
            t_start,
            t_end: String::new(),
            t_delta: 0.0,
            score: 0.0,
            lines: Vec::new(),
            skipped: false,
            failed: false,
            report: None,
        }
    }

    pub fn value(&mut self, key: &str, value: impl ToString) {
        self.lines.push(Line::Value(key.into(), value.to_string()));
    }

    pub fn invalid(&mut self, why: impl Into<String>) {
        self.lines.push(Line::Invalid(why.into()));
    }

    pub fn is_invalid(&self) -> bool {
        self.lines.iter().any(|l| matches!(l, Line::Invalid(_)))
    }

    /// The rules that need the phase's time: a write phase must last the
    /// stonewall time and the official minimum (300 s, 30 s with `scc`); a
    /// scored phase must score.
    pub fn judge(&mut self, stonewall: u64, minimum: u64) {
        if self.phase.write && !self.skipped {
            if self.t_delta < stonewall as f64 {
                self.invalid(format!(
                    "Runtime of phase ({:.6}) is below stonewall time. This shouldn't happen!",
                    self.t_delta
                ));
            }
            if self.t_delta < minimum as f64 {
                self.invalid("Runtime is smaller than expected minimum runtime");
                let hint = match self.t_delta < stonewall as f64 {
                    true => self.explain(minimum.max(stonewall)),
                    // It lasted the stonewall: the stonewall is short.
                    false => format!(
                        "{} ran {:.1} s, its stonewall; a valid run needs {minimum} s: a \
                         stonewall-time of {stonewall} s ([debug]) is for trying the run only",
                        self.phase.name, self.t_delta
                    ),
                };
                self.lines.push(Line::Warning(hint));
            }
        }
        if self.phase.scored != Scored::No && self.score <= 0.0 && !self.is_invalid() {
            self.invalid("the phase did not score (it did not run, or measured nothing)");
        }
    }

    /// Why a write phase was short, in plain words: the stonewall never
    /// stopped it, so it ran out of work.
    fn explain(&self, needed: u64) -> String {
        let knob = match self.phase.group {
            "ior-easy" => "raise [ior-easy] blockSize",
            "ior-hard" => "raise [ior-hard] segmentCount",
            _ => "raise n in its section",
        };
        format!(
            "{} ran {:.1} s; a valid run needs {needed} s: it ran out of work before the \
             stonewall, so {knob} (or lower the task count)",
            self.phase.name, self.t_delta
        )
    }

    /// Its line on stdout and in `result_summary.txt`.
    pub fn result_line(&self, extended: bool) -> String {
        let tag = if self.phase.counts(extended) {
            "[RESULT]"
        } else {
            "[      ]"
        };
        let invalid = if self.is_invalid() { " [INVALID]" } else { "" };
        format!(
            "{tag} {:>20} {:>15} {} : time {:.3} seconds{invalid}",
            self.phase.name,
            format!("{:.6}", self.score),
            self.phase.unit(),
            self.t_delta
        )
    }

    /// Its section of `result.txt`.
    pub fn section(&self) -> String {
        let mut s = format!("[{}]\n", self.phase.name);
        let _ = writeln!(s, "{}", key_value("t_start", &self.t_start));
        if let Some(exe) = &self.exe {
            let _ = writeln!(s, "{}", key_value("exe", exe));
        }
        for line in &self.lines {
            let _ = match line {
                Line::Value(k, v) => writeln!(s, "{}", key_value(k, v)),
                Line::Invalid(why) => writeln!(s, "; ERROR INVALID {why}"),
                Line::Warning(why) => writeln!(s, "; WARNING {why}"),
            };
        }
        if self.phase.kind != super::phases::Kind::Timestamp {
            let score = format!("{:.6}", self.score);
            let _ = writeln!(s, "{}", key_value(PHASE_SCORE, score));
        }
        let _ = writeln!(
            s,
            "{}",
            key_value("t_delta", format!("{:.4}", self.t_delta))
        );
        let _ = writeln!(s, "{}", key_value("t_end", &self.t_end));
        s
    }
}

/// The key of a phase's score in its `result.txt` section.
pub const PHASE_SCORE: &str = "score";

/// `key = value` as IO500 aligns it (keys padded to 15 characters).
pub fn key_value(key: &str, value: impl std::fmt::Display) -> String {
    format!("{key:<15} = {value}")
}

/// A score: bandwidth, metadata and their total, and whether it is valid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Score {
    pub bw: f64,
    pub md: f64,
    pub total: f64,
    pub valid: bool,
}

/// The geometric mean of the positive values (0 without any).
pub fn geometric_mean(values: impl Iterator<Item = f64>) -> f64 {
    let logs: Vec<f64> = values.filter(|v| *v > 0.0).map(f64::ln).collect();
    match logs.len() {
        0 => 0.0,
        n => (logs.iter().sum::<f64>() / n as f64).exp(),
    }
}

/// The score of `extended` or standard mode from the phases' outcomes;
/// `run_valid`: the run-wide rules (stonewall time, dry run) held.
pub fn score(outcomes: &[PhaseOutcome], extended: bool, run_valid: bool) -> Score {
    let counted = |kinds: &[Scored]| {
        outcomes
            .iter()
            .filter(|o| kinds.contains(&o.phase.scored) && o.phase.counts(extended))
            .map(|o| o.score)
            .collect::<Vec<f64>>()
    };
    let bw = geometric_mean(counted(&[Scored::Bandwidth]).into_iter());
    let md_kinds = [Scored::Metadata, Scored::ExtendedMetadata];
    let md = geometric_mean(counted(&md_kinds).into_iter());
    let phases_valid = outcomes
        .iter()
        .filter(|o| o.phase.counts(extended) || (!o.phase.optional && o.phase.scored != Scored::No))
        .all(|o| !o.is_invalid());
    Score {
        bw,
        md,
        total: (bw * md).sqrt(),
        valid: run_valid && phases_valid,
    }
}

impl Score {
    /// `[SCORE ]` (or `[SCOREX]`) line.
    pub fn line(&self, tag: &str) -> String {
        let invalid = if self.valid { "" } else { " [INVALID]" };
        format!(
            "[{tag}] Bandwidth {:.6} GiB/s : IOPS {:.6} kiops : TOTAL {:.6}{invalid}",
            self.bw, self.md, self.total
        )
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::io500::phases::by_name;

    /// The scores of the official harness's scaled-down run
    /// (tests/data/io500/result.txt).
    pub(crate) const SAMPLE: [(&str, f64); 14] = [
        ("ior-easy-write", 10.252616),
        ("mdtest-easy-write", 393.174225),
        ("ior-hard-write", 5.000238),
        ("mdtest-hard-write", 310.487943),
        ("find", 2488.268108),
        ("ior-easy-read", 8.969548),
        ("mdtest-easy-stat", 1806.332472),
        ("ior-hard-read", 9.148316),
        ("mdtest-hard-stat", 1762.127508),
        ("mdtest-easy-delete", 729.774159),
        ("mdtest-hard-read", 691.444774),
        ("mdtest-hard-delete", 330.937668),
        ("ior-rnd4K-easy-read", 12.125783),
        ("timestamp", 0.0),
    ];

    #[test]
    fn scores_are_the_harness_geometric_means() {
        let outcomes: Vec<PhaseOutcome> = SAMPLE
            .iter()
            .map(|(name, score)| PhaseOutcome {
                score: *score,
                ..PhaseOutcome::new(by_name(name).unwrap(), String::new())
            })
            .collect();
        let s = score(&outcomes, false, false);
        assert_eq!(format!("{:.6}", s.md), "796.171760");
        assert_eq!(format!("{:.6}", s.bw), "8.053493");
        assert_eq!(format!("{:.6}", s.total), "80.074737");
        assert_eq!(
            s.line("SCORE "),
            "[SCORE ] Bandwidth 8.053493 GiB/s : IOPS 796.171760 kiops : TOTAL 80.074737 [INVALID]"
        );
    }

    #[test]
    fn result_lines_are_the_harness_layout() {
        let mut o = PhaseOutcome::new(by_name("ior-easy-write").unwrap(), String::new());
        o.score = 10.252616;
        o.t_delta = 0.0127;
        o.invalid("short");
        assert_eq!(
            o.result_line(false),
            "[RESULT]       ior-easy-write       10.252616 GiB/s : time 0.013 seconds [INVALID]"
        );
        let t = PhaseOutcome::new(by_name("timestamp").unwrap(), String::new());
        assert_eq!(
            t.result_line(false),
            "[      ]            timestamp        0.000000 kIOPS : time 0.000 seconds"
        );
        assert_eq!(
            key_value("throughput-stonewall", "10.31"),
            "throughput-stonewall = 10.31"
        );
        assert_eq!(key_value("score", "1.0"), "score           = 1.0");
    }

    #[test]
    fn short_write_phases_are_invalid() {
        let mut o = PhaseOutcome::new(by_name("mdtest-easy-write").unwrap(), String::new());
        o.score = 1.0;
        o.t_delta = 1.026124;
        o.judge(2, 300);
        let lines: Vec<&Line> = o.lines.iter().collect();
        assert_eq!(
            lines,
            [
                &Line::Invalid(
                    "Runtime of phase (1.026124) is below stonewall time. This shouldn't happen!"
                        .into()
                ),
                &Line::Invalid("Runtime is smaller than expected minimum runtime".into()),
                &Line::Warning(
                    "mdtest-easy-write ran 1.0 s; a valid run needs 300 s: it ran out of work \
                     before the stonewall, so raise n in its section (or lower the task count)"
                        .into()
                ),
            ]
        );
        // Past a short stonewall: the stonewall is the reason, not the work.
        o.lines.clear();
        o.t_delta = 2.5;
        o.judge(2, 300);
        assert_eq!(
            o.lines[1],
            Line::Warning(
                "mdtest-easy-write ran 2.5 s, its stonewall; a valid run needs 300 s: a \
                 stonewall-time of 2 s ([debug]) is for trying the run only"
                    .into()
            )
        );
        let mut read = PhaseOutcome::new(by_name("ior-easy-read").unwrap(), String::new());
        read.judge(2, 300);
        assert!(read.is_invalid(), "a scored phase without a score");
    }
}
