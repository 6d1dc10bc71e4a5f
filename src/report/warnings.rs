//! Every warning a result holds, in words a reader acts on: the tool's own
//! (the page cache before a read, wrong data, io500's invalid phases, ...),
//! interrupted phases, and what the report finds itself: phases too short
//! to measure storage, and stragglers.

use std::collections::BTreeMap;

use serde_json::Value;

use super::human::duration;
use super::workload::{figure_words, Tool};
use crate::compare::Sample;

/// A phase shorter than this is dominated by start-up, caches and the
/// clock rather than by the storage.
pub const SHORT_PHASE_S: f64 = 1.0;

/// A repetition whose slowest task took this many times the tasks' mean
/// (open to close) had a straggler.
pub const STRAGGLER: f64 = 1.5;

/// The warnings of a result, each once (with how often it was given).
pub fn of(tool: Tool, doc: &Value, walked: &[Sample<'_>]) -> Vec<String> {
    let mut own: Vec<String> = Vec::new();
    match tool {
        Tool::Ior => ior_own(doc, "", &mut own),
        Tool::Mdtest => strings(&doc["warnings"], "", &mut own),
        Tool::MdWorkbench => md_workbench_errors(doc, &mut own),
        Tool::Io500 => io500(doc, &mut own),
    }
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
fn strings(v: &Value, prefix: &str, out: &mut Vec<String>) {
    let named = prefix.trim_end_matches([':', ' ']);
    for w in v.as_array().into_iter().flatten().filter_map(Value::as_str) {
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

fn ior_own(doc: &Value, prefix: &str, out: &mut Vec<String>) {
    for t in doc["tests"].as_array().into_iter().flatten() {
        strings(&t["warnings"], prefix, out);
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

fn md_workbench_errors(doc: &Value, out: &mut Vec<String>) {
    for p in doc["phases"].as_array().into_iter().flatten() {
        let errors: Vec<String> = p["errors"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(_, n)| n.as_u64().unwrap_or(0) > 0)
            .map(|(k, n)| format!("{n} {}", k.replace('_', " ")))
            .collect();
        if !errors.is_empty() {
            out.push(format!(
                "The {} phase had errors ({}): its rate counts operations that failed; see the run's output",
                p["phase"].as_str().unwrap_or("?"),
                errors.join(", ")
            ));
        }
    }
}

fn io500(doc: &Value, out: &mut Vec<String>) {
    let mut invalid = 0;
    for p in doc["phases"].as_array().into_iter().flatten() {
        let Some(name) = p["name"].as_str() else {
            continue;
        };
        let why: Vec<&str> = p["invalid"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        if !why.is_empty() {
            invalid += 1;
            out.push(format!("{name} is invalid: {}", why.join("; ")));
        }
        strings(&p["warnings"], &format!("{name}: "), out);
        let report = &p["report"];
        let prefix = format!("{name}: ");
        match report["tests"].as_array() {
            Some(_) if report["warnings"].is_array() => strings(&report["warnings"], &prefix, out),
            Some(_) => ior_own(report, &prefix, out),
            None => {}
        }
    }
    // pario's concurrent phase: its own verdict, outside the score.
    let x = &doc["extensions"]["concurrent"];
    let why: Vec<&str> = x["invalid"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if !why.is_empty() {
        out.push(format!(
            "the concurrent phase (outside the IO500 score) is invalid: {}",
            why.join("; ")
        ));
    }
    if doc["score"]["valid"] == Value::Bool(false) {
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
        if let Some(signal) = s.source["interrupted"].as_str() {
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

/// How long a repetition's phase took: ior's open-to-close, mdtest's
/// phase time, md-workbench's slowest task.
fn seconds(s: &Sample<'_>) -> Option<f64> {
    let r = s.source;
    r["totalTime"]
        .as_f64()
        .or_else(|| r["time_s"].as_f64())
        .or_else(|| r["max_s"].as_f64())
}

/// One warning for the figures whose median phase lasted under
/// [`SHORT_PHASE_S`].
fn short_phases(tool: Tool, walked: &[Sample<'_>]) -> Option<String> {
    let mut times: Vec<(String, Vec<f64>)> = Vec::new();
    let sweep = walked.iter().any(|s| s.step != walked[0].step);
    for s in walked {
        let Some(t) = seconds(s) else { continue };
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
        let t = &s.source["taskTimes"];
        let (Some(max), Some(mean)) = (t["totalMax"].as_f64(), t["totalMean"].as_f64()) else {
            continue;
        };
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
        if ratio >= STRAGGLER && s.source["tasks"].as_u64().unwrap_or(2) > 1 {
            f.2 += 1;
            if ratio > f.3 {
                (f.3, f.4) = (ratio, t["slowest"].to_string());
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
    use serde_json::json;

    #[test]
    fn warnings_in_words_each_once() {
        let doc = json!({"tests": [{"TestID": 0, "warnings": [
            "WARNING: 100% of the data read was in this node's page cache",
            "WARNING: 100% of the data read was in this node's page cache"],
            "Results": [
                {"access": "write", "bwMiB": 1.0, "totalTime": 0.5, "tasks": 2,
                 "taskTimes": {"totalMax": 3.0, "totalMean": 1.5, "slowest": 1}},
                {"access": "write", "bwMiB": 1.0, "totalTime": 2.0, "interrupted": "SIGINT"},
                {"access": "write", "bwMiB": 1.0, "totalTime": 0.1}]}]});
        let walked = crate::compare::samples(&doc).unwrap();
        let w = of(Tool::Ior, &doc, &walked);
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
        assert_eq!(w.len(), 4);
    }
}
