//! The report's charts as inline SVG, drawn with plotters (its SVG backend
//! writes text as SVG text: no font files, nothing fetched). Every chart is
//! drawn on linear axes whose ticks the report chooses (a log axis is the
//! logarithm on a linear one), so every tick is a round, formatted value.

use std::ops::Range;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::human::{self, Scale};
pub use super::marks::PALETTE;
use super::marks::{self, Look};

pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// `#4e79a7`.
pub fn hex(i: usize) -> String {
    let RGBColor(r, g, b) = colour(i);
    format!("#{r:02x}{g:02x}{b:02x}")
}

/// A chart half the page wide (two to a row), and one the page wide.
pub const HALF: u32 = 580;
pub const FULL: u32 = 1180;

pub const INK: RGBColor = RGBColor(51, 51, 51);
const GRID: RGBColor = RGBColor(225, 225, 225);
const AXIS: RGBColor = RGBColor(160, 160, 160);
const FONT: &str = "sans-serif";

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type Coord = Cartesian2d<Ticked, Ticked>;
pub type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Coord>;

/// One axis: its range, its ticks and how they read, and its name.
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub ticks: Vec<f64>,
    pub label: Box<dyn Fn(f64) -> String>,
    pub desc: String,
}

impl Axis {
    /// From zero to a round value above `max`, in `scale`'s unit.
    pub fn values(max: f64, scale: &Scale, count: usize) -> Axis {
        let top = human::axis_top(scale.of(max), count);
        let f = scale.factor;
        Axis {
            lo: 0.0,
            hi: top / f,
            ticks: human::ticks(0.0, top, count)
                .into_iter()
                .map(|t| t / f)
                .collect(),
            label: Box::new(move |v| human::number(v * f)),
            desc: scale.unit.clone(),
        }
    }

    /// Seconds on a log axis (the values are their logarithms).
    pub fn log_seconds(lo: f64, hi: f64) -> Axis {
        let (lo, hi) = (lo.max(1e-9), hi.max(lo.max(1e-9) * 10.0));
        Axis {
            lo: lo.log10(),
            hi: hi.log10(),
            ticks: human::log_ticks(lo, hi).iter().map(|t| t.log10()).collect(),
            label: Box::new(|v| human::duration(10f64.powf(v))),
            desc: "latency (log scale)".into(),
        }
    }

    fn coord(&self) -> Ticked {
        Ticked {
            lo: self.lo,
            hi: self.lo + (self.hi - self.lo).max(1e-12),
            ticks: self.ticks.clone(),
        }
    }
}

/// A linear axis with the ticks the report chose (its labels are the
/// axis's formatter's, not plotters' own).
pub struct Ticked {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for Ticked {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn range(&self) -> Range<f64> {
        self.lo..self.hi
    }

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let share = (v - self.lo) / (self.hi - self.lo);
        // A value far off the axis is drawn just off it, not at a pixel
        // an i32 cannot hold.
        let px = (share * f64::from(limit.1 - limit.0))
            .round()
            .clamp(-1e6, 1e6);
        limit.0 + px as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        match hint.weight().allow_light_points() {
            true => Vec::new(),
            false => self.ticks.clone(),
        }
    }
}

/// Text of `px` pixels (plotters' SVG writes a size in points at 1.24
/// pixels each).
fn text_style(px: u32) -> TextStyle<'static> {
    (FONT, f64::from(px) * 1.24).into_font().color(&INK)
}

/// Draws on a white SVG canvas of `size` (an empty string if plotters
/// fails, which it does only for an impossible range).
pub fn svg(size: (u32, u32), draw: impl FnOnce(&Area<'_>) -> Option<()>) -> String {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        let _ = root.fill(&WHITE);
        if draw(&root).is_none() {
            return String::new();
        }
        let _ = root.present();
    }
    super::tidy::tidy(&out)
}

