//! The SVG plotters writes, without what SVG says by default: every
//! element's `opacity="1"`, `stroke="none"` and `stroke-width="1"`, the
//! font family and the common font size (said once, on the root, which
//! the texts inherit), and the line breaks around a text's words. A chart
//! over time draws a bar per run of a task's bins; those attributes were a
//! third of a report of 50 results with their time series. The picture is
//! the same, in a browser and in resvg (`--images`).

/// The font size most texts have (`text_style(12)`), said on the root.
const SIZE: &str = " font-size=\"12\"";
const FAMILY: &str = " font-family=\"sans-serif\"";

/// `svg` (as plotters writes it: an element a line, a text's words on a
/// line of their own) without its defaults.
pub fn tidy(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len() / 2);
    for line in svg.lines() {
        if line == "</text>" {
            // The words' line break, and the one before them.
            if out.ends_with('\n') {
                out.pop();
            }
            out.push_str("</text>\n");
            continue;
        }
        let mut l = line
            .replace(" opacity=\"1\"", "")
            .replace(" stroke=\"none\"", "")
            .replace(" stroke-width=\"1\"", "");
        if let Some(open) = l.strip_prefix("<svg ").and_then(|o| o.strip_suffix('>')) {
            l = format!("<svg {open}{FAMILY}{SIZE}>");
        } else if l.starts_with("<text ") {
            l = l.replace(FAMILY, "").replace(SIZE, "");
        }
        out.push_str(&l);
        // A text's opening tag runs on into its words.
        if !(l.starts_with("<text ") && l.ends_with('>') && !l.ends_with("/>")) {
            out.push('\n');
        }
    }
    out
}

/// A rectangle as `tidy` leaves it: (x, y, width, height, fill).
fn rect(line: &str) -> Option<(&str, &str, &str, &str, &str)> {
    let rest = line.strip_prefix("<rect x=\"")?.strip_suffix("\"/>")?;
    let (x, rest) = rest.split_once("\" y=\"")?;
    let (y, rest) = rest.split_once("\" width=\"")?;
    let (w, rest) = rest.split_once("\" height=\"")?;
    let (h, fill) = rest.split_once("\" fill=\"")?;
    Some((x, y, w, h, fill))
}

/// Neighbouring rectangles of one row (the same top, height and colour:
/// a task's bars over time) as one path, a fifth of their text.
pub fn rows_as_paths(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    let mut row: Option<(&str, &str, &str)> = None;
    let mut d = String::new();
    let flush = |out: &mut String, row: &Option<(&str, &str, &str)>, d: &mut String| {
        if let Some((_, _, fill)) = row {
            out.push_str(&format!("<path fill=\"{fill}\" d=\"{d}\"/>\n"));
        }
        d.clear();
    };
    for line in svg.lines() {
        match rect(line) {
            Some((x, y, w, h, fill)) => {
                if row != Some((y, h, fill)) {
                    flush(&mut out, &row, &mut d);
                    row = Some((y, h, fill));
                }
                d.push_str(&format!("M{x} {y}h{w}v{h}h-{w}z"));
            }
            None => {
                flush(&mut out, &row, &mut d);
                row = None;
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    flush(&mut out, &row, &mut d);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rows_bars_are_one_path() {
        let svg = "<svg>\n\
                   <rect x=\"76\" y=\"398\" width=\"12\" height=\"7\" fill=\"#4E79A7\"/>\n\
                   <rect x=\"101\" y=\"398\" width=\"25\" height=\"7\" fill=\"#4E79A7\"/>\n\
                   <rect x=\"130\" y=\"398\" width=\"5\" height=\"7\" fill=\"#8C1414\"/>\n\
                   <rect x=\"76\" y=\"408\" width=\"12\" height=\"7\" fill=\"#4E79A7\"/>\n\
                   </svg>\n";
        assert_eq!(
            rows_as_paths(svg),
            "<svg>\n\
             <path fill=\"#4E79A7\" d=\"M76 398h12v7h-12zM101 398h25v7h-25z\"/>\n\
             <path fill=\"#8C1414\" d=\"M130 398h5v7h-5z\"/>\n\
             <path fill=\"#4E79A7\" d=\"M76 408h12v7h-12z\"/>\n\
             </svg>\n"
        );
    }

    #[test]
    fn defaults_go_and_texts_keep_their_words() {
        let svg = "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\">\n\
                   <rect x=\"0\" y=\"0\" width=\"1\" height=\"7\" opacity=\"1\" fill=\"#4E79A7\" stroke=\"none\"/>\n\
                   <polyline fill=\"none\" opacity=\"1\" stroke=\"#A0A0A0\" stroke-width=\"1\" points=\"1,2 3,4 \"/>\n\
                   <polyline fill=\"none\" opacity=\"0.5\" stroke=\"#A0A0A0\" stroke-width=\"12\" points=\"1,2 \"/>\n\
                   <text x=\"1\" y=\"2\" font-family=\"sans-serif\" font-size=\"12\" opacity=\"1\" fill=\"#333333\">\n4 KiB\n</text>\n\
                   <text x=\"1\" y=\"2\" font-family=\"sans-serif\" font-size=\"15\" fill=\"#333333\">\n\n</text>\n\
                   </svg>\n";
        let t = tidy(svg);
        assert_eq!(
            t,
            "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\" font-family=\"sans-serif\" font-size=\"12\">\n\
             <rect x=\"0\" y=\"0\" width=\"1\" height=\"7\" fill=\"#4E79A7\"/>\n\
             <polyline fill=\"none\" stroke=\"#A0A0A0\" points=\"1,2 3,4 \"/>\n\
             <polyline fill=\"none\" opacity=\"0.5\" stroke=\"#A0A0A0\" stroke-width=\"12\" points=\"1,2 \"/>\n\
             <text x=\"1\" y=\"2\" fill=\"#333333\">4 KiB</text>\n\
             <text x=\"1\" y=\"2\" font-size=\"15\" fill=\"#333333\"></text>\n\
             </svg>\n"
        );
    }
}
