//! The report of any tool a group runs (ior, mdtest, md-workbench), as it
//! is written and read back, and its figures: the one walk over the tools'
//! reports that `pario concurrent`, io500, `pario compare` and `pario
//! report` share.

use serde::de::{Deserializer, IgnoredAny};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use super::spec::Kind;
use crate::ior::report::RunReport;
use crate::ior::results::PhaseResult as IorRow;
use crate::mdtest::report::MdtestReport;
use crate::mdtest::results::PhaseResult as MdtestRow;
use crate::mdworkbench::report::MdwReport;
use crate::mdworkbench::results::PhaseSummary;

/// A tool's report, one of three.
#[derive(Debug, Clone)]
pub enum ToolReport {
    Ior(Box<RunReport>),
    Mdtest(Box<MdtestReport>),
    MdWorkbench(Box<MdwReport>),
}

impl From<RunReport> for ToolReport {
    fn from(r: RunReport) -> ToolReport {
        ToolReport::Ior(Box::new(r))
    }
}

impl From<MdtestReport> for ToolReport {
    fn from(r: MdtestReport) -> ToolReport {
        ToolReport::Mdtest(Box::new(r))
    }
}

impl From<MdwReport> for ToolReport {
    fn from(r: MdwReport) -> ToolReport {
        ToolReport::MdWorkbench(Box::new(r))
    }
}

/// A key only one tool's document has at its top: which type reads it.
#[derive(Deserialize)]
struct Layout {
    #[serde(rename = "summary")]
    ior: Option<IgnoredAny>,
    #[serde(rename = "Nodemap")]
    mdtest: Option<IgnoredAny>,
    #[serde(rename = "data_sets")]
    md_workbench: Option<IgnoredAny>,
}

/// What the three tools' documents are called in an error.
pub const NOT_A_REPORT: &str = "not a report of ior, mdtest or md-workbench";

impl ToolReport {
    /// The report `v` holds, read by the type its layout names; an error
    /// names the field (`tests[0].Results[1].bwMiB: invalid type ...`).
    pub fn from_value(v: &Value) -> Result<ToolReport, String> {
        match ToolReport::kind_of(v) {
            Some(Kind::Ior) => typed(v).map(ToolReport::Ior),
            Some(Kind::Mdtest) => typed(v).map(ToolReport::Mdtest),
            Some(Kind::MdWorkbench) => typed(v).map(ToolReport::MdWorkbench),
            None => Err(NOT_A_REPORT.into()),
        }
    }

    /// Which tool's report `v` is laid out as, if any.
    pub fn kind_of(v: &Value) -> Option<Kind> {
        match Layout::deserialize(v).ok()? {
            Layout { ior: Some(_), .. } => Some(Kind::Ior),
            Layout {
                mdtest: Some(_), ..
            } => Some(Kind::Mdtest),
            Layout {
                md_workbench: Some(_),
                ..
            } => Some(Kind::MdWorkbench),
            _ => None,
        }
    }

    /// The tool that wrote it.
    pub fn kind(&self) -> Kind {
        match self {
            ToolReport::Ior(_) => Kind::Ior,
            ToolReport::Mdtest(_) => Kind::Mdtest,
            ToolReport::MdWorkbench(_) => Kind::MdWorkbench,
        }
    }

    /// Every repetition of every figure, in the document's order.
    pub fn samples(&self) -> Vec<Sample<Row<'_>>> {
        match self {
            ToolReport::Ior(r) => ior(r),
            ToolReport::Mdtest(r) => mdtest(r),
            ToolReport::MdWorkbench(r) => md_workbench(r),
        }
    }
}

/// `v` as a `T`, the path of the field that is not as `T` has it in the
/// error.
pub fn typed<T: serde::de::DeserializeOwned>(v: &Value) -> Result<Box<T>, String> {
    serde_path_to_error::deserialize(v)
        .map(Box::new)
        .map_err(|e| e.to_string())
}

/// As the document the tool writes: through serde_json's `Value`, whose
/// objects keep their keys in order (as io500's `result.json` and
/// concurrent's report have always held them).
impl Serialize for ToolReport {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = match self {
            ToolReport::Ior(r) => serde_json::to_value(r),
            ToolReport::Mdtest(r) => serde_json::to_value(r),
            ToolReport::MdWorkbench(r) => serde_json::to_value(r),
        };
        v.map_err(serde::ser::Error::custom)?.serialize(s)
    }
}

