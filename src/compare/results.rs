//! A result file of any of pario's tools, read back through the types that
//! wrote it (ior's, mdtest's and md-workbench's reports, io500's
//! `result.json`, dlio_benchmark's pario JSON), and its samples: every
//! repetition of every figure, in the file's order, the one walk `compare`
//! and `report` share.

use serde::de::IgnoredAny;
use serde::Deserialize;

use crate::concurrent::tools::{self, Row, ToolReport};
use crate::dlio::report::DlioReport;
use crate::io500::json::{PhaseJson, ResultJson, ScoreJson};
use crate::ior::results::TaskSpread;
use crate::ior::stonewall_result::StonewallResult;
use crate::latency::Percentiles;
use crate::pagecache::CacheReport;
use crate::run::system::System;
use crate::series::Timeline;
use crate::units::MIB;

/// A result file, read.
#[derive(Debug, Clone)]
pub enum ResultFile {
    Tool(ToolReport),
    Io500(Box<ResultJson>),
    Dlio(Box<DlioReport>),
}

/// One repetition of a figure of a result file.
pub type Sample<'a> = tools::Sample<Source<'a>>;

/// Where a sample is from.
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    /// A row of a tool's report.
    Row(Row<'a>),
    /// A phase of io500's.
    Io500Phase(&'a PhaseJson),
    /// io500's score.
    Io500Score(&'a ScoreJson),
    /// A figure of dlio_benchmark's (an epoch's AU or samples/s, a
    /// checkpoint's GB/s).
    Dlio,
}

/// The keys only io500's `result.json` has at its top.
#[derive(Deserialize)]
struct Io500Layout {
    config_hash: Option<IgnoredAny>,
}

const NOT_A_RESULT: &str =
    "not a result document of ior, mdtest, md-workbench, io500 or dlio_benchmark";

impl ResultFile {
    /// The file at `path`; an error is one line naming the file and, when
    /// the file has the wrong layout, the field.
    pub fn read(path: &str) -> Result<ResultFile, String> {
        let text = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        ResultFile::parse(&text).map_err(|e| format!("{path}: {e}"))
    }

    /// A document's bytes, read by the type its layout names: the field
    /// that is not as that type has it is named (`tests[0].Results[1].bwMiB:
    /// invalid type: ...`).
    pub fn parse(text: &[u8]) -> Result<ResultFile, String> {
        let doc: serde_json::Value = serde_json::from_slice(text).map_err(|e| e.to_string())?;
        if super::dlio::is_dlio(&doc) {
            return tools::typed(&doc).map(ResultFile::Dlio);
        }
        let io500 = Io500Layout::deserialize(&doc).map_err(|_| NOT_A_RESULT.to_string())?;
        match (io500.config_hash, ToolReport::kind_of(&doc)) {
            (Some(_), _) => tools::typed(&doc).map(ResultFile::Io500),
            (None, Some(_)) => ToolReport::from_value(&doc).map(ResultFile::Tool),
            (None, None) => Err(NOT_A_RESULT.into()),
        }
    }

    /// Every repetition of every figure, in the file's order.
    pub fn samples(&self) -> Vec<Sample<'_>> {
        match self {
            ResultFile::Tool(r) => r
                .samples()
                .into_iter()
                .map(|s| s.map(Source::Row))
                .collect(),
            ResultFile::Io500(doc) => io500(doc),
            ResultFile::Dlio(r) => super::dlio::samples(r)
                .into_iter()
                .map(|s| s.map(|()| Source::Dlio))
                .collect(),
        }
    }

    /// Where the run ran, when its file records it.
    pub fn system(&self) -> Option<&System> {
        match self {
            ResultFile::Tool(ToolReport::Ior(r)) => r.header.pario.system.as_ref(),
            ResultFile::Tool(ToolReport::Mdtest(r)) => r.header.pario.system.as_ref(),
            ResultFile::Tool(ToolReport::MdWorkbench(r)) => r.pario.system.as_ref(),
            ResultFile::Io500(d) => d.system.as_ref(),
            ResultFile::Dlio(r) => r.system.as_ref(),
        }
    }
}

/// io500's phases, a figure each, and its score.
fn io500(doc: &ResultJson) -> Vec<Sample<'_>> {
    let mut out: Vec<Sample<'_>> = doc
        .phases
        .iter()
        .map(|p| {
            tools::Sample::new(
                p.name.clone(),
                None,
                &p.unit,
                p.score,
                Source::Io500Phase(p),
            )
        })
        .collect();
    let score = Source::Io500Score(&doc.score);
    out.push(tools::Sample::new(
        "score".into(),
        None,
        "",
        doc.score.total,
        score,
    ));
    out
}

