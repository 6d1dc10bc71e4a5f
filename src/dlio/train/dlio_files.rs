//! DLIO's own output files, with its keys in its order
//! (utils/statscounter.py of the `mlperf_storage_v2.0` branch), so that
//! scripts and `mlpstorage reports` read pario's as DLIO's:
//! `<rank>_per_epoch_stats.json` and `<rank>_output.json` from every rank,
//! `summary.json` from rank 0.

use super::json::J;
use super::plan::{EpochRecord, SaveRecord};
use crate::dlio::metrics::{mean_stdev, Summary};

/// What DLIO says about a host.
#[derive(Debug, Clone, Default)]
pub struct HostInfo {
    pub hostname: String,
    pub memory_gib: f64,
    pub cpu_count: usize,
    pub processor_name: String,
    pub cpuinfo: Vec<(String, String)>,
    pub meminfo: Vec<(String, String)>,
}

impl HostInfo {
    pub fn here() -> HostInfo {
        HostInfo {
            hostname: crate::dlio::host::hostname(),
            memory_gib: crate::dlio::host::memory_gib(),
            cpu_count: crate::dlio::host::cpu_count(),
            processor_name: crate::dlio::host::processor_name(),
            cpuinfo: crate::dlio::host::cpuinfo(),
            meminfo: crate::dlio::host::meminfo(),
        }
    }
}

fn block_key(b: usize) -> String {
    format!("block{b}")
}

/// `<rank>_per_epoch_stats.json`.
pub fn per_epoch_stats(epochs: &[EpochRecord]) -> J {
    let mut all = J::obj();
    for e in epochs {
        let mut o = J::obj().with("start", J::str(&e.start));
        for (i, b) in e.blocks.iter().enumerate() {
            let block = J::obj()
                .with("start", J::str(&b.start))
                .with("end", J::str(&b.end))
                .with("duration", J::str(&b.duration));
            o.set(&block_key(i + 1), block);
        }
        for s in &e.saves {
            o.set(&format!("save_ckpt{}", s.block), save(s));
        }
        o.set("end", J::str(&e.end));
        o.set("duration", J::str(&e.duration));
        if let Some(ev) = &e.eval {
            let eval = J::obj()
                .with("start", J::str(&ev.start))
                .with("end", J::str(&ev.end))
                .with("duration", J::str(&ev.duration));
            o.set("eval", eval);
        }
        o.set("end", J::str(&e.closed));
        all.set(&e.epoch.to_string(), o);
    }
    all
}

fn save(s: &SaveRecord) -> J {
    J::obj()
        .with("start", J::str(&s.start))
        .with("end", J::str(&s.end))
        .with("duration", J::Num(s.duration))
        .with("throughput", J::Num(s.throughput))
}

/// `<rank>_output.json`: the host, then per epoch the step times, figures
/// and memory, then the host name.
pub fn rank_output(epochs: &[EpochRecord], host: &HostInfo, potential_caching: bool) -> J {
    let mut all = J::obj()
        .with("host_memory_GB", J::Num(host.memory_gib))
        .with("host_cpu_count", J::Int(host.cpu_count as i64))
        .with("host_processor_name", J::str(&host.processor_name))
        .with("potential_caching", J::Int(potential_caching as i64))
        .with("host_cpuinfo", J::pairs(&host.cpuinfo))
        .with("host_meminfo", J::pairs(&host.meminfo));
    for e in epochs {
        let (mut load, mut proc, mut throughput, mut au, mut compute) =
            (J::obj(), J::obj(), J::obj(), J::obj(), J::obj());
        for (i, b) in e.blocks.iter().enumerate() {
            let key = block_key(i + 1);
            load.set(&key, J::nums(&b.steps.load));
            proc.set(&key, J::nums(&b.steps.proc));
            throughput.set(&key, J::Num(b.figures.throughput));
            au.set(&key, J::Num(b.figures.au));
            compute.set(&key, J::nums(&b.steps.compute));
        }
        if let Some(ev) = &e.eval {
            load.set("eval", J::nums(&ev.steps.load));
            proc.set("eval", J::nums(&ev.steps.proc));
            compute.set("eval", J::nums(&ev.steps.compute));
            au.set("eval", J::Num(ev.figures.au));
            throughput.set("eval", J::Num(ev.figures.throughput));
        }
        let epoch = J::obj()
            .with("load", load)
            .with("proc", proc)
            .with("throughput", throughput)
            .with("au", au)
            .with("compute", compute)
            .with("host_meminfo", J::pairs(&e.meminfo))
            .with("end", J::str(&e.closed));
        all.set(&e.epoch.to_string(), epoch);
    }
    all.with("hostname", J::str(&host.hostname))
}

