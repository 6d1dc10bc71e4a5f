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
    let mut h = String::from(
        "<table class=\"overview\"><thead><tr><th>Result</th><th>Workload</th><th>Figure</th>\
         <th>Median</th><th>Range over the repetitions</th>",
    );
    if compared {
        h.push_str("<th>Against the baseline</th>");
    }
    h.push_str("</tr></thead>\n");
    for (i, r) in results.iter().enumerate() {
        let against = |name: &str, f: &Figure| match (i == baseline, base.get(name)) {
            _ if !compared => String::new(),
            (true, _) => "<td class=\"verdict base\">baseline</td>".to_string(),
            (false, Some(b)) => {
                let mine = BTreeMap::from([(name.to_string(), f.clone())]);
                let only = BTreeMap::from([(name.to_string(), b.clone())]);
                compare(&only, &mine).first().map_or(String::new(), verdict)
            }
            (false, None) => "<td class=\"verdict none\">–</td>".into(),
        };
        h.push_str(&result_rows(i, r, &figures[i], &against, compared));
    }
    h.push_str("</table>\n");
    h
}

/// A result's group of rows: its name and workload, a row per figure,
/// a row per warning.
fn result_rows(
    i: usize,
    r: &Loaded,
    figures: &[(String, Figure)],
    against: &dyn Fn(&str, &Figure) -> String,
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
         <a href=\"#run-{n}\">{name}</a><small>{tool} · {file}</small></td>\
         <td rowspan=\"{span}\" class=\"workload\">{words}{sweep}</td>",
        n = i + 1,
        swatch = swatch(i),
        name = escape(&r.name),
        file = escape(&r.file),
        tool = r.tool.name(),
        words = escape(&r.workload.words()),
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
            against(name, f),
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
fn verdict(row: &Row) -> String {
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
    format!(
        "<td class=\"verdict {class}\"><b>{}</b> {}{interval}</td>",
        human::ratio(row.ratio),
        row.verdict.words()
    )
}
