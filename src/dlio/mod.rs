//! `dlio_benchmark`: DLIO (argonne-lcf/dlio_benchmark, its
//! `mlperf_storage_v2.0` branch, as MLPerf Storage v2.0 runs it), native.
//!
//! [`args`] reads DLIO's Hydra command line; [`config`] composes the
//! bundled `config.yaml`, a workload file ([`workloads`]) and the overrides
//! and types them by DLIO's schema; [`options`] holds pario's own settings
//! (`pario.*`: the table of departures from DLIO); [`hydra`] writes Hydra's
//! output files; [`dataset`] names and sizes the files with numpy's draws
//! ([`random_state`]); [`generate`] writes them; [`datasize`] is
//! `mlpstorage training datasize`; [`train`] runs the training workflow
//! and [`metrics`] computes its figures as DLIO does.

pub mod args;
pub mod built;
pub mod checkpoint;
pub mod config;
pub mod dataset;
pub mod datasize;
pub mod generate;
pub mod host;
pub mod hydra;
pub mod metrics;
pub mod options;
pub mod random_state;
pub mod report;
pub mod sink;
pub mod train;
pub mod workloads;

use std::io;
use std::path::{Path, PathBuf};

use crate::backend::{Backend, Choice};
use crate::comm::{agree, broadcast_value, Comm, Topology};
use crate::error::{Error, UsageError};
use crate::options::Grammar;
use crate::output::{NotesOnly, Outputs, Summary, Text};
use crate::run::system::System;
use crate::tool::{Finished, Parsed, Tasks, Tool};

use config::schema::{Config, StorageType};
use config::Loaded;
use report::DlioReport;
use sink::DlioSink;

/// A parsed and checked DLIO invocation: what the training side reads.
#[derive(Debug, Clone)]
pub struct DlioRun {
    /// The composition, typed configuration and pario's settings.
    pub loaded: Loaded,
    /// Where pario's document goes (`--summaryFormat`, `--summaryFile`).
    pub summary: Summary,
    /// The storage backend: POSIX for `local_fs`, S3 for `s3`.
    pub backend: Choice,
    /// The directory the run was started in (relative paths resolve here).
    pub cwd: PathBuf,
}

impl DlioRun {
    pub fn config(&self) -> &Config {
        &self.loaded.config
    }

    /// DLIO's output folder: `output.folder`, else Hydra's run directory.
    pub fn output_folder(&self) -> String {
        self.config()
            .output
            .folder
            .clone()
            .unwrap_or_else(|| self.loaded.run_dir.clone())
    }

    /// The storage root for file-system paths (`None` on S3, whose root is
    /// the bucket).
    pub fn storage_root(&self) -> Option<&str> {
        match self.config().storage.storage_type {
            StorageType::S3 => None,
            _ => Some(self.config().storage.storage_root.as_str()),
        }
    }
}

/// The `dlio_benchmark` tool.
pub struct Dlio;

/// The backend of a configuration: its storage type, with the module
/// options given (`--s3.endpoint=...`) and the bucket from `storage_root`.
fn backend_of(
    config: &Config,
    mut modules: std::collections::BTreeMap<String, String>,
) -> Result<Choice, String> {
    let api = match config.storage.storage_type {
        StorageType::S3 => {
            modules
                .entry("s3.bucket".into())
                .or_insert_with(|| config.storage.storage_root.clone());
            "S3"
        }
        _ => "POSIX",
    };
    crate::backend::configure(api, &modules).map_err(|e| format!("workload.storage: {e}"))
}

impl Tool for Dlio {
    type Options = args::DlioArgs;
    type Params = DlioRun;
    type Report = DlioReport;
    type Sink = dyn DlioSink;

    const NAME: &'static str = "dlio_benchmark";
    const ABOUT: &'static str =
        "deep-learning I/O: DLIO's workloads and MLPerf Storage's (drop-in for dlio_benchmark)";

    fn grammar(&self) -> Grammar<args::DlioArgs> {
        args::grammar()
    }

