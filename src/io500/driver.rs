//! The workflow on every task: the directories and the configuration's
//! copies, each phase in IO500's order (with `drop-caches` before it), the
//! verdicts, the cleanup, and on rank 0 the result files and the score.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::extension::Extension;
use super::finished::Finished;
use super::live::{Live, Shown};
use super::phases::{arguments, program, Kind, Phase, Setting, PHASES};
use super::preflight::Finding;
use super::results::{score, Line, PhaseOutcome};
use super::run_phase::{self, Places};
use super::{Io500Run, Mode, OFFICIAL_RUNTIME};
use crate::backend::listing::Listing;
use crate::comm::{agree, broadcast_value, Comm};
use crate::error::{Error, Result, UsageError};
use crate::run::info::local_time;
use crate::run::system::System;

/// Runs the workflow on this task. Rank 0 prints and writes the results.
pub fn run(comm: &dyn Comm, r: &Io500Run) -> Result<()> {
    check_concurrent(comm, r)?;
    let stamp = broadcast_value(comm, 0, &r.timestamp())?;
    let api = r.config.value("global", "api");
    let storage = agree(comm, super::storage::Storage::of(comm, api))?;
    let listing = storage.listing();
    let mut dirs = super::dirs::Dirs::of(&r.config, &stamp);
    let extended = r.mode == Mode::Extended;
    let stonewall = r.stonewall();
    let mut setting = Setting {
        config: &r.config,
        data: dirs.data.clone(),
        results: dirs.results.clone(),
        timestamp: stamp,
        stonewall,
        mdw_objects: r.configured_mdw_objects().unwrap_or(1),
    };
    agree(comm, check_phases(comm, r, &setting))?;
    let system = preflight(comm, r, &dirs.data, listing.is_none())?;
    agree(comm, dirs.prepare(comm.rank(), r, listing))?;
    agree(comm, write_system(r, &dirs.results, system.as_ref()))?;
    let mut run_notes: Vec<Line> = Vec::new();
    if stonewall != OFFICIAL_RUNTIME {
        run_notes.push(Line::Invalid(format!(
            "stonewall-time {stonewall}s != {OFFICIAL_RUNTIME}s"
        )));
    }
    if r.dry_run {
        run_notes.push(Line::Invalid("dry run: no phase ran".into()));
    }
    if comm.rank() == 0 {
        println!("IO500 version {} ({})", super::version(), r.mode.name());
        for line in &run_notes {
            if let Line::Invalid(why) = line {
                println!("ERROR INVALID {why}");
            }
        }
    }
    let began = local_time();
    let (outcomes, mut stopped) = run_phases(comm, r, &mut setting, listing, print_outcome);
    let mut concurrent = None;
    if stopped.is_none() && r.config.concurrent() && !r.cleanup {
        let shown = Shown::concurrent(super::extension::stonewall(&setting));
        let live = Live::new(comm.rank());
        let ran = live.during(&shown, &outcomes, extended, || {
            super::extension::run(comm, r, &setting, &outcomes)
        });
        match ran {
            Ok(x) => concurrent = Some(x),
            Err(e) => stopped = Some(e),
        }
    }
    comm.barrier()?;
    agree(comm, dirs.clean_up(comm.rank(), listing))?;
    if let Some(e) = stopped {
        return Err(e);
    }
    let mut failures = Vec::new();
    if comm.rank() == 0 {
        let run_valid = run_notes.is_empty();
        let finished = Finished {
            procs: comm.size(),
            score: score(&outcomes, false, run_valid),
            extended: extended.then(|| score(&outcomes, true, run_valid)),
            outcomes,
            concurrent,
            system: system.map(|mut s| {
                s.submitter = None;
                if let Some(store) = storage.object_store() {
                    s.in_object_store(store);
                }
                s
            }),
        };
        super::files::write_all(r, &dirs, &began, &run_notes, &finished)?;
        print_score(&finished, &dirs.results);
        failures = failed_phases(&finished.outcomes);
        if finished.concurrent.as_ref().is_some_and(|x| x.failed) {
            failures.push("concurrent".into());
        }
    }
    let failures: Vec<String> = broadcast_value(comm, 0, &failures)?;
    match failures.is_empty() {
        true => Ok(()),
        false => Err(Error::task(
            0,
            format!("phases failed (see result.txt): {}", failures.join(", ")),
        )),
    }
}

