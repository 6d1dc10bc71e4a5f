//! Running one phase on every task: pario's own tool in-process with the
//! phase's arguments (its text to `<phase>.txt`), and what IO500 takes from
//! the tool's report.

use std::path::PathBuf;
use std::time::SystemTime;

use super::find::{self, FindSpec};
use super::phases::{Kind, Phase};
use super::results::{PhaseOutcome, PhaseReport};
use crate::backend::listing::Listing;
use crate::comm::{agree, Comm};
use crate::concurrent::tools::ToolReport;
use crate::error::{Error, Result};
use crate::ior::Ior;
use crate::mdtest::Mdtest;
use crate::mdworkbench::MdWorkbench;
use crate::tool::{run_into, Parsed, Tool};

/// Where a phase's files go.
pub struct Places<'a> {
    pub data: &'a str,
    pub results: &'a str,
    pub stonewall: u64,
    /// A find phase's `external-script` command line, if configured.
    pub script: Option<String>,
    /// The object store's tree when the data is in one (S3): find lists it.
    pub listing: Option<&'a dyn Listing>,
}

/// Runs `p` with `args`, filling `o` with its score and values. An error
/// is the phase's failure (every task returns it).
pub fn run(
    comm: &dyn Comm,
    p: &Phase,
    args: &[String],
    at: &Places<'_>,
    o: &mut PhaseOutcome,
) -> Result<()> {
    let text = format!("{}/{}.txt", at.results, p.name);
    match p.kind {
        Kind::Ior => ior(comm, p, args, &text, at, o),
        Kind::Mdtest => mdtest(comm, p, args, &text, o),
        Kind::MdWorkbench => md_workbench(comm, p, args, &text, o),
        Kind::Find if at.script.is_some() => external_find(comm, at, o),
        Kind::Find => find_phase(comm, p, at, o),
        Kind::Timestamp => timestamp(comm, at),
    }
}

/// Parses a phase's command line with the tool's own parser.
fn parsed<T: Tool>(tool: &T, args: &[String]) -> Result<T::Params> {
    match tool.parse(T::NAME, args).map_err(Error::Usage)? {
        Parsed::Run(params) => Ok(params),
        Parsed::Help => Err(Error::task(0, "the phase's arguments ask for help")),
    }
}

/// Parses and runs a tool with its text to `text`; its report goes to
/// `result.json`.
fn tool_phase<T: Tool>(
    tool: &T,
    comm: &dyn Comm,
    args: &[String],
    text: &str,
    o: &mut PhaseOutcome,
) -> Result<(T::Params, T::Report)>
where
    T::Report: Into<ToolReport> + Clone,
{
    let params = parsed(tool, args)?;
    let report = run_into(tool, comm, &params, Some(text))?;
    o.report = Some(PhaseReport::Tool(report.clone().into()));
    Ok((params, report))
}

/// Checks a phase's command line without running anything.
pub fn check(p: &Phase, args: &[String]) -> std::result::Result<(), crate::error::UsageError> {
    let outcome = match p.kind {
        Kind::Ior => Ior.parse("ior", args).map(|_| ()),
        Kind::Mdtest => Mdtest.parse("mdtest", args).map(|_| ()),
        Kind::MdWorkbench => MdWorkbench.parse("md-workbench", args).map(|_| ()),
        _ => Ok(()),
    };
    outcome.map_err(|e| crate::error::UsageError(format!("{}: {}", p.name, e.0)))
}

/// Checks an ior phase's command line against the task count (its
/// backend's limits: S3's multipart parts), before anything is made.
pub fn check_tasks(
    p: &Phase,
    args: &[String],
    tasks: crate::tool::Tasks,
) -> std::result::Result<(), crate::error::UsageError> {
    if p.kind != Kind::Ior {
        return Ok(());
    }
    let checked = match Ior.parse("ior", args) {
        Ok(Parsed::Run(run)) => Ior.check_tasks(&run, tasks),
        Ok(Parsed::Help) => Ok(()),
        Err(e) => Err(e),
    };
    checked.map_err(|e| crate::error::UsageError(format!("{}: {}", p.name, e.0)))
}