    fn help(&self) -> String {
        let mut names: Vec<&str> = workloads::DLIO
            .iter()
            .chain(workloads::MLPERF)
            .map(|(n, _)| *n)
            .collect();
        names.sort_unstable();
        format!(
            "Usage: dlio_benchmark workload=NAME [++workload.KEY=VALUE ...] [++hydra.run.dir=DIR] [--config-dir=DIR]\n\n\
             Workloads shipped: {}\n\n{}\n{}",
            names.join(", "),
            self.grammar().options_text(),
            options::help()
        )
    }

    fn parse(&self, _program: &str, args: &[String]) -> Result<Parsed<DlioRun>, UsageError> {
        let args = args::long_spellings(args).map_err(UsageError)?;
        let line = self
            .grammar()
            .parse_command_line(&args, args::DlioArgs::default())?;
        if line.help {
            return Ok(Parsed::Help);
        }
        let a = line.params;
        a.summary.check().map_err(UsageError)?;
        let cwd = std::env::current_dir()
            .map_err(|e| UsageError(format!("the current directory: {e}")))?;
        let now = chrono::Local::now();
        let dir = a.config_dir.as_deref().map(Path::new);
        let loaded = config::load(&a.overrides, dir, &now).map_err(UsageError)?;
        config::validate(&loaded.config).map_err(UsageError)?;
        let backend = backend_of(&loaded.config, a.modules).map_err(UsageError)?;
        Ok(Parsed::Run(DlioRun {
            loaded,
            summary: a.summary,
            backend,
            cwd,
        }))
    }

    /// The checks that need the rank count, before any output is opened:
    /// the training plan's, and the checkpoint layout's (DLIO's, and
    /// whether the target holds the checkpoints).
    fn check_tasks(&self, run: &DlioRun, tasks: Tasks) -> Result<(), UsageError> {
        if run.config().workflow.train {
            train::setup::plan(run.config(), &run.loaded.options, tasks.total, 4096)
                .map_err(UsageError)?;
        }
        let root = run.storage_root();
        checkpoint::setup::check(
            run.config(),
            &run.loaded.options,
            &run.backend,
            root,
            tasks.total,
            tasks.here,
        )
        .map_err(UsageError)
    }

    fn summary<'p>(&self, run: &'p DlioRun) -> &'p Summary {
        &run.summary
    }

    /// The text, and DLIO's files: Hydra's three and `dlio.log` (rank 0,
    /// before the run).
    fn sinks(&self, run: &DlioRun, text: Text) -> io::Result<Vec<Box<dyn DlioSink>>> {
        let mut sinks: Vec<Box<dyn DlioSink>> = vec![match text {
            Text::Full(out) => Box::new(sink::DlioText::new(out, 0)),
            Text::LogOnly(out) => Box::new(NotesOnly::new(out, 0)),
        }];
        let output = PathBuf::from(run.output_folder());
        std::fs::create_dir_all(&output)?;
        write_hydra(run, &run.loaded.run_dir)?;
        let log = output.join(&run.config().output.log_file);
        sinks.push(Box::new(sink::DlioLog::create(&log)?));
        Ok(sinks)
    }

    fn run(
        &self,
        comm: &dyn Comm,
        run: &DlioRun,
        outputs: &mut Outputs<dyn DlioSink>,
    ) -> Finished<DlioReport> {
        let mut report = DlioReport {
            tool: Self::NAME.into(),
            workload: run.loaded.composed.workload.clone(),
            ranks: comm.size(),
            output_folder: run.output_folder(),
            config: serde_json::to_value(run.config()).unwrap_or_default(),
            pario: serde_json::to_value(&run.loaded.options).unwrap_or_default(),
            generation: None,
            training: None,
            checkpoint: None,
            system: None,
        };
        let result = workflows(comm, run, outputs, &mut report);
        Finished { report, result }
    }
}