/// A chart with its title and axes drawn: `left` and `bottom` are the
/// room for the tick labels.
pub fn plot<'a, 'b>(
    root: &'a Area<'b>,
    title: &str,
    x: &Axis,
    y: &Axis,
    (left, bottom): (u32, u32),
) -> Option<Chart<'a, 'b>> {
    let mut chart = ChartBuilder::on(root)
        .caption(
            title,
            (FONT, 15.0 * 1.24, FontStyle::Bold).into_font().color(&INK),
        )
        .margin(12)
        .margin_right(24)
        .x_label_area_size(bottom)
        .y_label_area_size(left)
        .build_cartesian_2d(x.coord(), y.coord())
        .ok()?;
    let (xl, yl) = (&x.label, &y.label);
    let xf = move |v: &f64| xl(*v);
    let yf = move |v: &f64| yl(*v);
    chart
        .configure_mesh()
        .bold_line_style(GRID)
        .light_line_style(WHITE)
        .axis_style(AXIS)
        .label_style(text_style(12))
        .axis_desc_style(text_style(12))
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .x_desc(x.desc.as_str())
        .y_desc(y.desc.as_str())
        .draw()
        .ok()?;
    Some(chart)
}

/// How a legend shows a series.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mark {
    Line,
    Dashed,
    Box,
}

/// A legend's entry.
pub struct Key {
    pub name: String,
    pub look: Look,
    pub mark: Mark,
}

impl Key {
    /// Result `i`'s entry.
    pub fn of(name: &str, i: usize, mark: Mark) -> Key {
        Key {
            name: name.to_string(),
            look: Look::of(i),
            mark,
        }
    }
}

const KEY_LINE: u32 = 20;

/// The legend's entries line by line across `width`.
fn key_lines(keys: &[Key], width: u32) -> Vec<Vec<usize>> {
    let mut lines: Vec<Vec<usize>> = Vec::new();
    let mut x = width;
    for (i, k) in keys.iter().enumerate() {
        let w = key_width(k);
        if x + w > width {
            lines.push(Vec::new());
            x = 0;
        }
        x += w;
        if let Some(l) = lines.last_mut() {
            l.push(i);
        }
    }
    lines
}

/// About 6.6 pixels a character of 12-pixel text, the mark and a gap.
fn key_width(k: &Key) -> u32 {
    40 + (k.name.chars().count() as f64 * 6.6) as u32
}