/// `v`, unless JSON could not hold it (it reads back as NaN).
fn finite(v: f64) -> Option<f64> {
    v.is_finite().then_some(v)
}

/// What a sample's row says besides its figure.
impl Source<'_> {
    /// ior's operations per second.
    pub fn iops(&self) -> Option<f64> {
        match self {
            Source::Row(Row::Ior(r)) => finite(r.iops),
            _ => None,
        }
    }

    /// Its latency percentiles: the row's (ior, mdtest), or each
    /// operation's (md-workbench: `read`, `stat`, ...).
    pub fn latency(&self) -> Vec<(Option<&'static str>, &Percentiles)> {
        match self {
            Source::Row(Row::Ior(r)) => r.latency_percentiles.iter().map(|p| (None, p)).collect(),
            Source::Row(Row::Mdtest(r)) => r.latency.iter().map(|p| (None, p)).collect(),
            Source::Row(Row::MdWorkbench(r)) => r
                .latency
                .iter()
                .map(|o| (Some(o.op.name()), &o.p))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// ior's repetition (from 0).
    pub fn iteration(&self) -> Option<u64> {
        match self {
            Source::Row(Row::Ior(r)) => Some(r.iteration),
            _ => None,
        }
    }

    /// ior's tasks in the row.
    pub fn tasks(&self) -> Option<usize> {
        match self {
            Source::Row(Row::Ior(r)) => Some(r.tasks),
            _ => None,
        }
    }

    /// ior's fastest and slowest task.
    pub fn task_times(&self) -> Option<&TaskSpread> {
        match self {
            Source::Row(Row::Ior(r)) => r.spread.as_ref(),
            _ => None,
        }
    }

    /// ior's page cache before a read.
    pub fn page_cache(&self) -> Option<&CacheReport> {
        match self {
            Source::Row(Row::Ior(r)) => r.page_cache.as_ref(),
            _ => None,
        }
    }

    /// What ior's stonewall did.
    pub fn stonewall(&self) -> Option<&StonewallResult> {
        match self {
            Source::Row(Row::Ior(r)) => r.stonewall.as_ref(),
            _ => None,
        }
    }

    /// The signal that cut the repetition short.
    pub fn interrupted(&self) -> Option<&str> {
        match self {
            Source::Row(Row::Ior(r)) => r.interrupted.as_deref(),
            Source::Row(Row::Mdtest(r)) => r.interrupted,
            _ => None,
        }
    }

    /// The phase's counts over time, per task and in total, and what one
    /// count is in the figure's unit and seconds (ior's bytes per
    /// transfer in MiB; an item or operation is one).
    pub fn timeline(&self) -> Option<(&Timeline, f64)> {
        match self {
            Source::Row(Row::Ior(r)) => {
                let per = r.bytes as f64 / r.transfers.max(1) as f64 / MIB as f64;
                r.timeline.as_ref().map(|t| (t, per))
            }
            Source::Row(Row::Mdtest(r)) => r.timeline.as_ref().map(|t| (t, 1.0)),
            Source::Row(Row::MdWorkbench(r)) => r.timeline.as_ref().map(|t| (t, 1.0)),
            _ => None,
        }
    }

    /// How long the phase took: ior's open to close, mdtest's phase,
    /// md-workbench's slowest task.
    pub fn seconds(&self) -> Option<f64> {
        match self {
            Source::Row(Row::Ior(r)) => finite(r.total),
            Source::Row(Row::Mdtest(r)) => finite(r.time_s),
            Source::Row(Row::MdWorkbench(r)) => finite(r.max_s),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/report");

    #[test]
    fn results_read_back_as_they_were_written() {
        let names = [
            "ior",
            "ior-4k",
            "sweep",
            "mdtest",
            "md-workbench",
            "io500",
            "dlio",
        ];
        for name in names {
            let path = format!("{DATA}/{name}.json");
            let doc = ResultFile::read(&path).unwrap_or_else(|e| panic!("{e}"));
            let file: serde_json::Value =
                serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let again = match &doc {
                ResultFile::Tool(r) => serde_json::to_value(r).unwrap(),
                ResultFile::Io500(d) => serde_json::to_value(d).unwrap(),
                ResultFile::Dlio(r) => serde_json::to_value(r).unwrap(),
            };
            assert_eq!(again, file, "{name}");
        }
    }
}