fn ior(
    comm: &dyn Comm,
    p: &Phase,
    args: &[String],
    text: &str,
    at: &Places<'_>,
    o: &mut PhaseOutcome,
) -> Result<()> {
    let (_, report) = tool_phase(&Ior, comm, args, text, o)?;
    let Some(test) = report.tests.first() else {
        return Ok(());
    };
    let access = if p.name.ends_with("write") {
        "write"
    } else {
        "read"
    };
    let Some(r) = test.results.iter().find(|r| r.access == access) else {
        return Ok(());
    };
    if p.write && r.total < at.stonewall as f64 {
        let hit = r.stonewall.as_ref().map_or(0.0, |s| s.time);
        o.invalid(format!(
            "Write phase needed {:.6}s instead of stonewall {}s. Stonewall was hit at {hit:.1}s",
            r.total, at.stonewall
        ));
    }
    if let (true, Some(s)) = (p.write, &r.stonewall) {
        o.value("throughput-stonewall", format!("{:.2}", s.bw_mib / 1024.0));
    }
    if test.data_errors.wrong > 0 {
        o.invalid(format!("{} wrong bytes read back", test.data_errors.wrong));
    }
    o.score = r.bw_mib / 1024.0;
    Ok(())
}

/// mdtest's operation for each phase.
fn operation(phase: &str) -> &'static str {
    match phase.rsplit('-').next() {
        Some("write") => "File creation",
        Some("stat") => "File stat",
        Some("read") => "File read",
        _ => "File removal",
    }
}

fn mdtest(
    comm: &dyn Comm,
    p: &Phase,
    args: &[String],
    text: &str,
    o: &mut PhaseOutcome,
) -> Result<()> {
    let (_, report) = tool_phase(&Mdtest, comm, args, text, o)?;
    let Some(sweep) = report.tests.first() else {
        return Ok(());
    };
    let Some(iteration) = sweep.iterations.first() else {
        return Ok(());
    };
    let op = operation(p.name);
    if let (true, Some(s)) = (p.write, &iteration.stonewall) {
        o.value("rate-stonewall", stonewall_rate(s.items_sum, s.time_s));
    }
    if sweep.verification_errors > 0 {
        o.invalid(format!(
            "{} files read back wrong",
            sweep.verification_errors
        ));
    }
    if let Some(r) = iteration.phases.iter().find(|r| r.operation == op) {
        o.score = r.rate / 1000.0;
    }
    Ok(())
}

/// mdtest's rate at the stonewall as result.txt gives it: in kIOPS, as the
/// harness writes it (and as the phase's score is).
fn stonewall_rate(items: u64, seconds: f64) -> String {
    let rate = match seconds > 0.0 {
        true => items as f64 / seconds,
        false => 0.0,
    };
    format!("{:.6}", rate / 1000.0)
}

fn md_workbench(
    comm: &dyn Comm,
    p: &Phase,
    args: &[String],
    text: &str,
    o: &mut PhaseOutcome,
) -> Result<()> {
    let (params, report) = tool_phase(&MdWorkbench, comm, args, text, o)?;
    let objects = params.params.objects;
    o.value("filesPerProc", objects);
    o.value("precreatePerSet", params.params.precreate);
    let errors: u64 = report
        .phases
        .iter()
        .map(|ph| ph.counts.errors.total())
        .sum();
    if errors > 0 {
        o.invalid(format!("md-workbench counted {errors} errors"));
    }
    let phases = &report.phases;
    let last = phases.last();
    o.value(
        "maxOpTime",
        format!("{:.6}", last.map_or(0.0, |ph| ph.op_max_s)),
    );
    if p.name == "mdworkbench-bench" {
        if phases.len() != 2 {
            o.invalid(format!(
                "{} benchmark iterations ran instead of 2",
                phases.len()
            ));
        }
        if let Some(first) = phases.first() {
            o.value("scoreIteration0", format!("{:.6}", first.rate / 1000.0));
            o.value("maxOpTime0", format!("{:.6}", first.op_max_s));
        }
    }
    o.score = last.map_or(0.0, |ph| ph.rate / 1000.0);
    Ok(())
}