impl<'de> Deserialize<'de> for ToolReport {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = Value::deserialize(d)?;
        ToolReport::from_value(&v).map_err(serde::de::Error::custom)
    }
}

/// A sweep's step: its tasks and, when the report says, its nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Step {
    pub tasks: u64,
    pub nodes: Option<u64>,
}

/// One repetition of a figure: its name and unit, its value, and `source`,
/// where the rest of what the repetition says is.
#[derive(Debug, Clone)]
pub struct Sample<S> {
    pub figure: String,
    /// The figure without its step: what a sweep's steps have in common
    /// (`test 0 write`, `File creation`).
    pub what: String,
    /// The step of a sweep (ior's `-O sweep`, mdtest's `-f/-l/-s`).
    pub step: Option<Step>,
    pub unit: String,
    /// None for a figure JSON cannot hold (NaN, infinite).
    pub value: Option<f64>,
    pub source: S,
}

impl<S> Sample<S> {
    /// A sample whose figure is what it measures (no step in its name).
    pub fn new(what: String, step: Option<Step>, unit: &str, value: f64, source: S) -> Self {
        Sample {
            figure: what.clone(),
            what,
            step,
            unit: unit.into(),
            value: value.is_finite().then_some(value),
            source,
        }
    }

    /// The same sample with its source wrapped.
    pub fn map<T>(self, f: impl FnOnce(S) -> T) -> Sample<T> {
        Sample {
            figure: self.figure,
            what: self.what,
            step: self.step,
            unit: self.unit,
            value: self.value,
            source: f(self.source),
        }
    }
}

/// The row of a tool's report a sample is from.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    /// A row of ior's Results.
    Ior(&'a IorRow),
    /// An iteration's phase of mdtest.
    Mdtest(&'a MdtestRow),
    /// A phase of md-workbench.
    MdWorkbench(&'a PhaseSummary),
}

/// ior's rows: a figure per test and access (per step of a sweep, whose
/// steps are one test each).
fn ior(r: &RunReport) -> Vec<Sample<Row<'_>>> {
    let mut out = Vec::new();
    for t in &r.tests {
        let step = t.sweep.map(|s| Step {
            tasks: s.tasks as u64,
            nodes: Some(s.nodes as u64),
        });
        let test = match step {
            Some(s) => format!("{} at {} tasks", t.test_id, s.tasks),
            None => t.test_id.to_string(),
        };
        for row in &t.results {
            let what = format!("test {} {}", t.test_id, row.access);
            let sample = Sample::new(what, step, "MiB/s", row.bw_mib, Row::Ior(row));
            out.push(Sample {
                figure: format!("test {test} {}", row.access),
                ..sample
            });
        }
    }
    out
}

/// mdtest's phases: a figure per step (task count) and operation.
fn mdtest(r: &MdtestReport) -> Vec<Sample<Row<'_>>> {
    let mut out = Vec::new();
    for s in &r.tests {
        let step = Some(Step {
            tasks: s.tasks as u64,
            nodes: None,
        });
        for ph in s.iterations.iter().flat_map(|it| &it.phases) {
            let op = ph.operation.to_string();
            let figure = format!("{} tasks: {op}", s.tasks);
            let sample = Sample::new(op, step, "ops/s", ph.rate, Row::Mdtest(ph));
            out.push(Sample { figure, ..sample });
        }
    }
    out
}

/// md-workbench's phases, a figure each.
fn md_workbench(r: &MdwReport) -> Vec<Sample<Row<'_>>> {
    r.phases
        .iter()
        .map(|p| Sample::new(p.phase.into(), None, "iops/s", p.rate, Row::MdWorkbench(p)))
        .collect()
}

/// Each figure's mean over its repetitions, in the order of their first
/// repetition: (figure, unit, mean).
pub fn means<S>(samples: &[Sample<S>]) -> Vec<(String, String, f64)> {
    let mut seen: Vec<(String, String, f64, u32)> = Vec::new();
    for s in samples {
        let Some(v) = s.value else { continue };
        match seen.iter_mut().find(|f| f.0 == s.figure) {
            Some(f) => {
                f.2 += v;
                f.3 += 1;
            }
            None => seen.push((s.figure.clone(), s.unit.clone(), v, 1)),
        }
    }
    seen.into_iter()
        .map(|(f, u, sum, n)| (f, u, sum / n as f64))
        .collect()
}
