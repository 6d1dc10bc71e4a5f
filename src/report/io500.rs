//! io500's phases as the report lists them: score, time, validity and
//! whether the phase counts in the score, each phase's raw messages from
//! the harness (its command, why it is invalid, its warnings, its
//! `result.txt` values) folded under it.

use std::fmt::Write as _;

use super::elements::escape;
use super::human;
use super::model::Loaded;
use crate::io500::json::PhaseJson;

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