/// `[concurrent] run = TRUE` on too few tasks for its groups: refused
/// before anything is made (every task knows the task count).
fn check_concurrent(comm: &dyn Comm, r: &Io500Run) -> Result<()> {
    if !r.config.concurrent() || r.cleanup {
        return Ok(());
    }
    let refused = |why: String| {
        Error::Usage(crate::error::UsageError(format!(
            "[concurrent] run = TRUE: {why}"
        )))
    };
    let shares = r.config.concurrent_shares().unwrap_or([20, 40, 40]);
    crate::concurrent::spec::split(&shares, comm.size())
        .map(|_| ())
        .map_err(refused)
}

/// The clients' description (rank 0 has it), and the checks on it before
/// anything is made: warnings printed, a refusal every task's error.
fn preflight(comm: &dyn Comm, r: &Io500Run, data: &str, on_fs: bool) -> Result<Option<System>> {
    let system = System::gather(comm, on_fs.then(|| Path::new(data)))?;
    let mut refused = Ok(());
    if let (Some(s), false) = (&system, r.cleanup) {
        let planned = super::plan::ini::rates(&r.config_text);
        let mut found = super::preflight::findings(&r.config, s, comm.size());
        found.extend(super::preflight::short_writes(
            &r.config,
            &planned,
            r.stonewall(),
        ));
        for f in found {
            match f {
                Finding::Warning(w) => eprintln!("io500: warning: {w}"),
                Finding::Refusal(why) => refused = Err(Error::Usage(UsageError(why))),
            }
        }
    }
    agree(comm, refused)?;
    Ok(system)
}

/// Rank 0 writes `system.json` in the result directory (and `--system`'s
/// file): the clients as found, the submitter's blanks marked.
fn write_system(r: &Io500Run, results: &str, system: Option<&System>) -> Result<()> {
    let Some(system) = system else {
        return Ok(());
    };
    let text = system.to_json();
    let mut places = vec![Path::new(results).join("system.json")];
    places.extend(r.system_file.iter().map(PathBuf::from));
    for p in places {
        std::fs::write(&p, &text).map_err(|e| Error::io(0, "cannot write", &p, &e))?;
    }
    Ok(())
}

/// Every ior phase of the run against the task count and its backend's
/// limits (an ior-easy object S3 cannot hold), before anything is made.
fn check_phases(comm: &dyn Comm, r: &Io500Run, setting: &Setting<'_>) -> Result<()> {
    let extended = r.mode == Mode::Extended;
    let tasks = crate::tool::Tasks::of(comm);
    PHASES
        .iter()
        .filter(|p| p.kind == Kind::Ior && p.in_mode(extended) && r.selected(p))
        .try_for_each(|p| run_phase::check_tasks(p, &arguments(p, setting), tasks))
        .map_err(Error::Usage)
}

/// The phases that failed (not those merely invalid by the rules).
fn failed_phases(outcomes: &[PhaseOutcome]) -> Vec<String> {
    outcomes
        .iter()
        .filter(|o| o.failed)
        .map(|o| o.phase.name.to_string())
        .collect()
}

/// Every phase of the run in order, until a signal stops one; rank 0
/// shows each outcome with `show` (the run's result lines, or `--plan`'s
/// probe lines).
pub(super) fn run_phases(
    comm: &dyn Comm,
    r: &Io500Run,
    setting: &mut Setting<'_>,
    listing: Option<&dyn Listing>,
    show: fn(&PhaseOutcome, bool),
) -> (Vec<PhaseOutcome>, Option<Error>) {
    let extended = r.mode == Mode::Extended;
    let chosen: Vec<&'static Phase> = PHASES
        .iter()
        .filter(|p| p.in_mode(extended) && r.selected(p))
        .collect();
    let live = Live::new(comm.rank());
    let mut outcomes = Vec::new();
    let mut stopped = None;
    for (k, p) in chosen.iter().copied().enumerate() {
        let at = (k, chosen.len());
        let shown = Shown::phase(at, p, setting.stonewall);
        let ran = live.during(&shown, &outcomes, extended, || {
            one_phase(comm, r, p, (setting, listing), &outcomes)
        });
        let o = match ran {
            Ok(o) => o,
            Err(e) => {
                stopped = Some(e);
                break;
            }
        };
        if p.name == "mdtest-easy-write" && r.configured_mdw_objects().is_none() {
            setting.mdw_objects = mdw_objects(o.score, setting.stonewall, comm.size());
        }
        if comm.rank() == 0 {
            show(&o, extended);
        }
        outcomes.push(o);
    }
    (outcomes, stopped)
}

/// md-workbench's objects per dataset when not configured: what
/// mdtest-easy-write created per second, over the stonewall time (at most a
/// minute), per task and dataset.
pub fn mdw_objects(kiops: f64, stonewall: u64, tasks: usize) -> u64 {
    let n = kiops * stonewall.min(60) as f64 * 1000.0 / tasks as f64 / 10.0;
    (n as u64).max(1)
}