/// `summary.json`'s `metric` of one workflow (`train` or `eval`).
fn metric_of(prefix: &str, s: &Summary, into: &mut J) {
    let k = |name: &str| format!("{prefix}_{name}");
    into.set(&k("au_percentage"), J::nums(&s.au));
    into.set(&k("au_mean_percentage"), J::Num(s.au_mean));
    let meets = if s.meets_expectation {
        "success"
    } else {
        "fail"
    };
    into.set(&k("au_meet_expectation"), J::str(meets));
    into.set(&k("au_stdev_percentage"), J::Num(s.au_stdev));
    into.set(&k("throughput_samples_per_second"), J::nums(&s.throughput));
    into.set(
        &k("throughput_mean_samples_per_second"),
        J::Num(s.throughput_mean),
    );
    into.set(
        &k("throughput_stdev_samples_per_second"),
        J::Num(s.throughput_stdev),
    );
    into.set(&k("io_mean_MB_per_second"), J::Num(s.io_mean_mb));
    into.set(&k("io_stdev_MB_per_second"), J::Num(s.io_stdev_mb));
}

/// The checkpoints' figures (rank 0's saves): means and deviations of
/// their rates and durations, and the checkpoint's size.
fn checkpoint_metric(saves: &[SaveRecord], size_gib: f64, into: &mut J) {
    let rates: Vec<f64> = saves.iter().map(|s| s.throughput).collect();
    let durations: Vec<f64> = saves.iter().map(|s| s.duration).collect();
    let (rate, duration) = (mean_stdev(&rates), mean_stdev(&durations));
    into.set("save_checkpoint_io_mean_GB_per_second", J::Num(rate.0));
    into.set("save_checkpoint_io_stdev_GB_per_second", J::Num(rate.1));
    into.set("save_checkpoint_duration_mean_seconds", J::Num(duration.0));
    into.set("save_checkpoint_duration_stdev_seconds", J::Num(duration.1));
    into.set("checkpoint_size_GB", J::Num(size_gib));
}

/// What `summary.json` holds beyond the host.
pub struct SummaryFacts<'a> {
    pub start: &'a str,
    pub end: &'a str,
    pub ranks: usize,
    pub num_files_train: u64,
    pub num_files_eval: u64,
    pub samples_per_file: u64,
    /// `None` for a checkpoint-only run.
    pub train: Option<&'a Summary>,
    pub eval: Option<&'a Summary>,
    /// Rank 0's checkpoint saves and the checkpoint's size, when
    /// `workflow.checkpoint`.
    pub checkpoints: Option<(&'a [SaveRecord], f64)>,
    /// The checkpoint-only workflow's keys, in order (instead of the
    /// above).
    pub checkpoint_keys: &'a [(String, f64)],
    /// Per node: memory (GB) and processors.
    pub node_memory_gib: &'a [f64],
    pub node_cpus: &'a [usize],
    pub data_per_host_gib: f64,
}

/// `summary.json`.
pub fn summary(f: &SummaryFacts<'_>, host: &HostInfo) -> J {
    let mut metric = J::obj();
    if let Some((saves, size)) = f.checkpoints {
        checkpoint_metric(saves, size, &mut metric);
    }
    for (k, v) in f.checkpoint_keys {
        metric.set(k, J::Num(*v));
    }
    if let Some(train) = f.train {
        metric_of("train", train, &mut metric);
    }
    if let Some(eval) = f.eval {
        metric_of("eval", eval, &mut metric);
    }
    let caching: Vec<J> = f
        .node_memory_gib
        .iter()
        .map(|&m| J::Int((m > f.data_per_host_gib) as i64))
        .collect();
    J::obj()
        .with("start", J::str(f.start))
        .with("num_accelerators", J::Int(f.ranks as i64))
        .with("num_hosts", J::Int(f.node_memory_gib.len() as i64))
        .with("hostname", J::str(&host.hostname))
        .with("metric", metric)
        .with("num_files_train", J::Int(f.num_files_train as i64))
        .with("num_files_eval", J::Int(f.num_files_eval as i64))
        .with("num_samples_per_file", J::Int(f.samples_per_file as i64))
        .with(
            "host_cpu_count",
            J::List(f.node_cpus.iter().map(|&c| J::Int(c as i64)).collect()),
        )
        .with("host_processor_name", J::str(&host.processor_name))
        .with("potential_caching", J::List(caching))
        .with("host_cpuinfo", J::pairs(&host.cpuinfo))
        .with("host_meminfo", J::pairs(&host.meminfo))
        .with("host_memory_GB", J::nums(f.node_memory_gib))
        .with("data_size_per_host_GB", J::Num(f.data_per_host_gib))
        .with("epochs", J::Int(f.train.map_or(0, |t| t.au.len()) as i64))
        .with("end", J::str(f.end))
}
