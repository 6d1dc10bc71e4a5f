//! The overview the page opens with: a row per result (its figures under
//! it) with the workload in words, each headline figure's median and range
//! over the repetitions, the ratio to the baseline and whether the
//! difference is beyond the noise as `pario compare` decides, and every
//! warning next to its result.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::elements::escape;
use super::human::{self, scale_for};
use super::marks::swatch;
use super::model::Loaded;
use super::printed::{self, Chip, Line, Note};
use super::workload::{shared_and_own, Tool, Workload};
use crate::compare::workload::{differences, line};
use crate::compare::{compare, Figure, Row, Spread, Verdict};
use crate::stats::median;

/// The figures the overview shows of a result, in order: every figure (a
/// sweep's at its largest step), and io500's bandwidth and metadata
/// scores.
pub fn headline(r: &Loaded) -> Vec<(String, Figure)> {
    // A sweep's headline is its largest step, the whole job.
    let largest = r.steps.values().map(|(_, s)| s.tasks).max();
    let mut out: Vec<(String, Figure)> = r
        .order
        .iter()
        .filter(|f| r.steps.get(*f).map(|(_, s)| s.tasks) == largest)
        .map(|f| (f.clone(), r.figures[f].clone()))
        .collect();
    if let Some(doc) = r.io500() {
        out.retain(|(name, _)| name == "score");
        let s = &doc.score;
        for (v, name, unit) in [
            (s.bandwidth_gib_s, "bandwidth", "GiB/s"),
            (s.metadata_kiops, "metadata", "kIOPS"),
        ] {
            if v.is_finite() {
                let unit = unit.to_string();
                out.push((
                    name.into(),
                    Figure {
                        unit,
                        values: vec![v],
                    },
                ));
            }
        }
    }
    out
}

/// The overview table (without the comparison for a single result).
pub fn table(results: &[Loaded], baseline: usize) -> String {
    let figures: Vec<Vec<(String, Figure)>> = results.iter().map(headline).collect();
    let base: BTreeMap<String, Figure> = figures[baseline].iter().cloned().collect();
    let compared = results.len() > 1;
    let tools: Vec<(Tool, &Workload)> = results.iter().map(|r| (r.tool, &r.workload)).collect();
    let (shared, own) = shared_and_own(&tools);
    let mut h = shared_line(&shared, &tools);
    // Names made from the workload already say what sets each apart: the
    // column would only repeat them.
    let column = results
        .iter()
        .zip(&own)
        .any(|(r, w)| r.is_sweep() || !r.name.contains(w.as_str()));
    h.push_str("<table class=\"overview\"><thead><tr><th>Result</th>");
    if column {
        h.push_str("<th>Workload</th>");
    }
    h.push_str("<th>Figure</th><th>Median</th><th>Range over the repetitions</th>");
    if compared {
        h.push_str("<th>Against the baseline</th>");
    }
    h.push_str("</tr></thead>\n");
    let mut lines: Vec<Line> = Vec::new();
    for (i, r) in results.iter().enumerate() {
        // What makes the ratio one of different work, said beside it once.
        let differ = line(&differences(&results[baseline].workload, &r.workload));
        let rows: Vec<Option<Row>> = (figures[i].iter())
            .map(|(name, f)| match base.get(name) {
                Some(b) if compared && i != baseline => {
                    let mine = BTreeMap::from([(name.to_string(), f.clone())]);
                    let only = BTreeMap::from([(name.to_string(), b.clone())]);
                    compare(&only, &mine).into_iter().next()
                }
                _ => None,
            })
            .collect();
        let cells: Vec<String> = (rows.iter().enumerate())
            .map(|(k, row)| match (i == baseline, row) {
                _ if !compared => String::new(),
                (true, _) => "<td class=\"verdict base\">baseline</td>".to_string(),
                (false, Some(row)) => verdict(row, differ.as_deref().filter(|_| k == 0)),
                (false, None) => "<td class=\"verdict none\">–</td>".into(),
            })
            .collect();
        let words = column.then_some(own[i].as_str());
        h.push_str(&result_rows(i, r, words, &figures[i], &cells, compared));
        let mut notes: Vec<Note> = r.warnings.iter().cloned().map(Note::Warning).collect();
        notes.extend(differ.map(Note::Differs));
        lines.push(Line {
            result: i,
            name: r.name.clone(),
            words: words.map(|w| match w {
                "" => "as above".to_string(),
                w => w.to_string(),
            }),
            figures: (figures[i].iter().zip(rows))
                .map(|((name, f), against)| Chip {
                    label: r.figure_label(name),
                    median: scale_for(&f.unit, median(&f.values)).text(median(&f.values)),
                    against,
                })
                .collect(),
            notes,
        });
    }
    h.push_str("</table>\n");
    let base_name = compared.then_some(results[baseline].name.as_str());
    h.push_str(&printed::table(&lines, base_name));
    h
}