/// A chart of `size` with its legend under it (the canvas grows to hold
/// it): no entry covers the data.
pub fn with_keys(
    size: (u32, u32),
    keys: &[Key],
    draw: impl FnOnce(&Area<'_>) -> Option<()>,
) -> String {
    let lines = key_lines(keys, size.0 - 80);
    let extra = match lines.len() {
        0 => 0,
        n => n as u32 * KEY_LINE + 10,
    };
    svg((size.0, size.1 + extra), |root| {
        let (chart, below) = root.split_vertically(size.1);
        draw(&chart)?;
        for (row, line) in lines.iter().enumerate() {
            let y = (row as u32 * KEY_LINE + KEY_LINE / 2) as i32;
            let mut x = 70;
            for &i in line {
                let k = &keys[i];
                key_mark(&below, k, (x, y))?;
                let pos = Pos::new(HPos::Left, VPos::Center);
                below
                    .draw(&Text::new(
                        k.name.clone(),
                        (x + 28, y),
                        text_style(12).pos(pos),
                    ))
                    .ok()?;
                x += key_width(k) as i32;
            }
        }
        Some(())
    })
}

/// Draws `points` in `look`'s shape, `size` pixels from centre to edge.
pub fn points(
    chart: &mut Chart<'_, '_>,
    look: Look,
    points: impl IntoIterator<Item = (f64, f64)>,
    size: i32,
    style: ShapeStyle,
) -> Option<()> {
    let s = size;
    for p in points {
        let at = EmptyElement::at(p);
        let drawn = match look.shape {
            marks::Shape::Circle => chart.draw_series([at + Circle::new((0, 0), s, style)]),
            marks::Shape::Square => {
                chart.draw_series([at + Rectangle::new([(-s, -s), (s, s)], style)])
            }
            marks::Shape::Triangle => {
                let t = s + 1;
                let corners = vec![(0, -t), (t, t * 2 / 3), (-t, t * 2 / 3)];
                chart.draw_series([at + Polygon::new(corners, style)])
            }
            marks::Shape::Diamond => {
                let t = s + 1;
                let corners = vec![(0, -t), (t, 0), (0, t), (-t, 0)];
                chart.draw_series([at + Polygon::new(corners, style)])
            }
        };
        drawn.ok()?;
    }
    Some(())
}

/// A line through `points` in `look`'s dash.
pub fn line(
    chart: &mut Chart<'_, '_>,
    look: Look,
    points: Vec<(f64, f64)>,
    width: u32,
) -> Option<()> {
    let style = look.colour.stroke_width(width);
    match look.dash {
        None => chart.draw_series(LineSeries::new(points, style)).ok()?,
        Some((on, off)) => chart
            .draw_series(DashedLineSeries::new(points, on, off, style))
            .ok()?,
    };
    Some(())
}

/// A legend entry's mark at `(x, y)` (its left end, its middle).
fn key_mark(below: &Area<'_>, k: &Key, (x, y): (i32, i32)) -> Option<()> {
    let (c, look) = (k.look.colour, k.look);
    match k.mark {
        Mark::Line => match look.dash {
            None => below
                .draw(&PathElement::new(
                    vec![(x, y), (x + 22, y)],
                    c.stroke_width(2),
                ))
                .ok()?,
            Some((on, off)) => {
                let mut d = 0;
                while d < 22 {
                    let end = (d + on as i32).min(22);
                    let dash = PathElement::new(vec![(x + d, y), (x + end, y)], c.stroke_width(2));
                    below.draw(&dash).ok()?;
                    d += (on + off) as i32;
                }
            }
        },
        Mark::Dashed => {
            for d in [0, 9, 18] {
                let dash = PathElement::new(vec![(x + d, y), (x + d + 5, y)], c.stroke_width(1));
                below.draw(&dash).ok()?;
            }
        }
        Mark::Box => {
            let corners = [(x + 5, y - 6), (x + 17, y + 6)];
            below.draw(&Rectangle::new(corners, bar_fill(look))).ok()?;
            if !look.plain() {
                below
                    .draw(&Rectangle::new(corners, c.stroke_width(2)))
                    .ok()?;
            }
        }
    }
    if !look.plain() && k.mark != Mark::Dashed {
        let style = match k.mark {
            Mark::Box => WHITE.filled(),
            _ => c.filled(),
        };
        area_marker(below, look, (x + 11, y), style)?;
    }
    Some(())
}

/// A marker in `look`'s shape centred at `(x, y)` of an area.
fn area_marker(area: &Area<'_>, look: Look, (x, y): (i32, i32), style: ShapeStyle) -> Option<()> {
    let s = 4;
    let t = s + 1;
    let drawn = match look.shape {
        marks::Shape::Circle => area.draw(&Circle::new((x, y), s, style)),
        marks::Shape::Square => area.draw(&Rectangle::new([(x - s, y - s), (x + s, y + s)], style)),
        marks::Shape::Triangle => {
            let corners = vec![(x, y - t), (x + t, y + t * 2 / 3), (x - t, y + t * 2 / 3)];
            area.draw(&Polygon::new(corners, style))
        }
        marks::Shape::Diamond => {
            let corners = vec![(x, y - t), (x + t, y), (x, y + t), (x - t, y)];
            area.draw(&Polygon::new(corners, style))
        }
    };
    drawn.ok()
}

/// A bar's fill: solid for the first ten results, lighter (and outlined,
/// with the result's marker) beyond.
pub fn bar_fill(look: Look) -> ShapeStyle {
    match look.plain() {
        true => look.colour.filled(),
        false => look.colour.mix(0.35).filled(),
    }
}

/// A result's repetitions of one figure, one row of a dot chart.
pub struct Row {
    pub name: String,
    /// The result's index (its colour).
    pub result: usize,
    pub values: Vec<f64>,
}

/// A row's height: roomy for a few rows, tighter for many.
fn row_height(rows: usize) -> u32 {
    match rows {
        0..=8 => 44,
        9..=20 => 36,
        _ => 30,
    }
}

/// A chart of rows, the first on top, each named above its marks: the
/// y axis (row `i` spans `n - i - 1` to `n - i`) and the canvas height.
pub fn rows_axis(n: usize) -> (Axis, u32) {
    let axis = Axis {
        lo: 0.0,
        hi: n.max(1) as f64,
        ticks: Vec::new(),
        label: Box::new(|_| String::new()),
        desc: String::new(),
    };
    (axis, 86 + row_height(n) * n as u32)
}

/// The name of the row whose top is at `top`, over its marks at the left.
pub fn row_name(chart: &mut Chart<'_, '_>, name: &str, lo: f64, top: f64) -> Option<()> {
    let pos = Pos::new(HPos::Left, VPos::Top);
    let text =
        EmptyElement::at((lo, top)) + Text::new(name.to_string(), (4, 2), text_style(12).pos(pos));
    chart.draw_series([text]).ok()?;
    Some(())
}

/// One row per result: each repetition a point, the range from the
/// slowest to the fastest a line, the median a tick with its value
/// written beside it. `limit` is a dashed mark (a threshold).
pub fn dots(
    title: &str,
    scale: &Scale,
    rows: &[Row],
    limit: Option<(f64, &str)>,
    width: u32,
) -> String {
    let n = rows.len();
    let max = rows
        .iter()
        .flat_map(|r| r.values.iter().copied())
        .chain(limit.map(|l| l.0))
        .fold(0.0, f64::max);
    let x = match scale.unit.as_str() {
        // A share: 0 to 100 %, and room for the values' text.
        "%" => Axis {
            lo: 0.0,
            hi: 118.0,
            ticks: vec![0.0, 25.0, 50.0, 75.0, 100.0],
            label: Box::new(human::number),
            desc: "%".into(),
        },
        _ => Axis::values(max * 1.2, scale, 6),
    };
    let (y, height) = rows_axis(n);
    svg((width, height), |root| {
        let mut chart = plot(root, title, &x, &y, (16, 44))?;
        for (i, row) in rows.iter().enumerate() {
            let top = (n - i) as f64;
            row_name(&mut chart, &short(&row.name, 70), x.lo, top)?;
            draw_row(&mut chart, row, top - 0.62, scale)?;
        }
        if let Some((at, what)) = limit {
            let style = AXIS.stroke_width(1);
            chart
                .draw_series(DashedLineSeries::new(
                    [(at, 0.0), (at, n as f64)],
                    5,
                    4,
                    style,
                ))
                .ok()?;
            let pos = Pos::new(HPos::Left, VPos::Bottom);
            let note = EmptyElement::at((at, 0.0))
                + Text::new(what.to_string(), (4, -3), text_style(11).pos(pos));
            chart.draw_series([note]).ok()?;
        }
        Some(())
    })
}

fn draw_row(chart: &mut Chart<'_, '_>, row: &Row, y: f64, scale: &Scale) -> Option<()> {
    let look = Look::of(row.result);
    let c = look.colour;
    let v = &row.values;
    if v.is_empty() {
        return Some(());
    }
    let (lo, hi) = v
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), x| {
            (l.min(*x), h.max(*x))
        });
    let median = crate::stats::median(v);
    let range = PathElement::new(vec![(lo, y), (hi, y)], c.mix(0.6).stroke_width(2));
    let tick = PathElement::new(
        vec![(median, y - 0.25), (median, y + 0.25)],
        c.stroke_width(3),
    );
    chart.draw_series([range, tick]).ok()?;
    // A little vertical jitter, so that equal values stay visible.
    let jittered = v.iter().enumerate().map(|(k, x)| {
        let dy = ((k % 5) as f64 - 2.0) * 0.05;
        (*x, y + dy)
    });
    points(chart, look, jittered, 4, c.mix(0.75).filled())?;
    let pos = Pos::new(HPos::Left, VPos::Center);
    let text =
        EmptyElement::at((hi, y)) + Text::new(scale.text(median), (10, 0), text_style(12).pos(pos));
    chart.draw_series([text]).ok()?;
    Some(())
}

