//! `pario compare A.json B.json`: for each figure both results have (an
//! ior access, an mdtest operation, an md-workbench phase, an io500 phase,
//! dlio_benchmark's AU, samples/s and checkpoint GB/s),
//! the ratio of B's mean to A's over their repetitions, the spread of each,
//! and a plain verdict.
//!
//! The verdict: when both sides have at least two repetitions and their
//! ranges (min to max) overlap, the difference is within the noise of the
//! repetitions; when the ranges do not overlap, B is faster or slower by the
//! ratio; with a single repetition on a side there is no noise to judge by,
//! and the verdict says so.

use std::collections::BTreeMap;

mod dlio;
mod results;

use serde::Serialize;

pub use crate::concurrent::tools::Step;
pub use results::{ResultFile, Sample, Source};

use crate::concurrent::tools;
use crate::error::UsageError;
use crate::options::{long_flag, on, Grammar, ModuleOptions, Setting};

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
    /// The verdict in a few words, without the ratio (the report's
    /// overview).
    pub fn words(self) -> &'static str {
        match self {
            Verdict::WithinNoise => "within the noise",
            Verdict::Faster => "faster, beyond the noise",
            Verdict::Slower => "slower, beyond the noise",
            Verdict::NoRepetitions => "one repetition: no noise to judge by",
        }
    }

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

/// The figures of a result file, by name.
pub fn figures(doc: &ResultFile) -> BTreeMap<String, Figure> {
    collect(&doc.samples())
}

/// The samples' values gathered per figure (a sample without a value adds
/// nothing).
pub fn collect<S>(samples: &[tools::Sample<S>]) -> BTreeMap<String, Figure> {
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

const ABOUT: &str = "Usage: pario compare A.json B.json [--json]

For each figure both results have (ior's accesses, mdtest's operations,
md-workbench's phases, io500's phases), B's mean over A's across the
repetitions, each side's range, and a verdict: within the noise when both
sides have two repetitions or more and their ranges overlap, else faster or
slower.
";

const TWO_FILES: &str = "two result files: pario compare A.json B.json";

/// What the command line asks for.
#[derive(Debug, Default)]
pub struct Args {
    pub files: Vec<String>,
    pub json: bool,
    /// `--help`.
    pub help: bool,
    /// No module options: the grammar's place for them stays empty.
    modules: BTreeMap<String, String>,
}

impl ModuleOptions for Args {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.modules
    }
}

/// The one table of compare's options: it parses and it writes `-h`.
pub fn grammar() -> Grammar<Args> {
    let file = |a: &mut Args, s: Setting<'_>| {
        a.files.push(s.value().to_string());
        Ok(())
    };
    Grammar {
        tool: "pario compare",
        specs: vec![long_flag(
            &["json"],
            "print the rows as JSON",
            on(|a: &mut Args| &mut a.json),
        )],
        operand: Some(file),
    }
}

/// `-h`.
pub fn help() -> String {
    format!("{ABOUT}\n{}", grammar().options_text())
}

/// Parses and checks a command line; no file is read.
pub fn parse(args: &[String]) -> Result<Args, UsageError> {
    let parsed = grammar().parse_command_line(args, Args::default())?;
    let mut a = parsed.params;
    a.help = parsed.help;
    if !a.help && a.files.len() != 2 {
        return Err(UsageError::new(TWO_FILES));
    }
    Ok(a)
}

fn run(args: &[String]) -> Result<String, String> {
    let a = parse(args).map_err(|e| e.0)?;
    if a.help {
        return Ok(help());
    }
    let [a_path, b_path] = &a.files[..] else {
        return Err(TWO_FILES.into());
    };
    let load = |path: &str| match dlio::read(path)? {
        Some(r) => Ok(collect(&dlio::samples(&r))),
        None => ResultFile::read(path).map(|doc| figures(&doc)),
    };
    let rows = compare(&load(a_path)?, &load(b_path)?);
    if rows.is_empty() {
        return Err(format!("{a_path} and {b_path} have no figure in common"));
    }
    match a.json {
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
