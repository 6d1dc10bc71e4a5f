//! The report page: one self-contained HTML file (inline CSS and SVG, no
//! script, nothing fetched). Each chart sits in a `<figure class="chart">`
//! named by its title (`data-chart`), as it is also written by `--images`.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use plotters::style::Color;

use super::charts;
use super::model::Loaded;
use super::scaling as sweep;
use super::sidefiles;

const STYLE: &str = "body{font-family:sans-serif;margin:2em;max-width:70em}\
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.2em .6em;text-align:right}\
th{background:#eee}td:first-child,th:first-child{text-align:left}h2{margin-top:2em}\
figure{margin:1em 0}.warning{color:#b00}";

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

fn pairs(rows: Vec<(String, String)>) -> Vec<Vec<String>> {
    rows.into_iter().map(|(k, v)| vec![k, v]).collect()
}

/// The page's charts, in order: (title, SVG).
struct Charts(Vec<(String, String)>);

impl Charts {
    /// The chart as it goes in the page (nothing for a failed drawing).
    fn add(&mut self, title: String, svg: String) -> String {
        if svg.is_empty() {
            return String::new();
        }
        let html = format!(
            "<figure class=\"chart\" data-chart=\"{}\">{svg}</figure>\n",
            escape(&title)
        );
        self.0.push((title, svg));
        html
    }
}

/// The whole page for these results (compared side by side), and each
/// chart as (title, SVG) for `--images`.
pub fn page(results: &[Loaded]) -> (String, Vec<(String, String)>) {
    let mut charts = Charts(Vec::new());
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
        h.push_str(&table(&["run", ""], &pairs(r.about())));
        h.push_str("<details><summary>parameters and environment</summary>\n");
        h.push_str(&table(&["parameter", "value"], &pairs(r.parameters())));
        h.push_str("</details>\n");
    }
    h.push_str(&io500(results, &mut charts));
    h.push_str(&figures(results, &mut charts));
    h.push_str(&scaling(results, &mut charts));
    h.push_str(&latency(results, &mut charts));
    h.push_str(&stragglers(results, &mut charts));
    h.push_str(&page_cache(results, &mut charts));
    for r in results.iter().filter(|r| !r.stonewall.is_empty()) {
        let _ = writeln!(h, "<h2>Stonewall: {}</h2>", escape(&r.name));
        let head = [
            "row",
            "hit",
            "pairs min",
            "pairs max",
            "time (s)",
            "MiB/s at the stop",
        ];
        h.push_str(&table(&head, &r.stonewall));
    }
    h.push_str("</body></html>\n");
    (h, charts.0)
}

/// A sweep's figures against the step's task count (nothing without one).
fn scaling(results: &[Loaded], charts: &mut Charts) -> String {
    let sweeps = sweep::charts(results);
    if sweeps.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Scaling</h2>\n");
    for (title, svg, points) in sweeps {
        h.push_str(&charts.add(title, svg));
        h.push_str(&points);
    }
    h
}

/// io500's score and phases: one chart for bandwidth, one for metadata,
/// the results side by side.
fn io500(results: &[Loaded], charts: &mut Charts) -> String {
    let runs: Vec<&Loaded> = results.iter().filter(|r| r.is_io500()).collect();
    if runs.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>IO500</h2>\n");
    for r in &runs {
        let _ = writeln!(h, "<h3>{}</h3>", escape(&r.name));
        h.push_str(&table(
            &["score", ""],
            &pairs(r.score().unwrap_or_default()),
        ));
        let head = ["phase", "score", "unit", "time (s)", "validity"];
        h.push_str(&table(&head, &r.io500_phases()));
    }
    for unit in ["GiB/s", "kIOPS"] {
        // In the order io500 ran them (its timestamp is no phase).
        let mut phases: Vec<String> = Vec::new();
        for r in &runs {
            for p in r.doc["phases"].as_array().into_iter().flatten() {
                let name = p["name"].as_str().unwrap_or("timestamp");
                let known = phases.iter().any(|n| n == name);
                if p["unit"] == unit && name != "timestamp" && !known {
                    phases.push(name.to_string());
                }
            }
        }
        let series: Vec<(String, Vec<f64>)> = runs
            .iter()
            .map(|r| {
                let v = phases
                    .iter()
                    .map(|p| {
                        r.figures
                            .get(p)
                            .and_then(|f| f.values.first().copied())
                            .unwrap_or(0.0)
                    })
                    .collect();
                (r.name.clone(), v)
            })
            .collect();
        if !phases.is_empty() {
            let title = format!("IO500 phases ({unit})");
            let svg = charts::grouped(&title, unit, &phases, &series);
            h.push_str(&charts.add(title, svg));
        }
    }
    h
}

