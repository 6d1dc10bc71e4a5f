//! What every task of `pario concurrent` does: split into the groups, run
//! each group alone if asked, then all together from one barrier; gather
//! each group's report, text and times on rank 0.

use std::path::PathBuf;

use super::report::{ConcurrentReport, Outcome};
use super::spec::{self, Kind};
use super::tools::ToolReport;
use super::Config;
use crate::comm::{agree, Comm};
use crate::error::{Error, Result, UsageError};
use crate::ior::Ior;
use crate::mdtest::Mdtest;
use crate::mdworkbench::MdWorkbench;
use crate::run::system::System;
use crate::tool::{run_into, Parsed, Tool};

/// Runs the groups on this task; rank 0 returns the report (and prints it,
/// and writes its JSON when asked).
pub fn on_task(comm: &dyn Comm, c: &Config) -> Result<Option<ConcurrentReport>> {
    let (report, failed) = run_groups(comm, c)?;
    if let Some(r) = &report {
        print!("{}", r.text());
        if let Some(path) = &c.json {
            let written = serde_json::to_string_pretty(r)
                .map_err(std::io::Error::other)
                .and_then(|t| std::fs::write(path, t + "\n"));
            if let Err(e) = written {
                eprintln!("pario concurrent: warning: cannot write {path}: {e}");
            }
        }
    }
    // A group's failure (its exit status) is every task's.
    agree(comm, failed)?;
    Ok(report)
}

/// Every round of the groups on this task: each group's set-up, the rounds
/// alone (`--alone`), the round together. Rank 0 gets the report; the
/// second value is this task's group's failure in the round together, for
/// the caller to agree on: a failed set-up or round alone is already every
/// task's error.
pub fn run_groups(comm: &dyn Comm, c: &Config) -> Result<(Option<ConcurrentReport>, Result<()>)> {
    let shares: Vec<u32> = c.groups.iter().map(|g| g.share).collect();
    let ranges = spec::split(&shares, comm.size()).map_err(|e| Error::Usage(UsageError(e)))?;
    let rank = comm.rank();
    // Once for every group, outside any timed phase: the groups' tools
    // are driven and record none. Their data may be anywhere: no file
    // system named.
    let system = System::of_run(comm, None);
    let mine = ranges
        .iter()
        .position(|r| r.contains(&rank))
        .expect("the groups cover every task");
    // One split per group, in order, on every task: each keeps its own.
    let mut own = None;
    for r in &ranges {
        if let Some(split) = comm.split(r.contains(&rank))? {
            own = Some(split);
        }
    }
    let own = own.expect("a task belongs to its group");
    let group = &c.groups[mine];
    // Every task agrees on the set-ups, its group's or none.
    if c.groups.iter().any(|g| g.before.is_some()) {
        let set_up = match &group.before {
            Some(before) => untimed(&*own, group.kind, before, rank),
            None => Ok(()),
        };
        agree(comm, set_up)?;
    }
    let args = c.args_of(group);
    let mut alone = Vec::new();
    if c.alone {
        for g in 0..ranges.len() {
            comm.barrier()?;
            let origin = comm.wtime();
            let outcome = (g == mine).then(|| run_group(&*own, group.kind, &args, origin, rank));
            let failed = outcome.as_ref().map_or(Ok(()), |(_, r)| r.clone());
            alone.extend(gather(comm, &*own, outcome.map(|(o, _)| o))?);
            agree(comm, failed)?;
        }
    }
    // Every group starts at the same barrier.
    comm.barrier()?;
    let origin = comm.wtime();
    let (together, failed) = run_group(&*own, group.kind, &args, origin, rank);
    let together = gather(comm, &*own, Some(together))?;
    drop(own);
    let report = (rank == 0).then(|| ConcurrentReport {
        system,
        ..ConcurrentReport::new(c, &ranges, together, alone)
    });
    Ok((report, failed))
}

/// A group's set-up: its tool on the group's tasks, untimed,
/// its text dropped.
fn untimed(comm: &dyn Comm, kind: Kind, args: &[String], rank: usize) -> Result<()> {
    let text = scratch_text(rank);
    let ran = run_tool(comm, kind, args, &text.to_string_lossy());
    let _ = std::fs::remove_file(&text);
    ran.map(|_| ())
}

/// One run of a group on its communicator: the tool's report (JSON) and
/// text, with its times from `origin`. Every task of the group returns;
/// only the group's first task has the report and text.
fn run_group(
    comm: &dyn Comm,
    kind: Kind,
    args: &[String],
    origin: f64,
    rank: usize,
) -> (Outcome, Result<()>) {
    let text_file = scratch_text(rank);
    let start = comm.wtime() - origin;
    let text_to = text_file.to_string_lossy().into_owned();
    let report = run_tool(comm, kind, args, &text_to);
    let end = comm.wtime() - origin;
    let text = match comm.rank() {
        0 => std::fs::read_to_string(&text_file).unwrap_or_default(),
        _ => String::new(),
    };
    let _ = std::fs::remove_file(&text_file);
    let (report, error, result) = match report {
        Ok(r) => (r, None, Ok(())),
        Err(e) => (None, Some(e.to_string()), Err(e)),
    };
    let outcome = Outcome {
        start,
        end,
        report,
        text,
        error,
    };
    (outcome, result)
}

/// Where a group's first task has its tool write the text, until rank 0
/// has it: a file of this process, removed at once.
fn scratch_text(rank: usize) -> PathBuf {
    std::env::temp_dir().join(format!(
        "pario-concurrent-{}-{rank}.txt",
        std::process::id()
    ))
}

fn run_tool(
    comm: &dyn Comm,
    kind: Kind,
    args: &[String],
    text: &str,
) -> Result<Option<ToolReport>> {
    match kind {
        Kind::Ior => tool_report(&Ior, comm, args, text),
        Kind::Mdtest => tool_report(&Mdtest, comm, args, text),
        Kind::MdWorkbench => tool_report(&MdWorkbench, comm, args, text),
    }
}

fn tool_report<T: Tool>(
    tool: &T,
    comm: &dyn Comm,
    args: &[String],
    text: &str,
) -> Result<Option<ToolReport>>
where
    T::Report: Into<ToolReport>,
{
    let params = match tool.parse(T::NAME, args).map_err(Error::Usage)? {
        Parsed::Run(p) => p,
        Parsed::Help => return Ok(None),
    };
    let report = run_into(tool, comm, &params, Some(text))?;
    Ok(Some(report.into()))
}

/// Rank 0 gets every group's outcome (sent by the group's first task), in
/// group order; a task not running in this round sends nothing.
fn gather(world: &dyn Comm, own: &dyn Comm, outcome: Option<Outcome>) -> Result<Vec<Outcome>> {
    let bytes = match (&outcome, own.rank()) {
        (Some(o), 0) => {
            serde_json::to_vec(o).map_err(|e| Error::task(world.rank(), e.to_string()))?
        }
        _ => Vec::new(),
    };
    let all = world.gather(0, &bytes)?;
    // Rank 0 reads back what the groups' first tasks wrote. One that does
    // not read back (pario's own fault) is the group's error, not rank 0's
    // alone: the other tasks go on to the next collective.
    let read = |b: &Vec<u8>| {
        serde_json::from_slice(b).unwrap_or_else(|e| Outcome {
            error: Some(format!("its outcome does not read back: {e}")),
            ..Outcome::default()
        })
    };
    Ok(all.iter().filter(|b| !b.is_empty()).map(read).collect())
}
