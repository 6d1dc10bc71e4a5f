//! The page cache before each read: the share of the data already in the
//! node's memory, from ior's rows and from io500's ior phases. A read is
//! suspect only where the tool said so: O_DIRECT reads bypass the cache,
//! and reads of data another node wrote (`-C`/`-Q` across nodes) do not
//! find it in this node's, whatever the share says.

use crate::compare::{ResultFile, Sample, Source};
use crate::io500::results::PhaseReport;
use crate::pagecache::CacheReport;

/// A read's page cache.
#[derive(Debug, Clone, PartialEq)]
pub struct CacheRow {
    /// The figure and repetition (`test 0 read #1`).
    pub row: String,
    /// Which part of the result: a sweep's step (`4 tasks`), io500's phase.
    pub part: Option<String>,
    /// The share resident when the read began (after an eviction, if any).
    pub fraction: f64,
    /// The tool's warning, if it gave one.
    pub warning: Option<String>,
    /// Why a large share is no concern, if it is none.
    pub exempt: Option<&'static str>,
}

impl CacheRow {
    fn of(row: String, part: Option<String>, c: &CacheReport) -> CacheRow {
        let exempt = match (c.direct, c.cross_node, c.after_eviction.is_some()) {
            (true, _, _) => Some("O_DIRECT"),
            (_, true, _) => Some("another node's data"),
            (_, _, true) => Some("evicted first"),
            _ => None,
        };
        CacheRow {
            row,
            part,
            fraction: c.at_read().fraction(),
            warning: c.warning.clone(),
            exempt,
        }
    }
}

/// The reads of a result: ior's rows (a sweep's named by their step),
/// io500's ior phases (named by the phase).
pub fn rows(doc: &ResultFile, walked: &[Sample<'_>]) -> Vec<CacheRow> {
    let sweep = walked.iter().any(|s| s.step != walked[0].step);
    let mut out = Vec::new();
    for s in walked {
        let (Some(c), Some(rep)) = (s.source.page_cache(), s.source.iteration()) else {
            continue;
        };
        let part = s.step.filter(|_| sweep).map(|st| tasks(st.tasks));
        out.push(CacheRow::of(format!("{} #{rep}", s.figure), part, c));
    }
    if let ResultFile::Io500(d) = doc {
        for p in &d.phases {
            let Some(PhaseReport::Tool(t)) = &p.report else {
                continue;
            };
            for s in t.samples() {
                let source = Source::Row(s.source);
                if let (Some(c), Some(rep)) = (source.page_cache(), source.iteration()) {
                    let row = format!("{} #{rep}", p.name);
                    out.push(CacheRow::of(row, Some(p.name.clone()), c));
                }
            }
        }
    }
    out
}

/// `4 tasks`, `1 task`.
pub fn tasks(n: u64) -> String {
    match n {
        1 => "1 task".into(),
        n => format!("{n} tasks"),
    }
}
