//! What the report shows of a result document: its figures (those `pario
//! compare` reads, in the document's order) and, from the same walk over
//! the document, each figure's latency, task times, page cache, stonewall
//! and a sweep's steps per repetition; its workload in words and its
//! warnings; a few lines about the run and its parameters; and what the CSV
//! files given after it add (full histograms, every task's times).

use std::collections::BTreeMap;

use super::cache::{self, CacheRow};
use super::sidefiles::{self, Side, TaskRow};
use super::warnings;
use super::workload::{self, figure_words, Tool, Workload};
use crate::compare::{collect, Figure, ResultFile, Sample, Step};

/// A latency curve: (fraction of operations at or below, seconds).
pub type Curve = Vec<(f64, f64)>;

/// The fastest, mean and slowest task's open-to-close time of a repetition.
pub type Spread = (f64, f64, f64);

/// A result file, read.
pub struct Loaded {
    /// The file as given, and its name.
    pub path: String,
    pub file: String,
    /// The name the page gives it (`--label`, else from its workload).
    pub name: String,
    pub tool: Tool,
    pub workload: Workload,
    pub warnings: Vec<String>,
    pub doc: ResultFile,
    pub figures: BTreeMap<String, Figure>,
    /// The figures' names in the document's order.
    pub order: Vec<String>,
    /// A sweep's figures: what the steps have in common, and the step.
    pub steps: BTreeMap<String, (String, Step)>,
    /// ior's operations per second, per figure and repetition.
    pub iops: BTreeMap<String, Vec<f64>>,
    /// Per figure: from the merged histograms when a histogram file was
    /// given, else the percentiles of its first repetition that has them.
    pub latency: BTreeMap<String, Curve>,
    /// Which figures' curves come from a histogram file.
    pub merged: Vec<String>,
    /// Per figure, per repetition (ior's `taskTimes`).
    pub spread: BTreeMap<String, Vec<Spread>>,
    /// The same as a table: row, fastest, mean, slowest (s), slowest task.
    pub times: Vec<Vec<String>>,
    pub cache: Vec<CacheRow>,
    /// ior's stonewall per row: row, hit, pairs min, pairs max, seconds, MiB/s.
    pub stonewall: Vec<Vec<String>>,
    /// Every task's times, from ior's task file.
    pub tasks: Vec<TaskRow>,
}

impl Loaded {
    pub fn read(path: &str) -> Result<Loaded, String> {
        Ok(Loaded::of(path, ResultFile::read(path)?))
    }

    /// The result `doc`, read from `path`.
    pub fn of(path: &str, doc: ResultFile) -> Loaded {
        let file = std::path::Path::new(path)
            .file_name()
            .map_or(path.to_string(), |n| n.to_string_lossy().into_owned());
        let walked = doc.samples();
        let tool = Tool::of(&doc);
        let figures = collect(&walked);
        let mut order: Vec<String> = Vec::new();
        for s in walked.iter().filter(|s| figures.contains_key(&s.figure)) {
            if !order.contains(&s.figure) {
                order.push(s.figure.clone());
            }
        }
        let steps = sweep_steps(&walked);
        let mut iops: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for s in &walked {
            if let Some(v) = s.source.iops() {
                iops.entry(s.figure.clone()).or_default().push(v);
            }
        }
        let latency = latency(&walked);
        let warnings = warnings::of(&doc, &walked);
        let IorRows {
            spread,
            times,
            stonewall,
        } = ior_rows(&walked);
        let cache = cache::rows(&doc, &walked);
        let workload = workload::of(&doc);
        drop(walked);
        Loaded {
            path: path.to_string(),
            name: file.clone(),
            file,
            tool,
            workload,
            warnings,
            doc,
            figures,
            order,
            steps,
            iops,
            latency,
            merged: Vec::new(),
            spread,
            times,
            cache,
            stonewall,
            tasks: Vec::new(),
        }
    }

