//! The report page: one self-contained HTML file (inline CSS and SVG, no
//! script, nothing fetched).

use std::collections::BTreeSet;
use std::fmt::Write as _;

use plotters::style::Color;

use super::charts;
use super::model::Loaded;
use super::scaling;

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:70em}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}\
th{background:#eee}td:first-child,th:first-child{text-align:left}h2{margin-top:2em}";

/// `&`, `<`, `>` and `"` as entities.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut t = String::from("<table><tr>");
    for h in head {
        let _ = write!(t, "<th>{}</th>", escape(h));
    }
    t.push_str("</tr>");
    for r in rows {
        t.push_str("<tr>");
        for c in r {
            let _ = write!(t, "<td>{}</td>", escape(c));
        }
        t.push_str("</tr>");
    }
    t.push_str("</table>\n");
    t
}

/// The whole page for these results (compared side by side).
/// The page, and each chart as (title, SVG) for `--images`.
pub fn page(results: &[Loaded]) -> (String, Vec<(String, String)>) {
    let mut images = Vec::new();
    let mut h = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>pario report</title><style>{STYLE}</style></head><body>\n<h1>pario report</h1>\n"
    );
    for (i, r) in results.iter().enumerate() {
        let (c0, c1, c2) = charts::colour(i).rgb();
        let _ = writeln!(
            h,
            "<h2 style=\"color:rgb({c0},{c1},{c2})\">{}</h2>",
            escape(&r.name)
        );
        let about: Vec<Vec<String>> = r.about().into_iter().map(|(k, v)| vec![k, v]).collect();
        h.push_str(&table(&["run", ""], &about));
    }
    h.push_str(&figures(results, &mut images));
    h.push_str(&scaling::section(results, &mut images));
    h.push_str(&latency(results, &mut images));
    for r in results {
        if let Some((head, rows)) = r.details() {
            let _ = writeln!(h, "<h2>Details: {}</h2>", escape(&r.name));
            h.push_str(&table(&head, &rows));
        }
        let warnings = r.warnings();
        if !warnings.is_empty() {
            let _ = writeln!(h, "<h2>Warnings: {}</h2>\n<ul>", escape(&r.name));
            for w in warnings {
                let _ = writeln!(h, "<li>{}</li>", escape(&w));
            }
            h.push_str("</ul>\n");
        }
    }
    h.push_str("</body></html>\n");
    (h, images)
}

/// Each figure: its repetitions per result, and mean, min and max.
fn figures(results: &[Loaded], images: &mut Vec<(String, String)>) -> String {
    let names: BTreeSet<&String> = results.iter().flat_map(|r| r.figures.keys()).collect();
    let mut h = String::from("<h2>Figures per repetition</h2>\n");
    for name in names {
        let series: Vec<(String, Vec<f64>)> = results
            .iter()
            .filter_map(|r| {
                r.figures
                    .get(name)
                    .map(|f| (r.name.clone(), f.values.clone()))
            })
            .collect();
        let unit = results
            .iter()
            .find_map(|r| r.figures.get(name).map(|f| f.unit.clone()))
            .unwrap_or_default();
        let svg = charts::repetitions(name, &unit, &series);
        h.push_str(&svg);
        images.push((name.clone(), svg));
        let rows: Vec<Vec<String>> = series
            .iter()
            .map(|(who, v)| {
                let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
                let min = v.iter().copied().fold(f64::INFINITY, f64::min);
                let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                vec![
                    who.clone(),
                    v.len().to_string(),
                    format!("{mean:.3}"),
                    format!("{min:.3}"),
                    format!("{max:.3}"),
                ]
            })
            .collect();
        h.push_str(&table(
            &["result", "repetitions", "mean", "min", "max"],
            &rows,
        ));
    }
    h
}

/// Each figure's latency percentiles, the results' curves together.
fn latency(results: &[Loaded], images: &mut Vec<(String, String)>) -> String {
    let per: Vec<_> = results
        .iter()
        .map(|r| (r.name.clone(), r.latency()))
        .collect();
    let names: BTreeSet<String> = per.iter().flat_map(|(_, l)| l.keys().cloned()).collect();
    if names.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Latency percentiles</h2>\n");
    for name in names {
        let curves: Vec<(String, Vec<(String, f64)>)> = per
            .iter()
            .filter_map(|(who, l)| l.get(&name).map(|c| (who.clone(), c.clone())))
            .filter(|(_, c)| !c.is_empty())
            .collect();
        if !curves.is_empty() {
            let title = format!("{name}: latency");
            let svg = charts::percentiles(&title, &curves);
            h.push_str(&svg);
            images.push((title, svg));
        }
    }
    h
}
