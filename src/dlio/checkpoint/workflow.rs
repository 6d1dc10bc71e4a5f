//! The checkpoint workflow without training (main.py `_checkpoint`): for
//! k = 1..`num_checkpoints_write`, sleep `time_between_checkpoints`,
//! barrier, time the save of `global_epoch1_step<k>` (a barrier after it
//! only with `rank_sync`); then the same for `num_checkpoints_read` loads,
//! each preceded by the page-cache handling DLIO lacks. Every rank's time
//! goes to rank 0, which makes the figures; the run removes what it wrote
//! unless its checkpoints are kept.

use std::time::Duration;

use super::cache::before_load;
use super::engine::{checkpoint_dir, Checkpoints, Pattern};
use super::io::Tally;
use super::plan::{RunPlan, Said};
use super::report::{figures, step, stragglers, CheckpointReport, Direction};
use crate::comm::{agree, Comm};
use crate::error::{Error, Result};
use crate::latency::{merge, Percentiles};
use crate::run::stop;

/// DLIO's time stamp (`%Y-%m-%dT%H:%M:%S.%f`, local time).
pub fn utcnow() -> String {
    chrono::Local::now()
        .format("%Y-%m-%dT%H:%M:%S%.6f")
        .to_string()
}

/// One save or load as this rank saw it (its `<rank>_per_epoch_stats.json`
/// entry `save_ckpt<k>` / `load_ckpt<k>`).
#[derive(Debug, Clone, PartialEq)]
pub struct OwnStep {
    pub key: String,
    pub start: String,
    pub end: String,
    pub duration: f64,
    pub throughput: f64,
}

/// Which phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Way {
    Save,
    Load,
}

/// Runs the workflow on this rank; rank 0's report is complete. `say`
/// takes DLIO's `[OUTPUT]` lines (rank 0).
pub fn checkpoint_only(
    comm: &dyn Comm,
    ck: &mut Checkpoints,
    plan: &RunPlan,
    report: &mut CheckpointReport,
    own: &mut Vec<OwnStep>,
    say: &mut dyn FnMut(Said),
) -> Result<()> {
    report.ranks = comm.size();
    report.checkpoint_size_gb = ck.size.gb();
    report.files = ck.size.files;
    report.fsync = ck.settings.fsync;
    report.duration_rule = plan.rule;
    report.kept = plan.keep;
    report.pattern = match ck.settings.pattern {
        Pattern::Torch { max_request, .. } if max_request < super::requests::MAX_RW_COUNT => {
            format!("torch (requests of at most {max_request} bytes)")
        }
        Pattern::Torch { .. } => "torch".into(),
        Pattern::Direct { chunk, .. } => format!("direct (O_DIRECT, {chunk}-byte requests)"),
    };
    let outcome = phases(comm, ck, plan, report, own, say);
    let failed = outcome.is_err();
    if failed || !plan.keep {
        // Files first on every rank, then the directories rank 0 made.
        let removed = ck.remove_files();
        let _ = comm.barrier();
        ck.remove_dirs();
        if !failed {
            agree(comm, removed)?;
        }
        report.kept = false;
    }
    outcome
}

fn phases(
    comm: &dyn Comm,
    ck: &mut Checkpoints,
    plan: &RunPlan,
    report: &mut CheckpointReport,
    own: &mut Vec<OwnStep>,
    say: &mut dyn FnMut(Said),
) -> Result<()> {
    if plan.writes > 0 {
        say(Said::Dlio("Checkpointing write started"));
        report.saves = direction(comm, ck, plan, Way::Save, own, say)?;
        say(Said::Dlio("Checkpointing write finished"));
    }
    if plan.reads > 0 {
        say(Said::Dlio("Checkpointing read started"));
        report.loads = direction(comm, ck, plan, Way::Load, own, say)?;
        // DLIO's own line says "write" here (main.py).
        say(Said::Dlio("Checkpointing read finished"));
    }
    Ok(())
}

/// The source of this rank's loads.
fn source(comm: &dyn Comm, shift: usize) -> usize {
    (comm.rank() + shift) % comm.size()
}