/// A name cut to `max` characters.
pub fn short(name: &str, max: usize) -> String {
    match name.chars().count() > max {
        true => name.chars().take(max - 1).chain(['…']).collect(),
        false => name.to_string(),
    }
}

/// The x of a fraction on the "nines" axis: 0.9 at 1, 0.99 at 2, ...
/// (the last operations, up to 1 in 100,000, at 5).
fn nines(fraction: f64) -> f64 {
    -(1.0 - fraction).max(1e-5).log10()
}

fn nines_label(x: f64) -> String {
    match x.round() as i32 {
        0 => "0 %".into(),
        5 => "max".into(),
        n => format!(
            "{:.*} %",
            (n - 2).max(0) as usize,
            100.0 - 100.0 * 10f64.powi(-n)
        ),
    }
}

/// A named curve in a result's colour.
pub struct Curve {
    pub name: String,
    pub result: usize,
    pub points: Vec<(f64, f64)>,
}

/// Latency percentile curves, seconds on a log axis against the share of
/// operations on a "nines" axis (50 %, 90 %, 99 %, ... max).
pub fn percentiles(title: &str, curves: &[Curve]) -> String {
    let values = curves.iter().flat_map(|c| c.points.iter().map(|(_, v)| *v));
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let y = Axis::log_seconds(lo.max(1e-9) / 1.5, hi.max(1e-9) * 1.5);
    let x = Axis {
        lo: 0.0,
        hi: 5.0,
        ticks: vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0],
        label: Box::new(nines_label),
        desc: "operations at or below".into(),
    };
    let keys: Vec<Key> = curves
        .iter()
        .map(|c| Key::of(&c.name, c.result, Mark::Line))
        .collect();
    with_keys((HALF, 290), &keys, |root| {
        let mut chart = plot(root, title, &x, &y, (64, 40))?;
        for curve in curves {
            let look = Look::of(curve.result);
            let at = |(f, v): &(f64, f64)| (nines(*f), v.max(1e-9).log10());
            line(&mut chart, look, curve.points.iter().map(at).collect(), 2)?;
            // A few marks on a long curve (a histogram's) beyond ten results.
            let every = match curve.points.len() {
                0..=10 => 1,
                n if !look.plain() => n.div_ceil(6),
                _ => continue,
            };
            let marked = curve.points.iter().step_by(every).map(at);
            points(&mut chart, look, marked, 3, look.colour.filled())?;
        }
        Some(())
    })
}

