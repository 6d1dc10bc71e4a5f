//! The report page: one self-contained HTML file (inline CSS and SVG, no
//! script, nothing fetched). It opens with the overview; the charts follow
//! by kind, each in a `<figure class="chart">` named by its title
//! (`data-chart`), as it is also written by `--images`; each run's details
//! come last, folded. A print style sheet lays it out for paper.

use std::fmt::Write as _;

use super::charts::{self, Row, HALF};
use super::elements::{escape, table, title, Charts, Section};
use super::human;
use super::model::Loaded;
use super::overtime;
use super::overview;
use super::scaling as sweep;
use super::sections;

const STYLE: &str = include_str!("style.css");

/// The whole page for these results (compared with the baseline's), and
/// each chart as (title, SVG) for `--images` (the SVG empty unless
/// `images`).
pub fn page(results: &[Loaded], baseline: usize, images: bool) -> (String, Vec<(String, String)>) {
    let mut charts = Charts(Vec::new(), images);
    let mut parts = vec![Section {
        id: "overview",
        heading: "Overview".into(),
        body: overview_body(results, baseline),
    }];
    let built = [
        figures(results, &mut charts),
        sections::io500(results, &mut charts),
        scaling(results, &mut charts),
        super::curves::section(results, &mut charts),
        sections::latency(results, &mut charts),
        overtime::section(results, &mut charts),
        sections::task_times(results, &mut charts),
        sections::page_cache(results, &mut charts),
    ];
    parts.extend(built.into_iter().flatten());
    parts.push(sections::runs(results));
    let mut h = head(results);
    h.push_str("<nav class=\"contents\" aria-label=\"Contents\"><b>Contents</b>");
    for s in &parts {
        let _ = write!(h, " <a href=\"#{}\">{}</a>", s.id, escape(&s.heading));
    }
    h.push_str("</nav>\n</header>\n<main>\n");
    // The page at its size at once: grown by doubling, it would hold up
    // to twice the sections' text beside them (the report's peak memory).
    h.reserve(parts.iter().map(|s| s.body.len() + 100).sum::<usize>() + 32);
    for s in parts {
        let _ = write!(
            h,
            "<section id=\"{}\">\n<h2>{}</h2>\n{}</section>\n",
            s.id,
            escape(&s.heading),
            s.body
        );
    }
    h.push_str("</main>\n</body></html>\n");
    (h, charts.0)
}

/// The document's head and the page's title block.
fn head(results: &[Loaded]) -> String {
    let names: Vec<&str> = results.iter().map(|r| r.name.as_str()).collect();
    let mut tools: Vec<&str> = Vec::new();
    for r in results {
        if !tools.contains(&r.tool.name()) {
            tools.push(r.tool.name());
        }
    }
    let title = match names.len() {
        1..=3 => format!("pario report: {}", names.join(", ")),
        n => format!("pario report: {n} results"),
    };
    let began = results.iter().find_map(|r| {
        r.about()
            .into_iter()
            .find(|(k, _)| k == "began")
            .map(|(_, v)| v)
    });
    let mut sub = format!(
        "{} result{} of {}",
        results.len(),
        if results.len() == 1 { "" } else { "s" },
        tools.join(", ")
    );
    if let Some(b) = began {
        let _ = write!(sub, ", the first begun {}", escape(&b));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<header>\n<h1>pario report</h1>\n\
         <p class=\"sub\">{sub}; written by pario {}</p>\n",
        escape(&title),
        env!("CARGO_PKG_VERSION")
    )
}

fn overview_body(results: &[Loaded], baseline: usize) -> String {
    let mut h = super::system::overview_line(results);
    h.push_str(&overview::table(results, baseline));
    h.push_str(
        "<p class=\"note\">Median and range over each figure's repetitions; cv: their \
         coefficient of variation (standard deviation over the mean).",
    );
    if results.len() > 1 {
        let _ = write!(
            h,
            " Against the baseline ({}): the ratio of the medians with its 95 % confidence \
             interval, and whether the difference is beyond the noise as <code>pario \
             compare</code> decides: the whole interval beyond 2 % either way; too few \
             repetitions to tell below 3 a side, or 3 against 3 or 4 (– where the baseline \
             has no such figure).",
            escape(&results[baseline].name)
        );
    }
    h.push_str("</p>\n");
    h
}

/// One chart per figure with every result that has it; figures measured
/// once in a table. A sweep's steps are in the scaling section, io500's
/// phases in its own.
fn figures(results: &[Loaded], charts: &mut Charts) -> Option<Section> {
    let shown = |r: &&Loaded| !r.is_io500();
    let mut names: Vec<&String> = Vec::new();
    for r in results.iter().filter(shown) {
        for f in r.order.iter().filter(|f| !r.steps.contains_key(*f)) {
            if !names.contains(&f) {
                names.push(f);
            }
        }
    }
    if names.is_empty() {
        return None;
    }
    let mut h = String::from(
        "<p class=\"note\">One chart per figure, every result that has it in a row: each \
         point a repetition, the line their range, the tick and the value beside it their \
         median.</p>\n<div class=\"charts\">\n",
    );
    let mut once: Vec<Vec<String>> = Vec::new();
    for name in names {
        let having: Vec<(usize, &Loaded)> = results
            .iter()
            .enumerate()
            .filter(|(_, r)| shown(r) && r.figures.contains_key(name))
            .collect();
        let rows: Vec<Row> = having
            .iter()
            .map(|(i, r)| Row {
                name: r.name.clone(),
                result: *i,
                values: r.figures[name].values.clone(),
            })
            .collect();
        let who: Vec<&Loaded> = having.iter().map(|(_, r)| *r).collect();
        let title = title(&who, name, "");
        let unit = &who[0].figures[name].unit;
        if rows.iter().map(|r| r.values.len()).sum::<usize>() < 2 {
            let v = rows[0].values.first().copied().unwrap_or(f64::NAN);
            let scale = human::scale_for(unit, v);
            once.push(vec![title, rows[0].name.clone(), scale.text(v)]);
            continue;
        }
        let max = rows
            .iter()
            .flat_map(|r| r.values.iter().copied())
            .fold(0.0, f64::max);
        // The axis goes a fifth above the largest value: its unit.
        let scale = human::scale_for(unit, max * 1.2);
        let svg = charts::dots(&title, &scale, &rows, None, HALF);
        h.push_str(&charts.add(title, svg));
    }
    h.push_str("</div>\n");
    if !once.is_empty() {
        h.push_str("<h3>Figures measured once</h3>\n");
        h.push_str(&table(&["figure", "result", "value"], &once));
    }
    Some(Section {
        id: "figures",
        heading: "Figures".into(),
        body: h,
    })
}

/// Sweeps: each figure against the step's size, with its table.
fn scaling(results: &[Loaded], charts: &mut Charts) -> Option<Section> {
    let sweeps = sweep::charts(results);
    if sweeps.is_empty() {
        return None;
    }
    let mut h = String::from(
        "<p class=\"note\">Each point a repetition, the medians joined; dashed: ideal \
         scaling, linear from the smallest step. Efficiency: the figure per task (per node \
         when the nodes vary) against the smallest step's; 100 % is ideal, below is \
         sub-linear.</p>\n",
    );
    for s in sweeps {
        h.push_str("<div class=\"pair\">");
        h.push_str(&charts.add(s.title, s.svg));
        h.push_str(&table(&s.head, &s.table));
        h.push_str("</div>\n");
    }
    Some(Section {
        id: "scaling",
        heading: "Scaling".into(),
        body: h,
    })
}
