//! What the report shows of a result document: its figures (those `pario
//! compare` reads) and, from the same walk over the document, each figure's
//! latency, task times, page cache and stonewall per repetition; a few lines
//! about the run and its parameters; and what the CSV files given after it
//! add (full histograms, every task's times).
//!
//! Sweeps (issue 17, item 1): a result whose steps differ in task or node
//! count would add a scaling chart here (figure per step against tasks);
//! mdtest's `tests` array is such a list of steps already.

use std::collections::BTreeMap;

use serde_json::Value;

use super::sidefiles::{self, Side, TaskRow};
use crate::compare::{collect, samples, Figure, Sample};

/// A latency curve: (fraction of operations at or below, seconds).
pub type Curve = Vec<(f64, f64)>;

/// The fastest, mean and slowest task's open-to-close time of a repetition.
pub type Spread = (f64, f64, f64);

/// A read's page cache: (row, fraction resident before the read, warning).
pub type CacheRow = (String, f64, Option<String>);

/// A result file, read.
pub struct Loaded {
    pub name: String,
    pub doc: Value,
    pub figures: BTreeMap<String, Figure>,
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
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        let walked = samples(&doc).map_err(|e| format!("{path}: {e}"))?;
        let figures = collect(&walked);
        let latency = latency(&walked);
        let IorRows {
            spread,
            times,
            cache,
            stonewall,
        } = ior_rows(&walked);
        drop(walked);
        Ok(Loaded {
            name,
            doc,
            figures,
            latency,
            merged: Vec::new(),
            spread,
            times,
            cache,
            stonewall,
            tasks: Vec::new(),
        })
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
        self.doc["score"].is_object()
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

    /// io500's score: total, bandwidth, metadata, validity.
    pub fn score(&self) -> Option<Vec<(String, String)>> {
        let s = self.doc["score"].as_object()?;
        let mut rows: Vec<(String, String)> = s.iter().map(|(k, v)| (k.clone(), text(v))).collect();
        rows.sort_by_key(|(k, _)| k != "total");
        Some(rows)
    }

    /// io500's phases with their verdicts.
    pub fn io500_phases(&self) -> Vec<Vec<String>> {
        let phases = self.doc["phases"].as_array().into_iter().flatten();
        phases
            .filter(|p| p["name"].is_string())
            .map(|p| {
                let invalid = p["invalid"].as_array().map_or(0, Vec::len);
                vec![
                    text(&p["name"]),
                    format!("{:.6}", p["score"].as_f64().unwrap_or(0.0)),
                    text(&p["unit"]),
                    format!("{:.3}", p["t_delta_s"].as_f64().unwrap_or(0.0)),
                    match invalid {
                        0 => "valid".into(),
                        n => format!("INVALID ({n})"),
                    },
                ]
            })
            .collect()
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