    /// Whether the result is a sweep (steps of different sizes).
    pub fn is_sweep(&self) -> bool {
        let mut steps: Vec<Step> = self.steps.values().map(|(_, s)| *s).collect();
        steps.sort();
        steps.dedup();
        steps.len() > 1
    }

    /// Adds what a CSV file given after this result holds.
    pub fn attach(&mut self, side: Side) {
        match side {
            Side::Histograms(h) => {
                for (figure, histogram) in h {
                    self.latency
                        .insert(figure.clone(), sidefiles::curve(&histogram));
                    self.merged.push(figure);
                }
            }
            Side::Tasks(rows) => self.tasks.extend(rows),
            Side::Spreads(spreads) => {
                for (figure, s) in spreads {
                    self.spread.entry(figure).or_default().push(s);
                }
            }
        }
    }

    pub fn is_io500(&self) -> bool {
        self.tool == Tool::Io500
    }

    /// How the page names one of its figures (see [`figure_words`]).
    pub fn figure_label(&self, figure: &str) -> String {
        match self.steps.get(figure) {
            Some((what, step)) => figure_words(what, Some(step.tasks)),
            None => figure_words(figure, None),
        }
    }
}

/// The figures of a sweep's steps (none unless the steps differ).
fn sweep_steps(walked: &[Sample<'_>]) -> BTreeMap<String, (String, Step)> {
    let mut out = BTreeMap::new();
    for s in walked {
        if let Some(step) = s.step {
            out.insert(s.figure.clone(), (s.what.clone(), step));
        }
    }
    let first = out.values().next().map(|(_, s)| *s);
    match out.values().any(|(_, s)| Some(*s) != first) {
        true => out,
        false => BTreeMap::new(),
    }
}

/// Each figure's latency curve: the percentiles of its first repetition
/// that has them (md-workbench's per operation, as "phase op").
fn latency(walked: &[Sample<'_>]) -> BTreeMap<String, Curve> {
    let mut out = BTreeMap::new();
    for s in walked {
        for (op, p) in s.source.latency() {
            let name = match op {
                Some(op) => format!("{} {op}", s.figure),
                None => s.figure.clone(),
            };
            let points: Curve = [
                (p.p50, 0.5),
                (p.p90, 0.9),
                (p.p99, 0.99),
                (p.p999, 0.999),
                (p.max, 1.0),
            ]
            .iter()
            .filter(|(v, _)| v.is_finite())
            .map(|(v, f)| (*f, *v))
            .collect();
            if !points.is_empty() && !out.contains_key(&name) {
                out.insert(name, points);
            }
        }
    }
    out
}

#[derive(Default)]
struct IorRows {
    spread: BTreeMap<String, Vec<Spread>>,
    times: Vec<Vec<String>>,
    stonewall: Vec<Vec<String>>,
}

/// ior's rows: task spread per figure, stonewall.
fn ior_rows(walked: &[Sample<'_>]) -> IorRows {
    let mut out = IorRows::default();
    for s in walked {
        let Some(iteration) = s.source.iteration() else {
            continue;
        };
        let row = format!("{} #{iteration}", s.figure);
        let t = s.source.task_times();
        if let Some(t) = t.filter(|t| {
            [t.total_min, t.total_mean, t.total_max]
                .iter()
                .all(|v| v.is_finite())
        }) {
            let (lo, mean, hi) = (t.total_min, t.total_mean, t.total_max);
            out.spread
                .entry(s.figure.clone())
                .or_default()
                .push((lo, mean, hi));
            let secs = |v: f64| format!("{v:.6}");
            out.times.push(vec![
                row.clone(),
                secs(lo),
                secs(mean),
                secs(hi),
                t.slowest.to_string(),
            ]);
        }
        if let Some(w) = s.source.stonewall() {
            let or_0 = |v: f64| if v.is_finite() { v } else { 0.0 };
            out.stonewall.push(vec![
                row,
                w.hit.to_string(),
                w.pairs_min.to_string(),
                w.pairs_max.to_string(),
                format!("{:.6}", or_0(w.time)),
                format!("{:.2}", or_0(w.bw_mib)),
            ]);
        }
    }
    out
}
