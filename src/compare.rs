//! `pario compare A.json B.json`: for each figure both results have (an
//! ior access, an mdtest operation, an md-workbench phase, an io500 phase),
//! the ratio of B's mean to A's over their repetitions, the spread of each,
//! and a plain verdict.
//!
//! The verdict: when both sides have at least two repetitions and their
//! ranges (min to max) overlap, the difference is within the noise of the
//! repetitions; when the ranges do not overlap, B is faster or slower by the
//! ratio; with a single repetition on a side there is no noise to judge by,
//! and the verdict says so.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// A figure's repetitions in one result, higher is better.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Figure {
    pub unit: String,
    pub values: Vec<f64>,
}

/// What one figure of both results says.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Row {
    pub figure: String,
    pub unit: String,
    pub a: Spread,
    pub b: Spread,
    /// B's mean over A's.
    pub ratio: f64,
    pub verdict: Verdict,
}

/// The repetitions of one side.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    pub n: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    WithinNoise,
    Faster,
    Slower,
    NoRepetitions,
}

impl Verdict {
    fn text(self, ratio: f64) -> String {
        let pct = ((ratio - 1.0) * 100.0).abs();
        match self {
            Verdict::WithinNoise => "within the noise of the repetitions".into(),
            Verdict::Faster => format!("B faster by {pct:.1} % (the ranges do not overlap)"),
            Verdict::Slower => format!("B slower by {pct:.1} % (the ranges do not overlap)"),
            Verdict::NoRepetitions => "one repetition on a side: no noise to judge by".into(),
        }
    }
}

/// One repetition of a figure in a result document: the figure's name and
/// unit, its value, and the JSON object it was read from (the row of ior's
/// Results, mdtest's phase, md-workbench's phase, io500's phase), where the
/// report finds the rest of what that repetition says.
pub struct Sample<'a> {
    pub figure: String,
    pub unit: String,
    pub value: Option<f64>,
    pub source: &'a Value,
}

/// Every repetition of every figure of a result document of any of pario's
/// tools, in document order: the one walk over the tools' layouts that
/// `compare` and `report` share.
pub fn samples(doc: &Value) -> Result<Vec<Sample<'_>>, String> {
    let mut out = Vec::new();
    let mut add = |figure: String, unit: &str, value: Option<f64>, source| {
        out.push(Sample {
            figure,
            unit: unit.into(),
            value,
            source,
        })
    };
    let tests = doc["tests"].as_array();
    let phases = doc["phases"].as_array();
    match (tests, phases) {
        (Some(tests), _) if tests.iter().any(|t| t["Results"].is_array()) => {
            for t in tests {
                // A sweep's steps are one test each: a figure per step.
                let test = match t["sweepStep"]["tasks"].as_u64() {
                    Some(n) => format!("{} at {n} tasks", t["TestID"]),
                    None => t["TestID"].to_string(),
                };
                for r in t["Results"].as_array().into_iter().flatten() {
                    let name = format!("test {test} {}", text(&r["access"]));
                    add(name, "MiB/s", r["bwMiB"].as_f64(), r);
                }
            }
        }
        (Some(steps), _) => {
            for step in steps {
                for it in step["iterations"].as_array().into_iter().flatten() {
                    for ph in it["phases"].as_array().into_iter().flatten() {
                        let name = format!("{} tasks: {}", step["tasks"], text(&ph["operation"]));
                        add(name, "ops/s", ph["rate"].as_f64(), ph);
                    }
                }
            }
        }
        (None, Some(phases)) if phases.iter().any(|p| p["name"].is_string()) => {
            for p in phases {
                let unit = text(&p["unit"]);
                add(text(&p["name"]), &unit, p["score"].as_f64(), p);
            }
            add(
                "score".into(),
                "",
                doc["score"]["total"].as_f64(),
                &doc["score"],
            );
        }
        (None, Some(phases)) => {
            for p in phases {
                add(text(&p["phase"]), "iops/s", p["rate"].as_f64(), p);
            }
        }
        _ => return Err("not a result document of ior, mdtest, md-workbench or io500".into()),
    }
    Ok(out)
}

/// The figures of a result document of any of pario's tools, by name.
pub fn figures(doc: &Value) -> Result<BTreeMap<String, Figure>, String> {
    Ok(collect(&samples(doc)?))
}

