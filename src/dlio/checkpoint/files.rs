//! DLIO's output files of a checkpoint-only run (statscounter.py with
//! `_checkpoint`'s one epoch): `<rank>_per_epoch_stats.json` with the
//! rank's own `save_ckpt<k>` and `load_ckpt<k>`, `<rank>_output.json`
//! (the host, an epoch of empty step lists), and rank 0's `summary.json`
//! whose `metric` holds the checkpoint keys only.

use std::path::Path;

use super::report::CheckpointReport;
use super::workflow::OwnStep;
use crate::comm::{gather_records, Comm};
use crate::dlio::config::schema::Config;
use crate::dlio::train::dlio_files::{rank_output, summary, HostInfo, SummaryFacts};
use crate::dlio::train::json::J;
use crate::dlio::train::workflow::{data_per_host_gib, per_node, write_or_warn, Host};
use crate::error::Result;

/// The epoch's times: `_checkpoint`'s `start_epoch` and `end_epoch`.
pub struct Epoch<'a> {
    pub start: &'a str,
    pub end: &'a str,
}

fn per_epoch_stats(e: &Epoch, own: &[OwnStep]) -> J {
    let mut epoch = J::obj().with("start", J::str(e.start));
    for s in own {
        let step = J::obj()
            .with("start", J::str(&s.start))
            .with("end", J::str(&s.end))
            .with("duration", J::Num(s.duration))
            .with("throughput", J::Num(s.throughput));
        epoch.set(&s.key, step);
    }
    epoch.set("end", J::str(e.end));
    J::obj().with("1", epoch)
}

/// The host, then epoch 1 with its empty lists, then the host name.
fn output(e: &Epoch, info: &HostInfo, caching: bool) -> J {
    let mut out = rank_output(&[], info, caching);
    let hostname = match &mut out {
        J::Obj(pairs) => pairs.pop(),
        _ => None,
    };
    let empty = J::obj;
    let epoch = J::obj()
        .with("start", J::str(e.start))
        .with("load", empty())
        .with("proc", empty())
        .with("throughput", empty())
        .with("au", empty())
        .with("compute", empty())
        .with("end", J::str(e.end));
    out.set("1", epoch);
    if let Some((k, v)) = hostname {
        out.set(&k, v);
    }
    out
}

/// Writes every rank's files and rank 0's summary into `folder`.
pub fn write(
    comm: &dyn Comm,
    config: &Config,
    folder: &str,
    epoch: &Epoch,
    own: &[OwnStep],
    report: &CheckpointReport,
) -> Result<()> {
    let rank = comm.rank();
    let node = comm.topology().node_of(rank);
    let host = Host {
        node,
        memory_gib: crate::dlio::host::memory_gib(),
        cpus: crate::dlio::host::cpu_count(),
    };
    let hosts = gather_records(comm, 0, &host)?;
    let info = HostInfo::here();
    let here = comm.topology().ranks_on(node).len();
    let per_host = data_per_host_gib(config, here, comm.size());
    let dir = Path::new(folder);
    let stats = per_epoch_stats(epoch, own);
    write_or_warn(&dir.join(format!("{rank}_per_epoch_stats.json")), &stats);
    let caching = per_host <= info.memory_gib;
    write_or_warn(
        &dir.join(format!("{rank}_output.json")),
        &output(epoch, &info, caching),
    );
    if rank == 0 {
        let (mem, cpus) = per_node(&hosts);
        let d = &config.dataset;
        let keys = report.metric_keys();
        let facts = SummaryFacts {
            start: epoch.start,
            end: &super::workflow::utcnow(),
            ranks: comm.size(),
            num_files_train: d.num_files_train,
            num_files_eval: d.num_files_eval,
            samples_per_file: d.num_samples_per_file,
            train: None,
            eval: None,
            checkpoints: None,
            checkpoint_keys: &keys,
            node_memory_gib: &mem,
            node_cpus: &cpus,
            data_per_host_gib: per_host,
        };
        write_or_warn(&dir.join("summary.json"), &summary(&facts, &info));
    }
    Ok(())
}
