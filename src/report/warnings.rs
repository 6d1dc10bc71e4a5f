//! Every warning a result holds, in words a reader acts on: the tool's own
//! (the page cache before a read, wrong data, io500's invalid phases, ...),
//! interrupted phases, and what the report finds itself: phases too short
//! to measure storage, and stragglers.

use std::collections::BTreeMap;

use super::human::duration;
use super::workload::{figure_words, Tool};
use crate::compare::{ResultFile, Sample};
use crate::concurrent::tools::ToolReport;
use crate::io500::json::ResultJson;
use crate::io500::results::PhaseReport;
use crate::ior::report::RunReport;
use crate::mdworkbench::report::MdwReport;

/// A phase shorter than this is dominated by start-up, caches and the
/// clock rather than by the storage.
pub const SHORT_PHASE_S: f64 = 1.0;

/// A repetition whose slowest task took this many times the tasks' mean
/// (open to close) had a straggler.
pub const STRAGGLER: f64 = 1.5;

/// The warnings of a result, each once (with how often it was given).
pub fn of(doc: &ResultFile, walked: &[Sample<'_>]) -> Vec<String> {
    let mut own: Vec<String> = Vec::new();
    match doc {
        ResultFile::Tool(ToolReport::Ior(r)) => ior_own(r, "", &mut own),
        ResultFile::Tool(ToolReport::Mdtest(r)) => strings(&r.warnings, "", &mut own),
        ResultFile::Tool(ToolReport::MdWorkbench(r)) => md_workbench_errors(r, &mut own),
        ResultFile::Io500(d) => io500(d, &mut own),
        ResultFile::Dlio(r) => super::dlio::warnings(r, &mut own),
    }
    let tool = Tool::of(doc);
    let mut out = counted(own);
    out.extend(interrupted(walked));
    if tool != Tool::Io500 {
        out.extend(short_phases(tool, walked));
    }
    out.extend(stragglers(walked));
    out
}

/// The text with its first letter in upper case.
fn capital(t: &str) -> String {
    let mut c = t.chars();
    match c.next() {
        Some(first) => first.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The warnings in `v`, after `prefix` (`ior-easy-read: `) unless they
/// begin with what it names.
fn strings(warnings: &[String], prefix: &str, out: &mut Vec<String>) {
    let named = prefix.trim_end_matches([':', ' ']);
    for w in warnings {
        let t = w.trim();
        let t = t
            .strip_prefix("WARNING")
            .unwrap_or(t)
            .trim_start_matches([':', ' ']);
        match !named.is_empty() && t.starts_with(named) {
            true => out.push(t.to_string()),
            false => out.push(format!("{prefix}{}", capital(t))),
        }
    }
}

fn ior_own(r: &RunReport, prefix: &str, out: &mut Vec<String>) {
    for t in &r.tests {
        strings(&t.warnings, prefix, out);
    }
}

/// Identical warnings once, with their count.
fn counted(all: Vec<String>) -> Vec<String> {
    let mut seen: Vec<(String, usize)> = Vec::new();
    for w in all {
        match seen.iter_mut().find(|(s, _)| *s == w) {
            Some((_, n)) => *n += 1,
            None => seen.push((w, 1)),
        }
    }
    seen.into_iter()
        .map(|(w, n)| match n {
            1 => w,
            n => format!("{w} ({n} times)"),
        })
        .collect()
}

fn md_workbench_errors(r: &MdwReport, out: &mut Vec<String>) {
    for p in &r.phases {
        // In the order the document has them (by name).
        let counted = serde_json::to_value(p.counts.errors).unwrap_or_default();
        let errors: Vec<String> = counted
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, n)| n.as_u64().unwrap_or(0) > 0)
            .map(|(k, n)| format!("{n} {}", k.replace('_', " ")))
            .collect();
        if !errors.is_empty() {
            out.push(format!(
                "The {} phase had errors ({}): its rate counts operations that failed; see the run's output",
                p.phase,
                errors.join(", ")
            ));
        }
    }
}

fn io500(doc: &ResultJson, out: &mut Vec<String>) {
    let mut invalid = 0;
    for p in &doc.phases {
        let name = &p.name;
        if !p.invalid.is_empty() {
            invalid += 1;
            out.push(format!("{name} is invalid: {}", p.invalid.join("; ")));
        }
        let prefix = format!("{name}: ");
        strings(&p.warnings, &prefix, out);
        match &p.report {
            Some(PhaseReport::Tool(ToolReport::Mdtest(r))) => strings(&r.warnings, &prefix, out),
            Some(PhaseReport::Tool(ToolReport::Ior(r))) => ior_own(r, &prefix, out),
            _ => {}
        }
    }
    // pario's concurrent phase: its own verdict, outside the score.
    if let Some(x) = &doc.extensions {
        let why = &x.concurrent.invalid;
        if !why.is_empty() {
            out.push(format!(
                "the concurrent phase (outside the IO500 score) is invalid: {}",
                why.join("; ")
            ));
        }
    }
    if !doc.score.valid {
        out.push(format!(
            "The score is not valid for the IO500 lists ({invalid} invalid phases above): \
             run the phases for the time the rules ask (300 s each) on the real setup"
        ));
    }
}

/// Per figure, the repetitions a signal cut short.
fn interrupted(walked: &[Sample<'_>]) -> Vec<String> {
    let mut by_figure: BTreeMap<String, (Vec<usize>, &str)> = BTreeMap::new();
    for (_, rep, s) in repetitions(walked) {
        if let Some(signal) = s.source.interrupted() {
            let name = capital(&figure_words(&s.figure, None));
            let e = by_figure.entry(name).or_insert((Vec::new(), signal));
            e.0.push(rep);
        }
    }
    by_figure
        .into_iter()
        .map(|(figure, (reps, signal))| {
            let which: Vec<String> = reps.iter().map(|r| format!("#{r}")).collect();
            format!(
                "{figure} {} interrupted by {signal}: its figures cover only what was done \
                 until then; run it again for complete figures",
                which.join(", ")
            )
        })
        .collect()
}

/// Each sample with its figure and its repetition's number (from 1).
fn repetitions<'s, 'a>(
    walked: &'s [Sample<'a>],
) -> impl Iterator<Item = (&'s str, usize, &'s Sample<'a>)> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    walked.iter().map(move |s| {
        let n = seen.entry(s.figure.as_str()).or_insert(0);
        *n += 1;
        (s.figure.as_str(), *n, s)
    })
}

