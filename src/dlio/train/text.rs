//! pario's own lines after training: the figures in a sentence, the
//! latency of samples and requests, where each rank's time went, and the
//! page-cache warning.

use super::report::{RankFigures, TrainReport};
use crate::latency::Percentiles;

/// Ranks shown one by one; beyond, the spread.
const RANKS_SHOWN: usize = 16;

fn gib(bytes: u64) -> String {
    let b = bytes as f64;
    match b {
        b if b >= (1u64 << 30) as f64 => format!("{:.2} GiB", b / (1u64 << 30) as f64),
        b if b >= (1u64 << 20) as f64 => format!("{:.2} MiB", b / (1u64 << 20) as f64),
        _ => format!("{bytes} B"),
    }
}

fn ms(seconds: f64) -> String {
    format!("{:.3} ms", seconds * 1e3)
}

fn latency(name: &str, p: &Option<Percentiles>) -> String {
    match p {
        Some(p) => format!(
            "pario: {name}: p50 {}, p90 {}, p99 {}, max {} ({} of them)\n",
            ms(p.p50),
            ms(p.p90),
            ms(p.p99),
            ms(p.max),
            p.count
        ),
        None => String::new(),
    }
}

fn rank_line(r: &RankFigures) -> String {
    format!(
        "pario: {:>6} {:>9.3} {:>9.3} {:>9.3} {:>12.3} {:>11}\n",
        r.rank,
        r.wait,
        r.compute,
        r.between,
        r.read_busy,
        gib(r.bytes)
    )
}

/// Where the ranks' time went: each rank, or the quickest, the median and
/// the slowest to wait when there are many.
fn ranks(report: &TrainReport) -> String {
    let mut out = String::from(
        "pario: time per rank (s):  rank   waiting computing   between readers-busy        read\n",
    );
    if report.ranks.len() <= RANKS_SHOWN {
        report.ranks.iter().for_each(|r| out += &rank_line(r));
        return out;
    }
    let mut by_wait: Vec<&RankFigures> = report.ranks.iter().collect();
    by_wait.sort_by(|a, b| a.wait.total_cmp(&b.wait));
    let picks = [0, by_wait.len() / 2, by_wait.len() - 1];
    for (label, i) in ["least waiting", "median", "most waiting"]
        .iter()
        .zip(picks)
    {
        out += &format!("pario: ({label})\n");
        out += &rank_line(by_wait[i]);
    }
    out
}

/// The text pario adds after DLIO's lines.
pub fn summary(report: &TrainReport) -> String {
    let t = &report.train;
    let met = if t.meets_expectation {
        "met"
    } else {
        "not met"
    };
    let mut out = format!(
        "pario: training: {} epochs of {} steps of {} samples on {} ranks ({}, {}), {:.3} s\n",
        report.epochs,
        report.steps_per_epoch,
        report.batch_size,
        report.ranks.len(),
        report.loader,
        report.format,
        report.seconds
    );
    out += &format!(
        "pario: AU {:.2} % (stdev {:.2}; metric.au {:.0} %: {met}), {:.2} samples/s, {:.2} MB/s of configured records\n",
        t.au_mean,
        t.au_stdev,
        report.au_threshold * 100.0,
        t.throughput_mean,
        t.io_mean_mb
    );
    out += &format!(
        "pario: read {} in {} requests\n",
        gib(report.bytes_read),
        report.requests
    );
    out += &latency("sample read latency", &report.sample_latency);
    out += &latency("request latency", &report.request_latency);
    out += &ranks(report);
    if let Some(w) = &report.page_cache_warning {
        out += &format!("pario: warning: {w}\n");
    }
    out
}
