//! `result.json`: the run as one document, beyond the harness's files:
//! every phase's figures, verdicts and the tool's own report (latency
//! percentiles, page cache before reads, slowest task, stonewall counts).
//! The schema is in docs/output.md. `pario report` and `pario compare`
//! read it back through the same types.
//!
//! Its objects have their keys in alphabetical order, as serde_json's
//! `Value` keeps them: [`ResultJson::text`] writes it through a `Value`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::dirs::Dirs;
use super::extension::{Extension, GroupScore};
use super::finished::Finished;
use super::results::{Line, PhaseOutcome, PhaseReport, Score};
use super::Io500Run;
use crate::concurrent::report::Window;
use crate::concurrent::ConcurrentReport;
use crate::run::system::System;
use crate::units::nan_if_null;

/// The document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResultJson {
    pub version: String,
    pub mode: String,
    /// The data's API (`POSIX`, `S3`); results of pario before io500 ran
    /// over S3 have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api: Option<String>,
    pub procs: usize,
    pub config_hash: String,
    pub data_dir: String,
    pub result_dir: String,
    pub started: String,
    pub phases: Vec<PhaseJson>,
    pub score: ScoreJson,
    /// Extended mode's `[SCOREX]` (null in standard mode).
    pub scorex: Option<ScoreJson>,
    /// pario's extensions: present only when run, so that a run without
    /// them has the same document.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extensions: Option<Extensions>,
    /// Where it ran (results of pario before it recorded it have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<System>,
}

/// A score with its hash.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScoreJson {
    #[serde(deserialize_with = "nan_if_null")]
    pub bandwidth_gib_s: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub metadata_kiops: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub total: f64,
    pub valid: bool,
    pub hash: String,
}

/// A phase: its score and verdicts, its `result.txt` values, its report.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PhaseJson {
    pub name: String,
    pub unit: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub score: f64,
    /// Whether the score counts (`[RESULT]`).
    pub scored: bool,
    pub valid: bool,
    pub invalid: Vec<String>,
    pub warnings: Vec<String>,
    pub skipped: bool,
    pub exe: Option<String>,
    pub t_start: String,
    pub t_end: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub t_delta_s: f64,
    pub values: BTreeMap<String, String>,
    pub report: Option<PhaseReport>,
}

/// pario's extensions to the document.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Extensions {
    pub concurrent: ConcurrentJson,
}

/// The concurrent phase (IO500#56), outside the score.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConcurrentJson {
    pub scored: bool,
    pub about: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub score: f64,
    pub formula: String,
    pub valid: bool,
    pub invalid: Vec<String>,
    pub warnings: Vec<String>,
    pub procs: usize,
    pub stonewall_s: u64,
    pub t_start: String,
    pub t_end: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub t_delta_s: f64,
    pub groups: Vec<GroupJson>,
    pub overlap: Option<Window>,
    pub report: Option<ConcurrentReport>,
}

/// A group of the concurrent phase.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupJson {
    pub name: String,
    pub tool: String,
    pub share: u32,
    pub tasks: usize,
    pub first_rank: usize,
    pub last_rank: usize,
    pub exe: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub score: f64,
    pub unit: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub score_per_task: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub start_s: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub end_s: f64,
}

impl ResultJson {
    /// The document; `hash` gives a score's hash (`true`: `[SCOREX]`).
    pub fn of(
        r: &Io500Run,
        dirs: &Dirs,
        began: &str,
        f: &Finished,
        hash: impl Fn(&Score, bool) -> u32,
    ) -> ResultJson {
        let extended = f.extended.is_some();
        ResultJson {
            version: super::version(),
            mode: r.mode.name().into(),
            api: Some(r.api()),
            procs: f.procs,
            config_hash: format!("{:X}", r.config.config_hash()),
            data_dir: dirs.data.clone(),
            result_dir: dirs.results.clone(),
            started: began.into(),
            phases: f
                .outcomes
                .iter()
                .map(|o| PhaseJson::of(o, extended))
                .collect(),
            score: ScoreJson::of(&f.score, hash(&f.score, false)),
            scorex: f.extended.as_ref().map(|x| ScoreJson::of(x, hash(x, true))),
            extensions: f.concurrent.as_ref().map(|x| Extensions {
                concurrent: ConcurrentJson::of(x),
            }),
            system: f.system.clone(),
        }
    }

    /// As `result.json` holds it (pretty, keys in alphabetical order).
    pub fn text(&self) -> String {
        let sorted = serde_json::to_value(self).unwrap_or_default();
        serde_json::to_string_pretty(&sorted).unwrap_or_default() + "\n"
    }
}

impl ScoreJson {
    fn of(s: &Score, hash: u32) -> ScoreJson {
        ScoreJson {
            bandwidth_gib_s: s.bw,
            metadata_kiops: s.md,
            total: s.total,
            valid: s.valid,
            hash: format!("{hash:X}"),
        }
    }
}

/// A phase's (or the concurrent phase's) lines: why it is invalid, its
/// warnings, its `result.txt` values.
fn lines(all: &[Line]) -> (Vec<String>, Vec<String>, BTreeMap<String, String>) {
    let (mut invalid, mut warnings, mut values) = (Vec::new(), Vec::new(), BTreeMap::new());
    for line in all {
        match line {
            Line::Value(k, v) => {
                values.insert(k.clone(), v.clone());
            }
            Line::Invalid(why) => invalid.push(why.clone()),
            Line::Warning(why) => warnings.push(why.clone()),
        }
    }
    (invalid, warnings, values)
}

impl PhaseJson {
    fn of(o: &PhaseOutcome, extended: bool) -> PhaseJson {
        let (invalid, warnings, values) = lines(&o.lines);
        PhaseJson {
            name: o.phase.name.into(),
            unit: o.phase.unit().into(),
            score: o.score,
            scored: o.phase.counts(extended),
            valid: invalid.is_empty(),
            invalid,
            warnings,
            skipped: o.skipped,
            exe: o.exe.clone(),
            t_start: o.t_start.clone(),
            t_end: o.t_end.clone(),
            t_delta_s: o.t_delta,
            values,
            report: o.report.clone(),
        }
    }
}

impl ConcurrentJson {
    fn of(x: &Extension) -> ConcurrentJson {
        let (invalid, warnings, _) = lines(&x.lines);
        ConcurrentJson {
            scored: false,
            about: "IO500#56's concurrent phase: outside the IO500 score and its hashes".into(),
            score: x.score,
            formula: "procs x geometric mean over the groups of score / tasks".into(),
            valid: invalid.is_empty(),
            invalid,
            warnings,
            procs: x.tasks,
            stonewall_s: x.stonewall,
            t_start: x.t_start.clone(),
            t_end: x.t_end.clone(),
            t_delta_s: x.t_delta,
            groups: x.groups.iter().map(GroupJson::of).collect(),
            overlap: x.report.as_ref().map(|r| r.overlap),
            report: x.report.clone(),
        }
    }
}

impl GroupJson {
    fn of(g: &GroupScore) -> GroupJson {
        GroupJson {
            name: g.name.into(),
            tool: g.tool.into(),
            share: g.share,
            tasks: g.tasks,
            first_rank: g.first_rank,
            last_rank: g.last_rank,
            exe: g.exe.clone(),
            score: g.score,
            unit: g.unit.into(),
            score_per_task: g.per_task(),
            start_s: g.start,
            end_s: g.end,
        }
    }
}