/// One warning for the figures whose median phase lasted under
/// [`SHORT_PHASE_S`].
fn short_phases(tool: Tool, walked: &[Sample<'_>]) -> Option<String> {
    let mut times: Vec<(String, Vec<f64>)> = Vec::new();
    let sweep = walked.iter().any(|s| s.step != walked[0].step);
    for s in walked {
        let Some(t) = s.source.seconds() else {
            continue;
        };
        let step = s.step.filter(|_| sweep).map(|s| s.tasks);
        let name = figure_words(&s.what, step);
        match times.iter_mut().find(|(f, _)| *f == name) {
            Some((_, v)) => v.push(t),
            None => times.push((name, vec![t])),
        }
    }
    let short: Vec<String> = times
        .iter()
        .filter_map(|(figure, t)| {
            let m = crate::stats::median(t);
            (m < SHORT_PHASE_S).then(|| format!("{figure} {}", duration(m)))
        })
        .collect();
    if short.is_empty() {
        return None;
    }
    let remedy = match tool {
        Tool::Ior => "more data per task (-b, -s), or a time limit with enough data (-D)",
        Tool::Mdtest => "more items per task (-n)",
        _ => "more objects (-I) or iterations (-R)",
    };
    let shown = match short.len() {
        n if n > 4 => format!("{}, ... ({n} phases)", short[..3].join(", ")),
        _ => short.join(", "),
    };
    Some(format!(
        "Phases under a second ({shown}, medians): too short to measure storage steadily \
         (start-up, caches and the clock weigh in); give each phase several seconds of work: \
         {remedy}"
    ))
}

/// One warning for ior's figures with repetitions whose slowest task took
/// [`STRAGGLER`] times the tasks' mean or more.
fn stragglers(walked: &[Sample<'_>]) -> Option<String> {
    // figure -> (repetitions, stragglers, worst ratio, its task)
    let mut found: Vec<(String, usize, usize, f64, String)> = Vec::new();
    let sweep = walked.iter().any(|s| s.step != walked[0].step);
    for s in walked {
        let name = figure_words(&s.what, s.step.filter(|_| sweep).map(|s| s.tasks));
        let Some(t) = s.source.task_times() else {
            continue;
        };
        let (max, mean) = (t.total_max, t.total_mean);
        if !max.is_finite() || !mean.is_finite() {
            continue;
        }
        let i = match found.iter().position(|f| f.0 == name) {
            Some(i) => i,
            None => {
                found.push((name, 0, 0, 0.0, String::new()));
                found.len() - 1
            }
        };
        let f = &mut found[i];
        f.1 += 1;
        let ratio = max / mean.max(f64::MIN_POSITIVE);
        if ratio >= STRAGGLER && s.source.tasks().unwrap_or(2) > 1 {
            f.2 += 1;
            if ratio > f.3 {
                (f.3, f.4) = (ratio, t.slowest.to_string());
            }
        }
    }
    let seen: Vec<String> = found
        .into_iter()
        .filter(|f| f.2 > 0)
        .map(|(figure, reps, n, worst, task)| {
            format!("{figure} ({n} of {reps} repetitions, task {task} at {worst:.1}×)")
        })
        .collect();
    if seen.is_empty() {
        return None;
    }
    Some(format!(
        "Stragglers: the slowest task took {STRAGGLER}× the tasks' mean time (open to close) or \
         more in {}; a phase lasts as long as its slowest task: see the task times, and look \
         at that task's node",
        seen.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ior::results::TaskSpread;

    /// A real ior result with three write repetitions: a straggler, one
    /// cut short by SIGINT, short phases; the same warning twice.
    fn ior_result() -> ResultFile {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report/ior.json");
        let Ok(ResultFile::Tool(ToolReport::Ior(mut r))) = ResultFile::read(path) else {
            panic!("{path} is an ior result");
        };
        let t = &mut r.tests[0];
        let row = t.results[0].clone();
        let spread = TaskSpread {
            total_max: 3.0,
            total_mean: 1.5,
            slowest: 1,
            ..row.spread.clone().unwrap()
        };
        let rep = |total: f64, spread: Option<TaskSpread>, signal: Option<&str>| {
            let mut r = row.clone();
            (r.bw_mib, r.total, r.tasks, r.spread) = (1.0, total, 2, spread);
            r.interrupted = signal.map(str::to_string);
            r
        };
        t.results = vec![
            rep(0.5, Some(spread), None),
            rep(2.0, None, Some("SIGINT")),
            rep(0.1, None, None),
        ];
        let cache = "WARNING: 100% of the data read was in this node's page cache";
        t.warnings = vec![cache.into(), cache.into()];
        r.tests.truncate(1);
        ResultFile::Tool(ToolReport::Ior(r))
    }

    #[test]
    fn warnings_in_words_each_once() {
        let doc = ior_result();
        let walked = doc.samples();
        let w = of(&doc, &walked);
        assert_eq!(
            w[0],
            "100% of the data read was in this node's page cache (2 times)"
        );
        assert!(
            w[1].starts_with("Write #2 interrupted by SIGINT"),
            "{}",
            w[1]
        );
        assert!(
            w[2].contains("Phases under a second (write 500 ms, medians)"),
            "{}",
            w[2]
        );
        assert!(
            w[3].contains("write (1 of 1 repetitions, task 1 at 2.0×)"),
            "{}",
            w[3]
        );
        assert_eq!(w.len(), 4, "{w:?}");
    }
}
