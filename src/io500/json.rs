//! `result.json`: the run as one document, beyond the harness's files:
//! every phase's figures, verdicts and the tool's own report (latency
//! percentiles, page cache before reads, slowest task, stonewall counts).
//! The schema is in docs/output.md.

use serde_json::{json, Map, Value};

use super::dirs::Dirs;
use super::driver::Finished;
use super::results::{Line, PhaseOutcome, Score};
use super::Io500Run;

/// The document; `hash` gives a score's hash (`true`: `[SCOREX]`).
pub fn document(
    r: &Io500Run,
    dirs: &Dirs,
    began: &str,
    f: &Finished,
    hash: impl Fn(&Score, bool) -> u32,
) -> Value {
    let score = |s: &Score, extended: bool| {
        json!({
            "bandwidth_gib_s": s.bw,
            "metadata_kiops": s.md,
            "total": s.total,
            "valid": s.valid,
            "hash": format!("{:X}", hash(s, extended)),
        })
    };
    let mut doc = json!({
        "version": super::version(),
        "mode": r.mode.name(),
        "api": r.api(),
        "procs": f.procs,
        "config_hash": format!("{:X}", r.config.config_hash()),
        "data_dir": dirs.data,
        "result_dir": dirs.results,
        "started": began,
        "phases": f.outcomes.iter().map(|o| phase(o, f.extended.is_some())).collect::<Vec<_>>(),
        "score": score(&f.score, false),
        "scorex": f.extended.as_ref().map(|x| score(x, true)),
    });
    // pario's extensions: present only when run, so that a run without
    // them has the same document.
    if let Some(x) = &f.concurrent {
        doc["extensions"] = json!({ "concurrent": x.json() });
    }
    doc
}

fn phase(o: &PhaseOutcome, extended: bool) -> Value {
    let mut values = Map::new();
    let (mut invalid, mut warnings) = (Vec::new(), Vec::new());
    for line in &o.lines {
        match line {
            Line::Value(k, v) => {
                values.insert(k.clone(), Value::String(v.clone()));
            }
            Line::Invalid(why) => invalid.push(why.clone()),
            Line::Warning(why) => warnings.push(why.clone()),
        }
    }
    json!({
        "name": o.phase.name,
        "unit": o.phase.unit(),
        "score": o.score,
        "scored": o.phase.counts(extended),
        "valid": invalid.is_empty(),
        "invalid": invalid,
        "warnings": warnings,
        "skipped": o.skipped,
        "exe": o.exe,
        "t_start": o.t_start,
        "t_end": o.t_end,
        "t_delta_s": o.t_delta,
        "values": values,
        "report": o.report,
    })
}
