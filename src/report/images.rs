//! `--images DIR`: each chart as an SVG file and a PNG, for papers and
//! slides. The PNG is the same SVG rendered by resvg (so the picture is the
//! page's, drawn once); its text needs a font, found among the system's
//! (fontconfig's directories) as resvg's font database does.

use resvg::{tiny_skia, usvg};

/// PNGs are drawn at twice the SVG's size, sharp enough for slides.
const SCALE: f32 = 2.0;

/// The file name of chart `i` (from 1): `NN-<title in lower case>`.
pub fn stem(i: usize, title: &str) -> String {
    let slug: String = title
        .chars()
        .map(|c| match c.is_ascii_alphanumeric() {
            true => c.to_ascii_lowercase(),
            false => '-',
        })
        .collect();
    let mut slug = slug.trim_matches('-').to_string();
    while slug.contains("--") {
        slug = slug.replace("--", "-");
    }
    format!("{i:02}-{slug}")
}

/// Writes each chart as `NN-<title>.svg` and `.png` in `dir` (made if
/// needed); the PNGs need a font.
pub fn write(dir: &str, charts: &[(String, String)]) -> Result<(), String> {
    let options = options()?;
    std::fs::create_dir_all(dir).map_err(|e| format!("{dir}: {e}"))?;
    for (i, (title, svg)) in charts.iter().enumerate() {
        let path = format!("{dir}/{}", stem(i + 1, title));
        std::fs::write(format!("{path}.svg"), svg).map_err(|e| format!("{path}.svg: {e}"))?;
        let png = png(svg, &options).map_err(|e| format!("{path}.png: {e}"))?;
        std::fs::write(format!("{path}.png"), png).map_err(|e| format!("{path}.png: {e}"))?;
    }
    Ok(())
}

/// resvg's options with the system's fonts, sans-serif mapped to one that
/// exists.
fn options() -> Result<usvg::Options<'static>, String> {
    let mut options = usvg::Options::default();
    let db = options.fontdb_mut();
    db.load_system_fonts();
    let sans = [
        "DejaVu Sans",
        "Liberation Sans",
        "FreeSans",
        "Noto Sans",
        "Arial",
    ];
    let family = sans
        .iter()
        .find(|f| {
            db.faces()
                .any(|face| face.families.iter().any(|(n, _)| n == *f))
        })
        .map(|f| f.to_string())
        .or_else(|| {
            db.faces()
                .next()
                .and_then(|f| f.families.first())
                .map(|(n, _)| n.clone())
        });
    let Some(family) = family else {
        return Err("--images: the PNGs' text needs a font and none was found \
                    (install one, e.g. Debian's fonts-dejavu-core)"
            .into());
    };
    db.set_sans_serif_family(family);
    Ok(options)
}

fn png(svg: &str, options: &usvg::Options<'_>) -> Result<Vec<u8>, String> {
    let tree = usvg::Tree::from_str(svg, options).map_err(|e| e.to_string())?;
    let size = tree
        .size()
        .to_int_size()
        .scale_by(SCALE)
        .ok_or("empty chart")?;
    let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height()).ok_or("empty chart")?;
    let transform = tiny_skia::Transform::from_scale(SCALE, SCALE);
    resvg::render(&tree, transform, &mut pixmap.as_mut());
    pixmap.encode_png().map_err(|e| e.to_string())
}
