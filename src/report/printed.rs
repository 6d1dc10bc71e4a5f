//! The overview as printed: a line per result (its name, what sets its
//! workload apart, every headline figure's median with its ratio to the
//! baseline's), the warnings and workload differences folded into
//! numbered notes under the table, each said once however many results
//! share it. The screen's table (a row per figure and per warning, the
//! ranges) takes three or four times the height: printed, ten results
//! and their notes fit the first page. Only the print style sheet shows it.

use std::fmt::Write as _;

use super::elements::escape;
use super::marks::swatch;
use crate::compare::{Row, Verdict};

/// A result's line.
pub struct Line {
    /// The result's index (its mark, its anchor).
    pub result: usize,
    pub name: String,
    /// What sets its workload apart (none: no such column).
    pub words: Option<String>,
    pub figures: Vec<Chip>,
    /// Its warnings, then how its workload differs from the baseline's.
    pub notes: Vec<Note>,
}

/// A headline figure: its name, its median in words, and the comparison
/// with the baseline (none for the baseline itself, for a figure the
/// baseline lacks, or a single result).
pub struct Chip {
    pub label: String,
    pub median: String,
    pub against: Option<Row>,
}

/// A note under the table: a warning, or how a workload differs.
#[derive(Clone, PartialEq)]
pub enum Note {
    Warning(String),
    Differs(String),
}

impl Note {
    fn sign(&self) -> &'static str {
        match self {
            Note::Warning(_) => "⚠",
            Note::Differs(_) => "≠",
        }
    }

    fn text(&self) -> &str {
        match self {
            Note::Warning(t) | Note::Differs(t) => t,
        }
    }
}

/// The ratio and a sign for its verdict, as the legend says them.
fn ratio(row: &Row) -> String {
    let (class, sign) = match row.verdict {
        Verdict::Faster => ("faster", " faster"),
        Verdict::Slower => ("slower", " slower"),
        Verdict::WithinNoise => ("noise", " ≈"),
        Verdict::TooFew => ("none", " ?"),
    };
    format!(
        " <i class=\"verdict {class}\">{}{sign}</i>",
        super::human::ratio(row.ratio)
    )
}

/// The printed table and its notes; `baseline`: the baseline's name when
/// results are compared.
pub fn table(lines: &[Line], baseline: Option<&str>) -> String {
    // Each distinct note once, numbered in the order first met.
    let mut notes: Vec<(&Note, Vec<usize>)> = Vec::new();
    let mut h = String::from("<table class=\"printed\"><thead><tr><th>Result</th>");
    let column = lines.iter().any(|l| l.words.is_some());
    if column {
        h.push_str("<th>Workload</th>");
    }
    h.push_str("<th>Median of each figure");
    if baseline.is_some() {
        h.push_str(", against the baseline");
    }
    h.push_str("</th><th>Notes</th></tr></thead>\n<tbody>\n");
    for l in lines {
        let mut numbers: Vec<usize> = Vec::new();
        for n in &l.notes {
            let k = match notes.iter().position(|(m, _)| *m == n) {
                Some(k) => k,
                None => {
                    notes.push((n, Vec::new()));
                    notes.len() - 1
                }
            };
            notes[k].1.push(l.result);
            numbers.push(k + 1);
        }
        let _ = write!(
            h,
            "<tr><td class=\"who\">{}<a href=\"#run-{}\">{}</a></td>",
            swatch(l.result),
            l.result + 1,
            escape(&l.name)
        );
        if column {
            let words = l.words.as_deref().unwrap_or("");
            let _ = write!(h, "<td class=\"workload\">{}</td>", escape(words));
        }
        let chips: Vec<String> = (l.figures.iter())
            .map(|c| {
                let against = c.against.as_ref().map_or(String::new(), ratio);
                format!(
                    "<span class=\"chip\">{} <b>{}</b>{against}</span>",
                    escape(&c.label),
                    escape(&c.median)
                )
            })
            .collect();
        let marks = match numbers.is_empty() {
            true => String::new(),
            false => format!("<span class=\"sign\">⚠</span> {}", spans(&numbers)),
        };
        let _ = writeln!(
            h,
            "<td class=\"figures\">{}</td><td class=\"marks\">{marks}</td></tr>",
            chips.join(" ")
        );
    }
    h.push_str("</tbody></table>\n");
    h.push_str(&legend(baseline));
    if !notes.is_empty() {
        h.push_str("<ol class=\"printed-notes\">\n");
        for (note, whose) in &notes {
            let whose: Vec<String> = whose.iter().map(|i| swatch(*i)).collect();
            let _ = writeln!(
                h,
                "<li><span class=\"sign\">{}</span> {}{}</li>",
                note.sign(),
                whose.concat(),
                escape(note.text())
            );
        }
        h.push_str("</ol>\n");
    }
    h
}

/// Note numbers with runs of three or more as spans: `1, 4–9`.
fn spans(numbers: &[usize]) -> String {
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for &n in numbers {
        match runs.last_mut() {
            Some(run) if run.1 + 1 == n => run.1 = n,
            _ => runs.push((n, n)),
        }
    }
    let said: Vec<String> = (runs.iter())
        .map(|&(a, b)| match b - a {
            0 => a.to_string(),
            1 => format!("{a}, {b}"),
            _ => format!("{a}–{b}"),
        })
        .collect();
    said.join(", ")
}

/// What the printed line's figures and signs are.
fn legend(baseline: Option<&str>) -> String {
    let mut h = String::from(
        "<p class=\"printed-legend\">Each figure's median over its repetitions (the \
         ranges, cv and every figure's chart follow).",
    );
    if let Some(name) = baseline {
        let _ = write!(
            h,
            " ×: the ratio of the medians to the baseline's ({}), decided as <code>pario \
             compare</code> does: faster or slower beyond the noise, ≈ within the noise, ? too \
             few repetitions to tell.",
            escape(name)
        );
    }
    h.push_str(match baseline {
        Some(_) => {
            " Notes: ⚠ a result's warnings, ≠ how its workload differs from the \
             baseline's; each note marked with its results.</p>\n"
        }
        None => " Notes: ⚠ the result's warnings.</p>\n",
    });
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn note_numbers_run_as_spans() {
        assert_eq!(spans(&[1, 2, 3, 5, 7, 8]), "1–3, 5, 7, 8");
        assert_eq!(spans(&[4]), "4");
        assert_eq!(spans(&[1, 13, 14, 15, 16]), "1, 13–16");
    }
}
