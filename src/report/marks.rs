//! How a result looks in every chart: one of ten colours and, from the
//! eleventh result on, another marker shape and dash, so that no two of
//! the first forty results look alike (the 11th is not the 1st).

use plotters::prelude::*;

use super::charts::{Chart, PALETTE};

/// A point's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Circle,
    Square,
    Triangle,
    Diamond,
}

const SHAPES: [Shape; 4] = [
    Shape::Circle,
    Shape::Square,
    Shape::Triangle,
    Shape::Diamond,
];

/// A line's dashes, pixels on and off (none: solid).
const DASHES: [Option<(u32, u32)>; 4] = [None, Some((7, 4)), Some((2, 3)), Some((12, 3))];

/// Result `i`'s colour, shape and dash.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Look {
    pub colour: RGBColor,
    pub shape: Shape,
    pub dash: Option<(u32, u32)>,
}

impl Look {
    pub fn of(i: usize) -> Look {
        let tier = (i / PALETTE.len()) % SHAPES.len();
        Look {
            colour: PALETTE[i % PALETTE.len()],
            shape: SHAPES[tier],
            dash: DASHES[tier],
        }
    }

    /// Whether it is one of the first ten (a colour is enough).
    pub fn plain(&self) -> bool {
        self.shape == Shape::Circle
    }
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
            Shape::Circle => chart.draw_series([at + Circle::new((0, 0), s, style)]),
            Shape::Square => chart.draw_series([at + Rectangle::new([(-s, -s), (s, s)], style)]),
            Shape::Triangle => {
                let t = s + 1;
                let corners = vec![(0, -t), (t, t * 2 / 3), (-t, t * 2 / 3)];
                chart.draw_series([at + Polygon::new(corners, style)])
            }
            Shape::Diamond => {
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

/// The result's mark for a page's text: a small SVG of its shape in its
/// colour (`data-colour` names the colour).
pub fn swatch(i: usize) -> String {
    let look = Look::of(i);
    let RGBColor(r, g, b) = look.colour;
    let c = format!("#{r:02x}{g:02x}{b:02x}");
    let shape = match look.shape {
        Shape::Circle => "<circle cx=\"7\" cy=\"7\" r=\"6\"/>".to_string(),
        Shape::Square => "<rect x=\"1\" y=\"1\" width=\"12\" height=\"12\"/>".to_string(),
        Shape::Triangle => "<polygon points=\"7,0 14,13 0,13\"/>".to_string(),
        Shape::Diamond => "<polygon points=\"7,0 14,7 7,14 0,7\"/>".to_string(),
    };
    format!(
        "<svg class=\"swatch\" data-colour=\"{c}\" data-shape=\"{:?}\" width=\"14\" \
         height=\"14\" viewBox=\"0 0 14 14\" fill=\"{c}\" aria-hidden=\"true\">{shape}</svg>",
        look.shape
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forty_results_look_different() {
        let looks: Vec<Look> = (0..40).map(Look::of).collect();
        for (i, a) in looks.iter().enumerate() {
            for (j, b) in looks.iter().enumerate().skip(i + 1) {
                assert!(
                    a.colour != b.colour || (a.shape != b.shape && a.dash != b.dash),
                    "{i} and {j} look alike"
                );
            }
        }
        assert_ne!(Look::of(10), Look::of(0));
        assert!(Look::of(9).plain() && !Look::of(10).plain());
        assert!(swatch(10).contains("<rect") && swatch(0).contains("<circle"));
    }
}
