//! `pario report`'s command line: one table of options (it parses and it
//! writes `-h`), the result files in their order, each with the CSV files
//! and the label that belong to it. Nothing is read here.

use std::collections::BTreeMap;

use crate::error::UsageError;
use crate::options::{long_value, non_empty, set, shown, value, Grammar, ModuleOptions, Setting};

const USAGE: &str =
    "Usage: pario report [--label NAME] RESULT.json [SIDE.csv ...] [[--label NAME] RESULT.json ...]
                    -o report.html [--baseline RESULT] [--images DIR] [--csv FILE]

One self-contained HTML page (inline SVG, no script, nothing fetched) for
results of ior (-O summaryFormat=JSON), mdtest and md-workbench
(--summaryFormat=JSON) and io500 (result.json), compared side by side.

It opens with an overview: a row per result with its workload in words,
its headline figures (median and range over the repetitions), the ratio to
the baseline (the first result, or --baseline) and whether the difference
is beyond the noise (as pario compare decides), and every warning next to
its result. Then one chart per figure with every result's repetitions,
scaling (efficiency against the smallest step, the ideal line), latency
percentiles on log axes, the tasks' times, the page cache before reads,
io500's phases, and each run's details (folded).

CSV files given after a result add to it: a latency histogram file
(ior -O latencyHistogramFile=F, mdtest --latencyHistogramFile=F) gives
each figure's full percentile curve, every repetition merged; ior's task
file (-O saveRankPerformanceDetailsCSV=F) charts every task's open,
transfer and close in the phase whose tasks differ most.

Results are named by --label (two results cannot share one), else by the
fewest options that tell them apart (the API, file per process or shared
file, transfer size, tasks, ...), else by their file names. The overview
says once what the results share and per result only what differs; when
they differ in one parameter alone, it is charted as a curve.
";

/// A result file with what belongs to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Input {
    pub path: String,
    pub label: Option<String>,
    /// The CSV files given after it.
    pub sides: Vec<String>,
}

/// What the command line asks for.
#[derive(Debug, Default)]
pub struct Args {
    pub out: Option<String>,
    pub images: Option<String>,
    /// `--csv FILE`: the overview's rows as CSV.
    pub csv: Option<String>,
    pub baseline: Option<String>,
    pub results: Vec<Input>,
    /// A `--label` waiting for the result it names.
    label: Option<String>,
    pub help: bool,
    /// No module options: the grammar's place for them stays empty.
    modules: BTreeMap<String, String>,
}

impl ModuleOptions for Args {
    fn module_options(&mut self) -> &mut BTreeMap<String, String> {
        &mut self.modules
    }
}

/// The one table of report's options: it parses and it writes `-h`.
pub fn grammar() -> Grammar<Args> {
    let specs = vec![
        value(
            'o',
            &["output"],
            "the page to write",
            shown(
                "FILE",
                set(|a: &mut Args, s| {
                    a.out = Some(non_empty(s.value(), "page's file name")?);
                    Ok(())
                }),
            ),
        ),
        long_value(
            &["label"],
            "the name in the page of the result file that follows",
            shown(
                "NAME",
                set(|a: &mut Args, s| {
                    let name = non_empty(s.value(), "label")?;
                    match a.label.replace(name) {
                        Some(old) => Err(format!("'{old}' names no result yet")),
                        None => Ok(()),
                    }
                }),
            ),
        ),
        long_value(
            &["baseline"],
            "its label or file: the others are compared with it (default: the first)",
            shown(
                "RESULT",
                set(|a: &mut Args, s| {
                    a.baseline = Some(non_empty(s.value(), "baseline")?);
                    Ok(())
                }),
            ),
        ),
        long_value(
            &["images"],
            "each chart there also as SVG and PNG, for papers and slides",
            shown(
                "DIR",
                set(|a: &mut Args, s| {
                    a.images = Some(non_empty(s.value(), "directory for the images")?);
                    Ok(())
                }),
            ),
        ),
        long_value(
            &["csv"],
            "the overview's rows also as CSV (with or without -o)",
            shown(
                "FILE",
                set(|a: &mut Args, s| {
                    a.csv = Some(non_empty(s.value(), "CSV file")?);
                    Ok(())
                }),
            ),
        ),
    ];
    Grammar {
        tool: "pario report",
        specs,
        operand: Some(operand),
    }
}

/// `-h`.
pub fn help() -> String {
    format!("{USAGE}\n{}", grammar().options_text())
}

