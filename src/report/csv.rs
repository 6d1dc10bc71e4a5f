//! `--csv FILE`: the overview's rows as CSV, to take elsewhere (a
//! spreadsheet, a notebook): a row per result and headline figure, with
//! the same numbers and verdict as the page.

use std::collections::BTreeMap;

use super::model::Loaded;
use super::overview::headline;
use crate::compare::{compare, Figure, Spread};
use crate::output::document::{csv, Table};

const COLUMNS: &[&str] = &[
    "result",
    "tool",
    "file",
    "workload",
    "figure",
    "unit",
    "repetitions",
    "median",
    "min",
    "max",
    "cv",
    "ratio_to_baseline",
    "interval_low",
    "interval_high",
    "verdict",
];

/// The overview as CSV text; the ratio, its 95 % interval and the verdict
/// against the result at `baseline` (empty for the baseline itself and
/// for a figure it lacks).
pub fn overview(results: &[Loaded], baseline: usize) -> String {
    let base: BTreeMap<String, Figure> = headline(&results[baseline]).into_iter().collect();
    let mut rows = Vec::new();
    for (i, r) in results.iter().enumerate() {
        for (name, f) in headline(r) {
            let s = Spread::of(&f.values);
            let number = |v: f64| {
                if v.is_finite() {
                    v.to_string()
                } else {
                    String::new()
                }
            };
            let mut row = vec![
                r.name.clone(),
                r.tool.name().to_string(),
                r.file.clone(),
                r.workload.words(),
                name.clone(),
                f.unit.clone(),
                s.n.to_string(),
                number(s.median),
                number(s.min),
                number(s.max),
                number(s.cv),
            ];
            let against = match (i == baseline, base.get(&name)) {
                (false, Some(b)) => {
                    let mine = BTreeMap::from([(name.clone(), f.clone())]);
                    let theirs = BTreeMap::from([(name.clone(), b.clone())]);
                    compare(&theirs, &mine).into_iter().next()
                }
                _ => None,
            };
            match against {
                Some(c) => {
                    let [lo, hi] = c.interval.map_or([f64::NAN; 2], |i| i);
                    let verdict = serde_json::to_value(c.verdict).unwrap_or_default();
                    row.extend([number(c.ratio), number(lo), number(hi)]);
                    row.push(verdict.as_str().unwrap_or_default().to_string());
                }
                None => row.extend([String::new(), String::new(), String::new(), String::new()]),
            }
            rows.push(row);
        }
    }
    csv(&Table {
        columns: COLUMNS,
        rows,
    })
}
