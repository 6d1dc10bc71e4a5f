//! `pario compare A.json B.json`: for each figure both results have (an
//! ior access, an mdtest operation, an md-workbench phase, an io500 phase,
//! dlio_benchmark's AU, samples/s and checkpoint GB/s), the ratio of B's
//! median to A's over their repetitions with its 95 % confidence interval,
//! the spread of each, and a plain verdict: the one decision of
//! [`crate::stats::verdict`], which the report shares.

use std::collections::BTreeMap;

mod dlio;
mod results;
pub mod workload;

use serde::{Deserialize, Serialize};

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

use crate::stats::verdict::{judge, FEWEST, NOISE};
pub use crate::stats::verdict::{Spread, Verdict};

/// What one figure of both results says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Row {
    pub figure: String,
    pub unit: String,
    pub a: Spread,
    pub b: Spread,
    /// B's median over A's.
    #[serde(deserialize_with = "crate::units::nan_if_null")]
    pub ratio: f64,
    /// The ratio's 95 % confidence interval (none with too few
    /// repetitions).
    pub interval: Option<[f64; 2]>,
    pub verdict: Verdict,
}

impl Row {
    /// The verdict with its figures, for the text table.
    fn text(&self) -> String {
        let pct = ((self.ratio - 1.0) * 100.0).abs();
        let noise = NOISE * 100.0;
        match self.verdict {
            Verdict::Faster => format!("B faster by {pct:.1} %"),
            Verdict::Slower => format!("B slower by {pct:.1} %"),
            Verdict::WithinNoise => format!("within the noise (±{noise} % or unsure)"),
            Verdict::TooFew => format!(
                "too few repetitions to tell ({} and {}; 4 a side, or {FEWEST} against 5, are needed)",
                self.a.n, self.b.n
            ),
        }
    }
}

/// `pario compare --json`: the rows, and how the workloads differ (the
/// line the text prints above its table).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// `workloads differ: block 8 MiB vs 16 MiB; ...`, none when they do
    /// not.
    pub workloads_differ: Option<String>,
    /// The same, an aspect each.
    pub differences: Vec<workload::Differs>,
    pub rows: Vec<Row>,
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
    Spread::of(values)
}

/// The figures both results have, compared.
pub fn compare(a: &BTreeMap<String, Figure>, b: &BTreeMap<String, Figure>) -> Vec<Row> {
    a.iter()
        .filter_map(|(name, fa)| {
            let fb = b.get(name)?;
            let j = judge(&fa.values, &fb.values);
            Some(Row {
                figure: name.clone(),
                unit: fa.unit.clone(),
                a: spread(&fa.values),
                b: spread(&fb.values),
                ratio: j.ratio,
                interval: j.interval,
                verdict: j.verdict,
            })
        })
        .collect()
}

/// The rows as text: one line each.
pub fn text_table(rows: &[Row]) -> String {
    let mut out = String::from(
        "figure | A median [min-max] cv (n) | B median [min-max] cv (n) | B/A [95 % interval] | verdict\n",
    );
    for r in rows {
        let side = |s: &Spread| {
            let cv = s.cv * 100.0;
            let (median, min, max, n) = (s.median, s.min, s.max, s.n);
            format!("{median:.3} [{min:.3}-{max:.3}] cv {cv:.1} % (n={n})")
        };
        let interval = match r.interval {
            Some([lo, hi]) => format!("[{lo:.3}-{hi:.3}]"),
            None => "[-]".into(),
        };
        out.push_str(&format!(
            "{} ({}) | {} | {} | {:.3} {interval} | {}\n",
            r.figure,
            r.unit,
            side(&r.a),
            side(&r.b),
            r.ratio,
            r.text()
        ));
    }
    out.push_str(LEGEND);
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
md-workbench's phases, io500's phases, dlio_benchmark's AU, samples/s and
checkpoint GB/s), each side's median, range and
coefficient of variation over its repetitions, B's median over A's with
that ratio's 95 % confidence interval (exact, from the ranks), and a
verdict: B faster or slower only when the whole interval lies beyond the
noise threshold (2 %); too few repetitions to tell below 3 a side (and at
3 against 3 or 4, which cannot reach 95 %).
";

/// What the text table's figures are.
const LEGEND: &str = "median [min-max] over the repetitions; cv: their standard deviation over \
their mean; B/A: the ratio of the medians [its exact 95 % confidence interval]; faster or \
slower: the whole interval beyond 2 % either way\n";

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
            "print the rows and the workloads' differences as JSON",
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
    let load = |path: &str| ResultFile::read(path).map(|doc| (figures(&doc), workload::of(&doc)));
    let ((fa, wa), (fb, wb)) = (load(a_path)?, load(b_path)?);
    let rows = compare(&fa, &fb);
    if rows.is_empty() {
        return Err(format!("{a_path} and {b_path} have no figure in common"));
    }
    let differences = workload::differences(&wa, &wb);
    let report = Report {
        workloads_differ: workload::line(&differences),
        differences: differences.iter().map(workload::Differs::from).collect(),
        rows,
    };
    match a.json {
        true => serde_json::to_string_pretty(&report)
            .map(|t| t + "\n")
            .map_err(|e| e.to_string()),
        // The verdicts weigh different work when the workloads differ: said
        // first.
        false => Ok(match &report.workloads_differ {
            Some(line) => format!("{line}\n{}", text_table(&report.rows)),
            None => text_table(&report.rows),
        }),
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
    fn verdicts_are_the_shared_decision() {
        let v = |a: &[f64], b: &[f64]| compare(&fig(a), &fig(b))[0].verdict;
        let a = [100.0, 104.0, 98.0, 101.0];
        assert_eq!(v(&a, &[99.0, 105.0, 102.0, 100.0]), Verdict::WithinNoise);
        assert_eq!(v(&a, &a.map(|x| x * 1.3)), Verdict::Faster);
        assert_eq!(v(&a, &a.map(|x| x * 0.7)), Verdict::Slower);
        assert_eq!(v(&[100.0, 110.0], &[200.0, 210.0]), Verdict::TooFew);
        let r = &compare(&fig(&a), &fig(&a.map(|x| x * 1.2)))[0];
        assert!((r.ratio - 1.2).abs() < 1e-12);
        assert_eq!(r.a.median, 100.5);
        assert!(r.text().starts_with("B faster by 20.0 %"), "{}", r.text());
        let [lo, hi] = r.interval.unwrap();
        assert!(lo > 1.1 && hi < 1.3, "{lo} {hi}");
        let table = text_table(std::slice::from_ref(r));
        assert!(table.contains("| 1.200 [1.1"), "{table}");
        assert!(table.contains("cv 2.5 % (n=4)"), "{table}");
    }
}
