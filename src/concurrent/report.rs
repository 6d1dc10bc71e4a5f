//! What `pario concurrent` reports: every group's own report and text, its
//! tasks and times, its figures (and, with `--alone`, the same figures
//! alone and the slow-down), the window all groups overlapped, and sums
//! per unit over the groups. Never a single blended number.

use std::collections::BTreeMap;
use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::tools::{means, ToolReport};
use super::Config;
use crate::run::system::System;
use crate::units::{nan_if_null, one_of, StaticName};

/// What a group's first task sends to rank 0 about one run of the group.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Outcome {
    /// Seconds on the shared clock, from the common start.
    #[serde(deserialize_with = "nan_if_null")]
    pub start: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub end: f64,
    pub report: Option<ToolReport>,
    pub text: String,
    pub error: Option<String>,
}

/// How the groups ended, as [`ConcurrentReport::ending`] says.
const ENDINGS: [&str; 2] = ["deadline", "each"];

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ConcurrentReport {
    pub file: String,
    pub tasks: usize,
    /// `deadline` (every group stopped at `deadlineSeconds`) or `each`
    /// (each group ran to the end of its work).
    #[serde(deserialize_with = "ending")]
    pub ending: StaticName,
    #[serde(rename = "deadlineSeconds", skip_serializing_if = "Option::is_none")]
    pub deadline: Option<u64>,
    pub groups: Vec<GroupRun>,
    /// When every group was running: the latest start to the earliest end.
    pub overlap: Window,
    /// Each unit's figures summed over the groups (together).
    pub aggregate: Vec<Sum>,
    /// Where it ran, gathered once for every group (the groups' own
    /// reports leave it out). Files written before have none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<System>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct GroupRun {
    pub group: usize,
    pub line: usize,
    pub share: u32,
    #[serde(deserialize_with = "tool")]
    pub tool: StaticName,
    pub command: String,
    pub tasks: usize,
    #[serde(rename = "firstRank")]
    pub first_rank: usize,
    #[serde(rename = "lastRank")]
    pub last_rank: usize,
    /// Seconds from the common start.
    #[serde(deserialize_with = "nan_if_null")]
    pub start: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub end: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub figures: Vec<Figure>,
    /// The tool's own report.
    pub report: Option<ToolReport>,
    /// The same command alone (`--alone`).
    #[serde(rename = "aloneReport", skip_serializing_if = "Option::is_none")]
    pub alone_report: Option<ToolReport>,
    /// The tool's text.
    #[serde(skip)]
    pub text: String,
}

/// One figure of a group's tool (its mean over repetitions).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Figure {
    pub figure: String,
    pub unit: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub together: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alone: Option<f64>,
    /// For rates: alone / together (above 1: slower together).
    #[serde(rename = "slowDown", skip_serializing_if = "Option::is_none")]
    pub slow_down: Option<f64>,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize)]