/// Each figure: its repetitions per result, and mean, min and max (io500's
/// phases are charted above).
fn figures(results: &[Loaded], charts: &mut Charts) -> String {
    let others = || results.iter().filter(|r| !r.is_io500());
    let names: BTreeSet<&String> = others().flat_map(|r| r.figures.keys()).collect();
    if names.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Figures per repetition</h2>\n");
    for name in names {
        let series: Vec<(String, Vec<f64>)> = others()
            .filter_map(|r| {
                r.figures
                    .get(name)
                    .map(|f| (r.name.clone(), f.values.clone()))
            })
            .collect();
        let unit = others()
            .find_map(|r| r.figures.get(name).map(|f| f.unit.clone()))
            .unwrap_or_default();
        let svg = charts::repetitions(name, &unit, &series, None);
        h.push_str(&charts.add(name.clone(), svg));
        let rows: Vec<Vec<String>> = series
            .iter()
            .map(|(who, v)| {
                let mean = v.iter().sum::<f64>() / v.len().max(1) as f64;
                let min = v.iter().copied().fold(f64::INFINITY, f64::min);
                let max = v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let n = v.len().to_string();
                let f = |x: f64| format!("{x:.3}");
                vec![who.clone(), n, f(mean), f(min), f(max)]
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
fn latency(results: &[Loaded], charts: &mut Charts) -> String {
    let names: BTreeSet<&String> = results.iter().flat_map(|r| r.latency.keys()).collect();
    if names.is_empty() {
        return String::new();
    }
    let mut h = String::from(
        "<h2>Latency percentiles</h2>\n<p>From the histogram files where given (every \
         repetition merged), else the percentiles of each figure's first repetition.</p>\n",
    );
    for name in names {
        let curves: Vec<(String, Vec<(f64, f64)>)> = results
            .iter()
            .filter_map(|r| {
                let c = r.latency.get(name)?;
                let merged = r.merged.contains(name);
                let who = match merged {
                    true => format!("{} (all repetitions)", r.name),
                    false => r.name.clone(),
                };
                Some((who, c.clone()))
            })
            .collect();
        let title = format!("{name}: latency");
        let svg = charts::percentiles(&title, &curves);
        h.push_str(&charts.add(title, svg));
    }
    h
}

/// Task times: per figure, the fastest and slowest task of each
/// repetition; with a task file, every task of the widest phase.
fn stragglers(results: &[Loaded], charts: &mut Charts) -> String {
    let names: BTreeSet<&String> = results.iter().flat_map(|r| r.spread.keys()).collect();
    if names.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Task times (stragglers)</h2>\n");
    for name in names {
        let series: Vec<_> = results
            .iter()
            .filter_map(|r| r.spread.get(name).map(|s| (r.name.clone(), s.clone())))
            .collect();
        let title = format!("{name}: fastest to slowest task");
        let svg = charts::spread(&title, &series);
        h.push_str(&charts.add(title, svg));
    }
    for r in results {
        let accesses: BTreeSet<&str> = r.tasks.iter().map(|t| t.access.as_str()).collect();
        for access in accesses {
            let rows = sidefiles::widest_phase(&r.tasks, access);
            let rep = rows.first().map_or(0, |t| t.iteration);
            let title = format!("{}: every task, {access} #{rep}", r.name);
            let svg = charts::tasks(&title, &rows);
            h.push_str(&charts.add(title, svg));
        }
        if !r.times.is_empty() {
            let _ = writeln!(h, "<h3>{}</h3>", escape(&r.name));
            let head = [
                "row",
                "fastest (s)",
                "mean (s)",
                "slowest (s)",
                "slowest task",
            ];
            h.push_str(&table(&head, &r.times));
        }
    }
    h
}

/// The page cache before each read, the suspect share marked, and the
/// warnings given.
fn page_cache(results: &[Loaded], charts: &mut Charts) -> String {
    let series: Vec<(String, Vec<f64>)> = results
        .iter()
        .filter(|r| !r.cache.is_empty())
        .map(|r| {
            (
                r.name.clone(),
                r.cache.iter().map(|c| c.1 * 100.0).collect(),
            )
        })
        .collect();
    if series.is_empty() {
        return String::new();
    }
    let mut h = String::from("<h2>Page cache before each read</h2>\n");
    let title = "page cache before each read".to_string();
    let limit = crate::pagecache::SUSPECT_FRACTION * 100.0;
    let svg = charts::repetitions(&title, "% of the data cached", &series, Some(limit));
    h.push_str(&charts.add(title, svg));
    for r in results {
        let warnings: BTreeSet<&String> = r.cache.iter().filter_map(|c| c.2.as_ref()).collect();
        for w in warnings {
            let _ = writeln!(
                h,
                "<p class=\"warning\">{}: {}</p>",
                escape(&r.name),
                escape(w)
            );
        }
    }
    h
}
