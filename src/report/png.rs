//! Charts as PNG for papers and slides: the same SVG the page holds,
//! rendered by resvg (pure Rust) with the machine's fonts.

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg;

/// Renders SVG charts to PNG; holds the fonts, loaded once.
pub struct Renderer {
    options: usvg::Options<'static>,
}

/// The families tried for the charts' `sans-serif` text, in order.
const SANS: [&str; 3] = ["DejaVu Sans", "Liberation Sans", "Noto Sans"];

impl Renderer {
    /// Loads the system's fonts. Without any, the charts render without
    /// their text (said once by the caller from [`Renderer::has_fonts`]).
    pub fn new() -> Renderer {
        let mut options = usvg::Options::default();
        let db = options.fontdb_mut();
        db.load_system_fonts();
        let families: Vec<String> = db
            .faces()
            .flat_map(|f| f.families.iter().map(|(name, _)| name.clone()))
            .collect();
        let sans = SANS
            .iter()
            .find(|s| families.iter().any(|f| f == *s))
            .map(|s| s.to_string())
            .or_else(|| families.first().cloned());
        if let Some(sans) = sans {
            db.set_sans_serif_family(sans);
        }
        Renderer { options }
    }

    pub fn has_fonts(&self) -> bool {
        !self.options.fontdb.is_empty()
    }

    /// One chart as PNG bytes, at twice the SVG's size (sharp on slides).
    pub fn png(&self, svg: &str) -> Result<Vec<u8>, String> {
        let tree = usvg::Tree::from_str(svg, &self.options).map_err(|e| e.to_string())?;
        let size = tree
            .size()
            .to_int_size()
            .scale_by(2.0)
            .ok_or("empty chart")?;
        let mut pixmap = Pixmap::new(size.width(), size.height()).ok_or("empty chart")?;
        resvg::render(&tree, Transform::from_scale(2.0, 2.0), &mut pixmap.as_mut());
        pixmap.encode_png().map_err(|e| e.to_string())
    }
}

impl Default for Renderer {
    fn default() -> Self {
        Renderer::new()
    }
}