/// Room for category names: about 7 pixels a character, within limits.
fn name_room(names: impl Iterator<Item = usize>) -> u32 {
    let longest = names.max().unwrap_or(4) as u32;
    (longest * 7 + 16).clamp(60, 230)
}

/// Horizontal bars, one group per category and one bar per result in it
/// (io500's phases): `series` is (result, name, value per category).
pub fn grouped(
    title: &str,
    scale: &Scale,
    categories: &[String],
    series: &[(usize, String, Vec<f64>)],
) -> String {
    let n = series.len().max(1) as f64;
    let count = categories.len();
    let max = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .fold(0.0, f64::max);
    let x = Axis::values(max, scale, 8);
    let names = categories.to_vec();
    // Group k is centred at count - k - 0.5: the first on top.
    let y = Axis {
        lo: 0.0,
        hi: count.max(1) as f64,
        ticks: (0..count).map(|k| count as f64 - k as f64 - 0.5).collect(),
        label: Box::new(move |v| {
            let k = (count as f64 - v - 0.5).round() as usize;
            names.get(k).cloned().unwrap_or_default()
        }),
        desc: String::new(),
    };
    let left = name_room(categories.iter().map(|c| c.chars().count()));
    let height = (90 + count as u32 * (12 + 16 * n as u32)).clamp(200, 1400);
    let keys: Vec<Key> = series
        .iter()
        .map(|(result, name, _)| Key::of(name, *result, Mark::Box))
        .collect();
    with_keys((FULL, height), &keys, |root| {
        let mut chart = plot(root, title, &x, &y, (left, 34))?;
        for (i, (result, _, values)) in series.iter().enumerate() {
            let look = Look::of(*result);
            let place = |k: usize, v: &f64| {
                let top = (count - k) as f64 - 0.1 - 0.8 * i as f64 / n;
                [(0.0, top - 0.8 / n), (*v, top)]
            };
            let bars = values.iter().enumerate().map(|(k, v)| place(k, v));
            let style = bar_fill(look);
            chart
                .draw_series(bars.clone().map(|b| Rectangle::new(b, style)))
                .ok()?;
            if !look.plain() {
                let edge = look.colour.stroke_width(2);
                chart
                    .draw_series(bars.clone().map(|b| Rectangle::new(b, edge)))
                    .ok()?;
                let ends = bars.map(|[(_, lo), (v, hi)]| (v, (lo + hi) / 2.0));
                points(&mut chart, look, ends, 4, look.colour.filled())?;
            }
        }
        Some(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_charts_draw_every_repetition_and_name_every_row() {
        let rows = [
            Row {
                name: "a".into(),
                result: 0,
                values: vec![1000.0, 1100.0, 1050.0],
            },
            Row {
                name: "b".into(),
                result: 1,
                values: vec![2000.0],
            },
        ];
        let scale = human::scale_for("MiB/s", 2000.0);
        let s = dots("write", &scale, &rows, None, HALF);
        assert_eq!(s.matches("<circle").count(), 4);
        assert!(s.contains(">a</text>") && s.contains(">b</text>"), "{s}");
        assert!(s.contains("1.03 GiB/s") && s.contains("1.95 GiB/s"), "{s}");
        assert!(!s.contains(".0<"), "a tick with a .0 tail: {s}");
    }
}
