//! Sweeps as HPC reads them (ior's `-O sweep`, mdtest's `-f/-l/-s`): each
//! figure against the step's tasks (or nodes, when they vary), every
//! repetition a point and the medians joined, the ideal line (linear from
//! the smallest step), a log₂ axis when the steps double; and a table of
//! each step's figure per task and per node and its efficiency against the
//! smallest step (1 is ideal, below 1 sub-linear).

use std::collections::BTreeMap;

use plotters::prelude::*;

use super::charts;
use super::charts::{plot, with_keys, Axis, Key, Mark, HALF};
use super::human::{self, Scale};
use super::marks::Look;
use super::model::Loaded;
use crate::compare::Step;
use crate::stats::median;

/// One result's steps of one figure: (step, repetitions).
struct Curve<'a> {
    result: usize,
    name: &'a str,
    points: Vec<(Step, &'a [f64])>,
}

/// A scaling chart: its title, its SVG and the table under it.
pub struct Scaling {
    pub title: String,
    pub svg: String,
    pub head: Vec<&'static str>,
    pub table: Vec<Vec<String>>,
}

/// The scaling charts of every sweep among the results, one per figure.
pub fn charts(results: &[Loaded]) -> Vec<Scaling> {
    let mut by_what: BTreeMap<(usize, &str), (String, &str, Vec<Curve<'_>>)> = BTreeMap::new();
    for (i, r) in results.iter().enumerate() {
        for figure in &r.order {
            let Some((what, step)) = r.steps.get(figure) else {
                continue;
            };
            let f = &r.figures[figure];
            // Charts in the order the figures first appear.
            let key = by_what
                .keys()
                .find(|(_, w)| *w == what.as_str())
                .copied()
                .unwrap_or((by_what.len(), what.as_str()));
            let entry = by_what.entry(key).or_insert_with(|| {
                let title = format!("{} scaling{}", headline(r, what), context(r));
                (title, f.unit.as_str(), Vec::new())
            });
            let curves = &mut entry.2;
            if curves.last().is_none_or(|c| c.result != i) {
                curves.push(Curve {
                    result: i,
                    name: &r.name,
                    points: Vec::new(),
                });
            }
            if let Some(c) = curves.last_mut() {
                c.points.push((*step, &f.values));
            }
        }
    }
    by_what
        .into_values()
        .map(|(title, unit, curves)| draw(title, unit, curves))
        .collect()
}

/// `ior write`, `mdtest File creation`.
fn headline(r: &Loaded, what: &str) -> String {
    let what = what.strip_prefix("test 0 ").unwrap_or(what);
    format!("{} {what}", r.tool.name())
}

fn context(r: &Loaded) -> String {
    let keep = ["transfer", "files", "items"];
    let parts: Vec<&str> = keep.iter().filter_map(|k| r.workload.get(k)).collect();
    match parts.is_empty() {
        true => String::new(),
        false => format!(", {}", parts.join(", ")),
    }
}

/// Where a step goes on the x axis.
fn placed(x: u64, log2: bool) -> f64 {
    match log2 {
        true => (x as f64).log2(),
        false => x as f64,
    }
}

/// Whether the steps double: powers of two over a factor of 4 or more.
fn doubling(xs: &[u64]) -> bool {
    let (lo, hi) = (xs.iter().min(), xs.iter().max());
    xs.iter().all(|x| x.is_power_of_two()) && matches!((lo, hi), (Some(l), Some(h)) if h / l >= 4)
}

fn draw(title: String, unit: &str, curves: Vec<Curve<'_>>) -> Scaling {
    let nodes_vary = curves.iter().any(|c| {
        let mut n: Vec<Option<u64>> = c.points.iter().map(|(s, _)| s.nodes).collect();
        n.dedup();
        n.len() > 1 && n.iter().all(Option::is_some)
    });
    let along = |s: &Step| match nodes_vary {
        true => s.nodes.unwrap_or(1),
        false => s.tasks,
    };
    let mut xs: Vec<u64> = curves
        .iter()
        .flat_map(|c| c.points.iter().map(|(s, _)| along(s)))
        .collect();
    xs.sort_unstable();
    xs.dedup();
    let log2 = doubling(&xs);
    let max = curves
        .iter()
        .flat_map(|c| c.points.iter().flat_map(|(_, v)| v.iter().copied()))
        .fold(0.0, f64::max);
    let scale = human::scale_for(unit, max * 1.1);
    let y = Axis::values(max * 1.1, &scale, 6);
    let x = steps_axis(&xs, log2, if nodes_vary { "nodes" } else { "tasks" });
    let keys: Vec<Key> = curves
        .iter()
        .flat_map(|c| {
            [
                Key::of(c.name, c.result, Mark::Line),
                Key::of("ideal", c.result, Mark::Dashed),
            ]
        })
        .collect();
    let svg = with_keys((HALF, 300), &keys, |root| {
        let mut chart = plot(root, &title, &x, &y, (64, 40))?;
        for c in &curves {
            curve(&mut chart, c, &along, log2, y.hi)?;
        }
        Some(())
    });
    let (head, table) = table(&curves, &scale, &along);
    Scaling {
        title,
        svg,
        head,
        table,
    }
}

/// The x axis: a tick at each step, integers, log₂ when they double.
fn steps_axis(xs: &[u64], log2: bool, what: &str) -> Axis {
    let place = |x: u64| placed(x, log2);
    let (lo, hi) = (place(xs[0]), place(*xs.last().unwrap_or(&xs[0])));
    let pad = ((hi - lo) * 0.06).max(0.3);
    Axis {
        lo: lo - pad,
        hi: hi + pad,
        ticks: xs.iter().map(|x| place(*x)).collect(),
        label: Box::new(move |v| match log2 {
            true => human::number(2f64.powf(v).round()),
            false => human::number(v.round()),
        }),
        desc: match log2 {
            true => format!("{what} (log₂ scale)"),
            false => what.to_string(),
        },
    }
}

/// The table under a chart: its heading and rows. Nodes only when there
/// are several; the result only when several share the chart.
fn table(
    curves: &[Curve<'_>],
    scale: &Scale,
    along: &dyn Fn(&Step) -> u64,
) -> (Vec<&'static str>, Vec<Vec<String>>) {
    let mut rows: Vec<Vec<String>> = curves.iter().flat_map(|c| rows(c, scale, along)).collect();
    let mut head = vec![
        "result",
        "tasks",
        "nodes",
        "median",
        "per task",
        "per node",
        "efficiency",
    ];
    let several_nodes = curves
        .iter()
        .any(|c| c.points.iter().any(|(s, _)| s.nodes.unwrap_or(1) > 1));
    let drop = [
        (5, !several_nodes),
        (2, !several_nodes),
        (0, curves.len() == 1),
    ];
    for (column, dropped) in drop {
        if dropped {
            head.remove(column);
            rows.iter_mut().for_each(|r| {
                r.remove(column);
            });
        }
    }
    (head, rows)
}

/// A result's points, medians joined, and its ideal line (dashed) from
/// its smallest step, cut at the top of the chart.
fn curve(
    chart: &mut super::charts::Chart<'_, '_>,
    c: &Curve<'_>,
    along: &dyn Fn(&Step) -> u64,
    log2: bool,
    top: f64,
) -> Option<()> {
    let place = |x: u64| placed(x, log2);
    let look = Look::of(c.result);
    let colour = look.colour;
    let mut medians: Vec<(u64, f64)> = c
        .points
        .iter()
        .map(|(s, v)| (along(s), median(v)))
        .collect();
    medians.sort_by_key(|m| m.0);
    let points = c
        .points
        .iter()
        .flat_map(|(s, v)| v.iter().map(move |value| (place(along(s)), *value)));
    charts::points(chart, look, points, 4, colour.mix(0.7).filled())?;
    let line = medians.iter().map(|(x, m)| (place(*x), *m));
    chart
        .draw_series(LineSeries::new(line, colour.stroke_width(2)))
        .ok()?;
    let (Some(&(x0, m0)), Some(&(x1, _))) = (medians.first(), medians.last()) else {
        return Some(());
    };
    // Ideal: the smallest step's figure per task (or node) times the size.
    let ideal = (0..=40).filter_map(|k| {
        let x = place(x0) + (place(x1) - place(x0)) * k as f64 / 40.0;
        let size = match log2 {
            true => 2f64.powf(x),
            false => x,
        };
        let v = m0 * size / x0 as f64;
        (v <= top).then_some((x, v))
    });
    let style = colour.mix(0.8).stroke_width(1);
    chart
        .draw_series(DashedLineSeries::new(ideal, 6, 4, style))
        .ok()?;
    Some(())
}

/// The table's rows of one result: step, median, per task, per node,
/// efficiency against the smallest step.
fn rows(c: &Curve<'_>, scale: &Scale, along: &dyn Fn(&Step) -> u64) -> Vec<Vec<String>> {
    let mut steps: Vec<&(Step, &[f64])> = c.points.iter().collect();
    steps.sort_by_key(|(s, _)| along(s));
    let Some((s0, v0)) = steps.first() else {
        return Vec::new();
    };
    let base = median(v0) / along(s0) as f64;
    steps
        .iter()
        .map(|(s, v)| {
            let m = median(v);
            let per = |n: Option<u64>| n.map_or("-".into(), |n| scale.text(m / n as f64));
            let efficiency = m / along(s) as f64 / base;
            vec![
                c.name.to_string(),
                s.tasks.to_string(),
                s.nodes.map_or("-".into(), |n| n.to_string()),
                scale.text(m),
                per(Some(s.tasks)),
                per(s.nodes),
                format!("{:.0} %", efficiency * 100.0),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn efficiency_is_against_the_smallest_step() {
        let (one, two, four) = ([100.0], [180.0, 190.0, 170.0], [300.0]);
        let c = Curve {
            result: 0,
            name: "a",
            points: vec![
                (
                    Step {
                        tasks: 4,
                        nodes: Some(2),
                    },
                    &four[..],
                ),
                (
                    Step {
                        tasks: 2,
                        nodes: Some(1),
                    },
                    &two[..],
                ),
                (
                    Step {
                        tasks: 1,
                        nodes: Some(1),
                    },
                    &one[..],
                ),
            ],
        };
        let scale = human::scale_for("MiB/s", 300.0);
        let rows = rows(&c, &scale, &|s: &Step| s.tasks);
        let eff: Vec<&str> = rows.iter().map(|r| r[6].as_str()).collect();
        assert_eq!(eff, ["100 %", "90 %", "75 %"]);
        assert_eq!(rows[2][4], "75 MiB/s", "per task");
        assert_eq!(rows[2][5], "150 MiB/s", "per node");
        assert!(doubling(&[1, 2, 4]) && !doubling(&[1, 2]) && !doubling(&[1, 3, 6]));
    }
}
