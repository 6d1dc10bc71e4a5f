//! The report's charts as inline SVG, drawn with plotters (its SVG backend
//! writes text as SVG text: no font files, nothing fetched).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::model::{Curve, Spread};
use super::sidefiles::TaskRow;

/// The colours of the results, in order.
const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

/// Above this many repetitions a series is drawn as a line, not bars:
/// a thousand bars are narrower than a pixel and weigh a megabyte.
pub const MAX_BARS: usize = 100;

const SIZE: (u32, u32) = (640, 280);

pub fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// Draws on a white SVG canvas of `size` (an empty string if plotters
/// fails, which it does only for an impossible range).
fn svg(size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Option<()>) -> String {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        let _ = root.fill(&WHITE);
        if draw(&root).is_none() {
            return String::new();
        }
        let _ = root.present();
    }
    out
}

fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(chart: &mut ChartContext<'a, DB, CT>) {
    let _ = chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw();
}

fn top(values: impl Iterator<Item = f64>) -> f64 {
    values.fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.1
}

/// One bar per repetition, the results side by side: `series` is (result,
/// values); a line instead of bars above [`MAX_BARS`]; `limit` draws a
/// dashed threshold.
pub fn repetitions(
    title: &str,
    unit: &str,
    series: &[(String, Vec<f64>)],
    limit: Option<f64>,
) -> String {
    let slots: usize = series.iter().map(|(_, v)| v.len()).sum::<usize>() + series.len();
    let hi = top(series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .chain(limit));
    svg(SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(24)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..slots.max(1) as f64, 0f64..hi)
            .ok()?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .y_desc(unit)
            .draw()
            .ok()?;
        let mut x = 0.0;
        for (i, (name, values)) in series.iter().enumerate() {
            let style = colour(i).filled();
            let drawn = if values.len() > MAX_BARS {
                let line = values
                    .iter()
                    .enumerate()
                    .map(|(k, v)| (x + k as f64 + 0.5, *v));
                chart.draw_series(LineSeries::new(line, style.stroke_width(1)))
            } else {
                let bar = |(k, v): (usize, &f64)| {
                    Rectangle::new([(x + k as f64 + 0.1, 0.0), (x + k as f64 + 0.9, *v)], style)
                };
                chart.draw_series(values.iter().enumerate().map(bar))
            };
            drawn
                .ok()?
                .label(name.as_str())
                .legend(move |(lx, ly)| Rectangle::new([(lx, ly - 5), (lx + 10, ly + 5)], style));
            x += values.len() as f64 + 1.0;
        }
        if let Some(l) = limit {
            let dash = DashedLineSeries::new([(0.0, l), (x, l)], 6, 4, BLACK.stroke_width(1));
            chart.draw_series(dash).ok()?;
        }
        legend(&mut chart);
        Some(())
    })
}

/// The x of a fraction on the "nines" axis: 0.9 at 1, 0.99 at 2, ...
/// (the last operations, up to 1 in 100,000, at 5).
fn nines(fraction: f64) -> f64 {
    -(1.0 - fraction).max(1e-5).log10()
}

fn nines_label(x: &f64) -> String {
    match x.round() as i32 {
        0 => "0 %".into(),
        5 => "max".into(),
        n => format!("{} %", 100.0 - 100.0 * 10f64.powi(-n)),
    }
}

/// Seconds in the unit that suits them, three figures at most.
fn seconds_label(v: &f64) -> String {
    let (scaled, unit) = match *v {
        v if v >= 1.0 => (v, "s"),
        v if v >= 1e-3 => (v * 1e3, "ms"),
        v if v >= 1e-6 => (v * 1e6, "µs"),
        v => (v * 1e9, "ns"),
    };
    let text = format!("{scaled:.2}");
    let text = text.trim_end_matches('0').trim_end_matches('.');
    format!("{text} {unit}")
}

/// Latency percentile curves, seconds on a log axis against the share of
/// operations on a "nines" axis (50 %, 90 %, 99 %, ... max).
pub fn percentiles(title: &str, curves: &[(String, Curve)]) -> String {
    let values = curves.iter().flat_map(|(_, c)| c.iter().map(|(_, v)| *v));
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let (lo, hi) = (lo.max(1e-9) / 2.0, hi.max(1e-9) * 2.0);
    svg(SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..5f64, (lo..hi).log_scale())
            .ok()?;
        chart
            .configure_mesh()
            .x_labels(6)
            .x_label_formatter(&nines_label)
            .x_desc("operations at or below")
            .y_label_formatter(&seconds_label)
            .y_desc("latency")
            .draw()
            .ok()?;
        for (i, (name, points)) in curves.iter().enumerate() {
            let colour = colour(i);
            let line = points.iter().map(|(f, v)| (nines(*f), *v));
            chart
                .draw_series(LineSeries::new(line, colour.stroke_width(2)))
                .ok()?
                .label(name.as_str())
                .legend(move |(lx, ly)| PathElement::new(vec![(lx, ly), (lx + 12, ly)], colour));
            if points.len() <= 10 {
                let marks = points
                    .iter()
                    .map(|(f, v)| Circle::new((nines(*f), *v), 3, colour.filled()));
                chart.draw_series(marks).ok()?;
            }
        }
        legend(&mut chart);
        Some(())
    })
}

