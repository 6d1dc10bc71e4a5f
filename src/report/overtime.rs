//! The "Over time" section: each phase's rate over time inside the phase,
//! from the `timeline` ior, mdtest and md-workbench write in their JSON
//! (fixed bins per task and their total). Per result and figure, the
//! slowest repetition is drawn: stalls and stragglers make a phase slow,
//! so that is where they show.

use std::fmt::Write as _;

use super::cache::tasks;
use super::elements::{escape, Charts, Section};
use super::human::duration;
use super::model::Loaded;
use super::timeline::{over_time, Over};
use super::workload::figure_words;
use crate::compare::Sample;

/// Per result and figure, its slowest repetition's rate over time.
pub fn section(results: &[Loaded], charts: &mut Charts) -> Option<Section> {
    let mut h = String::new();
    for (i, r) in results.iter().enumerate() {
        let walked = r.doc.samples();
        let sweep = walked.iter().any(|s| s.step != walked[0].step);
        for figure in &r.order {
            // Its repetitions in order; the slowest with a timeline drawn.
            let reps: Vec<_> = walked.iter().filter(|s| s.figure == *figure).collect();
            let timed = reps
                .iter()
                .enumerate()
                .filter_map(|(k, s)| s.source.timeline().map(|t| (k, s, t)))
                .filter(|(_, _, (t, _))| t.total.iter().any(|c| *c > 0));
            let secs = |s: &Sample<'_>| s.source.seconds().unwrap_or(0.0);
            let Some((k, s, (t, per))) = timed.max_by(|a, b| secs(a.1).total_cmp(&secs(b.1)))
            else {
                continue;
            };
            let mut name = r.name.clone();
            if let Some(step) = s.step.filter(|_| sweep) {
                let _ = write!(name, " · {}", tasks(step.tasks));
            }
            let what = figure_words(&s.what, None);
            let title = match reps.len() {
                1 => format!("{what} over time: {name}"),
                n => format!("{what} #{} (slowest of {n}) over time: {name}", k + 1),
            };
            let over = Over {
                title: title.clone(),
                result: i,
                bin: t.bin_seconds,
                total: &t.total,
                tasks: &t.tasks,
                per_count: per,
                unit: &s.unit,
                end: s.source.seconds(),
            };
            let (svg, found) = over_time(&over);
            h.push_str(&charts.add(title, svg));
            let mut seen: Vec<String> = Vec::new();
            if found.stalls > 0 {
                seen.push(format!(
                    "{} bin(s) of {} without progress",
                    found.stalls,
                    duration(t.bin_seconds)
                ));
            }
            for (task, after) in found.late.iter().take(4) {
                seen.push(format!(
                    "task {task} ended {} after the median task",
                    duration(*after)
                ));
            }
            if !seen.is_empty() {
                let _ = writeln!(
                    h,
                    "<p class=\"note found\">{}: {}</p>",
                    escape(&name),
                    escape(&seen.join("; "))
                );
            }
        }
    }
    if h.is_empty() {
        return None;
    }
    let body = format!(
        "<p class=\"note\">Each phase's rate in fixed time bins from its start (every task's \
         counts summed; the bins widen as a phase runs longer, 64 at most), the slowest \
         repetition of each figure; under it each task's bins with a count. Shaded: bins \
         without progress (a stall); dark: a task still counting well after the median task \
         ended (a straggler).</p>\n<div class=\"charts\">\n{h}</div>\n"
    );
    Some(Section {
        id: "over-time",
        heading: "Over time".into(),
        body,
    })
}