pub struct Window {
    #[serde(deserialize_with = "nan_if_null")]
    pub start: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub end: f64,
    #[serde(deserialize_with = "nan_if_null")]
    pub seconds: f64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Sum {
    pub unit: String,
    #[serde(deserialize_with = "nan_if_null")]
    pub sum: f64,
    pub groups: usize,
}

fn ending<'de, D: serde::Deserializer<'de>>(d: D) -> Result<StaticName, D::Error> {
    one_of(d, &ENDINGS)
}

fn tool<'de, D: serde::Deserializer<'de>>(d: D) -> Result<StaticName, D::Error> {
    one_of(d, &super::spec::Kind::ALL.map(super::spec::Kind::name))
}

/// Each figure's mean, in the report's order.
fn figures(report: Option<&ToolReport>) -> Vec<(String, String, f64)> {
    report.map_or_else(Vec::new, |r| means(&r.samples()))
}

fn is_rate(unit: &str) -> bool {
    unit.ends_with("/s")
}

impl ConcurrentReport {
    pub fn new(
        c: &Config,
        ranges: &[Range<usize>],
        together: Vec<Outcome>,
        alone: Vec<Outcome>,
    ) -> ConcurrentReport {
        let mut groups = Vec::new();
        for (i, (g, o)) in c.groups.iter().zip(together).enumerate() {
            let alone = alone.get(i).cloned();
            let alone_figures = figures(alone.as_ref().and_then(|a| a.report.as_ref()));
            let figures = figures(o.report.as_ref())
                .into_iter()
                .map(|(figure, unit, together)| {
                    let alone = alone_figures.iter().find(|a| a.0 == figure).map(|a| a.2);
                    let slow_down = alone
                        .filter(|_| is_rate(&unit) && together > 0.0)
                        .map(|a| a / together);
                    Figure {
                        figure,
                        unit,
                        together,
                        alone,
                        slow_down,
                    }
                })
                .collect();
            groups.push(GroupRun {
                group: i + 1,
                line: g.line,
                share: g.share,
                tool: g.kind.name(),
                command: super::spec::Group {
                    args: c.args_of(g),
                    ..g.clone()
                }
                .command(),
                tasks: ranges[i].len(),
                first_rank: ranges[i].start,
                last_rank: ranges[i].end - 1,
                start: o.start,
                end: o.end,
                error: o.error,
                figures,
                report: o.report,
                alone_report: alone.and_then(|a| a.report),
                text: o.text,
            });
        }
        let start = groups.iter().map(|g| g.start).fold(0.0, f64::max);
        let end = groups.iter().map(|g| g.end).fold(f64::INFINITY, f64::min);
        let mut sums: BTreeMap<String, (f64, usize)> = BTreeMap::new();
        for g in &groups {
            let mut units_seen = Vec::new();
            for f in g.figures.iter().filter(|f| is_rate(&f.unit)) {
                let s = sums.entry(f.unit.clone()).or_default();
                s.0 += f.together;
                if !units_seen.contains(&f.unit) {
                    s.1 += 1;
                    units_seen.push(f.unit.clone());
                }
            }
        }
        ConcurrentReport {
            file: c.file.clone(),
            tasks: ranges.last().map_or(0, |r| r.end),
            ending: match c.deadline {
                Some(_) => ENDINGS[0],
                None => ENDINGS[1],
            },
            deadline: c.deadline,
            groups,
            overlap: Window {
                start,
                end,
                seconds: (end - start).max(0.0),
            },
            aggregate: sums
                .into_iter()
                .map(|(unit, (sum, groups))| Sum { unit, sum, groups })
                .collect(),
            system: None,
        }
    }

    /// The text: the groups, each group's own text, then the figures.
    pub fn text(&self) -> String {
        let mut t = format!(
            "pario concurrent: {} groups from {} on {} tasks, started together at one barrier; {}\n",
            self.groups.len(),
            self.file,
            self.tasks,
            match self.deadline {
                Some(s) => format!("every group stopped at a common deadline of {s} s"),
                None => "each group ran to the end of its work".into(),
            }
        );
        for g in &self.groups {
            t.push_str(&format!(
                "group {}: {}% = {} tasks (ranks {}-{}): {}\n",
                g.group, g.share, g.tasks, g.first_rank, g.last_rank, g.command
            ));
        }
        for g in &self.groups {
            t.push_str(&format!(
                "\n=== group {} ({}, ranks {}-{}) ===\n{}",
                g.group, g.tool, g.first_rank, g.last_rank, g.text
            ));
            if let Some(e) = &g.error {
                t.push_str(&format!("group {} failed: {e}\n", g.group));
            }
        }
        t.push_str("\nConcurrent groups:\n");
        t.push_str(&format!(
            "{:<7}{:<14}{:<7}{:<10}{:<11}{:<11}{}\n",
            "group", "tool", "tasks", "ranks", "start(s)", "end(s)", "time(s)"
        ));
        for g in &self.groups {
            t.push_str(&format!(
                "{:<7}{:<14}{:<7}{:<10}{:<11.3}{:<11.3}{:.3}\n",
                g.group,
                g.tool,
                g.tasks,
                format!("{}-{}", g.first_rank, g.last_rank),
                g.start,
                g.end,
                g.end - g.start
            ));
        }
        t.push_str(&format!(
            "All groups ran together from {:.3} s to {:.3} s ({:.3} s)\n",
            self.overlap.start, self.overlap.end, self.overlap.seconds
        ));
        t.push_str(
            "Figures per group (together; alone and slow-down = alone/together with --alone):\n",
        );
        for g in &self.groups {
            for f in &g.figures {
                let mut line = format!(
                    "  group {} {:<12} {:<32} {:>12.2} {}",
                    g.group, g.tool, f.figure, f.together, f.unit
                );
                if let Some(a) = f.alone {
                    line.push_str(&format!("  alone {a:.2}"));
                }
                if let Some(s) = f.slow_down {
                    line.push_str(&format!("  slow-down {s:.2}"));
                }
                t.push_str(&line);
                t.push('\n');
            }
        }
        if !self.aggregate.is_empty() {
            t.push_str("Aggregate (each unit's figures summed over the groups, together):\n");
            for s in &self.aggregate {
                t.push_str(&format!(
                    "  {:>14.2} {} from {} group(s)\n",
                    s.sum, s.unit, s.groups
                ));
            }
        }
        t
    }
}