/// A file on the command line: a result, or a CSV file of the one before.
fn operand(a: &mut Args, s: Setting<'_>) -> Result<(), String> {
    let path = s.value().to_string();
    if !path.ends_with(".csv") {
        let label = a.label.take();
        a.results.push(Input {
            path,
            label,
            sides: Vec::new(),
        });
        return Ok(());
    }
    if let Some(label) = &a.label {
        return Err(format!(
            "--label {label}: it names the result file that follows, not {path}"
        ));
    }
    match a.results.last_mut() {
        Some(owner) => {
            owner.sides.push(path);
            Ok(())
        }
        None => Err(format!(
            "{path}: a CSV file goes after the result it belongs to"
        )),
    }
}

/// Parses and checks a command line; no file is read.
pub fn parse(args: &[String]) -> Result<Args, UsageError> {
    let parsed = grammar().parse_command_line(args, Args::default())?;
    let mut a = parsed.params;
    a.help = parsed.help;
    if a.help {
        return Ok(a);
    }
    if let Some(label) = &a.label {
        return Err(UsageError(format!(
            "--label {label} names no result (give it before the result file)"
        )));
    }
    if a.out.is_none() && a.csv.is_none() {
        return Err(UsageError::new(
            "no output file: -o report.html (or --csv FILE)",
        ));
    }
    if a.results.is_empty() {
        return Err(UsageError::new(
            "no result file (pario report RESULT.json... -o report.html)",
        ));
    }
    let labels: Vec<&str> = a
        .results
        .iter()
        .filter_map(|r| r.label.as_deref())
        .collect();
    let twice = (labels.iter().enumerate()).find(|(i, l)| labels[..*i].contains(l));
    if let Some((_, l)) = twice {
        return Err(UsageError(format!(
            "--label {l} is given twice: each result needs a name of its own"
        )));
    }
    if let Some(b) = &a.baseline {
        baseline_of(&a.results, b).map_err(UsageError)?;
    }
    Ok(a)
}

/// Which result `--baseline` names: by label, by the path as given, or by
/// file name.
pub fn baseline_of(results: &[Input], name: &str) -> Result<usize, String> {
    let file = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let matches: Vec<usize> = (0..results.len())
        .filter(|&i| {
            let r = &results[i];
            r.label.as_deref() == Some(name) || r.path == name || file(&r.path) == name
        })
        .collect();
    match matches[..] {
        [i] => Ok(i),
        [] => Err(format!(
            "--baseline {name}: no result has that label or file"
        )),
        _ => Err(format!(
            "--baseline {name}: {} results have that name (label them)",
            matches.len()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(words: &str) -> Result<Args, UsageError> {
        let args: Vec<String> = words.split(' ').map(str::to_string).collect();
        parse(&args)
    }

    #[test]
    fn files_labels_and_side_files_keep_their_order() {
        let a = parse_words("--label old a.json a.csv b/b.json b.csv c.csv -o r.html").unwrap();
        assert_eq!(a.results.len(), 2);
        assert_eq!(a.results[0].label.as_deref(), Some("old"));
        assert_eq!(a.results[0].sides, ["a.csv"]);
        assert_eq!(a.results[1].label, None);
        assert_eq!(a.results[1].sides, ["b.csv", "c.csv"]);
        let a = parse_words("a.json --label new b.json -o r.html --baseline new").unwrap();
        assert_eq!(baseline_of(&a.results, "new"), Ok(1));
        assert_eq!(baseline_of(&a.results, "a.json"), Ok(0));
    }

    #[test]
    fn bad_command_lines_are_one_line() {
        for (words, message) in [
            ("a.json", "no output file"),
            ("-o r.html", "no result file"),
            ("a.csv a.json -o r.html", "a CSV file goes after"),
            ("a.json --label x -o r.html", "--label x names no result"),
            (
                "--label x a.json --label x b.json -o r.html",
                "--label x is given twice",
            ),
            ("--label x a.csv -o r.html", "not a.csv"),
            (
                "--label x --label y a.json -o r.html",
                "'x' names no result yet",
            ),
            (
                "a.json -o r.html --baseline c.json",
                "no result has that label",
            ),
            (
                "a.json a.json -o r.html --baseline a.json",
                "2 results have",
            ),
            ("a.json -o", "-o needs a value"),
            ("a.json -o r.html --x", "unknown option '--x'"),
        ] {
            let e = parse_words(words).err().unwrap().0;
            assert!(e.contains(message) && !e.contains('\n'), "{words}: {e}");
        }
    }

    #[test]
    fn the_help_lists_every_option_of_the_table() {
        let help = help();
        for spec in grammar().specs {
            let name = format!("--{}=", spec.names[0]);
            assert!(help.contains(&name), "{name} missing from\n{help}");
        }
        assert!(help.contains("-o, --output=FILE") && help.contains("--images=DIR"));
    }
}