/// Hydra's three files in `run_dir` (rank 0's run directory).
fn write_hydra(run: &DlioRun, run_dir: &str) -> io::Result<()> {
    if let Some(dir) = hydra::dir(&run.loaded.composed, run_dir) {
        std::fs::create_dir_all(&dir)?;
        let absolute = hydra::absolute(run_dir, &run.cwd);
        for (name, text) in hydra::files(&run.loaded.composed, &absolute, &run.cwd) {
            std::fs::write(dir.join(name), text)?;
        }
    }
    Ok(())
}

/// DLIO has every rank write Hydra's files (and make the output folder);
/// pario's rank 0 wrote them when it opened its outputs, which is all a
/// shared directory needs. On another node that does not see them (a
/// node-local directory) its first rank writes the same files, so every
/// node holds them as under DLIO. `dlio.log` stays rank 0's: DLIO's other
/// ranks log nothing at its default level.
fn on_other_nodes(comm: &dyn Comm, run: &DlioRun, folder: &str, run_dir: &str) -> io::Result<()> {
    if !copies_hydra(comm.topology(), comm.rank()) {
        return Ok(());
    }
    std::fs::create_dir_all(folder)?;
    match hydra::dir(&run.loaded.composed, run_dir) {
        Some(dir) if !dir.join("config.yaml").exists() => write_hydra(run, run_dir),
        _ => Ok(()),
    }
}

/// Whether `rank` is the first rank of a node other than rank 0's: the one
/// that makes sure its node holds Hydra's files.
fn copies_hydra(topology: &Topology, rank: usize) -> bool {
    let node = topology.node_of(rank);
    node != topology.node_of(0) && topology.ranks_on(node).first() == Some(&rank)
}

/// The workflows of the run, in DLIO's order.
fn workflows(
    comm: &dyn Comm,
    run: &DlioRun,
    outputs: &mut Outputs<dyn DlioSink>,
    report: &mut DlioReport,
) -> crate::error::Result<()> {
    // Every rank takes rank 0's output folder (`${now:...}` was resolved
    // by each process when it parsed).
    let folder = broadcast_value(comm, 0, &report.output_folder)?;
    let run_dir = broadcast_value(comm, 0, &run.loaded.run_dir)?;
    let copies = on_other_nodes(comm, run, &folder, &run_dir)
        .map_err(|e| Error::task(comm.rank(), format!("Hydra's files in {run_dir}: {e}")));
    agree(comm, copies)?;
    report.output_folder = folder;
    let backend = built::on_every_rank(comm, &run.backend, outputs.task_lines())?;
    report.system = run_system(comm, run, backend.as_ref());
    if comm.rank() == 0 {
        let mut mode = Vec::new();
        let w = &run.config().workflow;
        let named = [
            (w.generate_data, "Generating data"),
            (w.train, "Training"),
            (w.evaluation, "Evaluation"),
            (w.checkpoint, "Checkpointing"),
        ];
        mode.extend(named.iter().filter(|(on, _)| *on).map(|(_, name)| *name));
        outputs.each(|s| s.started(&mode.join(" & "), comm.size(), &run.loaded.options));
    }
    if run.config().workflow.generate_data {
        if comm.rank() == 0 {
            outputs.each(|s| s.output("Starting data generation"));
        }
        let done = generate::generate(
            comm,
            run.config(),
            &run.loaded.options,
            backend.as_ref(),
            run.storage_root(),
        )?;
        if comm.rank() == 0 {
            outputs.each(|s| s.output("Generation done"));
            outputs.each(|s| s.generated(&done));
        }
        report.generation = Some(done);
    }
    if run.config().workflow.train {
        let folder = report.output_folder.clone();
        let parts = train::workflow::RunParts {
            config: run.config(),
            options: &run.loaded.options,
            posix: run.backend.capabilities().posix_namespace,
            storage_root: run.storage_root(),
            cwd: &run.cwd,
        };
        let direct = checkpoint_backend(comm, run, outputs)?;
        let mut ckpt = checkpoint::training::checkpointer(
            comm,
            run.config(),
            &run.loaded.options,
            &run.backend,
            run.storage_root(),
            direct.as_deref().unwrap_or(backend.as_ref()),
        )?;
        let trained = train::workflow::workflow(
            comm,
            &parts,
            outputs,
            backend.as_ref(),
            ckpt.as_mut(),
            &folder,
        )?;
        report.training = Some(trained);
    }
    let w = &run.config().workflow;
    if w.checkpoint && !w.train {
        let folder = report.output_folder.clone();
        let done = checkpoint_only(comm, run, backend.as_ref(), outputs, &folder)?;
        report.checkpoint = Some(done);
    }
    Ok(())
}

