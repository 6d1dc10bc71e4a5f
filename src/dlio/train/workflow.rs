//! The training workflow of a DLIO run: find the files, plan, train on
//! every rank, gather the figures, write DLIO's files and lines and
//! pario's.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use super::checkpoint::Checkpointer;
use super::dlio_files::{self, HostInfo, SummaryFacts};
use super::events::{metric_block, run_lines, ToSinks};
use super::files::{list, Listed};
use super::plan::{seconds_between, stamp, Reading, Silent, TrainEvents, TrainPlan};
use super::report::{self, gather, RankFigures, TrainReport};
use super::run::{train, Inputs, RankTrain};
use super::sampler::{Loader, Sharding};
use super::setup;
use crate::backend::Backend;
use crate::comm::{agree, gather_records, Comm, Record};
use crate::dlio::built::on_every_rank;
use crate::dlio::config::schema::Config;
use crate::dlio::generate::full_path;
use crate::dlio::metrics::{self, Figures};
use crate::dlio::options::ParioOptions;
use crate::dlio::sink::DlioSink;
use crate::error::{Error, Result};
use crate::latency::{merge, Percentiles};
use crate::output::Outputs;
use crate::progress::{self, Progress};

/// What training needs of a run.
pub struct RunParts<'a> {
    pub config: &'a Config,
    pub options: &'a ParioOptions,
    /// Whether the storage is a file system (a POSIX namespace).
    pub posix: bool,
    /// The file system's storage root (`None` on S3).
    pub storage_root: Option<&'a str>,
    /// Where the run started (relative paths resolve here).
    pub cwd: &'a Path,
}

impl RunParts<'_> {
    fn config(&self) -> &Config {
        self.config
    }

    fn storage_root(&self) -> Option<&str> {
        self.storage_root
    }
}

/// The file indices a rank reads of a split.
fn needed(s: &Sharding, rank: usize) -> Vec<usize> {
    match s.loader {
        Loader::TensorFlow => s.tf_files(rank).0,
        Loader::PyTorch => {
            let block = s.block(rank);
            if block.is_empty() {
                return Vec::new();
            }
            (s.locate(block.start).0..=s.locate(block.end - 1).0).collect()
        }
    }
}

/// Python's buffer: the block size of the first training file (4 KiB
/// where the storage has none).
fn block_size(paths: &[String], posix: bool) -> usize {
    let size = paths
        .first()
        .filter(|_| posix)
        .and_then(|p| std::fs::metadata(p).ok())
        .map_or(4096, |m| m.blksize() as usize);
    if size > 1 {
        size
    } else {
        8192
    }
}

/// The data's files of `split` on this rank's storage.
fn split_dir(run: &RunParts, split: &str) -> String {
    full_path(
        run.storage_root(),
        &format!("{}/{split}", run.config().dataset.data_folder),
    )
}

/// Lists and keeps this rank's files; every rank agrees on the outcome.
fn rank_files(
    comm: &dyn Comm,
    run: &RunParts,
    backend: &dyn Backend,
) -> Result<(Listed, Listed, TrainPlan)> {
    let config = run.config();
    let format = config.dataset.format.name();
    let d = &config.dataset;
    let found = (|| {
        let train = list(
            backend,
            &split_dir(run, "train"),
            format,
            d.num_files_train as usize,
            "training",
        )?;
        let eval = if config.workflow.evaluation {
            list(
                backend,
                &split_dir(run, "valid"),
                format,
                d.num_files_eval as usize,
                "evaluation",
            )?
        } else {
            Vec::new()
        };
        let posix = run.posix;
        let plan = setup::plan(config, run.options, comm.size(), block_size(&train, posix))?;
        let rank = comm.rank();
        let kept = Listed::keep(&train, needed(&plan.train, rank)).map_err(|e| e.to_string())?;
        let kept_eval = match &plan.eval {
            Some(e) => Listed::keep(&eval, needed(&e.sharding, rank)).map_err(|e| e.to_string())?,
            None => Listed::default(),
        };
        Ok::<_, String>((kept, kept_eval, plan))
    })();
    agree(comm, found.map_err(|e| Error::task(comm.rank(), e)))
}