/// The samples' values gathered per figure (a sample without a value adds
/// nothing).
pub fn collect(samples: &[Sample<'_>]) -> BTreeMap<String, Figure> {
    let mut out: BTreeMap<String, Figure> = BTreeMap::new();
    for s in samples {
        if let Some(v) = s.value {
            out.entry(s.figure.clone())
                .or_insert_with(|| Figure {
                    unit: s.unit.clone(),
                    values: Vec::new(),
                })
                .values
                .push(v);
        }
    }
    out
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

fn spread(values: &[f64]) -> Spread {
    let n = values.len();
    Spread {
        n,
        mean: values.iter().sum::<f64>() / n.max(1) as f64,
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    }
}

/// The figures both results have, compared.
pub fn compare(a: &BTreeMap<String, Figure>, b: &BTreeMap<String, Figure>) -> Vec<Row> {
    a.iter()
        .filter_map(|(name, fa)| {
            let fb = b.get(name)?;
            let (sa, sb) = (spread(&fa.values), spread(&fb.values));
            let ratio = if sa.mean != 0.0 {
                sb.mean / sa.mean
            } else {
                f64::NAN
            };
            let verdict = match (sa.n.min(sb.n) >= 2, sb.min > sa.max, sb.max < sa.min) {
                (false, ..) => Verdict::NoRepetitions,
                (true, true, _) => Verdict::Faster,
                (true, _, true) => Verdict::Slower,
                _ => Verdict::WithinNoise,
            };
            Some(Row {
                figure: name.clone(),
                unit: fa.unit.clone(),
                a: sa,
                b: sb,
                ratio,
                verdict,
            })
        })
        .collect()
}

/// The rows as text: one line each.
pub fn text_table(rows: &[Row]) -> String {
    let mut out = String::from("figure | A mean [min-max] | B mean [min-max] | B/A | verdict\n");
    for r in rows {
        let side = |s: &Spread| format!("{:.3} [{:.3}-{:.3}] (n={})", s.mean, s.min, s.max, s.n);
        out.push_str(&format!(
            "{} ({}) | {} | {} | {:.3} | {}\n",
            r.figure,
            r.unit,
            side(&r.a),
            side(&r.b),
            r.ratio,
            r.verdict.text(r.ratio)
        ));
    }
    out
}

/// `pario compare A.json B.json [--json]`: the exit status (2 for bad
/// arguments or unreadable files).
pub fn main(args: &[String]) -> std::process::ExitCode {
    match run(args) {
        Ok(text) => {
            print!("{text}");
            std::process::ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("compare: error: {e}");
            std::process::ExitCode::from(2)
        }
    }
}

pub const HELP: &str = "Usage: pario compare A.json B.json [--json]

For each figure both results have (ior's accesses, mdtest's operations,
md-workbench's phases, io500's phases), B's mean over A's across the
repetitions, each side's range, and a verdict: within the noise when both
sides have two repetitions or more and their ranges overlap, else faster or
slower. --json prints the rows as JSON.
";

fn run(args: &[String]) -> Result<String, String> {
    let json = args.iter().any(|a| a == "--json");
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return Ok(HELP.into());
    }
    let files: Vec<&String> = args.iter().filter(|a| *a != "--json").collect();
    if let Some(bad) = files.iter().find(|a| a.starts_with('-')) {
        return Err(format!("unknown option '{bad}' (see pario compare -h)"));
    }
    let [a, b] = files[..] else {
        return Err("two result files: pario compare A.json B.json".into());
    };
    let load = |path: &str| -> Result<BTreeMap<String, Figure>, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
        let doc: Value = serde_json::from_str(&text).map_err(|e| format!("{path}: {e}"))?;
        figures(&doc).map_err(|e| format!("{path}: {e}"))
    };
    let rows = compare(&load(a)?, &load(b)?);
    if rows.is_empty() {
        return Err(format!("{a} and {b} have no figure in common"));
    }
    match json {
        true => serde_json::to_string_pretty(&rows)
            .map(|t| t + "\n")
            .map_err(|e| e.to_string()),
        false => Ok(text_table(&rows)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fig(values: &[f64]) -> BTreeMap<String, Figure> {
        let f = Figure {
            unit: "MiB/s".into(),
            values: values.to_vec(),
        };
        BTreeMap::from([("test 0 write".to_string(), f)])
    }

    #[test]
    fn verdicts_follow_the_ranges() {
        let v = |a: &[f64], b: &[f64]| compare(&fig(a), &fig(b))[0].verdict;
        assert_eq!(v(&[100.0, 110.0], &[105.0, 120.0]), Verdict::WithinNoise);
        assert_eq!(v(&[100.0, 110.0], &[111.0, 120.0]), Verdict::Faster);
        assert_eq!(v(&[100.0, 110.0], &[80.0, 99.0]), Verdict::Slower);
        assert_eq!(v(&[100.0], &[200.0, 210.0]), Verdict::NoRepetitions);
        let r = &compare(&fig(&[100.0, 110.0]), &fig(&[126.0, 126.0]))[0];
        assert!((r.ratio - 1.2).abs() < 1e-12);
        assert!(r.verdict.text(r.ratio).starts_with("B faster by 20.0 %"));
    }
}