/// Every save or every load, then their figures on rank 0.
fn direction(
    comm: &dyn Comm,
    ck: &mut Checkpoints,
    plan: &RunPlan,
    way: Way,
    own: &mut Vec<OwnStep>,
    say: &mut dyn FnMut(Said),
) -> Result<Direction> {
    let count = match way {
        Way::Save => plan.writes,
        Way::Load => plan.reads,
    };
    let before = tally(ck, way);
    let mut steps = Vec::new();
    for k in 1..=count {
        let cache = match way {
            Way::Load => Some(before_load(
                comm,
                ck,
                k,
                source(comm, plan.shift),
                plan,
                say,
            )?),
            Way::Save => {
                let made = match comm.rank() {
                    0 => ck.make_dirs(&checkpoint_dir(&ck.settings.folder, 1, k)),
                    _ => Ok(()),
                };
                agree(comm, made)?;
                None
            }
        };
        let (start, end, seconds) = timed(comm, ck, plan, way, k, say)?;
        own.push(OwnStep {
            key: format!("{}_ckpt{k}", if way == Way::Save { "save" } else { "load" }),
            start: start.clone(),
            end: end.clone(),
            // DLIO's files have the time stamps' microseconds.
            duration: (seconds * 1e6).round() / 1e6,
            throughput: ck.size.gb() / seconds,
        });
        let all = gather_seconds(comm, seconds)?;
        if comm.rank() == 0 {
            let mut s = step(
                k,
                format!("global_epoch1_step{k}"),
                all,
                ck.size.gb(),
                plan.rule,
            );
            (s.start, s.end, s.cache) = (start, end, cache);
            say(Said::Dlio(&match way {
                Way::Save => format!("Finished saving checkpoint {k} for epoch 1 in {:.4} s; Throughput: {:.4} GB/s", s.duration, s.throughput),
                Way::Load => format!("Finished loading checkpoint {k} for epoch 1 in {:.4} s; Throughput: {:.4} GB/s", s.duration, s.throughput),
            }));
            steps.push(s);
        }
        stop::check(comm)?;
    }
    let done = tally(ck, way).since(&before);
    totals(comm, ck, way, steps, done)
}

/// One timed save or load: the pause, the barrier, the work.
fn timed(
    comm: &dyn Comm,
    ck: &mut Checkpoints,
    plan: &RunPlan,
    way: Way,
    k: u64,
    say: &mut dyn FnMut(Said),
) -> Result<(String, String, f64)> {
    stop::sleep(Duration::from_secs_f64(plan.pause));
    stop::check(comm)?;
    comm.barrier()?;
    say(Said::Dlio(&match way {
        Way::Save => format!("Starting saving checkpoint {k} after total step {k} for epoch 1"),
        Way::Load => format!("Starting loading checkpoint {k} after total step {k} for epoch 1"),
    }));
    let start = utcnow();
    let t0 = comm.wtime();
    let done = match way {
        Way::Save => ck.save(1, k),
        Way::Load => ck.load(1, k, source(comm, plan.shift)),
    };
    if let (Ok(took), 0) = (&done, comm.rank()) {
        let verb = if way == Way::Save { "Saved" } else { "Loaded" };
        if let Some(s) = took.layers {
            say(Said::Dlio(&format!(
                "{verb} model checkpoint in {s:.4} seconds"
            )));
        }
        if let Some(s) = took.optimizer {
            say(Said::Dlio(&format!(
                "{verb} optimizer checkpoint in {s:.4} seconds"
            )));
        }
    }
    if plan.rank_sync {
        comm.barrier()?;
    }
    let seconds = comm.wtime() - t0;
    let end = utcnow();
    // A signal in the middle: every rank stops here, as interrupted.
    stop::check(comm)?;
    agree(comm, done)?;
    Ok((start, end, seconds))
}

fn tally(ck: &Checkpoints, way: Way) -> Tally {
    match way {
        Way::Save => ck.writer.tally,
        Way::Load => ck.reader.tally,
    }
}

/// Every rank's seconds, on rank 0.
fn gather_seconds(comm: &dyn Comm, seconds: f64) -> Result<Vec<f64>> {
    let all = comm.gather(0, &seconds.to_le_bytes())?;
    all.iter()
        .map(|b| {
            b.as_slice()
                .try_into()
                .map(f64::from_le_bytes)
                .map_err(|_| Error::Comm("a rank sent a time of the wrong size".into()))
        })
        .collect()
}

/// The totals over the ranks and the figures (rank 0).
fn totals(
    comm: &dyn Comm,
    ck: &Checkpoints,
    way: Way,
    steps: Vec<super::report::Step>,
    t: Tally,
) -> Result<Direction> {
    let mut sums = [
        t.requests,
        t.bytes,
        t.fsyncs,
        t.io_secs.to_bits(),
        t.fsync_secs.to_bits(),
    ];
    let all = comm.gather(
        0,
        &sums
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect::<Vec<u8>>(),
    )?;
    let histogram = match way {
        Way::Save => ck.writer.latency.histogram(),
        Way::Load => ck.reader.scratch.latency.histogram(),
    };
    let merged = merge(comm, 0, histogram)?;
    if comm.rank() != 0 {
        return Ok(Direction::default());
    }
    let (mut io, mut fsync) = (0.0, 0.0);
    sums = [0; 5];
    for b in &all {
        let v: Vec<u64> = b
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .collect();
        if v.len() != 5 {
            return Err(Error::Comm("a rank sent totals of the wrong size".into()));
        }
        (0..3).for_each(|i| sums[i] += v[i]);
        io += f64::from_bits(v[3]);
        fsync += f64::from_bits(v[4]);
    }
    let (rule, rank0) = figures(&steps);
    Ok(Direction {
        stragglers: stragglers(&steps),
        steps,
        figures: rule,
        rank0,
        requests: sums[0],
        bytes: sums[1],
        fsyncs: sums[2],
        io_seconds: io,
        fsync_seconds: fsync,
        latency: Percentiles::of(&merged),
    })
}