/// The backend training reads with: the run's, or POSIX with O_DIRECT.
fn reading_backend(
    comm: &dyn Comm,
    run: &RunParts,
    outputs: &Outputs<dyn DlioSink>,
) -> Result<Option<Box<dyn Backend>>> {
    if !run.config().reader.odirect {
        return Ok(None);
    }
    let options = [("posix.odirect".to_string(), "1".to_string())]
        .into_iter()
        .collect();
    let choice = crate::backend::configure("POSIX", &options).map_err(Error::usage)?;
    on_every_rank(comm, &choice, outputs.task_lines()).map(Some)
}

/// Runs the training workflow; every rank returns the same outcome.
pub fn workflow(
    comm: &dyn Comm,
    run: &RunParts,
    outputs: &mut Outputs<dyn DlioSink>,
    backend: &dyn Backend,
    ckpt: &mut dyn Checkpointer,
    output_folder: &str,
) -> Result<TrainReport> {
    let start = stamp();
    let (train_files, eval_files, plan) = rank_files(comm, run, backend)?;
    let odirect = reading_backend(comm, run, outputs)?;
    let reader: &dyn Backend = odirect.as_deref().unwrap_or(backend);
    let rank = comm.rank();
    if rank == 0 {
        announce(outputs, run, &plan, comm, ckpt.size_gib());
    }
    let inputs = Inputs {
        backend: reader,
        train_files: &train_files,
        eval_files: &eval_files,
        posix: run.posix,
    };
    let shown = progress::wanted(true, rank).then(|| {
        let total = (plan.epochs * plan.steps) as u64;
        Progress::start("training".into(), total, 1, "steps", None)
    });
    let counter = shown.as_ref().map(|p| &p.counter);
    let trained = {
        let mut to_sinks = ToSinks {
            outputs: &mut *outputs,
            ranks: comm.size(),
        };
        let mut silent = Silent;
        let events: &mut dyn TrainEvents = if rank == 0 {
            &mut to_sinks
        } else {
            &mut silent
        };
        train(comm, &plan, &inputs, ckpt, events, counter)
    };
    drop(shown);
    let removed = ckpt
        .remove_saved()
        .map_err(|e| Error::task(rank, format!("remove the checkpoints: {e}")));
    let trained = agree(comm, trained.and_then(|t| removed.map(|()| t)));
    // Every rank's files are gone (or the run failed): the directories.
    ckpt.remove_saved_dirs();
    let trained = trained?;
    finish(
        comm,
        run,
        outputs,
        &plan,
        &trained,
        output_folder,
        &start,
        ckpt.size_gib(),
    )
}

/// DLIO's lines before training, and its caching warning.
fn announce(
    outputs: &mut Outputs<dyn DlioSink>,
    run: &RunParts,
    plan: &TrainPlan,
    comm: &dyn Comm,
    ckpt_gib: f64,
) {
    let d = &run.config().dataset;
    for line in run_lines(plan, d.num_files_train, d.num_samples_per_file, comm.size()) {
        outputs.each(|s| s.output(&line));
    }
    if run.config().workflow.checkpoint {
        let gb = format!("{ckpt_gib:.6} GB ");
        outputs.each(|s| s.output(&format!("Model size: {gb}")));
        outputs.each(|s| s.output(&format!("Total checkpoint size: {gb}")));
    }
    let here = comm.topology().ranks_on(comm.topology().node_of(0)).len();
    if data_per_host_gib(run.config(), here, comm.size()) <= crate::dlio::host::memory_gib() {
        outputs.each(|s| s.warning("The amount of dataset is smaller than the host memory; data might be cached after the first epoch. Increase the size of dataset to eliminate the caching effect!!!"));
    }
}

/// DLIO's `data_size_per_host_GB`: `npernode · spf · files // size ·
/// record_length` bytes.
pub fn data_per_host_gib(config: &Config, per_node: usize, ranks: usize) -> f64 {
    let d = &config.dataset;
    let samples =
        (per_node as u64 * d.num_samples_per_file * d.num_files_train) / ranks.max(1) as u64;
    samples as f64 * d.record_length_bytes / (1u64 << 30) as f64
}

