//! The probes: every phase of the run, in its order, with a short
//! stonewall, through the run's own phase runner, in a directory of their
//! own under the data directory that is removed afterwards.

use std::path::{Path, PathBuf};

use crate::comm::{agree, broadcast_value, Comm};
use crate::error::{Error, Result};
use crate::io500::dirs::Dirs;
use crate::io500::driver::run_phases;
use crate::io500::phases::Setting;
use crate::io500::results::{Line, PhaseOutcome};
use crate::io500::Io500Run;

/// Runs every phase of `r` with a stonewall of `seconds` on every task;
/// the probes' data and result files are removed whatever happens.
pub fn probe(comm: &dyn Comm, r: &Io500Run, seconds: u64) -> Result<Vec<PhaseOutcome>> {
    let stamp = broadcast_value(comm, 0, &r.timestamp())?;
    let root = Dirs::of(&r.config, &format!("plan-{stamp}")).data;
    let made = agree(comm, make(comm.rank(), &root))?;
    let made = broadcast_value(comm, 0, &made)?;
    let mut setting = Setting {
        config: &r.config,
        data: format!("{root}/data"),
        results: format!("{root}/results"),
        timestamp: stamp,
        stonewall: seconds,
        mdw_objects: r.configured_mdw_objects().unwrap_or(1),
    };
    let (outcomes, stopped) = run_phases(comm, r, &mut setting, None, show);
    let met = comm.barrier();
    agree(comm, remove(comm.rank(), &root, made.as_deref()))?;
    met?;
    match stopped {
        Some(e) => Err(e),
        None => Ok(outcomes),
    }
}

/// Rank 0 makes the probes' directory (new, or empty as a data directory
/// must be) with its data and result directories; the topmost directory
/// it made (removed at the end), if any.
fn make(rank: usize, root: &str) -> Result<Option<PathBuf>> {
    if rank != 0 {
        return Ok(None);
    }
    let path = Path::new(root);
    if path.exists() {
        let entries = std::fs::read_dir(path).map_err(|e| Error::io(0, "cannot read", path, &e))?;
        if entries.count() > 0 {
            return Err(Error::task(
                0,
                format!("{root} is not empty: the probes run in a new or empty directory"),
            ));
        }
    }
    let top = path
        .ancestors()
        .take_while(|a| !a.as_os_str().is_empty() && !a.exists())
        .last();
    let top = top.map(Path::to_path_buf);
    for d in ["data/ior-easy", "data/ior-hard", "results"] {
        let dir = path.join(d);
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::io(0, "cannot create directory", &dir, &e))?;
    }
    Ok(top)
}

/// Rank 0 removes what the probes made: their data and results (their
/// directory was empty), and the directories made for them.
fn remove(rank: usize, root: &str, made: Option<&Path>) -> Result<()> {
    if rank != 0 {
        return Ok(());
    }
    for d in ["data", "results"] {
        let dir = Path::new(root).join(d);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).map_err(|e| Error::io(0, "cannot remove", &dir, &e))?;
        }
    }
    let Some(top) = made else {
        return Ok(());
    };
    for dir in Path::new(root).ancestors() {
        std::fs::remove_dir(dir).map_err(|e| Error::io(0, "cannot remove", dir, &e))?;
        if dir == top {
            break;
        }
    }
    Ok(())
}

/// A probe's line (rank 0): its time and score, or why it has none.
fn show(o: &PhaseOutcome, _extended: bool) {
    let why = o.lines.iter().find_map(|l| match l {
        Line::Invalid(w) if o.failed => Some(w.as_str()),
        _ => None,
    });
    let name = o.phase.name;
    match (o.skipped, why) {
        (true, _) => println!("[probe] {name:<22} skipped (run = FALSE)"),
        (_, Some(why)) => println!("[probe] {name:<22} {why}"),
        _ => println!(
            "[probe] {name:<22} {:>9.3} s {:>14.6} {}",
            o.t_delta,
            o.score,
            o.phase.unit()
        ),
    }
}
