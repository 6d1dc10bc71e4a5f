//! A checkpoint run in text: DLIO's `[METRIC]` block (statscounter.py
//! `end_run`) and pario's lines beside it.

use super::report::{CheckpointReport, Direction, DurationRule};
use crate::units::human_bytes;

const RULE: &str = "[METRIC] ==========================================================";

/// DLIO's block, as it writes it (one `[OUTPUT]` message without a time
/// stamp, and an empty line).
pub fn metric_block(r: &CheckpointReport) -> String {
    let mut out = format!(
        "[OUTPUT] Averaged metric over all steps/epochs\n{RULE}\n[METRIC] Number of Simulated Accelerators: {} \n",
        r.ranks
    );
    for line in r.metric_lines() {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(RULE);
    out.push_str("\n\n");
    out
}

fn direction(name: &str, d: &Direction, rule: DurationRule) -> String {
    let f = &d.figures;
    let other = match rule {
        DurationRule::Slowest => "rank 0",
        DurationRule::RankZero => "slowest rank",
    };
    let o = match rule {
        DurationRule::Slowest => &d.rank0,
        DurationRule::RankZero => &d.figures,
    };
    let mut line = format!(
        "pario: {name}: {} checkpoint(s), {:.4} s ({:.4}) and {:.4} GB/s ({:.4}); by {other}'s time {:.4} s, {:.4} GB/s; {} requests, {}",
        d.steps.len(),
        f.duration_mean,
        f.duration_stdev,
        f.io_mean,
        f.io_stdev,
        o.duration_mean,
        o.io_mean,
        d.requests,
        human_bytes(d.bytes)
    );
    if d.fsyncs > 0 {
        line.push_str(&format!(
            ", {} fsyncs ({:.3} s of the ranks' {:.3} s)",
            d.fsyncs,
            d.fsync_seconds,
            d.io_seconds + d.fsync_seconds
        ));
    }
    if let Some(l) = &d.latency {
        line.push_str(&format!(
            "; request latency p50 {:.6} s, p99 {:.6} s, max {:.6} s",
            l.p50, l.p99, l.max
        ));
    }
    line.push('\n');
    for &(k, rank, secs) in &d.stragglers {
        line.push_str(&format!(
            "pario: {name} {k}: rank {rank} took {secs:.4} s, over 1.5 times the median\n"
        ));
    }
    for s in &d.steps {
        if let Some(w) = s.cache.as_ref().and_then(|c| c.warning.as_ref()) {
            line.push_str(&format!("pario: {name} {}: {w}\n", s.index));
        }
    }
    line
}

/// pario's lines: what ran, each direction's figures by both rules,
/// requests, fsync time, latency, stragglers, the page cache, what is
/// left on storage.
pub fn pario_lines(r: &CheckpointReport) -> String {
    let rule = match r.duration_rule {
        DurationRule::Slowest => "the slowest rank's time (the rules)",
        DurationRule::RankZero => "rank 0's time (DLIO's code)",
    };
    let mut out = format!(
        "pario: checkpoint {} on {} ranks ({} mode): {} files, {} a checkpoint (checkpoint_size {:.6} GB); fsync {}; requests {}; figures by {rule}\n",
        r.model,
        r.ranks,
        r.mode,
        r.files,
        human_bytes(r.bytes),
        r.checkpoint_size_gb,
        if r.fsync { "on" } else { "off" },
        r.pattern,
    );
    if !r.saves.steps.is_empty() {
        out.push_str(&direction("save", &r.saves, r.duration_rule));
    }
    if !r.loads.steps.is_empty() {
        out.push_str(&direction("load", &r.loads, r.duration_rule));
    }
    for n in &r.notes {
        out.push_str(&format!("pario: {n}\n"));
    }
    if !r.saves.steps.is_empty() {
        out.push_str(if r.kept {
            "pario: the checkpoints stay on storage (pario.keep_checkpoints)\n"
        } else {
            "pario: the checkpoints written were removed\n"
        });
    }
    out
}
