//! DLIO's checkpoint workload (MLPerf Storage's llama3 checkpointing, and
//! DLIO's other models): the model's layout over the ranks ([`layout`]),
//! `torch.save`'s file format ([`pickle`], [`container`]) and requests
//! ([`requests`], [`load`]), a rank's files written and read through a
//! backend ([`io`], [`engine`]) with its tensors' bytes ([`content`]),
//! the checkpoint-only workflow ([`workflow`]) with its page-cache
//! handling ([`cache`]), and its figures ([`report`]). [`setup`] makes all
//! of it from DLIO's configuration.

pub mod cache;
pub mod container;
pub mod content;
pub mod engine;
pub mod files;
pub mod io;
pub mod layout;
pub mod load;
pub mod model;
pub mod pickle;
pub mod plan;
pub mod report;
pub mod requests;
pub mod setup;
pub mod state;
pub mod text;
pub mod training;
pub mod workflow;

use crate::backend::{Backend, Choice};
use crate::comm::Comm;
use crate::error::{Error, Result};

use super::config::schema::Config;
use super::options::ParioOptions;
use engine::Checkpoints;
use layout::gib;
use model::Mode;
use plan::Said;
use report::CheckpointReport;
use workflow::OwnStep;

/// What a checkpoint-only run leaves: rank 0's report (complete on rank 0)
/// and this rank's own steps.
pub struct Ran {
    pub report: CheckpointReport,
    pub own: Vec<OwnStep>,
    /// The one epoch's start and end (DLIO's time stamps).
    pub start: String,
    pub end: String,
}

/// DLIO's lines as its checkpointing starts (base_checkpointing.py
/// `__init__`, rank 0).
fn opening_lines(ck: &Checkpoints, ranks: usize, say: &mut dyn FnMut(Said)) {
    let m = &ck.settings.model;
    let subset = m.mode == Mode::Subset;
    if subset {
        let full = m.parallelism.data.max(0) as u64 * m.model_parallelism();
        say(Said::Dlio(&format!(
            "Performing subset checkpointing: {ranks} of {full}"
        )));
    }
    if m.num_layers > 0 {
        say(Said::Dlio(&format!(
            "Total number of parameters in the model: {}",
            m.parameters()
        )));
    }
    let tag = if subset { " (subset)" } else { "" };
    let size = &ck.size;
    if size.model_bytes > 0 {
        say(Said::Dlio(&format!(
            "Model size: {:.6} GB {tag}",
            gib(size.model_bytes)
        )));
    }
    if size.optimizer_bytes > 0 {
        say(Said::Dlio(&format!(
            "Optimizer state size: {:.6} GB {tag}",
            gib(size.optimizer_bytes)
        )));
    }
    say(Said::Dlio(&format!(
        "Total checkpoint size: {:.6} GB {tag}",
        size.gb()
    )));
}

/// The checkpoint workflow without training, on this rank.
pub fn run_only(
    comm: &dyn Comm,
    config: &Config,
    options: &ParioOptions,
    choice: &Choice,
    root: Option<&str>,
    backend: &dyn Backend,
    say: &mut dyn FnMut(Said),
) -> Result<Ran> {
    let settings = setup::settings_of(config, options, choice, root).map_err(Error::usage)?;
    let topology = comm.topology();
    let per_node = topology.ranks_on(topology.node_of(0)).len();
    let plan = setup::plan_of(config, options, per_node);
    let mut ck = Checkpoints::new(comm, backend, settings)?;
    let mut report = CheckpointReport {
        model: config.model.name.clone(),
        mode: match ck.settings.model.mode {
            Mode::Default => "default".into(),
            Mode::Subset => "subset".into(),
        },
        ..CheckpointReport::default()
    };
    opening_lines(&ck, comm.size(), say);
    if plan.shift > 0 && plan.shift % comm.size() == 0 {
        say(Said::Dlio(
            "This run is on single client; checkpoint_recovery_rank_shift does not apply.",
        ));
    }
    if config.storage.storage_type == super::config::schema::StorageType::S3 {
        report
            .notes
            .push("S3: free space not checked; no page cache to look at".into());
    }
    let mut own = Vec::new();
    let start = workflow::utcnow();
    workflow::checkpoint_only(comm, &mut ck, &plan, &mut report, &mut own, say)?;
    let end = workflow::utcnow();
    if comm.rank() == 0 {
        report.bytes = engine::bytes_per_checkpoint(&ck.settings, comm.size()).0;
    }
    Ok(Ran {
        report,
        own,
        start,
        end,
    })
}
