//! pario's extension to IO500: the concurrent phase IO500#56 proposes,
//! opt-in (`[concurrent] run = TRUE`), after every other phase. Three
//! groups of the tasks at once, each stopped at the same deadline: 20 %
//! write as ior-easy does (into a directory of their own), 40 % read
//! ior-easy's files at random 1 MiB at a time, 40 % run md-workbench's
//! benchmark (on a set they precreate first, untimed; rank 0 removes the
//! phase's data after, as the run's cleanup does: md-workbench's own
//! cleanup misses objects after a stonewalled benchmark).
//! It runs on `pario concurrent`'s machinery (`concurrent::run_groups`).
//!
//! Its score is #56's process-weighted geometric mean: the tasks times the
//! geometric mean over the groups of each group's score per task (ior in
//! GiB/s, md-workbench in kIOPS). It is outside the IO500 score and its
//! hashes: the configuration's hash and `config.ini` leave the section out,
//! and its figures come after the official ones ([`output`]).

pub mod output;

use std::path::Path;
use std::time::Instant;

use super::dirs::{remove_under, write, EXTENSION_DIRS};
use super::phases::{ior_easy_sizes, split_directives, words, Setting};
use super::results::{Line, PhaseOutcome};
use super::Io500Run;
use crate::comm::{agree, Comm};
use crate::concurrent::report::GroupRun;
use crate::concurrent::tools::ToolReport;
use crate::concurrent::{self, ConcurrentReport, Group, Kind};
use crate::error::{Error, Result};
use crate::run::info::local_time;

/// The groups' names, in their order (and rank order).
pub const GROUPS: [&str; 3] = ["write", "read", "md"];

/// One group's figures.
#[derive(Debug, Clone)]
pub struct GroupScore {
    pub name: &'static str,
    pub tool: &'static str,
    pub share: u32,
    pub tasks: usize,
    pub first_rank: usize,
    pub last_rank: usize,
    pub exe: String,
    /// GiB/s (ior) or kIOPS (md-workbench); 0 when it failed.
    pub score: f64,
    pub unit: &'static str,
    /// Seconds from the common start.
    pub start: f64,
    pub end: f64,
}

impl GroupScore {
    /// The score per task of the group (the mean's factor).
    pub fn per_task(&self) -> f64 {
        match self.tasks {
            0 => 0.0,
            n => self.score / n as f64,
        }
    }
}

/// What rank 0 knows of the phase.
#[derive(Debug, Clone)]
pub struct Extension {
    pub t_start: String,
    pub t_end: String,
    pub t_delta: f64,
    pub stonewall: u64,
    pub tasks: usize,
    pub groups: Vec<GroupScore>,
    /// The process-weighted geometric mean; 0 when a group did not score.
    pub score: f64,
    pub lines: Vec<Line>,
    /// It failed (an I/O error): the run's exit status says so.
    pub failed: bool,
    /// The groups' full reports (rank 0, when it ran).
    pub report: Option<ConcurrentReport>,
}

impl Extension {
    pub fn is_invalid(&self) -> bool {
        self.lines.iter().any(|l| matches!(l, Line::Invalid(_)))
    }
}

/// The phase's stonewall: `[concurrent] stonewall-time`, else the run's.
pub fn stonewall(s: &Setting<'_>) -> u64 {
    s.config.concurrent_stonewall().unwrap_or(s.stonewall)
}

/// The phase's groups: their shares, command lines, md-workbench's set-up
/// and tear-down, and the common deadline.
pub fn plan(s: &Setting<'_>) -> concurrent::Config {
    let shares = s.config.concurrent_shares().unwrap_or([20, 40, 40]);
    let stonewall = stonewall(s);
    let (md, before) = md_workbench(s);
    let group = |share, kind, args| Group {
        line: 0,
        share,
        kind,
        args,
        before: None,
    };
    let groups = vec![
        group(shares[0], Kind::Ior, ior_write(s)),
        group(shares[1], Kind::Ior, ior_read(s)),
        Group {
            before: Some(before),
            ..group(shares[2], Kind::MdWorkbench, md)
        },
    ];
    concurrent::Config::of_groups("[concurrent]", groups, Some(stonewall))
}

/// Every group's command lines, checked by their tools' parsers (a bad
/// `[concurrent] API` is refused before anything is made).
pub fn check(s: &Setting<'_>) -> std::result::Result<(), crate::error::UsageError> {
    // (An S3 `[global] api` is refused with the configuration.)
    if super::storage::is_s3(&s.config.api_for("concurrent", "concurrent")) {
        return Err(crate::error::UsageError(
            "[concurrent] run = TRUE: the concurrent phase runs on a file system, not an object store (S3)".into(),
        ));
    }
    let c = plan(s);
    for (g, name) in c.groups.iter().zip(GROUPS) {
        let lines = std::iter::once(c.args_of(g)).chain(g.before.clone());
        for args in lines {
            g.kind.check(&args).map_err(|e| {
                crate::error::UsageError(format!("[concurrent] group {name}: {}", e.0))
            })?;
        }
    }
    Ok(())
}

