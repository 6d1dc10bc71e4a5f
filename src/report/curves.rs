//! Parameter curves: when the results of a tool differ in one parameter
//! alone (transfer size, queue depth, tasks, API: compare's
//! `differences`), their bandwidth (or rate), operations per second and
//! p99 latency against it, a line per figure, as fio-plot and
//! elbencho-chart draw them. A number goes on a sorted axis (log₂ when the
//! values double), a name (the API) on one point per category.

use plotters::prelude::*;

use super::charts::{colour, plot, with_keys, Axis, Key, Mark, HALF};
use super::elements::{titled, Charts, Section};
use super::human;
use super::model::Loaded;
use super::workload::Tool;
use crate::compare::workload::{differences, Value};
use crate::units::readable_size;

/// Where the results stand on the parameter, in order, with their
/// results.
struct Parameter<'a> {
    aspect: &'static str,
    /// Each value with the results that have it, sorted when numeric.
    values: Vec<(Value, Vec<&'a Loaded>)>,
    numeric: bool,
}

/// The one aspect in which `group`'s workloads differ, if one alone does
/// and it takes two values or more.
fn parameter<'a>(group: &[&'a Loaded]) -> Option<Parameter<'a>> {
    // Every aspect in which two of them differ, or which one lacks.
    let mut aspects: Vec<&'static str> = Vec::new();
    for a in group.iter().map(|r| &r.workload) {
        for b in group.iter().map(|r| &r.workload) {
            let lacks = a.setting_apart().filter(|s| b.setting(s.aspect).is_none());
            let differ = differences(a, b).into_iter().map(|d| d.aspect);
            for aspect in differ.chain(lacks.map(|s| s.aspect)) {
                if !aspects.contains(&aspect) {
                    aspects.push(aspect);
                }
            }
        }
    }
    let [aspect] = aspects[..] else { return None };
    let mut values: Vec<(Value, Vec<&Loaded>)> = Vec::new();
    for r in group {
        let v = r.workload.setting(aspect)?.value.clone();
        match values.iter_mut().find(|(x, _)| *x == v) {
            Some((_, rs)) => rs.push(r),
            None => values.push((v, vec![r])),
        }
    }
    let numeric = values.iter().all(|(v, _)| v.number().is_some());
    if numeric {
        values.sort_by(|a, b| a.0.number().partial_cmp(&b.0.number()).expect("finite"));
    }
    Some(Parameter {
        aspect,
        values,
        numeric,
    })
}

/// What a chart plots of a result's figure: its repetitions' values.
type Measure = fn(&Loaded, &str) -> Vec<f64>;

/// A chart's measure: what it is, its unit, its values, and whether only
/// the figures of that unit have it (the figures' own values).
type Charted = (&'static str, String, Measure, bool);

fn figure_values(r: &Loaded, figure: &str) -> Vec<f64> {
    r.figures
        .get(figure)
        .map_or(Vec::new(), |f| f.values.clone())
}

fn iops(r: &Loaded, figure: &str) -> Vec<f64> {
    r.iops.get(figure).cloned().unwrap_or_default()
}

/// The 99th percentile of the figure's latency curve.
fn p99(r: &Loaded, figure: &str) -> Vec<f64> {
    let curve = r.latency.get(figure);
    let at = curve.and_then(|c| c.iter().find(|(f, _)| *f >= 0.99 - 1e-9));
    at.map(|(_, s)| *s).into_iter().collect()
}

/// The curves' section: for each tool whose results differ in one
/// parameter, a chart per measure.
pub fn section(results: &[Loaded], charts: &mut Charts) -> Option<Section> {
    let mut h = String::new();
    let mut tools: Vec<Tool> = Vec::new();
    for r in results.iter().filter(|r| r.tool != Tool::Io500) {
        if !tools.contains(&r.tool) {
            tools.push(r.tool);
        }
    }
    for tool in tools {
        let group: Vec<&Loaded> = results.iter().filter(|r| r.tool == tool).collect();
        let Some(p) = parameter(&group) else { continue };
        h.push_str("<div class=\"charts\">\n");
        for m in measures(&group) {
            let (title, svg) = chart(&group, &p, &m);
            h.push_str(&charts.add(title, svg));
        }
        h.push_str("</div>\n");
    }
    if h.is_empty() {
        return None;
    }
    let note = "<p class=\"note\">The results differ in one parameter alone: each figure \
                against it, each point a repetition, the medians joined (a line per \
                figure, a tick at each median when the parameter is a name); p99: the 99th percentile of the first repetition's latency.</p>\n";
    Some(Section {
        id: "curves",
        heading: "Against the parameter".into(),
        body: format!("{note}{h}"),
    })
}

/// The charts the group has: its figures' own unit, ior's operations per
/// second, the latency.
fn measures(group: &[&Loaded]) -> Vec<Charted> {
    let unit = group[0]
        .figures
        .values()
        .next()
        .map_or(String::new(), |f| f.unit.clone());
    let what = match unit.ends_with("B/s") {
        true => "bandwidth",
        false => "rate",
    };
    let mut out: Vec<Charted> = vec![(what, unit, figure_values, true)];
    if group.iter().any(|r| !r.iops.is_empty()) {
        out.push(("IOPS", "ops/s".into(), iops, false));
    }
    if group.iter().any(|r| !r.latency.is_empty()) {
        out.push(("p99 latency", "s".into(), p99, false));
    }
    out
}

/// A figure's points: (figure, [(x, its values there)]).
type Line<'a> = (&'a String, Vec<(f64, Vec<f64>)>);

