//! The report's charts as inline SVG, drawn with plotters (its SVG backend
//! writes text as SVG text: no font files, nothing fetched).

use plotters::prelude::*;

/// The colours of the results, in order.
const COLOURS: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

pub fn colour(i: usize) -> RGBColor {
    COLOURS[i % COLOURS.len()]
}

/// One bar per repetition, the results side by side: `series` is (result,
/// values).
pub fn repetitions(title: &str, unit: &str, series: &[(String, Vec<f64>)]) -> String {
    let mut svg = String::new();
    let bars: usize = series.iter().map(|(_, v)| v.len()).sum::<usize>() + series.len();
    let top = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .fold(0.0, f64::max)
        .max(f64::MIN_POSITIVE)
        * 1.1;
    {
        let root = SVGBackend::with_string(&mut svg, (640, 280)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(24)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..bars.max(1) as f64, 0f64..top);
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let _ = chart
            .configure_mesh()
            .disable_x_mesh()
            .disable_x_axis()
            .y_desc(unit)
            .draw();
        let mut x = 0.0;
        for (i, (name, values)) in series.iter().enumerate() {
            let style = colour(i).filled();
            let rects = values.iter().enumerate().map(|(k, v)| {
                Rectangle::new([(x + k as f64 + 0.1, 0.0), (x + k as f64 + 0.9, *v)], style)
            });
            if let Ok(drawn) = chart.draw_series(rects) {
                drawn.label(name.as_str()).legend(move |(lx, ly)| {
                    Rectangle::new([(lx, ly - 5), (lx + 10, ly + 5)], style)
                });
            }
            x += values.len() as f64 + 1.0;
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

/// Latency percentile curves on a log axis: `curves` is (result, [(label,
/// seconds)]) with the same labels in the same order.
pub fn percentiles(title: &str, curves: &[(String, Vec<(String, f64)>)]) -> String {
    let mut svg = String::new();
    let values = curves.iter().flat_map(|(_, c)| c.iter().map(|(_, v)| *v));
    let (lo, hi) = values.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
    let (lo, hi) = (lo.max(1e-9) / 2.0, hi.max(1e-9) * 2.0);
    let labels: Vec<String> = curves
        .first()
        .map(|(_, c)| c.iter().map(|(l, _)| l.clone()).collect())
        .unwrap_or_default();
    {
        let root = SVGBackend::with_string(&mut svg, (640, 280)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(70)
            .build_cartesian_2d(0f64..(labels.len().max(2) - 1) as f64, (lo..hi).log_scale());
        let Ok(mut chart) = chart else {
            return String::new();
        };
        let names = labels.clone();
        let _ = chart
            .configure_mesh()
            .x_labels(labels.len())
            .x_label_formatter(&move |x| names.get(x.round() as usize).cloned().unwrap_or_default())
            .y_desc("seconds")
            .draw();
        for (i, (name, points)) in curves.iter().enumerate() {
            let colour = colour(i);
            let line = points.iter().enumerate().map(|(k, (_, v))| (k as f64, *v));
            if let Ok(drawn) = chart.draw_series(LineSeries::new(line, colour.stroke_width(2))) {
                drawn.label(name.as_str()).legend(move |(lx, ly)| {
                    PathElement::new(vec![(lx, ly), (lx + 12, ly)], colour)
                });
            }
            let marks = points
                .iter()
                .enumerate()
                .map(|(k, (_, v))| Circle::new((k as f64, *v), 3, colour.filled()));
            let _ = chart.draw_series(marks);
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
