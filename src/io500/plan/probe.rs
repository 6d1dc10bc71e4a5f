//! The probes: every phase of the run, in its order, with a short
//! stonewall, through the run's own phase runner and on the run's storage,
//! in a place of their own that is removed afterwards: a new or empty
//! directory under the data directory, or over S3 an empty key prefix
//! (with a local `plan-<stamp>` directory in resultdir for the phases'
//! result files).

use std::path::{Path, PathBuf};

use crate::backend::listing::Listing;
use crate::comm::{agree, broadcast_value, Comm};
use crate::error::{Error, Result};
use crate::io500::dirs::Dirs;
use crate::io500::driver::run_phases;
use crate::io500::phases::Setting;
use crate::io500::results::{Line, PhaseOutcome};
use crate::io500::storage::Storage;
use crate::io500::Io500Run;

/// Runs every phase of `r` with a stonewall of `seconds` on every task;
/// the probes' data and result files are removed whatever happens.
pub fn probe(comm: &dyn Comm, r: &Io500Run, seconds: u64) -> Result<Vec<PhaseOutcome>> {
    let stamp = broadcast_value(comm, 0, &r.timestamp())?;
    let storage = agree(comm, Storage::of(comm, r.config.value("global", "api")))?;
    let listing = storage.listing();
    let place = Place::of(r, &stamp, listing.is_some());
    let made = agree(comm, place.make(comm.rank(), listing))?;
    let made = broadcast_value(comm, 0, &made)?;
    let mut setting = Setting {
        config: &r.config,
        data: format!("{}/data", place.root),
        results: format!("{}/results", place.local),
        timestamp: stamp,
        stonewall: seconds,
        mdw_objects: r.configured_mdw_objects().unwrap_or(1),
    };
    let (outcomes, stopped) = run_phases(comm, r, &mut setting, listing, show);
    let met = comm.barrier();
    agree(comm, place.remove(comm.rank(), listing, made.as_deref()))?;
    met?;
    match stopped {
        Some(e) => Err(e),
        None => Ok(outcomes),
    }
}

/// Where the probes run.
struct Place {
    /// Their data's root: a directory, or a key prefix of the object store.
    root: String,
    /// The local directory made for them: `root` on a file system; over
    /// S3, `plan-<stamp>` in resultdir (for the phases' result files).
    local: String,
}

impl Place {
    fn of(r: &Io500Run, stamp: &str, in_store: bool) -> Place {
        let root = Dirs::of(&r.config, &format!("plan-{stamp}")).data;
        let local = match in_store {
            false => root.clone(),
            true => {
                let base = r.config.value("global", "resultdir");
                format!("{}/plan-{stamp}", base.trim_end_matches('/'))
            }
        };
        Place { root, local }
    }

    /// Rank 0 checks the data's root holds nothing and makes the local
    /// directories; the topmost directory it made (removed at the end).
    fn make(&self, rank: usize, listing: Option<&dyn Listing>) -> Result<Option<PathBuf>> {
        if rank != 0 {
            return Ok(None);
        }
        let dirs: &[&str] = match listing {
            Some(listing) => {
                let held = listing
                    .holds_anything(&self.root)
                    .map_err(|e| Error::task(0, format!("cannot list {}: {e}", self.root)))?;
                if held {
                    return Err(Error::task(
                        0,
                        format!(
                            "the data prefix {} holds objects: the probes run on an empty one",
                            self.root
                        ),
                    ));
                }
                &["results"]
            }
            None => &["data/ior-easy", "data/ior-hard", "results"],
        };
        make(&self.local, dirs)
    }

    /// Rank 0 removes what the probes made: every object under the data's
    /// root (it held none before), the local data and results, and the
    /// directories made for them.
    fn remove(
        &self,
        rank: usize,
        listing: Option<&dyn Listing>,
        made: Option<&Path>,
    ) -> Result<()> {
        if rank != 0 {
            return Ok(());
        }
        if let Some(listing) = listing {
            let removed = listing.remove_all(&self.root);
            removed.map_err(|e| Error::task(0, format!("cannot empty {}: {e}", self.root)))?;
        }
        remove(&self.local, made)
    }
}

/// Makes `dirs` in `root` (new, or empty as a data directory must be);
/// the topmost directory made, if any.
fn make(root: &str, dirs: &[&str]) -> Result<Option<PathBuf>> {
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
    for d in dirs {
        let dir = path.join(d);
        std::fs::create_dir_all(&dir)
            .map_err(|e| Error::io(0, "cannot create directory", &dir, &e))?;
    }
    Ok(top)
}

/// Removes the probes' data and results in `root` (it was empty), and the
/// directories made for them.
fn remove(root: &str, made: Option<&Path>) -> Result<()> {
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
