//! Checks before the first phase, for runs that would cost hours and prove
//! nothing: a results directory inside the data directory (refused before
//! anything is made), a data directory each node has its own copy of, and
//! random 4 KiB reads that the clients' memory can serve, and (when the
//! configuration comes from `--plan`) a write phase too small to last the
//! stonewall at its probed rate. Each finding is one line saying what to
//! change.

use std::path::{Component, PathBuf};

use super::config::Config;
use super::phases::by_name;
use super::plan::ini::PlanRate;
use super::plan::sizing::{configured_amount, per_task_amount, sizing, MARGIN};
use super::storage::is_s3;
use crate::run::system::mounts::Reach;
use crate::run::system::System;
use crate::units::human_bytes;

/// What a check found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Finding {
    /// The run could be valid, but likely measures something else.
    Warning(String),
    /// The run could not be valid: refused before anything is written.
    Refusal(String),
}

/// `results` is `data` or below it (paths compared made absolute, `.` and
/// `..` resolved by name): the data directory holds only the run's data,
/// and the run removes what it made there.
pub fn results_inside_data(data: &str, results: &str) -> Option<String> {
    let (d, r) = (normal(data)?, normal(results)?);
    r.starts_with(&d).then(|| {
        format!(
            "resultdir {results} is inside datadir {data}: the data directory holds the run's \
             data alone; set resultdir outside it"
        )
    })
}

/// `path` absolute, with `.` and `..` resolved by name.
fn normal(path: &str) -> Option<PathBuf> {
    let absolute = std::path::absolute(path).ok()?;
    let mut out = PathBuf::new();
    for c in absolute.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    Some(out)
}

/// The refusal of a configuration whose resultdir is inside its datadir
/// (data in an object store is a key prefix: nothing to compare).
pub fn check_dirs(config: &Config, data: &str, results: &str) -> Option<String> {
    match is_s3(config.value("global", "api")) {
        true => None,
        false => results_inside_data(data, results),
    }
}

/// Every finding about the clients for a run of `tasks` tasks.
pub fn findings(config: &Config, system: &System, tasks: usize) -> Vec<Finding> {
    let mut out = Vec::new();
    out.extend(unshared(system));
    out.extend(random_reads(config, tasks, system.memory_bytes()).map(Finding::Warning));
    out
}

/// The data directory on a file system each node has its own of: refused
/// when the nodes are distinct hosts (they would not see each other's
/// files), a warning when they are one host (fake nodes share it).
pub fn unshared(system: &System) -> Option<Finding> {
    if system.nodes < 2 {
        return None;
    }
    let all: Vec<_> = system.file_systems().collect();
    let (host, fs) = all
        .iter()
        .find_map(|(h, fs)| fs.filter(|f| f.reach() == Reach::Local).map(|f| (*h, f)))?;
    let what = format!(
        "datadir {} is on {} ({} on {host}), a file system of one node",
        fs.path, fs.fs_type, fs.mount_point
    );
    let mut hosts: Vec<&str> = all.iter().map(|(h, _)| *h).collect();
    hosts.sort_unstable();
    hosts.dedup();
    Some(match hosts.len() {
        1 => Finding::Warning(format!(
            "{what}: the {} nodes are one host here, so they share it; on real nodes \
             put datadir on a shared file system",
            system.nodes
        )),
        _ => Finding::Refusal(format!(
            "{what}: the {} nodes would not see each other's files; put datadir on a \
             file system shared by the nodes",
            system.nodes
        )),
    })
}

/// ior-rnd4K-easy-read re-reads what ior-easy-write wrote, at most
/// blockSize per task: when that fits in the clients' memory and the
/// phase reads through the page cache, its 4 KiB reads may be memory's.
pub fn random_reads(config: &Config, tasks: usize, memory: u64) -> Option<String> {
    let (phase, group) = ("ior-rnd4K-easy-read", "ior-easy");
    let api = config.api_for(phase, group);
    if !config.run_for(phase, group) || is_s3(&api) || memory == 0 {
        return None;
    }
    let direct = api
        .split_whitespace()
        .any(|w| w.starts_with("--posix.odirect"));
    let block = config.get_size(group, "blockSize")?;
    let set = block.saturating_mul(tasks as u64);
    (!direct && set <= memory).then(|| {
        format!(
            "{phase} re-reads at most {} (ior-easy blockSize {} x {tasks} tasks), within the \
             clients' {} of memory: its 4 KiB reads may come from the page cache; add \
             --posix.odirect to [ior-easy] API (or [{phase}] API), or raise blockSize",
            human_bytes(set),
            config.value(group, "blockSize"),
            human_bytes(memory)
        )
    })
}

/// Each write phase whose configured size, at the rate a plan probed
/// (`rates`, read from the configuration's `# plan-rate` lines), ends
/// before the stonewall: a warning, or a refusal when it ends before half
/// of it (no slower storage than probed makes that run valid).
pub fn short_writes(config: &Config, rates: &[PlanRate], stonewall: u64) -> Vec<Finding> {
    let mut out = Vec::new();
    for rate in rates {
        let Some(p) = by_name(&rate.phase).filter(|p| p.write) else {
            continue;
        };
        let amount = configured_amount(config, p);
        let per_second = per_task_amount(rate, p);
        let (Some(amount), true) = (amount, per_second > 0.0 && config.run_for(p.name, p.group))
        else {
            continue;
        };
        let lasts = amount / per_second;
        if lasts >= stonewall as f64 {
            continue;
        }
        let margin = rate.margin.unwrap_or(MARGIN);
        let wanted = sizing(config, p, rate.rate, margin, stonewall, rate.tasks).change;
        let why = format!(
            "{}: [{}] {} = {} lasts about {lasts:.1} s at the planned {:.6} {} over {} tasks, \
             less than stonewall-time {stonewall} s; set it to {} (what --plan proposes)",
            p.name,
            p.group,
            wanted.key,
            config.value(p.group, wanted.key),
            rate.rate,
            p.unit(),
            rate.tasks,
            wanted.value
        );
        out.push(match lasts * 2.0 < stonewall as f64 {
            true => Finding::Refusal(why),
            false => Finding::Warning(why),
        });
    }
    out
}

#[cfg(test)]
mod tests;