/// Where the run is (rank 0): the nodes, and the file system of the data
/// folder or the object store (a collective, before any workflow).
fn run_system(comm: &dyn Comm, run: &DlioRun, backend: &dyn Backend) -> Option<System> {
    let data = run
        .storage_root()
        .map(|root| Path::new(root).join(&run.config().dataset.data_folder));
    let mut system = System::of_run(comm, data.as_deref())?;
    if let Some(client) = backend.object_client() {
        system.in_object_store(format!("{} ({client})", backend.name()));
    }
    Some(system)
}

/// The backend checkpoints use when it is not the run's: POSIX with
/// O_DIRECT (`pario.checkpoint_odirect`), built on every rank.
fn checkpoint_backend(
    comm: &dyn Comm,
    run: &DlioRun,
    outputs: &Outputs<dyn DlioSink>,
) -> crate::error::Result<Option<Box<dyn crate::backend::Backend>>> {
    let options = &run.loaded.options;
    if !options.checkpoint.odirect {
        return Ok(None);
    }
    let choice = checkpoint::setup::backend_choice(run.config(), options, &run.backend)
        .map_err(Error::usage)?;
    built::on_every_rank(comm, &choice, outputs.task_lines()).map(Some)
}

/// The checkpoint workflow without training; its lines to the outputs.
fn checkpoint_only(
    comm: &dyn Comm,
    run: &DlioRun,
    backend: &dyn crate::backend::Backend,
    outputs: &mut Outputs<dyn DlioSink>,
    folder: &str,
) -> crate::error::Result<checkpoint::report::CheckpointReport> {
    let rank = comm.rank();
    let root = run.storage_root();
    let options = &run.loaded.options;
    let direct = checkpoint_backend(comm, run, outputs)?;
    let backend = direct.as_deref().unwrap_or(backend);
    let mut say = |line: checkpoint::plan::Said| match (rank, line) {
        (0, checkpoint::plan::Said::Dlio(m)) => outputs.each(|s| s.output(m)),
        (0, checkpoint::plan::Said::Pario(m)) => outputs.note(0, &format!("pario: {m}")),
        _ => {}
    };
    let config = run.config();
    let ran = checkpoint::run_only(comm, config, options, &run.backend, root, backend, &mut say)?;
    let epoch = checkpoint::files::Epoch {
        start: &ran.start,
        end: &ran.end,
    };
    checkpoint::files::write(comm, config, folder, &epoch, &ran.own, &ran.report)?;
    if rank == 0 {
        let shown = hydra::absolute(folder, &run.cwd);
        outputs.each(|s| s.output(&format!("Saved outputs in {}", shown.display())));
        let block = checkpoint::text::metric_block(&ran.report);
        outputs.each(|s| s.verbatim(&block));
        outputs.each(|s| s.output("outputs saved in RANKID_output.json"));
        outputs.each(|s| s.checkpointed(&ran.report));
    }
    Ok(ran.report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hydra_copied_by_the_first_rank_of_each_other_node() {
        // Three nodes of two ranks, round robin (0 3 | 1 4 | 2 5) and blocks.
        let spread = Topology::fake(6, Some("3"), Some("2"), None)
            .unwrap()
            .unwrap();
        let copying: Vec<usize> = (0..6).filter(|&r| copies_hydra(&spread, r)).collect();
        let firsts: Vec<usize> = (1..3).map(|n| spread.ranks_on(n)[0]).collect();
        assert_eq!(copying, firsts);
        let one = Topology::fake(4, Some("1"), Some("4"), None)
            .unwrap()
            .unwrap();
        assert!((0..4).all(|r| !copies_hydra(&one, r)));
    }
}
