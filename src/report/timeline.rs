//! The charts of the tasks' times: how far apart the fastest and slowest
//! task were in each repetition, every task's open, transfer and close
//! in one phase (from ior's task file), and a phase's rate over time with
//! each task's activity (from the JSON's `timeline`). A straggler sticks
//! out right; a stall is a gap.

use plotters::prelude::*;

use super::charts;
use super::charts::{
    colour, plot, row_name, rows_axis, short, svg, with_keys, Axis, Key, Mark, HALF,
};
use super::human;
use super::marks::Look;
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
            let look = Look::of(r.result);
            let c = look.colour;
            let top = (n - i) as f64;
            row_name(&mut chart, &short(&r.name, 70), x.lo, top)?;
            let k = r.spreads.len().max(1) as f64;
            // The repetitions stacked in the row's lower part.
            let at = |j: usize| top - 0.38 - 0.55 * (j as f64 + 0.5) / k;
            let lines = r.spreads.iter().enumerate().map(|(j, s)| {
                PathElement::new(vec![(s.0, at(j)), (s.2, at(j))], c.stroke_width(2))
            });
            chart.draw_series(lines).ok()?;
            let means = r.spreads.iter().enumerate().map(|(j, s)| (s.1, at(j)));
            charts::points(&mut chart, look, means, 3, c.filled())?;
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
            look: Look {
                colour: *c,
                ..Look::of(0)
            },
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

/// A phase's counts over time, as the chart takes them.
pub struct Over<'a> {
    pub title: String,
    /// The result's index (its look).
    pub result: usize,
    /// Seconds per bin.
    pub bin: f64,
    pub total: &'a [u64],
    pub tasks: &'a [Vec<u64>],
    /// One count in the figure's unit (ior: MiB per transfer).
    pub per_count: f64,
    /// The figure's unit (`MiB/s`, `ops/s`).
    pub unit: &'a str,
    /// The phase's length, seconds, where known (the last bin is cut
    /// there, not shown as a slowdown).
    pub end: Option<f64>,
}

/// What a chart over time shows beyond the rate: bins without progress
/// between the first and the last, and tasks that ended late (task,
/// seconds after the median task's end).
#[derive(Debug, Default, PartialEq)]
pub struct Found {
    pub stalls: usize,
    pub late: Vec<(usize, f64)>,
}

const STALL: RGBColor = RGBColor(250, 214, 214);
const LATE: RGBColor = RGBColor(140, 20, 20);

/// The runs of neighbouring bins that `keep`: (first, past the last).
fn runs(bins: &[u64], keep: impl Fn(u64) -> bool) -> Vec<(usize, usize)> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    for (i, _) in bins.iter().enumerate().filter(|(_, c)| keep(**c)) {
        match out.last_mut() {
            Some(run) if run.1 == i => run.1 = i + 1,
            _ => out.push((i, i + 1)),
        }
    }
    out
}

/// Where each bin's counts end: the last bin with a count, plus one.
fn used(bins: &[u64]) -> usize {
    bins.iter().rposition(|c| *c > 0).map_or(0, |i| i + 1)
}

impl Over<'_> {
    /// Bin `i`'s width: the last is cut at the phase's end.
    fn width(&self, i: usize) -> f64 {
        let start = i as f64 * self.bin;
        match self.end {
            Some(e) if e > start => (e - start).min(self.bin).max(self.bin * 0.05),
            _ => self.bin,
        }
    }

    /// The stalls and the late tasks.
    pub fn found(&self) -> Found {
        let (first, last) = (self.total.iter().position(|c| *c > 0), used(self.total));
        let stalls = first.map_or(0, |f| {
            self.total[f..last].iter().filter(|c| **c == 0).count()
        });
        let ends: Vec<f64> = self
            .tasks
            .iter()
            .map(|t| used(t) as f64 * self.bin)
            .collect();
        let mut sorted = ends.clone();
        sorted.sort_by(f64::total_cmp);
        let median = sorted
            .get(sorted.len().saturating_sub(1) / 2)
            .copied()
            .unwrap_or(0.0);
        let span = last as f64 * self.bin;
        let margin = (2.0 * self.bin).max(0.1 * span);
        let late = match ends.len() {
            0 | 1 => Vec::new(),
            _ => ends
                .iter()
                .enumerate()
                .filter(|(_, e)| **e - median > margin)
                .map(|(t, e)| (t, e - median))
                .collect(),
        };
        Found { stalls, late }
    }
}

/// The rows of the task panel: each task, or groups of neighbouring
/// ranks beyond 32 (a group's bins summed): (name, bins, late from).
fn task_rows(o: &Over<'_>, found: &Found) -> Vec<(String, Vec<u64>, Option<f64>)> {
    let n = o.tasks.len();
    let per = n.div_ceil(32).max(1);
    let median_end = {
        let mut e: Vec<usize> = o.tasks.iter().map(|t| used(t)).collect();
        e.sort_unstable();
        e.get(n.saturating_sub(1) / 2)
            .map_or(0.0, |u| *u as f64 * o.bin)
    };
    (0..n)
        .step_by(per)
        .map(|a| {
            let b = (a + per).min(n);
            let mut bins = vec![0u64; o.tasks[a..b].iter().map(Vec::len).max().unwrap_or(0)];
            for t in &o.tasks[a..b] {
                bins.iter_mut().zip(t).for_each(|(s, c)| *s += c);
            }
            let name = match b - a {
                1 => format!("task {a}"),
                _ => format!("tasks {a}–{}", b - 1),
            };
            let late = found.late.iter().any(|(t, _)| (a..b).contains(t));
            (name, bins, late.then_some(median_end))
        })
        .collect()
}