/// A phase on every task: skipped, dry, failed or measured.
fn one_phase(
    comm: &dyn Comm,
    r: &Io500Run,
    p: &'static Phase,
    (setting, listing): (&Setting<'_>, Option<&dyn Listing>),
    before: &[PhaseOutcome],
) -> Result<PhaseOutcome> {
    let mut o = PhaseOutcome::new(p, local_time());
    let args = arguments(p, setting);
    if let Some(script) = external_script(p, setting) {
        o.exe = Some(script);
    } else if p.kind != Kind::Timestamp {
        // The exe line echoes the api's options, a secret hidden.
        let words: Vec<String> = std::iter::once(program(p.kind).to_string())
            .chain(args.clone())
            .collect();
        o.exe = Some(crate::options::redacted(&words).join(" "));
    }
    if !r.config.run_for(p.name, p.group) {
        o.skipped = true;
        o.lines
            .push(Line::Warning("run = FALSE: the phase was skipped".into()));
    } else if let Some(failed) = failed_source(p, before) {
        o.invalid(format!(
            "skipped: {failed} failed, so its files are not there"
        ));
    } else if !r.dry_run {
        drop_caches(comm, r)?;
        comm.barrier()?;
        let start = Instant::now();
        let at = Places {
            data: &setting.data,
            results: &setting.results,
            stonewall: setting.stonewall,
            script: external_script(p, setting),
            listing,
        };
        let outcome = run_phase::run(comm, p, &args, &at, &mut o);
        comm.barrier()?;
        o.t_delta = start.elapsed().as_secs_f64();
        if let Err(e) = outcome {
            if matches!(e, Error::Interrupted { .. }) {
                return Err(e);
            }
            o.invalid(format!("the phase failed: {e}"));
            o.failed = true;
            o.score = 0.0;
        }
    }
    o.t_end = local_time();
    if !r.dry_run {
        o.judge(setting.stonewall, r.minimum_runtime());
    }
    Ok(o)
}

/// A find phase's `external-script` command: launcher arguments, the
/// script, its extra arguments, then pfind's arguments (the glob quoted).
fn external_script(p: &Phase, s: &Setting<'_>) -> Option<String> {
    if p.kind != Kind::Find {
        return None;
    }
    let script = s.config.get(p.group, "external-script")?;
    let get = |k: &str| s.config.get(p.group, k).unwrap_or_default();
    let args: Vec<String> = arguments(p, s)
        .into_iter()
        .map(|a| if a.contains('*') { format!("'{a}'") } else { a })
        .collect();
    let words = [get("external-mpi-args"), script, get("external-extra-args")];
    let mut line: Vec<&str> = words.into_iter().filter(|w| !w.is_empty()).collect();
    line.extend(args.iter().map(String::as_str));
    Some(line.join(" "))
}

/// The earlier phase of the same group whose files `p` needs, if it failed.
fn failed_source(p: &Phase, before: &[PhaseOutcome]) -> Option<&'static str> {
    before
        .iter()
        .find(|o| {
            o.phase.group == p.group
                && (o.phase.write || o.phase.name.ends_with("create"))
                && o.failed
        })
        .map(|o| o.phase.name)
}

/// `drop-caches`: the command, once per node, before the phase.
fn drop_caches(comm: &dyn Comm, r: &Io500Run) -> Result<()> {
    if !r.config.flag("global", "drop-caches") {
        return Ok(());
    }
    let t = comm.topology();
    let first_here = t.ranks_on(t.node_of(comm.rank())).first() == Some(&comm.rank());
    if first_here {
        let cmd = r
            .config
            .get("global", "drop-caches-cmd")
            .unwrap_or_default();
        let status = std::process::Command::new("sh").arg("-c").arg(cmd).status();
        if !matches!(status, Ok(s) if s.success()) {
            eprintln!(
                "io500: warning: drop-caches-cmd failed on task {}: {cmd}",
                comm.rank()
            );
        }
    }
    Ok(())
}

fn print_outcome(o: &PhaseOutcome, extended: bool) {
    for line in &o.lines {
        match line {
            Line::Invalid(why) => println!("ERROR INVALID {why}"),
            Line::Warning(why) => println!("WARNING {why}"),
            Line::Value(..) => {}
        }
    }
    println!("{}", o.result_line(extended));
}

fn print_score(f: &Finished, results: &str) {
    println!("{}", f.score.line("SCORE "));
    if let Some(x) = &f.extended {
        println!("{}", x.line("SCOREX"));
    }
    for line in f.concurrent.iter().flat_map(Extension::summary_lines) {
        println!("{line}");
    }
    println!("\nThe result files are stored in the directory: {results}");
}