/// Per repetition, the fastest and slowest task's open-to-close time and
/// their mean: a bar from fastest to slowest with the mean marked (three
/// lines above [`MAX_BARS`]). A long bar is a straggler.
pub fn spread(title: &str, series: &[(String, Vec<Spread>)]) -> String {
    let slots: usize = series.iter().map(|(_, v)| v.len()).sum::<usize>() + series.len();
    let hi = top(series.iter().flat_map(|(_, v)| v.iter().map(|s| s.2)));
    svg(SIZE, |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(24)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..slots.max(1) as f64, 0f64..hi)
            .ok()?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .y_desc("seconds, open to close")
            .draw()
            .ok()?;
        let mut x = 0.0;
        for (i, (name, spreads)) in series.iter().enumerate() {
            let c = colour(i);
            let at = |k: usize| x + k as f64 + 0.5;
            let drawn = if spreads.len() > MAX_BARS {
                for pick in [|s: &Spread| s.0, |s: &Spread| s.1] {
                    let line = spreads.iter().enumerate().map(|(k, s)| (at(k), pick(s)));
                    chart.draw_series(LineSeries::new(line, c.mix(0.5))).ok()?;
                }
                let slowest = spreads.iter().enumerate().map(|(k, s)| (at(k), s.2));
                chart.draw_series(LineSeries::new(slowest, c.stroke_width(1)))
            } else {
                let bars = spreads
                    .iter()
                    .enumerate()
                    .map(|(k, s)| ErrorBar::new_vertical(at(k), s.0, s.1, s.2, c.filled(), 8));
                chart.draw_series(bars)
            };
            drawn.ok()?.label(name.as_str()).legend(move |(lx, ly)| {
                PathElement::new(vec![(lx + 5, ly - 6), (lx + 5, ly + 6)], c.stroke_width(2))
            });
            x += spreads.len() as f64 + 1.0;
        }
        legend(&mut chart);
        Some(())
    })
}

/// A task's open, transfer or close: (start, end).
type Part = fn(&TaskRow) -> (f64, f64);

/// Every task's open, transfer and close in one phase, one row per task,
/// seconds from the phase's first open: the stragglers stick out right.
pub fn tasks(title: &str, rows: &[&TaskRow]) -> String {
    let start = rows.iter().map(|t| t.open.0).fold(f64::INFINITY, f64::min);
    let end = rows.iter().map(|t| t.close.1).fold(start, f64::max);
    let span = (end - start).max(1e-9) * 1.05;
    let height = (80 + 14 * rows.len() as u32).clamp(200, 1200);
    svg((SIZE.0, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(50)
            .build_cartesian_2d(0f64..span, 0f64..rows.len().max(1) as f64)
            .ok()?;
        let ranks: Vec<u64> = rows.iter().map(|t| t.rank).collect();
        // Labels at the rows' centres.
        let rank_label = move |y: &f64| {
            let centre = y - 0.5;
            match (
                centre.fract().abs() < 1e-9,
                ranks.get(centre.max(0.0) as usize),
            ) {
                (true, Some(r)) => format!("task {r}"),
                _ => String::new(),
            }
        };
        let labels = match rows.len() {
            n if n <= 30 => 2 * n + 1,
            _ => 0,
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(labels)
            .y_label_formatter(&rank_label)
            .x_desc("seconds from the first open")
            .draw()
            .ok()?;
        let parts: [(&str, RGBColor, Part); 3] = [
            ("open", colour(1), |t| t.open),
            ("transfer", colour(0), |t| t.xfer),
            ("close", colour(3), |t| t.close),
        ];
        for (name, c, part) in parts {
            let bars = rows.iter().enumerate().map(|(i, t)| {
                let (a, b) = part(t);
                let y = i as f64;
                Rectangle::new([(a - start, y + 0.15), (b - start, y + 0.85)], c.filled())
            });
            chart
                .draw_series(bars)
                .ok()?
                .label(name)
                .legend(move |(lx, ly)| {
                    Rectangle::new([(lx, ly - 5), (lx + 10, ly + 5)], c.filled())
                });
        }
        legend(&mut chart);
        Some(())
    })
}

/// Horizontal bars, one group per category and one bar per result in it
/// (io500's phases): `series` is (result, value per category).
pub fn grouped(
    title: &str,
    unit: &str,
    categories: &[String],
    series: &[(String, Vec<f64>)],
) -> String {
    let n = series.len().max(1) as f64;
    let hi = top(series.iter().flat_map(|(_, v)| v.iter().copied()));
    let height = (80 + categories.len() as u32 * (10 + 12 * n as u32)).clamp(200, 1200);
    svg((SIZE.0, height), |root| {
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(150)
            .build_cartesian_2d(0f64..hi, 0f64..categories.len().max(1) as f64)
            .ok()?;
        let names = categories.to_vec();
        let count = categories.len();
        // Labels at the groups' centres; the first category on top.
        let label = move |y: &f64| {
            let centre = y - 0.5;
            let row = centre.max(0.0) as usize;
            match (
                centre.fract().abs() < 1e-9 && row < count,
                count.saturating_sub(row + 1),
            ) {
                (true, k) => names.get(k).cloned().unwrap_or_default(),
                _ => String::new(),
            }
        };
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(count * 2 + 1)
            .y_label_formatter(&label)
            .x_desc(unit)
            .draw()
            .ok()?;
        for (i, (name, values)) in series.iter().enumerate() {
            let style = colour(i).filled();
            let bars = values.iter().enumerate().map(|(k, v)| {
                let y = (count - 1 - k) as f64 + 0.1 + 0.8 * i as f64 / n;
                Rectangle::new([(0.0, y), (*v, y + 0.8 / n)], style)
            });
            chart
                .draw_series(bars)
                .ok()?
                .label(name.as_str())
                .legend(move |(lx, ly)| Rectangle::new([(lx, ly - 5), (lx + 10, ly + 5)], style));
        }
        legend(&mut chart);
        Some(())
    })
}