/// The phase's rate over time (all tasks, the result's line; bins
/// without progress shaded) over each task's activity (a bar where it
/// counted, dark past the median task's end when it ended late).
pub fn over_time(o: &Over<'_>) -> (String, Found) {
    let found = o.found();
    let last = used(o.total).max(1);
    let span = o.end.unwrap_or(0.0).max(last as f64 * o.bin).max(1e-9);
    let rates: Vec<f64> = (0..last)
        .map(|i| o.total[i] as f64 * o.per_count / o.width(i))
        .collect();
    let max = rates.iter().copied().fold(0.0, f64::max);
    let scale = human::scale_for(o.unit, max * 1.1);
    let y = Axis::values(max * 1.1, &scale, 5);
    let time = human::seconds(span);
    let x_axis = |desc: String| Axis {
        desc,
        ..Axis::values(span, &time, 6)
    };
    let x = x_axis(format!("{} from the phase's start", time.unit));
    let rows = task_rows(o, &found);
    let look = Look::of(o.result);
    let plain = |c: RGBColor| Look {
        colour: c,
        ..Look::of(0)
    };
    let keys = [
        Key::of("all tasks", o.result, Mark::Line),
        Key {
            name: "no progress".into(),
            look: plain(STALL),
            mark: Mark::Box,
        },
        Key::of("a task counting", o.result, Mark::Box),
        Key {
            name: "past the median task's end".into(),
            look: plain(LATE),
            mark: Mark::Box,
        },
    ];
    let row_px = (160 / rows.len().max(1) as u32).clamp(5, 18);
    let lower = 90 + row_px * rows.len() as u32;
    let svg = with_keys((HALF, 240 + lower), &keys, |root| {
        let (top, bottom) = root.split_vertically(240);
        let mut chart = plot(
            &top,
            &short(&o.title, 72),
            &x_axis(String::new()),
            &y,
            (64, 24),
        )?;
        // Stalls: bins without progress after the first with some.
        let first = o.total.iter().position(|c| *c > 0).unwrap_or(last);
        let stalls = runs(&o.total[..last], |c| c == 0).into_iter();
        let stalls = stalls.filter(|(a, _)| *a >= first).map(|(a, b)| {
            let (a, b) = (a as f64 * o.bin, (b - 1) as f64 * o.bin + o.width(b - 1));
            Rectangle::new([(a, 0.0), (b, y.hi)], STALL.filled())
        });
        chart.draw_series(stalls).ok()?;
        let steps = rates.iter().enumerate().flat_map(|(i, r)| {
            let a = i as f64 * o.bin;
            [(a, *r), (a + o.width(i), *r)]
        });
        charts::line(&mut chart, look, steps.collect(), 2)?;
        let names: Vec<String> = rows.iter().map(|r| r.0.clone()).collect();
        let every = rows.len().div_ceil(12).max(1);
        let ty = task_axis(names, move |i, name| match i % every {
            0 => name.to_string(),
            _ => String::new(),
        });
        let mut tasks = plot(&bottom, "", &x, &ty, (64, 40))?;
        let n = rows.len() as f64;
        for (k, (_, bins, late)) in rows.iter().enumerate() {
            let top = n - k as f64 - 0.15;
            // A bar per run of bins with a count, split where it runs late.
            let late_bin = late.map_or(usize::MAX, |m| (m / o.bin).round() as usize);
            let bars = runs(bins, |c| c > 0).into_iter().flat_map(|(a, b)| {
                let cut = late_bin.clamp(a, b);
                [(a, cut, look.colour), (cut, b, LATE)]
            });
            let bars = bars.filter(|(a, b, _)| a < b).map(|(a, b, c)| {
                let (x0, x1) = (a as f64 * o.bin, (b - 1) as f64 * o.bin + o.width(b - 1));
                Rectangle::new([(x0, top - 0.7), (x1, top)], c.filled())
            });
            tasks.draw_series(bars).ok()?;
        }
        Some(())
    });
    // Each task's row of bars as one path: most of the chart's text.
    (super::tidy::rows_as_paths(&svg), found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stalls_and_late_tasks_are_found_and_drawn() {
        let tasks = vec![vec![5, 5, 0, 5], vec![5, 5, 0, 5, 5, 5, 5, 5, 5, 5]];
        let total = vec![10, 10, 0, 10, 5, 5, 5, 5, 5, 5];
        let o = Over {
            title: "write over time".into(),
            result: 10,
            bin: 0.5,
            total: &total,
            tasks: &tasks,
            per_count: 1.0,
            unit: "MiB/s",
            end: Some(4.8),
        };
        let (svg, found) = over_time(&o);
        assert_eq!(found.stalls, 1);
        assert_eq!(found.late, [(1, 3.0)]);
        // The stall shaded, the late part dark, ticks in seconds.
        assert!(svg.contains("#FAD6D6") && svg.contains("#8C1414"), "{svg}");
        assert!(svg.contains("s from the phase"), "{svg}");
        assert!(svg.contains(">4<"), "{svg}");
        // The last bin is cut at the phase's end: 5 counts in 0.3 s.
        assert!((o.width(9) - 0.3).abs() < 1e-9);
    }
}
