//! What the report shows of a result document: its figures (those `pario
//! compare` reads, in the document's order) and, from the same walk over
//! the document, each figure's latency, task times, page cache, stonewall
//! and a sweep's steps per repetition; its workload in words and its
//! warnings; a few lines about the run and its parameters; and what the CSV
//! files given after it add (full histograms, every task's times).

use std::collections::BTreeMap;

use serde_json::Value;

use super::human;
use super::sidefiles::{self, Side, TaskRow};
use super::warnings;
use super::workload::{self, Tool, Workload};
use crate::compare::{collect, samples, Figure, Sample, Step};

/// A latency curve: (fraction of operations at or below, seconds).
pub type Curve = Vec<(f64, f64)>;

/// The fastest, mean and slowest task's open-to-close time of a repetition.
pub type Spread = (f64, f64, f64);

/// A read's page cache: (row, fraction resident before the read, warning).
pub type CacheRow = (String, f64, Option<String>);

/// A result file, read.
pub struct Loaded {
    /// The file as given, and its name.
    pub path: String,
    pub file: String,
    /// The name the page gives it (`--label`, else from its workload).
    pub name: String,
    pub tool: Tool,
    pub workload: Workload,
    pub warnings: Vec<String>,
    pub doc: Value,
    pub figures: BTreeMap<String, Figure>,
    /// The figures' names in the document's order.
    pub order: Vec<String>,
    /// A sweep's figures: what the steps have in common, and the step.
    pub steps: BTreeMap<String, (String, Step)>,
    /// ior's operations per second, per figure and repetition.
    pub iops: BTreeMap<String, Vec<f64>>,
    /// Per figure: from the merged histograms when a histogram file was
    /// given, else the percentiles of its first repetition that has them.
    pub latency: BTreeMap<String, Curve>,
    /// Which figures' curves come from a histogram file.
    pub merged: Vec<String>,
    /// Per figure, per repetition (ior's `taskTimes`).
    pub spread: BTreeMap<String, Vec<Spread>>,
    /// The same as a table: row, fastest, mean, slowest (s), slowest task.
    pub times: Vec<Vec<String>>,
    pub cache: Vec<CacheRow>,
    /// ior's stonewall per row: row, hit, pairs min, pairs max, seconds, MiB/s.
    pub stonewall: Vec<Vec<String>>,
    /// Every task's times, from ior's task file.
    pub tasks: Vec<TaskRow>,
}

