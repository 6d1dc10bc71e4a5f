//! What the page's sections are built of: text as HTML, tables, the
//! charts in order, sections, and the charts' titles.

use std::fmt::Write as _;

use super::model::Loaded;
use super::workload::Workload;

/// `&`, `<`, `>` and `"` as entities.
pub fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A table; cells that are numbers are set right.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut t = String::from("<table><thead><tr>");
    for h in head {
        let _ = write!(t, "<th>{}</th>", escape(h));
    }
    t.push_str("</tr></thead><tbody>");
    for r in rows {
        t.push_str("<tr>");
        for c in r {
            let numeric = c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '-' || ch == '×');
            let class = if numeric { " class=\"num\"" } else { "" };
            let _ = write!(t, "<td{class}>{}</td>", escape(c));
        }
        t.push_str("</tr>");
    }
    t.push_str("</tbody></table>\n");
    t
}

/// The page's charts, in order: (title, SVG), the SVG kept only when
/// asked for (`--images`): a page of many charts holds each once.
pub struct Charts(pub Vec<(String, String)>, pub bool);

impl Charts {
    /// The chart as it goes in the page (nothing for a failed drawing).
    pub fn add(&mut self, title: String, svg: String) -> String {
        if svg.is_empty() {
            return String::new();
        }
        let html = format!(
            "<figure class=\"chart\" id=\"chart-{}\" data-chart=\"{}\">{svg}</figure>\n",
            self.0.len() + 1,
            escape(&title)
        );
        let kept = if self.1 { svg } else { String::new() };
        self.0.push((title, kept));
        html
    }
}

/// A section of the page: its anchor, its heading, its content.
pub struct Section {
    pub id: &'static str,
    pub heading: String,
    pub body: String,
}

/// A chart's title: the tool, the figure, and what the results in it
/// share of their workloads.
pub fn title(results: &[&Loaded], figure: &str, suffix: &str) -> String {
    let first = results[0];
    let label = first.figure_label(figure);
    let t = format!("{} {label}{suffix}", first.tool.name());
    titled(t, results)
}

/// `head` and what `results` share of their workloads, as much as a
/// title holds.
pub fn titled(head: String, results: &[&Loaded]) -> String {
    let others: Vec<&Workload> = results.iter().map(|r| &r.workload).collect();
    let mut t = head;
    for n in (1..=4).rev() {
        let common = results[0].workload.common(&others[1..], n);
        if !common.is_empty() && t.len() + common.len() < 76 {
            let _ = write!(t, ", {common}");
            break;
        }
    }
    t
}
