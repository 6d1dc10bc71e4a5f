//! The charts of the tasks' times: how far apart the fastest and slowest
//! task were in each repetition, and every task's open, transfer and close
//! in one phase (from ior's task file). A straggler sticks out right.

use plotters::prelude::*;

use super::charts::{
    colour, plot, row_name, rows_axis, short, svg, with_keys, Axis, Key, Mark, HALF,
};
use super::human;
use super::model::Spread;
use super::sidefiles::TaskRow;

/// A result's repetitions: (fastest, mean, slowest) open-to-close times.
pub struct Spreads {
    pub name: String,
    pub result: usize,
    pub spreads: Vec<Spread>,
}

fn task_axis(names: Vec<String>, label: impl Fn(usize, &str) -> String + 'static) -> Axis {
    let n = names.len();
    Axis {
        lo: 0.0,
        hi: n.max(1) as f64,
        ticks: (0..n).map(|i| n as f64 - i as f64 - 0.5).collect(),
        label: Box::new(move |v| {
            let i = (n as f64 - v - 0.5).round();
            match i >= 0.0 && (i as usize) < n {
                true => label(i as usize, &names[i as usize]),
                false => String::new(),
            }
        }),
        desc: String::new(),
    }
}

/// One row per result; in it each repetition a line from its fastest to
/// its slowest task, its mean a point.
pub fn spread(title: &str, rows: &[Spreads]) -> String {
    let max = rows
        .iter()
        .flat_map(|r| r.spreads.iter().map(|s| s.2))
        .fold(0.0, f64::max);
    let scale = human::seconds(max);
    let mut x = Axis::values(max, &scale, 6);
    x.desc = format!("open to close, {}", scale.unit);
    let n = rows.len();
    let (y, height) = rows_axis(n);
    svg((HALF, height + 10), |root| {
        let mut chart = plot(root, title, &x, &y, (16, 40))?;
        for (i, r) in rows.iter().enumerate() {
            let c = colour(r.result);
            let top = (n - i) as f64;
            row_name(&mut chart, &short(&r.name, 70), x.lo, top)?;
            let k = r.spreads.len().max(1) as f64;
            // The repetitions stacked in the row's lower part.
            let at = |j: usize| top - 0.38 - 0.55 * (j as f64 + 0.5) / k;
            let lines = r.spreads.iter().enumerate().map(|(j, s)| {
                PathElement::new(vec![(s.0, at(j)), (s.2, at(j))], c.stroke_width(2))
            });
            chart.draw_series(lines).ok()?;
            let means = r.spreads.iter().enumerate();
            let means = means.map(|(j, s)| Circle::new((s.1, at(j)), 3, c.filled()));
            chart.draw_series(means).ok()?;
        }
        Some(())
    })
}

/// A task's open, transfer or close: (start, end).
type Part = fn(&TaskRow) -> (f64, f64);

/// Every task's open, transfer and close in one phase, one row per task,
/// from the phase's first open: the stragglers stick out right.
pub fn tasks(title: &str, rows: &[&TaskRow]) -> String {
    let start = rows.iter().map(|t| t.open.0).fold(f64::INFINITY, f64::min);
    let end = rows.iter().map(|t| t.close.1).fold(start, f64::max);
    let span = (end - start).max(1e-9);
    let scale = human::seconds(span);
    let mut x = Axis::values(span, &scale, 6);
    x.desc = format!("{} from the first open", scale.unit);
    let ranks: Vec<String> = rows.iter().map(|t| format!("task {}", t.rank)).collect();
    // Beyond 30 tasks, a label every few rows.
    let every = rows.len().div_ceil(30).max(1);
    let y = task_axis(ranks, move |i, name| match i % every {
        0 => name.to_string(),
        _ => String::new(),
    });
    let height = (90 + 16 * rows.len() as u32).clamp(200, 1400);
    let parts: [(&str, RGBColor, Part); 3] = [
        ("open", colour(1), |t| t.open),
        ("transfer", colour(0), |t| t.xfer),
        ("close", colour(3), |t| t.close),
    ];
    let keys: Vec<Key> = parts
        .iter()
        .map(|(name, c, _)| Key {
            name: name.to_string(),
            colour: *c,
            mark: Mark::Box,
        })
        .collect();
    with_keys((HALF, height), &keys, |root| {
        let mut chart = plot(root, title, &x, &y, (70, 40))?;
        let n = rows.len() as f64;
        for (_, c, part) in parts {
            let bars = rows.iter().enumerate().map(|(i, t)| {
                let (a, b) = part(t);
                let top = n - i as f64 - 0.15;
                Rectangle::new([(a - start, top - 0.7), (b - start, top)], c.filled())
            });
            chart.draw_series(bars).ok()?;
        }
        Some(())
    })
}