/// `-a` and the API's words: `[concurrent] API`, else `[global] api`.
fn api(s: &Setting<'_>) -> Vec<String> {
    let mut a = vec!["-a".to_string()];
    a.extend(words(&s.config.api_for("concurrent", "concurrent")));
    a
}

/// ior-easy's write, into a directory of its own, without wear-out; ior
/// removes its files (no `-k`).
fn ior_write(s: &Setting<'_>) -> Vec<String> {
    let (d, r) = (&s.data, &s.results);
    let mut a = vec![s.packet()];
    a.extend(words(&format!(
        "-g -G {} -e -o {d}/{}/ior_file_easy",
        s.seed("concurrent-write"),
        EXTENSION_DIRS[0]
    )));
    a.extend(ior_easy_sizes(s));
    a.push("-w".into());
    a.extend(api(s));
    a.push(format!(
        "-O saveRankPerformanceDetailsCSV={r}/concurrent-write.csv"
    ));
    split_directives(a)
}

/// Random 1 MiB reads of ior-easy's files (within what each file holds),
/// kept (`-k`), not verified (`-z -z` may repeat offsets).
fn ior_read(s: &Setting<'_>) -> Vec<String> {
    let (d, r) = (&s.data, &s.results);
    let mut a = vec![s.packet()];
    a.extend(words(&format!(
        "-g -G {} -k -e -o {d}/ior-easy/ior_file_easy",
        s.seed("ior-easy")
    )));
    if s.config.flag("ior-easy", "uniqueDir") {
        a.push("-u".into());
    }
    if s.config.flag("ior-easy", "filePerProc") {
        a.push("-F".into());
    }
    a.extend(words("-r -z -z -t 1m -b 1m -s 10000000"));
    a.extend(api(s));
    a.push(format!(
        "-O saveRankPerformanceDetailsCSV={r}/concurrent-read.csv"
    ));
    split_directives(a)
}

/// md-workbench's benchmark (one iteration, verified reads, the deadline
/// with wear-out: every task does as many iterations) and its precreate.
fn md_workbench(s: &Setting<'_>) -> (Vec<String>, Vec<String>) {
    let (d, r) = (&s.data, &s.results);
    let waiting = s
        .config
        .get_float("mdworkbench", "waitingTime")
        .unwrap_or_default();
    let mut base = vec![s.packet(), "--process-reports".into()];
    base.extend(api(s));
    let n = s.mdw_objects;
    base.extend(words(&format!(
        "-o={d}/{} -t={waiting:.6} -O=1 --run-info-file={r}/concurrent-md.status -D=10 -G={} -P={n} -I={n}",
        EXTENSION_DIRS[1],
        s.seed("concurrent-md")
    )));
    let with = |more: &str| {
        let mut a = base.clone();
        a.extend(words(more));
        a
    };
    (with("-2 -R=1 -X -W"), with("-1"))
}

/// Runs the phase on every task (after the others, before the cleanup).
/// An interruption is returned; any other failure is the phase's.
pub fn run(
    comm: &dyn Comm,
    r: &Io500Run,
    s: &Setting<'_>,
    before: &[PhaseOutcome],
) -> Result<Extension> {
    let c = plan(s);
    let mut x = Extension {
        t_start: local_time(),
        t_end: String::new(),
        t_delta: 0.0,
        stonewall: c.deadline.unwrap_or_default(),
        tasks: comm.size(),
        groups: Vec::new(),
        score: 0.0,
        lines: Vec::new(),
        failed: false,
        report: None,
    };
    let easy = before.iter().find(|o| o.phase.name == "ior-easy-write");
    let not_written = easy.is_none_or(|o| o.skipped || o.failed);
    if r.dry_run {
        x.lines
            .push(Line::Warning("dry run: the phase did not run".into()));
    } else if not_written {
        x.lines.push(Line::Invalid(
            "skipped: ior-easy-write did not write, so there is nothing to read".into(),
        ));
    } else {
        comm.barrier()?;
        let start = Instant::now();
        let ran = run_groups(comm, &c, s);
        comm.barrier()?;
        x.t_delta = start.elapsed().as_secs_f64();
        let failed = match ran {
            Ok((report, failed)) => {
                x.report = report;
                failed
            }
            Err(e) => Err(e),
        };
        match failed {
            Ok(()) => {}
            Err(e @ Error::Interrupted { .. }) => return Err(e),
            Err(e) => {
                x.lines
                    .push(Line::Invalid(format!("the phase failed: {e}")));
                x.failed = true;
            }
        }
    }
    x.t_end = local_time();
    x.groups = scores(&c, x.report.as_ref(), comm.size());
    x.judge();
    Ok(x)
}