/// One measure's chart: (title, SVG).
fn chart(group: &[&Loaded], p: &Parameter<'_>, m: &Charted) -> (String, String) {
    let (what, unit, measure, own_unit) = (m.0, m.1.as_str(), m.2, m.3);
    let first = group[0];
    // A sweep's steps are charted under Scaling.
    let figures: Vec<&String> = (first.order.iter())
        .filter(|f| !first.steps.contains_key(*f))
        .filter(|f| !own_unit || first.figures[*f].unit == unit)
        .collect();
    let lines: Vec<Line<'_>> = figures
        .iter()
        .map(|f| {
            let points = (p.values.iter().enumerate())
                .map(|(k, (v, rs))| {
                    let x = place(p, k, v);
                    (x, rs.iter().flat_map(|r| measure(r, f)).collect())
                })
                .collect();
            (*f, points)
        })
        .collect();
    let max = (lines.iter())
        .flat_map(|(_, pts)| pts.iter().flat_map(|(_, v)| v.iter().copied()))
        .fold(0.0, f64::max);
    let scale = human::scale_for(unit, max * 1.1);
    let y = Axis::values(max * 1.1, &scale, 6);
    let x = axis(p);
    let head = format!("{} {what} by {}", group[0].tool.name(), p.aspect);
    let title = titled(head, group);
    let keys: Vec<Key> = (lines.iter().enumerate())
        .map(|(i, (f, _))| Key::of(&group[0].figure_label(f), i, Mark::Line))
        .collect();
    let svg = with_keys((HALF, 300), &keys, |root| {
        let mut chart = plot(root, &title, &x, &y, (64, 40))?;
        for (i, (_, pts)) in lines.iter().enumerate() {
            let c = colour(i);
            let dots = pts.iter().flat_map(|(x, vs)| {
                vs.iter()
                    .map(move |v| Circle::new((*x, *v), 4, c.mix(0.7).filled()))
            });
            chart.draw_series(dots).ok()?;
            let medians = (pts.iter())
                .filter(|(_, vs)| !vs.is_empty())
                .map(|(x, vs)| (*x, crate::stats::median(vs)));
            // Numbers: the medians joined; categories: a tick at each
            // median (no line runs between names).
            match p.numeric {
                true => chart.draw_series(LineSeries::new(medians, c.stroke_width(2))),
                false => chart.draw_series(medians.map(|(x, m)| {
                    PathElement::new(vec![(x - 0.2, m), (x + 0.2, m)], c.stroke_width(2))
                })),
            }
            .ok()?;
        }
        Some(())
    });
    (title, svg)
}

/// Whether numbers double: powers of two over a factor of 4 or more.
fn doubling(p: &Parameter<'_>) -> bool {
    let xs: Vec<f64> = p.values.iter().filter_map(|(v, _)| v.number()).collect();
    let pow2 = xs
        .iter()
        .all(|x| *x >= 1.0 && (*x as u64).is_power_of_two());
    let (lo, hi) = (xs.first().copied(), xs.last().copied());
    p.numeric && pow2 && matches!((lo, hi), (Some(l), Some(h)) if h / l >= 4.0)
}

/// Where the `k`th value goes on the x axis: the number (its log₂ when
/// they double), else its place among the categories.
fn place(p: &Parameter<'_>, k: usize, v: &Value) -> f64 {
    match (v.number(), doubling(p)) {
        (Some(n), true) => n.log2(),
        (Some(n), false) if p.numeric => n,
        _ => k as f64,
    }
}

/// The x axis: a tick at each value, said as the parameter says it
/// (`4 KiB`, `16`, `POSIX`).
fn axis(p: &Parameter<'_>) -> Axis {
    let xs: Vec<f64> = (p.values.iter().enumerate())
        .map(|(k, (v, _))| place(p, k, v))
        .collect();
    let (lo, hi) = (xs[0], xs[xs.len() - 1]);
    let pad = ((hi - lo) * 0.08).max(0.4);
    let names: Vec<String> = p.values.iter().map(|(v, _)| v.short()).collect();
    let size = matches!(p.values[0].0, Value::Size(_));
    let log2 = doubling(p);
    let numeric = p.numeric;
    let label = move |x: f64| {
        let n = if log2 { 2f64.powf(x).round() } else { x };
        match (numeric, size) {
            (true, true) => readable_size(n as u64),
            (true, false) => human::number(n),
            // A category's place is its index.
            (false, _) => (names.get(x.round().max(0.0) as usize))
                .cloned()
                .unwrap_or_default(),
        }
    };
    let desc = match log2 {
        true => format!("{} (log₂ scale)", p.aspect),
        false => p.aspect.to_string(),
    };
    Axis {
        lo: lo - pad,
        hi: hi + pad,
        ticks: xs,
        label: Box::new(label),
        desc,
    }
}