/// A result's group of rows: its name and workload, a row per figure,
/// a row per warning.
fn result_rows(
    i: usize,
    r: &Loaded,
    words: Option<&str>,
    figures: &[(String, Figure)],
    against: &[String],
    compared: bool,
) -> String {
    let span = figures.len().max(1) + r.warnings.len();
    let wide = if compared { 4 } else { 3 };
    let sweep = match r.is_sweep() {
        true => {
            "<small>A sweep: its largest step here, every step under \
                 <a href=\"#scaling\">Scaling</a>.</small>"
        }
        false => "",
    };
    let mut h = format!(
        "<tbody class=\"result\" id=\"result-{n}\"><tr><td rowspan=\"{span}\" class=\"who\">\
         {swatch}\
         <a href=\"#run-{n}\">{name}</a><small>{tool} · {file}</small></td>{words}",
        n = i + 1,
        swatch = swatch(i),
        name = escape(&r.name),
        file = escape(&r.file),
        tool = r.tool.name(),
        words = match words {
            None => String::new(),
            Some("") => format!(
                "<td rowspan=\"{span}\" class=\"workload\"><span class=\"same\">as above\
                 </span>{sweep}</td>"
            ),
            Some(w) => format!(
                "<td rowspan=\"{span}\" class=\"workload\">{}{sweep}</td>",
                escape(w)
            ),
        },
    );
    if figures.is_empty() {
        let _ = writeln!(h, "<td colspan=\"{wide}\">no figure</td></tr>");
    }
    for (k, (name, f)) in figures.iter().enumerate() {
        if k > 0 {
            h.push_str("<tr>");
        }
        let _ = writeln!(
            h,
            "<td>{}</td>{}{}</tr>",
            escape(&r.figure_label(name)),
            figure_cells(r, name, f),
            against[k],
        );
    }
    for w in &r.warnings {
        let _ = writeln!(
            h,
            "<tr class=\"warning\"><td colspan=\"{wide}\"><span class=\"sign\">⚠</span> {}</td></tr>",
            escape(w)
        );
    }
    h.push_str("</tbody>\n");
    h
}

/// The median (with ior's operations per second under it) and the range.
fn figure_cells(r: &Loaded, name: &str, f: &Figure) -> String {
    let v = &f.values;
    let m = median(v);
    let scale = scale_for(&f.unit, m);
    let mut median_cell = format!("<b>{}</b>", escape(&scale.text(m)));
    if let Some(iops) = r.iops.get(name) {
        let i = median(iops);
        let ops = scale_for("ops/s", i);
        let _ = write!(median_cell, "<small>{}</small>", escape(&ops.text(i)));
    }
    let range = match v.len() {
        0 => "-".to_string(),
        1 => "1 repetition".to_string(),
        n => {
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
                    (l.min(*x), h.max(*x))
                });
            let scale = scale_for(&f.unit, hi);
            let cv = Spread::of(v).cv * 100.0;
            format!(
                "{} – {} <small title=\"coefficient of variation: the standard deviation \
                 over the mean\">cv {} %, {n} repetitions</small>",
                escape(&human::number(scale.of(lo))),
                escape(&scale.text(hi)),
                human::number(cv),
            )
        }
    };
    format!("<td class=\"num\">{median_cell}</td><td class=\"num\">{range}</td>")
}

/// The ratio of the medians, its confidence interval and compare's
/// verdict.
fn verdict(row: &Row, differ: Option<&str>) -> String {
    let class = match row.verdict {
        Verdict::Faster => "faster",
        Verdict::Slower => "slower",
        Verdict::WithinNoise => "noise",
        Verdict::TooFew => "none",
    };
    let interval = match row.interval {
        Some([lo, hi]) => format!(
            " <small title=\"95 % confidence interval of the ratio\">95 %: {}–{}</small>",
            human::ratio(lo),
            human::ratio(hi)
        ),
        None => String::new(),
    };
    let differ = match differ {
        Some(line) => format!("<small class=\"differs\">{}</small>", escape(line)),
        None => String::new(),
    };
    format!(
        "<td class=\"verdict {class}\"><b>{}</b> {}{interval}{differ}</td>",
        human::ratio(row.ratio),
        row.verdict.words()
    )
}

/// The workload the results share, once above the table: a line per tool
/// (`ior, 3 results: 1 MiB transfers, 2 tasks on 1 node, POSIX`).
fn shared_line(shared: &[(Tool, String)], results: &[(Tool, &Workload)]) -> String {
    let mut h = String::new();
    for (tool, words) in shared.iter().filter(|(_, w)| !w.is_empty()) {
        let n = results.iter().filter(|(t, _)| t == tool).count();
        let whose = match n {
            1 => tool.name().to_string(),
            n => format!("{}, {n} results", tool.name()),
        };
        let _ = writeln!(
            h,
            "<p class=\"shared\"><b>{whose}:</b> {}</p>",
            escape(words)
        );
    }
    h
}
