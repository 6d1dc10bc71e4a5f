//! The concurrent phase in the result files, after the official content:
//! its lines on stdout and in `result_summary.txt` (after the score
//! lines), its section of `result.txt` (after `[SCORE]`/`[SCOREX]`, marked
//! as an extension); its object in `result.json` (`extensions`) is
//! `io500::json::ConcurrentJson`.

use std::fmt::Write as _;

use super::Extension;
use crate::io500::results::{key_value, Line};

/// The comment that opens the section in `result.txt`.
pub const MARK: &str =
    "; EXTENSION pario: the concurrent phase of IO500#56, outside the IO500 score and its hashes";

impl Extension {
    /// Its lines after the score lines: one per group, then its score.
    pub fn summary_lines(&self) -> Vec<String> {
        let mut out = vec![String::from(
            "Extension (pario, outside the IO500 score and hashes): the concurrent phase of IO500#56",
        )];
        for l in &self.lines {
            match l {
                Line::Invalid(why) => out.push(format!("ERROR INVALID {why}")),
                Line::Warning(why) => out.push(format!("WARNING {why}")),
                Line::Value(..) => {}
            }
        }
        for g in &self.groups {
            out.push(format!(
                "[EXTEND] {:>20} {:>15} {} : {} tasks (ranks {}-{}), {:.6} per task",
                format!("concurrent-{}", g.name),
                format!("{:.6}", g.score),
                g.unit,
                g.tasks,
                g.first_rank,
                g.last_rank,
                g.per_task()
            ));
        }
        let invalid = if self.is_invalid() { " [INVALID]" } else { "" };
        out.push(format!(
            "[EXTEND] {:>20} {:>15} score : time {:.3} seconds{invalid}",
            "concurrent",
            format!("{:.6}", self.score),
            self.t_delta
        ));
        out
    }

    /// Its section of `result.txt`.
    pub fn section(&self) -> String {
        let mut s = format!("{MARK}\n[concurrent]\n");
        let mut kv = |k: &str, v: String| {
            let _ = writeln!(s, "{}", key_value(k, v));
        };
        kv("t_start", self.t_start.clone());
        kv("procs", self.tasks.to_string());
        kv("stonewall-time", self.stonewall.to_string());
        for g in &self.groups {
            kv(&format!("exe-{}", g.name), g.exe.clone());
            kv(&format!("tasks-{}", g.name), g.tasks.to_string());
            kv(&format!("score-{}", g.name), format!("{:.6}", g.score));
            kv(&format!("unit-{}", g.name), g.unit.to_string());
        }
        for line in &self.lines {
            let _ = match line {
                Line::Value(k, v) => writeln!(s, "{}", key_value(k, v)),
                Line::Invalid(why) => writeln!(s, "; ERROR INVALID {why}"),
                Line::Warning(why) => writeln!(s, "; WARNING {why}"),
            };
        }
        let invalid = if self.is_invalid() { " [INVALID]" } else { "" };
        let _ = writeln!(
            s,
            "{}",
            key_value("score", format!("{:.6}{invalid}", self.score))
        );
        let _ = writeln!(
            s,
            "{}",
            key_value("t_delta", format!("{:.4}", self.t_delta))
        );
        let _ = writeln!(s, "{}", key_value("t_end", &self.t_end));
        s
    }
}
