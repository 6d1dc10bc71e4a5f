//! The report's scaling plots: a sweep's figure against its task count
//! (ior's `-O sweep`: the `scaling` table; mdtest's `-f/-l/-s`: each step's
//! mean rates), every result's curves together.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use plotters::prelude::*;
use serde_json::Value;

use super::charts::colour;
use super::html::escape;
use super::model::Loaded;

/// One curve: its name and its (tasks, value) points in step order.
type Curve = (String, Vec<(f64, f64)>);

/// The curves of one result, by chart (ior: "bandwidth"; mdtest: its
/// operations), each with its unit.
fn curves_of(r: &Loaded) -> BTreeMap<(String, &'static str), Vec<Curve>> {
    let mut charts: BTreeMap<(String, &'static str), Vec<Curve>> = BTreeMap::new();
    let mut point = |chart: String, unit, curve: String, tasks: Option<u64>, v: Option<f64>| {
        if let (Some(t), Some(v)) = (tasks, v) {
            let curves = charts.entry((chart, unit)).or_default();
            match curves.iter_mut().find(|(n, _)| *n == curve) {
                Some((_, points)) => points.push((t as f64, v)),
                None => curves.push((curve, vec![(t as f64, v)])),
            }
        }
    };
    for row in r.doc["scaling"].as_array().into_iter().flatten() {
        let curve = format!("{} test {} {}", r.name, row["testID"], text(&row["access"]));
        point(
            "bandwidth".into(),
            "MiB/s",
            curve,
            row["tasks"].as_u64(),
            row["bwMeanMIB"].as_f64(),
        );
    }
    let steps = r.doc["tests"]
        .as_array()
        .filter(|t| t.len() > 1 && t[0]["iterations"].is_array());
    for step in steps.into_iter().flatten() {
        for op in step["summary"].as_array().into_iter().flatten() {
            let name = text(&op["operation"]);
            let rate = op["rate"]["mean"].as_f64();
            point(name, "ops/s", r.name.clone(), step["tasks"].as_u64(), rate);
        }
    }
    charts
}

fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| v.to_string(), str::to_string)
}

/// The scaling charts (none without a sweep): per figure its title, its
/// chart, and a table of each point with its efficiency against the
/// curve's first.
pub fn charts(results: &[Loaded]) -> Vec<(String, String, String)> {
    let mut charts: BTreeMap<(String, &'static str), Vec<Curve>> = BTreeMap::new();
    for r in results {
        for (key, curves) in curves_of(r) {
            charts.entry(key).or_default().extend(curves);
        }
    }
    charts
        .into_iter()
        .map(|((name, unit), curves)| {
            let title = format!("Scaling: {name}");
            let svg = draw(&title, unit, &curves);
            (title, svg, points_table(unit, &curves))
        })
        .collect()
}

fn points_table(unit: &str, curves: &[Curve]) -> String {
    let mut t = format!(
        "<table><tr><th>curve</th><th>tasks</th><th>{}</th><th>per task</th><th>efficiency</th></tr>",
        escape(unit)
    );
    for (name, points) in curves {
        let first = points.first().map_or(0.0, |(n, v)| v / n);
        for (n, v) in points {
            let per_task = v / n;
            let efficiency = if first > 0.0 { per_task / first } else { 0.0 };
            let _ = write!(
                t,
                "<tr><td>{}</td><td>{n}</td><td>{v:.2}</td><td>{per_task:.2}</td><td>{efficiency:.3}</td></tr>",
                escape(name)
            );
        }
    }
    t.push_str("</table>\n");
    t
}

/// Each curve's value against the task count, with a mark per step.
fn draw(title: &str, unit: &str, curves: &[Curve]) -> String {
    let mut svg = String::new();
    let all = || curves.iter().flat_map(|(_, p)| p.iter());
    let max_tasks = all().map(|(n, _)| *n).fold(1.0, f64::max);
    let top = all()
        .map(|(_, v)| *v)
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE)
        * 1.1;
    {
        let root = SVGBackend::with_string(&mut svg, (640, 280)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..max_tasks * 1.05, 0f64..top);
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let _ = chart.configure_mesh().x_desc("tasks").y_desc(unit).draw();
        for (i, (name, points)) in curves.iter().enumerate() {
            let c = colour(i);
            let mut sorted = points.clone();
            sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
            if let Ok(drawn) = chart.draw_series(LineSeries::new(sorted, c.stroke_width(2))) {
                drawn
                    .label(name.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 12, y)], c));
            }
            let _ = chart.draw_series(points.iter().map(|p| Circle::new(*p, 3, c.filled())));
        }
        let _ = chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw();
        let _ = root.present();
    }
    svg
}