/// A rank's host: its node, memory and processors.
#[derive(Debug, Clone, Copy)]
pub struct Host {
    pub node: usize,
    pub memory_gib: f64,
    pub cpus: usize,
}

impl Record for Host {
    const FIELDS: usize = 3;

    fn to_fields(&self) -> Vec<f64> {
        vec![self.node as f64, self.memory_gib, self.cpus as f64]
    }

    fn from_fields(f: &[f64]) -> Host {
        Host {
            node: f[0] as usize,
            memory_gib: f[1],
            cpus: f[2] as usize,
        }
    }
}

/// This rank's figures for rank 0.
fn figures_of(comm: &dyn Comm, t: &RankTrain) -> RankFigures {
    let mut f = RankFigures {
        rank: comm.rank(),
        node: comm.topology().node_of(comm.rank()),
        bytes: t.train_reads.bytes + t.eval_reads.bytes,
        requests: t.train_reads.requests + t.eval_reads.requests,
        opens: t.train_reads.opens + t.eval_reads.opens,
        read_busy: t.train_reads.busy + t.eval_reads.busy,
        ..Default::default()
    };
    let nan = Figures {
        au: f64::NAN,
        throughput: f64::NAN,
    };
    for e in &t.epochs {
        f.epochs.push(e.figures);
        f.eval.push(e.eval.as_ref().map_or(nan, |ev| ev.figures));
        let mut proc = 0.0;
        for b in &e.blocks {
            f.wait += b.steps.load.iter().sum::<f64>();
            f.compute += b.steps.compute.iter().sum::<f64>();
            proc += b.steps.proc.iter().sum::<f64>();
        }
        f.between += (seconds_between(&e.start, &e.end) - proc).max(0.0);
    }
    f
}

/// Gathers, computes DLIO's figures, writes its files and lines.
#[allow(clippy::too_many_arguments)]
fn finish(
    comm: &dyn Comm,
    run: &RunParts,
    outputs: &mut Outputs<dyn DlioSink>,
    plan: &TrainPlan,
    trained: &RankTrain,
    folder: &str,
    start: &str,
    ckpt_gib: f64,
) -> Result<TrainReport> {
    let config = run.config();
    let mine = figures_of(comm, trained);
    let all = gather(comm, &mine, trained.epochs.len())?;
    let host = Host {
        node: mine.node,
        memory_gib: crate::dlio::host::memory_gib(),
        cpus: crate::dlio::host::cpu_count(),
    };
    let hosts = gather_records(comm, 0, &host)?;
    let mut samples = trained.train_reads.sample_latency.clone();
    let _ = samples.add(&trained.eval_reads.sample_latency);
    let mut requests = trained.train_reads.request_latency.clone();
    let _ = requests.add(&trained.eval_reads.request_latency);
    let samples = merge(comm, 0, &samples)?;
    let requests = merge(comm, 0, &requests)?;
    let info = HostInfo::here();
    let per_node = comm.topology().ranks_on(mine.node).len();
    let per_host = data_per_host_gib(config, per_node, comm.size());
    write_rank_files(comm.rank(), folder, trained, &info, per_host);
    let mut report = TrainReport::default();
    if comm.rank() == 0 {
        report = build_report(run, plan, trained, all, &hosts);
        report.sample_latency = Percentiles::of(&samples);
        report.request_latency = Percentiles::of(&requests);
        report.checkpoint_gib = ckpt_gib;
        write_summary(run, &report, &hosts, &info, per_host, folder, start);
        let shown = crate::dlio::hydra::absolute(folder, run.cwd);
        outputs.each(|s| s.output(&format!("Saved outputs in {}", shown.display())));
        let block = metric_block(comm.size(), &report.train, report.eval.as_ref());
        outputs.each(|s| s.verbatim(&block));
        outputs.each(|s| s.output("outputs saved in RANKID_output.json"));
        outputs.each(|s| s.trained(&report));
    }
    Ok(report)
}

/// An output file that cannot be written is a warning.
pub fn write_or_warn(path: &Path, json: &super::json::J) {
    if let Err(e) = json.write(path) {
        eprintln!(
            "dlio_benchmark: warning: cannot write {}: {e}",
            path.display()
        );
    }
}

