//! What the page says of a run besides its figures: the run in a few
//! lines, its parameters and environment as the tool wrote them, and
//! io500's score, phases and concurrent phase.

use serde::Serialize;
use serde_json::Value;

use super::human;
use super::model::Loaded;
use crate::compare::ResultFile;
use crate::concurrent::tools::ToolReport;
use crate::io500::json::ResultJson;
use crate::run::info::{ParioInfo, RunHeader};

/// A figure JSON could not hold (it reads back as NaN) as `or`.
fn finite_or(v: f64, or: f64) -> f64 {
    if v.is_finite() {
        v
    } else {
        or
    }
}

/// How many reasons a phase is invalid for, in words.
fn validity(invalid: &[String]) -> String {
    match invalid.len() {
        0 => "valid".into(),
        n => format!("invalid ({n} reasons)"),
    }
}

impl Loaded {
    /// io500's document, if the result is one.
    pub fn io500(&self) -> Option<&ResultJson> {
        match &self.doc {
            ResultFile::Io500(doc) => Some(doc),
            ResultFile::Tool(_) | ResultFile::Dlio(_) => None,
        }
    }

    /// The run in a few lines: the command, when, where, how many tasks.
    pub fn about(&self) -> Vec<(String, String)> {
        let pairs: Vec<(&str, String)> = match &self.doc {
            ResultFile::Tool(ToolReport::Ior(r)) => header(&r.header),
            ResultFile::Tool(ToolReport::Mdtest(r)) => {
                let mut about = header(&r.header);
                about.push(("path", r.path.clone()));
                about
            }
            ResultFile::Tool(ToolReport::MdWorkbench(r)) => {
                let mut about = vec![
                    ("command", r.args.clone()),
                    ("began", r.began.clone()),
                    ("version", r.version.clone()),
                ];
                about.extend(scale(&r.pario));
                about
            }
            ResultFile::Io500(d) => vec![
                ("began", d.started.clone()),
                ("version", d.version.clone()),
                ("mode", d.mode.clone()),
                ("tasks", d.procs.to_string()),
                ("path", d.data_dir.clone()),
            ],
            ResultFile::Dlio(r) => super::dlio::about(r),
        };
        pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
    }

    /// The run's parameters and environment as the tool wrote them: the
    /// scalars at the top, mdtest's `Parameters` and file system, each ior
    /// test's options, path and file system.
    pub fn parameters(&self) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let top = match &self.doc {
            ResultFile::Tool(r) => as_written(r),
            ResultFile::Io500(d) => as_written(d),
            ResultFile::Dlio(r) => as_written(r),
        };
        for (k, v) in top.as_object().into_iter().flatten() {
            if !v.is_object() && !v.is_array() {
                out.push((k.clone(), text(v)));
            }
        }
        match &self.doc {
            ResultFile::Tool(ToolReport::Mdtest(r)) => {
                flatten("", &as_written(&r.parameters), &mut out);
                flatten("file system ", &as_written(&r.fs), &mut out);
            }
            ResultFile::Tool(ToolReport::Ior(r)) => {
                for t in &r.tests {
                    let id = t.test_id;
                    flatten(&format!("test {id} "), &as_written(&t.options), &mut out);
                    out.push((format!("test {id} path"), t.path.clone()));
                    let fs = as_written(&t.fs);
                    flatten(&format!("test {id} file system "), &fs, &mut out);
                }
            }
            ResultFile::Dlio(r) => {
                for (section, v) in r.config.as_object().into_iter().flatten() {
                    flatten(&format!("{section} "), v, &mut out);
                }
                flatten("pario ", &r.pario, &mut out);
            }
            _ => {}
        }
        out
    }

    /// io500's score: total, bandwidth, metadata, validity, hash.
    pub fn score(&self) -> Option<Vec<(String, String)>> {
        let s = &self.io500()?.score;
        let figure = |v: f64, unit: &str| human::scale_for(unit, v).text(v);
        Some(vec![
            ("total".into(), figure(s.total, "")),
            ("bandwidth".into(), figure(s.bandwidth_gib_s, "GiB/s")),
            ("metadata".into(), figure(s.metadata_kiops, "kIOPS")),
            ("valid".into(), s.valid.to_string()),
            ("hash".into(), s.hash.clone()),
        ])
    }

    /// io500's concurrent phase (pario's extension), if it ran: a row per
    /// group (tool, tasks and ranks, score, score per task) and one for the
    /// phase's score with its verdict.
    pub fn io500_concurrent(&self) -> Option<Vec<Vec<String>>> {
        let x = &self.io500()?.extensions.as_ref()?.concurrent;
        let figure = |v: f64, unit: &str| {
            let v = finite_or(v, 0.0);
            human::scale_for(unit, v).text(v)
        };
        let mut rows: Vec<Vec<String>> = x
            .groups
            .iter()
            .map(|g| {
                vec![
                    format!("{} ({})", g.name, g.tool),
                    format!("{} ({}-{})", g.tasks, g.first_rank, g.last_rank),
                    figure(g.score, &g.unit),
                    figure(g.score_per_task, &g.unit),
                ]
            })
            .collect();
        rows.push(vec![
            "score (procs × geometric mean per task)".into(),
            x.procs.to_string(),
            figure(x.score, ""),
            validity(&x.invalid),
        ]);
        Some(rows)
    }

    /// io500's phases (its timestamp is none) with their verdicts.
    pub fn io500_phases(&self) -> Vec<Vec<String>> {
        let phases = self.io500().map_or(&[][..], |d| &d.phases[..]);
        phases
            .iter()
            .filter(|p| p.name != "timestamp")
            .map(|p| {
                let score = finite_or(p.score, 0.0);
                vec![
                    p.name.clone(),
                    human::scale_for(&p.unit, score).text(score),
                    human::duration(finite_or(p.t_delta_s, 0.0)),
                    validity(&p.invalid),
                ]
            })
            .collect()
    }
}

/// What ior's and mdtest's header says of the run.
fn header(h: &RunHeader) -> Vec<(&'static str, String)> {
    let mut about = vec![
        ("command", h.command_line.clone()),
        ("began", h.began.clone()),
        ("machine", h.machine.clone()),
        ("version", h.version.clone()),
    ];
    about.extend(scale(&h.pario));
    about
}

/// The scale a report's pario section gives: engine, tasks, nodes.
fn scale(p: &ParioInfo) -> [(&'static str, String); 3] {
    [
        ("engine", p.engine.clone()),
        ("tasks", p.tasks.to_string()),
        ("nodes", p.nodes.to_string()),
    ]
}

/// A part of a report as its document has it (keys in alphabetical
/// order), to list its fields as they are written.
fn as_written(part: &impl Serialize) -> Value {
    serde_json::to_value(part).unwrap_or_default()
}

/// An object's scalars (and arrays of scalars) as `prefix key` rows.
fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, String)>) {
    for (k, v) in v.as_object().into_iter().flatten() {
        let shown = match v {
            Value::Array(a) => a.iter().map(text).collect::<Vec<_>>().join(", "),
            Value::Object(_) => continue,
            v => text(v),
        };
        out.push((format!("{prefix}{k}"), shown));
    }
}

/// A value as the page shows it (null as `-`).
fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
