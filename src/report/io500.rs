//! io500's phases as the report lists them: score, time, validity and
//! whether the phase counts in the score, each phase's raw messages from
//! the harness (its command, why it is invalid, its warnings, its
//! `result.txt` values) folded under it; each phase's figure per client
//! node.

use std::fmt::Write as _;

use super::elements::{escape, table};
use super::human;
use super::model::Loaded;
use crate::compare::Source;
use crate::io500::json::PhaseJson;
use crate::io500::results::PhaseReport;

/// How a phase is named where its score is shown: unscored phases
/// (extended mode's, `timestamp`) say so.
pub fn phase_label(name: &str, valid: bool, scored: bool) -> String {
    match (valid, scored) {
        (true, true) => name.to_string(),
        (false, true) => format!("{name} (invalid)"),
        (true, false) => format!("{name} (not scored)"),
        (false, false) => format!("{name} (invalid, not scored)"),
    }
}

/// The harness's messages of a phase, one a line.
fn messages(p: &PhaseJson) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(exe) = &p.exe {
        out.push(format!("command: {exe}"));
    }
    out.extend(p.invalid.iter().map(|m| format!("invalid: {m}")));
    out.extend(p.warnings.iter().map(|m| format!("warning: {m}")));
    out.extend(p.values.iter().map(|(k, v)| format!("{k} = {v}")));
    out
}

/// A result's phases: a row each, its messages folded in the last cell.
pub fn phases_table(r: &Loaded) -> String {
    let phases = r.io500().map_or(&[][..], |d| &d.phases[..]);
    let mut t = String::from(
        "<table class=\"io500-phases\"><thead><tr><th>phase</th><th>score</th><th>time</th>\
         <th>validity</th><th>in the score</th><th>the harness's messages</th></tr></thead><tbody>",
    );
    for p in phases.iter().filter(|p| p.name != "timestamp") {
        let score = if p.score.is_finite() { p.score } else { 0.0 };
        let time = if p.t_delta_s.is_finite() {
            p.t_delta_s
        } else {
            0.0
        };
        let validity = match p.invalid.len() {
            0 => "valid".to_string(),
            n => format!("invalid ({n} reasons)"),
        };
        let lines = messages(p);
        let folded = match lines.is_empty() {
            true => String::new(),
            false => format!(
                "<details class=\"messages\"><summary>{} line(s)</summary><pre>{}</pre></details>",
                lines.len(),
                escape(&lines.join("\n"))
            ),
        };
        let _ = write!(
            t,
            "<tr><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td>{}</td>\
             <td>{}</td><td>{folded}</td></tr>",
            escape(&p.name),
            escape(&human::scale_for(&p.unit, score).text(score)),
            escape(&human::duration(time)),
            validity,
            if p.scored { "yes" } else { "no (not scored)" },
        );
    }
    t.push_str("</tbody></table>\n");
    t
}

/// Nodes past which the table gives the slowest, median and fastest node
/// instead of a column each.
const NODE_COLUMNS: usize = 8;

/// Each phase's figure per client node: the phase's score times the
/// node's part of the phase's work (its tasks' counts in the phase's
/// timeline). Empty on one node or without the placement.
pub fn nodes_table(r: &Loaded) -> String {
    let Some(doc) = r.io500() else {
        return String::new();
    };
    let Some(placement) = doc.system.as_ref().map(|s| &s.placement) else {
        return String::new();
    };
    let names = placement.names();
    if names.len() < 2 {
        return String::new();
    }
    let mut rows = Vec::new();
    for p in doc.phases.iter().filter(|p| p.score.is_finite()) {
        let Some(per_task) = p.report.as_ref().and_then(task_work) else {
            continue;
        };
        let total: f64 = per_task.iter().sum();
        if total <= 0.0 {
            continue;
        }
        let nodes: Vec<f64> = placement
            .per_node(&per_task)
            .iter()
            .map(|n| p.score * n / total)
            .collect();
        rows.push(node_row(p, &names, &nodes));
    }
    if rows.is_empty() {
        return String::new();
    }
    let mut head = vec!["phase".to_string()];
    match names.len() <= NODE_COLUMNS {
        true => head.extend(names.iter().cloned()),
        false => head.extend(["slowest node", "median", "fastest node"].map(String::from)),
    }
    head.push("slowest / median".into());
    let head: Vec<&str> = head.iter().map(String::as_str).collect();
    format!(
        "<p>Per client node: each phase's score times the node's part of its work \
         (its tasks' transfers or items), so a slow node shows as a low figure.</p>\n{}",
        table(&head, &rows)
    )
}

/// A phase's row: its figure per node (or the slowest, median and
/// fastest), then the slowest against the median.
fn node_row(p: &PhaseJson, names: &[String], nodes: &[f64]) -> Vec<String> {
    let scale = human::scale_for(&p.unit, nodes.iter().fold(0.0, |m, v| f64::max(m, *v)));
    let mut order: Vec<usize> = (0..nodes.len()).collect();
    order.sort_by(|a, b| nodes[*a].total_cmp(&nodes[*b]));
    let median = nodes[order[order.len() / 2]];
    let mut row = vec![p.name.clone()];
    match names.len() <= NODE_COLUMNS {
        true => row.extend(nodes.iter().map(|v| scale.text(*v))),
        false => {
            let (low, high) = (order[0], order[order.len() - 1]);
            row.push(format!("{}: {}", names[low], scale.text(nodes[low])));
            row.push(scale.text(median));
            row.push(format!("{}: {}", names[high], scale.text(nodes[high])));
        }
    }
    let slowest = nodes[order[0]];
    row.push(match median > 0.0 {
        true => format!("{:.2}", slowest / median),
        false => "-".into(),
    });
    row
}

/// Each task's work in a phase: its counts over time summed, from the
/// figure of the phase's tool report with the most work.
fn task_work(report: &PhaseReport) -> Option<Vec<f64>> {
    let PhaseReport::Tool(tool) = report else {
        return None;
    };
    tool.samples()
        .into_iter()
        .filter_map(|s| {
            let source = Source::Row(s.source);
            let (t, _) = source.timeline()?;
            Some(
                t.tasks
                    .iter()
                    .map(|c| c.iter().sum::<u64>() as f64)
                    .collect::<Vec<f64>>(),
            )
        })
        .max_by(|a, b| a.iter().sum::<f64>().total_cmp(&b.iter().sum()))
}
