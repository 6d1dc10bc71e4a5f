//! What the report shows of a result document: its figures (those `pario
//! compare` reads), their latency percentiles, a few lines about the run,
//! and a table of details per tool.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::compare::{figures, Figure};

/// A result file, read.
pub struct Loaded {
    pub name: String,
    pub doc: Value,
    pub figures: BTreeMap<String, Figure>,
}

impl Loaded {
    pub fn read(path: &str) -> Result<Loaded, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        let figures = figures(&doc).map_err(|e| format!("{path}: {e}"))?;
        let name = std::path::Path::new(path)
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        Ok(Loaded { name, doc, figures })
    }

    /// The run in a few lines: the command, when, where, how many tasks.
    pub fn about(&self) -> Vec<(String, String)> {
        let d = &self.doc;
        let keys = [
            ("command", &d["Command line"]),
            ("began", &d["Began"]),
            ("machine", &d["Machine"]),
            ("version", &d["Version"]),
            ("mode", &d["mode"]),
            ("tasks", &d["pario"]["tasks"]),
            ("engine", &d["pario"]["engine"]),
        ];
        let mut out: Vec<(String, String)> = keys
            .iter()
            .filter(|(_, v)| !v.is_null())
            .map(|(k, v)| (k.to_string(), text(v)))
            .collect();
        if let Some(v) = d["version"].as_str() {
            out.push(("version".into(), v.into()));
        }
        // io500: the score, its parts and whether it is valid.
        let s = &d["score"];
        if let Some(total) = s["total"].as_f64() {
            let parts = format!(
                "{total:.6} (bandwidth {:.6} GiB/s, metadata {:.6} kIOPS){}",
                s["bandwidth_gib_s"].as_f64().unwrap_or(0.0),
                s["metadata_kiops"].as_f64().unwrap_or(0.0),
                if s["valid"] == false { ", INVALID" } else { "" }
            );
            out.push(("score".into(), parts));
        }
        out
    }

    /// Each figure's latency percentiles (its first repetition that has
    /// them): `[(p50, s), (p90, s), (p99, s), (p99.9, s), (max, s)]`.
    pub fn latency(&self) -> BTreeMap<String, Vec<(String, f64)>> {
        let mut out = BTreeMap::new();
        let mut keep = |name: String, p: &Value| {
            if p.is_object() && !out.contains_key(&name) {
                let points: Vec<(String, f64)> = ["p50", "p90", "p99", "p99.9", "max"]
                    .iter()
                    .filter_map(|k| p[*k].as_f64().map(|v| (k.to_string(), v)))
                    .collect();
                out.insert(name, points);
            }
        };
        let d = &self.doc;
        for t in d["tests"].as_array().into_iter().flatten() {
            for r in t["Results"].as_array().into_iter().flatten() {
                keep(
                    format!("test {} {}", t["TestID"], text(&r["access"])),
                    &r["latencyPercentiles"],
                );
            }
            for it in t["iterations"].as_array().into_iter().flatten() {
                for ph in it["phases"].as_array().into_iter().flatten() {
                    let name = format!("{} tasks: {}", t["tasks"], text(&ph["operation"]));
                    keep(name, &ph["latencyPercentiles"]);
                }
            }
        }
        for ph in d["phases"].as_array().into_iter().flatten() {
            for op in ph["latencyPercentiles"].as_array().into_iter().flatten() {
                keep(format!("{} {}", text(&ph["phase"]), text(&op["op"])), op);
            }
        }
        out
    }

    /// The warnings of the run and of each read row (a read served from the
    /// page cache), in order.
    pub fn warnings(&self) -> Vec<String> {
        let d = &self.doc;
        let mut out: Vec<String> = Vec::new();
        let strings = |v: &Value| -> Vec<String> {
            v.as_array()
                .into_iter()
                .flatten()
                .filter_map(|w| w.as_str().map(str::to_string))
                .collect()
        };
        out.extend(strings(&d["warnings"]));
        for t in d["tests"].as_array().into_iter().flatten() {
            out.extend(strings(&t["warnings"]));
            for r in t["Results"].as_array().into_iter().flatten() {
                if let Some(w) = r["pageCache"]["warning"].as_str() {
                    let row = format!(
                        "test {} {} #{}",
                        t["TestID"],
                        text(&r["access"]),
                        r["iteration"]
                    );
                    out.push(format!("{row}: {w}"));
                }
            }
        }
        out
    }

    /// A table of what else the tool says: ior's slowest task, page cache
    /// and stonewall per row; io500's phases with their verdicts.
    pub fn details(&self) -> Option<(Vec<&'static str>, Vec<Vec<String>>)> {
        let d = &self.doc;
        if let Some(phases) = d["phases"]
            .as_array()
            .filter(|p| p.iter().any(|x| x["name"].is_string()))
        {
            let rows = phases
                .iter()
                .map(|p| {
                    let invalid = p["invalid"].as_array().map_or(0, Vec::len);
                    vec![
                        text(&p["name"]),
                        format!("{:.6}", p["score"].as_f64().unwrap_or(0.0)),
                        text(&p["unit"]),
                        format!("{:.3}", p["t_delta_s"].as_f64().unwrap_or(0.0)),
                        if invalid == 0 {
                            "valid".into()
                        } else {
                            format!("INVALID ({invalid})")
                        },
                    ]
                })
                .collect();
            return Some((vec!["phase", "score", "unit", "time (s)", "validity"], rows));
        }
        let tests = d["tests"].as_array()?;
        let rows: Vec<Vec<String>> = tests
            .iter()
            .flat_map(|t| {
                t["Results"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(move |r| (t, r))
            })
            .map(|(t, r)| {
                let tt = &r["taskTimes"];
                vec![
                    format!(
                        "test {} {} #{}",
                        t["TestID"],
                        text(&r["access"]),
                        r["iteration"]
                    ),
                    format!("{:.2}", r["bwMiB"].as_f64().unwrap_or(0.0)),
                    seconds(&tt["openMax"]),
                    seconds(&tt["xferMin"]),
                    seconds(&tt["xferMax"]),
                    seconds(&tt["closeMax"]),
                    text(&tt["slowest"]),
                    cached(&r["pageCache"]),
                    text(&r["stonewall"]["pairsMax"]),
                ]
            })
            .collect();
        (!rows.is_empty()).then_some((
            vec![
                "row",
                "MiB/s",
                "slowest open (s)",
                "fastest task's transfers (s)",
                "slowest task's (s)",
                "slowest close (s)",
                "slowest task",
                "page cache before",
                "stonewall pairs (max)",
            ],
            rows,
        ))
    }
}

/// The share of a read's data in the page cache before it (and after an
/// eviction), as the text output gives it.
fn cached(pc: &Value) -> String {
    let pct = |r: &Value| {
        let (resident, examined) = (r["resident"].as_f64()?, r["examined"].as_f64()?);
        Some(100.0 * resident / examined.max(1.0))
    };
    match (pct(&pc["cachedBeforeRead"]), pct(&pc["afterEviction"])) {
        (Some(before), Some(after)) => format!("{before:.1}%, {after:.1}% after eviction"),
        (Some(before), None) => format!("{before:.1}%"),
        _ => "-".into(),
    }
}

fn seconds(v: &Value) -> String {
    v.as_f64().map_or("-".into(), |s| format!("{s:.6}"))
}

fn text(v: &Value) -> String {
    match v {
        Value::Null => "-".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