impl Loaded {
    pub fn read(path: &str) -> Result<Loaded, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        let file = std::path::Path::new(path)
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        if crate::compare::is_dlio(&doc) {
            return Err(format!(
                "{path}: a dlio_benchmark result: pario report does not read those yet (pario compare does)"
            ));
        }
        let walked = samples(&doc).map_err(|e| format!("{path}: {e}"))?;
        let tool = Tool::of(&doc);
        let figures = collect(&walked);
        let mut order: Vec<String> = Vec::new();
        for s in walked.iter().filter(|s| figures.contains_key(&s.figure)) {
            if !order.contains(&s.figure) {
                order.push(s.figure.clone());
            }
        }
        let steps = sweep_steps(&walked);
        let mut iops: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for s in &walked {
            if let Some(v) = s.source["iops"].as_f64() {
                iops.entry(s.figure.clone()).or_default().push(v);
            }
        }
        let latency = latency(&walked);
        let warnings = warnings::of(tool, &doc, &walked);
        let IorRows {
            spread,
            times,
            cache,
            stonewall,
        } = ior_rows(&walked);
        drop(walked);
        Ok(Loaded {
            path: path.to_string(),
            name: file.clone(),
            file,
            tool,
            workload: workload::of(tool, &doc),
            warnings,
            doc,
            figures,
            order,
            steps,
            iops,
            latency,
            merged: Vec::new(),
            spread,
            times,
            cache,
            stonewall,
            tasks: Vec::new(),
        })
    }

    /// Whether the result is a sweep (steps of different sizes).
    pub fn is_sweep(&self) -> bool {
        let mut steps: Vec<Step> = self.steps.values().map(|(_, s)| *s).collect();
        steps.sort();
        steps.dedup();
        steps.len() > 1
    }

    /// Adds what a CSV file given after this result holds.
    pub fn attach(&mut self, side: Side) {
        match side {
            Side::Histograms(h) => {
                for (figure, histogram) in h {
                    self.latency
                        .insert(figure.clone(), sidefiles::curve(&histogram));
                    self.merged.push(figure);
                }
            }
            Side::Tasks(rows) => self.tasks.extend(rows),
        }
    }

    pub fn is_io500(&self) -> bool {
        self.tool == Tool::Io500
    }

    /// The run in a few lines: the command, when, where, how many tasks.
    pub fn about(&self) -> Vec<(String, String)> {
        let d = &self.doc;
        let keys = [
            ("command", &d["Command line"]),
            ("command", &d["args"]),
            ("began", &d["Began"]),
            ("began", &d["began"]),
            ("began", &d["started"]),
            ("machine", &d["Machine"]),
            ("version", &d["Version"]),
            ("version", &d["version"]),
            ("mode", &d["mode"]),
            ("engine", &d["pario"]["engine"]),
            ("tasks", &d["pario"]["tasks"]),
            ("tasks", &d["procs"]),
            ("nodes", &d["pario"]["nodes"]),
            ("path", &d["Path"]),
            ("path", &d["data_dir"]),
        ];
        let mut out: Vec<(String, String)> = keys
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.to_string(), text(v)))
            .collect();
        out.dedup_by(|a, b| a.0 == b.0);
        out
    }

    /// The run's parameters and environment as the tool wrote them: the
    /// scalars at the top, the `Parameters`, each ior test's options and
    /// the file system.
    pub fn parameters(&self) -> Vec<(String, String)> {
        let d = &self.doc;
        let mut out = Vec::new();
        if let Some(top) = d.as_object() {
            for (k, v) in top.iter().filter(|(_, v)| !v.is_object() && !v.is_array()) {
                out.push((k.clone(), text(v)));
            }
        }
        flatten("", &d["Parameters"], &mut out);
        flatten("file system ", &d["FS"], &mut out);
        for t in d["tests"].as_array().into_iter().flatten() {
            if t["Options"].is_object() {
                flatten(&format!("test {} ", t["TestID"]), &t["Options"], &mut out);
                out.push((format!("test {} path", t["TestID"]), text(&t["Path"])));
                flatten(
                    &format!("test {} file system ", t["TestID"]),
                    &t["FS"],
                    &mut out,
                );
            }
        }
        out
    }

    /// io500's score: total, bandwidth, metadata, validity, hash.
    pub fn score(&self) -> Option<Vec<(String, String)>> {
        let s = &self.doc["score"];
        s.as_object()?;
        let figure = |key: &str, unit: &str| {
            let v = s[key].as_f64().unwrap_or(f64::NAN);
            human::scale_for(unit, v).text(v)
        };
        Some(vec![
            ("total".into(), figure("total", "")),
            ("bandwidth".into(), figure("bandwidth_gib_s", "GiB/s")),
            ("metadata".into(), figure("metadata_kiops", "kIOPS")),
            ("valid".into(), text(&s["valid"])),
            ("hash".into(), text(&s["hash"])),
        ])
    }

    /// io500's concurrent phase (pario's extension), if it ran: a row per
    /// group (tool, tasks and ranks, score, score per task) and one for the
    /// phase's score with its verdict.
    pub fn io500_concurrent(&self) -> Option<Vec<Vec<String>>> {
        let x = &self.doc["extensions"]["concurrent"];
        x.as_object()?;
        let figure = |v: &Value, unit: &str| {
            let v = v.as_f64().unwrap_or(0.0);
            human::scale_for(unit, v).text(v)
        };
        let mut rows: Vec<Vec<String>> = x["groups"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|g| {
                let unit = g["unit"].as_str().unwrap_or("");
                vec![
                    format!("{} ({})", text(&g["name"]), text(&g["tool"])),
                    format!("{} ({}-{})", g["tasks"], g["first_rank"], g["last_rank"]),
                    figure(&g["score"], unit),
                    figure(&g["score_per_task"], unit),
                ]
            })
            .collect();
        let invalid = x["invalid"].as_array().map_or(0, Vec::len);
        rows.push(vec![
            "score (procs × geometric mean per task)".into(),
            x["procs"].to_string(),
            figure(&x["score"], ""),
            match invalid {
                0 => "valid".into(),
                n => format!("invalid ({n} reasons)"),
            },
        ]);
        Some(rows)
    }

    /// io500's phases (its timestamp is none) with their verdicts.
    pub fn io500_phases(&self) -> Vec<Vec<String>> {
        let phases = self.doc["phases"].as_array().into_iter().flatten();
        phases
            .filter(|p| p["name"].is_string() && p["name"] != "timestamp")
            .map(|p| {
                let invalid = p["invalid"].as_array().map_or(0, Vec::len);
                let score = p["score"].as_f64().unwrap_or(0.0);
                vec![
                    text(&p["name"]),
                    human::scale_for(p["unit"].as_str().unwrap_or(""), score).text(score),
                    human::duration(p["t_delta_s"].as_f64().unwrap_or(0.0)),
                    match invalid {
                        0 => "valid".into(),
                        n => format!("invalid ({n} reasons)"),
                    },
                ]
            })
            .collect()
    }
}