/// The groups, with the phase's directory made first and its data removed
/// after (also after a failure); rank 0 gets the report (also when a group
/// failed: the second value, every task's) and writes its text to
/// `concurrent.txt`.
fn run_groups(
    comm: &dyn Comm,
    c: &concurrent::Config,
    s: &Setting<'_>,
) -> Result<(Option<ConcurrentReport>, Result<()>)> {
    let write_dir = Path::new(&s.data).join(EXTENSION_DIRS[0]);
    let made = match comm.rank() {
        0 => std::fs::create_dir_all(&write_dir)
            .map_err(|e| Error::io(0, "cannot create directory", &write_dir, &e)),
        _ => Ok(()),
    };
    agree(comm, made)?;
    let ran = concurrent::run::run_groups(comm, c);
    let removed = match comm.rank() {
        0 => remove_under(&s.data, &EXTENSION_DIRS),
        _ => Ok(()),
    };
    let (report, failed) = ran?;
    let failed = agree(comm, failed);
    agree(comm, removed)?;
    if let Some(rep) = &report {
        write(&s.results, "concurrent.txt", &rep.text())?;
    }
    Ok((report, failed))
}

/// Each group's score from its tool's report (none: 0).
fn scores(
    c: &concurrent::Config,
    report: Option<&ConcurrentReport>,
    tasks: usize,
) -> Vec<GroupScore> {
    let shares: Vec<u32> = c.groups.iter().map(|g| g.share).collect();
    let ranges = concurrent::spec::split(&shares, tasks).unwrap_or_default();
    let runs = report.map(|r| r.groups.as_slice()).unwrap_or_default();
    c.groups
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let run = runs.get(i);
            let range = ranges.get(i).cloned().unwrap_or_default();
            let (score, unit) = group_score(g.kind, run);
            GroupScore {
                name: GROUPS[i],
                tool: g.kind.name(),
                share: g.share,
                tasks: range.len(),
                first_rank: range.start,
                last_rank: range.end.saturating_sub(1),
                exe: Group {
                    args: c.args_of(g),
                    ..g.clone()
                }
                .command(),
                score,
                unit,
                start: run.map_or(0.0, |r| r.start),
                end: run.map_or(0.0, |r| r.end),
            }
        })
        .collect()
}

/// ior's bandwidth in GiB/s, md-workbench's benchmark rate in kIOPS.
fn group_score(kind: Kind, run: Option<&GroupRun>) -> (f64, &'static str) {
    let figures = run.map(|r| r.figures.as_slice()).unwrap_or_default();
    match kind {
        Kind::MdWorkbench => {
            let rate = figures.iter().find(|f| f.figure == "benchmark");
            (rate.map_or(0.0, |f| f.together / 1000.0), "kIOPS")
        }
        _ => {
            let bw = figures.iter().find(|f| f.unit == "MiB/s");
            (bw.map_or(0.0, |f| f.together / 1024.0), "GiB/s")
        }
    }
}

/// md-workbench's error count in a group's report.
fn md_errors(run: &GroupRun) -> u64 {
    match &run.report {
        Some(ToolReport::MdWorkbench(r)) => r.phases.iter().map(|p| p.counts.errors.total()).sum(),
        _ => 0,
    }
}

impl Extension {
    /// The score and its verdicts: a group that failed, counted errors or
    /// did not score makes the phase invalid (and its score 0).
    fn judge(&mut self) {
        let Some(report) = &self.report else {
            return;
        };
        let mut why = Vec::new();
        for (g, run) in self.groups.iter().zip(&report.groups) {
            if let Some(e) = &run.error {
                why.push(format!("group {} ({}) failed: {e}", g.name, g.tool));
            }
            let errors = md_errors(run);
            if errors > 0 {
                why.push(format!(
                    "group {} (md-workbench) counted {errors} errors",
                    g.name
                ));
            }
            if g.score <= 0.0 {
                why.push(format!("group {} ({}) did not score", g.name, g.tool));
            }
        }
        self.lines.extend(why.into_iter().map(Line::Invalid));
        self.score = weighted_score(&self.groups, self.tasks);
    }
}

/// #56's score: the tasks times the geometric mean of each group's score
/// per task; 0 when a group scored 0.
pub fn weighted_score(groups: &[GroupScore], tasks: usize) -> f64 {
    if groups.is_empty() || groups.iter().any(|g| g.per_task() <= 0.0) {
        return 0.0;
    }
    let logs: f64 = groups.iter().map(|g| g.per_task().ln()).sum();
    (logs / groups.len() as f64).exp() * tasks as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn group(score: f64, tasks: usize) -> GroupScore {
        GroupScore {
            name: "write",
            tool: "ior",
            share: 20,
            tasks,
            first_rank: 0,
            last_rank: tasks - 1,
            exe: String::new(),
            score,
            unit: "GiB/s",
            start: 0.0,
            end: 1.0,
        }
    }

    #[test]
    fn the_score_is_the_tasks_times_the_mean_per_task() {
        // 2 GiB/s on 2 tasks, 8 GiB/s on 4, 4 kIOPS on 4 (10 tasks):
        // per task 1, 2, 1; their geometric mean 2^(1/3).
        let groups = [group(2.0, 2), group(8.0, 4), group(4.0, 4)];
        let want = 10.0 * 2f64.powf(1.0 / 3.0);
        assert!((weighted_score(&groups, 10) - want).abs() < 1e-12);
        let zero = [group(2.0, 2), group(0.0, 4), group(4.0, 4)];
        assert_eq!(weighted_score(&zero, 10), 0.0);
    }
}
