//! How a result looks in every chart: one of ten colours and, from the
//! eleventh result on, another marker shape and dash, so that no two of
//! the first forty results look alike (the 11th is not the 1st).

use plotters::prelude::*;

/// The results' colours, in order (Tableau 10: told apart by most eyes,
/// also in grey print).
pub const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(89, 161, 79),
    RGBColor(225, 87, 89),
    RGBColor(176, 122, 161),
    RGBColor(156, 117, 95),
    RGBColor(118, 183, 178),
    RGBColor(237, 201, 72),
    RGBColor(255, 157, 167),
    RGBColor(186, 176, 172),
];

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