/// The figures of a sweep's steps (none unless the steps differ).
fn sweep_steps(walked: &[Sample<'_>]) -> BTreeMap<String, (String, Step)> {
    let mut out = BTreeMap::new();
    for s in walked {
        if let Some(step) = s.step {
            out.insert(s.figure.clone(), (s.what.clone(), step));
        }
    }
    let first = out.values().next().map(|(_, s)| *s);
    match out.values().any(|(_, s)| Some(*s) != first) {
        true => out,
        false => BTreeMap::new(),
    }
}

/// Each figure's latency curve: the percentiles of its first repetition
/// that has them (md-workbench's per operation, as "phase op").
fn latency(walked: &[Sample<'_>]) -> BTreeMap<String, Curve> {
    let mut out = BTreeMap::new();
    let mut keep = |name: String, p: &Value| {
        if p.is_object() && !out.contains_key(&name) {
            let points: Curve = [
                ("p50", 0.5),
                ("p90", 0.9),
                ("p99", 0.99),
                ("p99.9", 0.999),
                ("max", 1.0),
            ]
            .iter()
            .filter_map(|(k, f)| p[*k].as_f64().map(|v| (*f, v)))
            .collect();
            if !points.is_empty() {
                out.insert(name, points);
            }
        }
    };
    for s in walked {
        match &s.source["latencyPercentiles"] {
            Value::Array(ops) => {
                for op in ops {
                    keep(format!("{} {}", s.figure, text(&op["op"])), op);
                }
            }
            p => keep(s.figure.clone(), p),
        }
    }
    out
}

#[derive(Default)]
struct IorRows {
    spread: BTreeMap<String, Vec<Spread>>,
    times: Vec<Vec<String>>,
    cache: Vec<CacheRow>,
    stonewall: Vec<Vec<String>>,
}

/// ior's rows: task spread per figure, page cache of each read, stonewall.
fn ior_rows(walked: &[Sample<'_>]) -> IorRows {
    let mut out = IorRows::default();
    for s in walked {
        let r = s.source;
        let row = format!("{} #{}", s.figure, r["iteration"]);
        let t = &r["taskTimes"];
        if let (Some(lo), Some(mean), Some(hi)) = (
            t["totalMin"].as_f64(),
            t["totalMean"].as_f64(),
            t["totalMax"].as_f64(),
        ) {
            let v: &mut Vec<Spread> = out.spread.entry(s.figure.clone()).or_default();
            v.push((lo, mean, hi));
            let secs = |v: f64| format!("{v:.6}");
            out.times.push(vec![
                row.clone(),
                secs(lo),
                secs(mean),
                secs(hi),
                text(&t["slowest"]),
            ]);
        }
        let before = &r["pageCache"]["cachedBeforeRead"];
        if let (Some(res), Some(exam)) = (before["resident"].as_f64(), before["examined"].as_f64())
        {
            let warning = r["pageCache"]["warning"].as_str().map(str::to_string);
            out.cache.push((row.clone(), res / exam.max(1.0), warning));
        }
        let w = &r["stonewall"];
        if w.is_object() {
            out.stonewall.push(vec![
                row,
                text(&w["hit"]),
                text(&w["pairsMin"]),
                text(&w["pairsMax"]),
                format!("{:.6}", w["time"].as_f64().unwrap_or(0.0)),
                format!("{:.2}", w["bwMiB"].as_f64().unwrap_or(0.0)),
            ]);
        }
    }
    out
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

pub fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