fn find_phase(comm: &dyn Comm, p: &Phase, at: &Places<'_>, o: &mut PhaseOutcome) -> Result<()> {
    let stamp = PathBuf::from(format!("{}/timestampfile", at.results));
    let newer = match p.name {
        "find-easy" => None,
        _ => Some(ctime_of(&stamp).map_err(|e| Error::io(0, "cannot stat", &stamp, &e))?),
    };
    let root = match p.name {
        "find-easy" => format!("{}/mdtest-easy", at.data),
        "find-hard" => format!("{}/mdtest-hard", at.data),
        _ => at.data.to_string(),
    };
    let spec = FindSpec {
        root: root.into(),
        name_pattern: "*01*".into(),
        newer_than: newer,
        size: (p.name != "find-easy").then_some(3901),
    };
    let found = match at.listing {
        Some(listing) => super::storage::find(comm, &spec, listing)?,
        None => find::find(comm, &spec)?,
    };
    o.report = Some(PhaseReport::Find(found.clone()));
    if comm.rank() == 0 {
        let csv = format!("{}/{}.csv", at.results, p.name);
        let written = std::fs::write(&csv, find::csv(&found));
        written.map_err(|e| Error::io(0, "cannot write", csv.as_ref(), &e))?;
    }
    o.value("nproc", comm.size());
    o.value("found", found.found);
    o.value("total-files", found.scanned);
    if found.found == 0 {
        o.invalid("find found no file");
    }
    o.score = found.rate / 1000.0;
    Ok(())
}

/// `external-script`: rank 0 runs the command; its last line
/// `MATCHED found/scanned` gives the figures, its exit status the verdict.
fn external_find(comm: &dyn Comm, at: &Places<'_>, o: &mut PhaseOutcome) -> Result<()> {
    let script = at.script.as_deref().unwrap_or_default();
    let start = std::time::Instant::now();
    let outcome = match comm.rank() {
        0 => run_script(script),
        _ => Ok((0, 0)),
    };
    let (found, scanned) = agree(comm, outcome)?;
    let secs = start.elapsed().as_secs_f64();
    let (found, scanned): (u64, u64) = crate::comm::broadcast_value(comm, 0, &(found, scanned))?;
    o.value("found", found);
    o.value("total-files", scanned);
    if found == 0 {
        o.invalid("find found no file");
    }
    o.score = if secs > 0.0 {
        scanned as f64 / secs / 1000.0
    } else {
        0.0
    };
    Ok(())
}

fn run_script(script: &str) -> Result<(u64, u64)> {
    let failed = |why: String| Error::task(0, format!("external find '{script}': {why}"));
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .output()
        .map_err(|e| failed(e.to_string()))?;
    if !out.status.success() {
        return Err(failed(format!("it ended with {}", out.status)));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let last = text
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let counts = last
        .trim()
        .strip_prefix("MATCHED ")
        .and_then(|v| v.split_once('/'));
    match counts.map(|(f, s)| (f.trim().parse(), s.trim().parse())) {
        Some((Ok(f), Ok(s))) => Ok((f, s)),
        _ => Err(failed(format!(
            "its last line is '{last}', not MATCHED found/scanned"
        ))),
    }
}

/// The status-change time of `path`.
fn ctime_of(path: &std::path::Path) -> std::io::Result<SystemTime> {
    use std::os::unix::fs::MetadataExt;
    let m = std::fs::metadata(path)?;
    let since = std::time::Duration::new(m.ctime() as u64, m.ctime_nsec() as u32);
    Ok(SystemTime::UNIX_EPOCH + since)
}

/// Rank 0 creates the empty timestamp file find compares with.
fn timestamp(comm: &dyn Comm, at: &Places<'_>) -> Result<()> {
    let path = PathBuf::from(format!("{}/timestampfile", at.results));
    let made = match comm.rank() {
        0 => std::fs::write(&path, b"").map_err(|e| Error::io(0, "cannot create", &path, &e)),
        _ => Ok(()),
    };
    agree(comm, made)
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_stonewall_rate_is_in_kiops() {
        // The harness's own result for 138,999 files a second.
        assert_eq!(super::stonewall_rate(1_389_988_430, 10_000.0), "138.998843");
        assert_eq!(super::stonewall_rate(5, 0.0), "0.000000");
    }
}
