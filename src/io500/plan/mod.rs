//! `io500 CONFIG.ini --plan[=OUT.ini]`: short probes of every phase on the
//! real target (a stonewall of a few seconds, the configuration's tasks
//! and options, the run's own phase runner), then each write phase's size
//! for the stonewall with a margin and the run's predicted wall time, the
//! arithmetic printed; `OUT.ini` is the configuration with those sizes,
//! and the probed rates the run's pre-flight check reads back. On a file
//! system or over S3, on threads or MPI ranks (rank 0 prints and writes).
//!
//! [`probe`] runs the probes; [`sizing`] is the arithmetic; [`ini`] writes
//! the planned configuration and reads its rates back.

pub mod ini;
pub mod probe;
pub mod sizing;
pub mod steady;

use std::path::Path;

use crate::comm::{agree, Comm};
use crate::error::{Error, Result};
use crate::io500::Io500Run;
use sizing::{Plan, Probe};

/// Why `--plan` cannot run with `r`, or where it would write over a file.
pub fn refusal(r: &Io500Run, out: Option<&str>) -> Option<String> {
    use crate::io500::storage::is_s3;
    let on_s3 = is_s3(r.config.value("global", "api"));
    let mut apis = crate::io500::phases::PHASES
        .iter()
        .map(|p| r.config.api_for(p.name, p.group));
    if let Some(api) = apis.find(|a| is_s3(a) != on_s3) {
        return Some(format!(
            "--plan: the probes run where [global] api keeps the data: a phase's API = {} \
             is on other storage (set both on S3, or both on a file system)",
            crate::io500::storage::redacted(&api)
        ));
    }
    if r.dry_run || r.cleanup {
        return Some("--plan runs its own probes: not with --dry-run or --cleanup".into());
    }
    out.filter(|o| Path::new(o).exists())
        .map(|o| format!("--plan={o}: the file exists (the plan writes a new file)"))
}

/// The probes and the plan on every task; rank 0 prints and writes it.
pub fn run(comm: &dyn Comm, r: &Io500Run, out: Option<&str>) -> Result<()> {
    let stonewall = r.stonewall();
    let seconds = sizing::probe_seconds(stonewall);
    if comm.rank() == 0 {
        println!(
            "io500 --plan: each phase probed with a stonewall of {seconds} s \
             (stonewall-time {stonewall} s, {} tasks)",
            comm.size()
        );
    }
    let outcomes = probe::probe(comm, r, seconds)?;
    let failed: Vec<&str> = outcomes
        .iter()
        .filter(|o| o.failed)
        .map(|o| o.phase.name)
        .collect();
    let probes: Vec<Probe> = outcomes
        .iter()
        .map(|o| Probe {
            phase: o.phase,
            seconds: o.t_delta,
            score: o.score,
            ran: !o.skipped && !o.failed,
            steady: o
                .report
                .as_ref()
                .filter(|_| o.phase.write)
                .and_then(|r| steady::of_probe(o.phase, r, seconds as f64)),
        })
        .collect();
    let plan = Plan::of(&r.config, &probes, stonewall, seconds, comm.size());
    let written = match comm.rank() {
        0 => show(r, &plan, out),
        _ => Ok(()),
    };
    agree(comm, written)?;
    match failed.is_empty() {
        true => Ok(()),
        false => Err(Error::task(
            0,
            format!(
                "probes failed (sizes left as configured): {}",
                failed.join(", ")
            ),
        )),
    }
}

/// Rank 0: the plan printed, and written to `out`.
fn show(r: &Io500Run, plan: &Plan, out: Option<&str>) -> Result<()> {
    print!("{}", sizing::text(plan));
    let Some(out) = out else {
        return Ok(());
    };
    let header = format!(
        "{} by {} for stonewall-time {} s on {} tasks (probes of {} s): sizes from the \
         rates below, which the run checks its sizes against",
        ini::HEADER,
        crate::io500::version(),
        plan.stonewall,
        plan.tasks,
        plan.probe
    );
    let text = ini::rewrite(&r.config_text, &plan.changes(), &header, &plan.rates());
    let path = Path::new(out);
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .map_err(|e| Error::io(0, "cannot create", path, &e))?;
    std::io::Write::write_all(&mut file, text.as_bytes())
        .map_err(|e| Error::io(0, "cannot write", path, &e))?;
    println!("The planned configuration: {out} (run it with: io500 {out})");
    Ok(())
}