fn write_rank_files(rank: usize, folder: &str, t: &RankTrain, info: &HostInfo, per_host: f64) {
    let dir = Path::new(folder);
    write_or_warn(
        &dir.join(format!("{rank}_per_epoch_stats.json")),
        &dlio_files::per_epoch_stats(&t.epochs),
    );
    let caching = per_host <= info.memory_gib;
    write_or_warn(
        &dir.join(format!("{rank}_output.json")),
        &dlio_files::rank_output(&t.epochs, info, caching),
    );
}

/// Per node, the first rank's memory and processors (DLIO's lists).
pub fn per_node(hosts: &[Host]) -> (Vec<f64>, Vec<usize>) {
    let nodes = hosts.iter().map(|h| h.node + 1).max().unwrap_or(0);
    let (mut mem, mut cpus) = (vec![0.0; nodes], vec![0; nodes]);
    for h in hosts.iter().rev() {
        mem[h.node] = h.memory_gib;
        cpus[h.node] = h.cpus;
    }
    (mem, cpus)
}

fn write_summary(
    run: &RunParts,
    r: &TrainReport,
    hosts: &[Host],
    info: &HostInfo,
    per_host: f64,
    folder: &str,
    start: &str,
) {
    let d = &run.config().dataset;
    let (mem, cpus) = per_node(hosts);
    let facts = SummaryFacts {
        start,
        end: &stamp(),
        ranks: hosts.len(),
        num_files_train: d.num_files_train,
        num_files_eval: d.num_files_eval,
        samples_per_file: d.num_samples_per_file,
        train: Some(&r.train),
        eval: r.eval.as_ref(),
        checkpoints: run
            .config()
            .workflow
            .checkpoint
            .then_some((&r.checkpoints[..], r.checkpoint_gib)),
        checkpoint_keys: &[],
        node_memory_gib: &mem,
        node_cpus: &cpus,
        data_per_host_gib: per_host,
    };
    write_or_warn(
        &Path::new(folder).join("summary.json"),
        &dlio_files::summary(&facts, info),
    );
}

/// Rank 0's report from every rank's figures.
fn build_report(
    run: &RunParts,
    plan: &TrainPlan,
    t: &RankTrain,
    all: Vec<RankFigures>,
    hosts: &[Host],
) -> TrainReport {
    let config = run.config();
    let d = &config.dataset;
    let per_rank: Vec<Vec<Figures>> = all.iter().map(|r| r.epochs.clone()).collect();
    let epochs = metrics::across_ranks(&per_rank);
    let train = metrics::summary(&epochs, d.record_length_bytes, config.au);
    let eval = plan.eval.as_ref().map(|_| {
        let per_rank: Vec<Vec<Figures>> = all
            .iter()
            .map(|r| r.eval.iter().copied().filter(|f| !f.au.is_nan()).collect())
            .collect();
        metrics::summary(
            &metrics::across_ranks(&per_rank),
            d.record_length_bytes,
            config.au,
        )
    });
    let dataset_gib = (d.num_files_train * d.num_samples_per_file) as f64 * d.record_length_bytes
        / (1u64 << 30) as f64;
    let (mem, _) = per_node(hosts);
    let clients_memory_gib = mem.iter().sum();
    let seconds = match (t.epochs.first(), t.epochs.last()) {
        (Some(a), Some(b)) => seconds_between(&a.start, &b.closed),
        _ => 0.0,
    };
    TrainReport {
        loader: match plan.reading {
            Reading::PyTorch { .. } => "pytorch".into(),
            Reading::TensorFlow { .. } => "tensorflow".into(),
        },
        format: d.format.name().into(),
        epochs: plan.epochs,
        steps_per_epoch: plan.steps,
        batch_size: plan.train.batch,
        train,
        eval,
        au_threshold: config.au,
        bytes_read: all.iter().map(|r| r.bytes).sum(),
        requests: all.iter().map(|r| r.requests).sum(),
        ranks: all,
        seconds,
        dataset_gib,
        clients_memory_gib,
        page_cache_warning: report::page_cache_warning(dataset_gib, clients_memory_gib),
        checkpoints: t.epochs.iter().flat_map(|e| e.saves.clone()).collect(),
        ..Default::default()
    }
}
