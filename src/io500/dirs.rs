//! The run's data and result directories: made (the data directory must be
//! new or empty: IO500's rules forbid files made beforehand, and it keeps
//! pario away from user data), the configuration's copies written, and at
//! the end the data the run made removed.

use std::path::Path;

use super::config::Config;
use super::Io500Run;
use crate::backend::listing::Listing;
use crate::error::{Error, Result};

/// The phases' directories under the data directory.
const DATA_DIRS: [&str; 5] = [
    "ior-easy",
    "ior-hard",
    "mdtest-easy",
    "mdtest-hard",
    "mdworkbench",
];

/// The directories of the concurrent phase (pario's extension) under the
/// data directory: its writers', its md-workbench's.
pub const EXTENSION_DIRS: [&str; 2] = ["ior-easy-concurrent", "mdworkbench-concurrent"];

pub struct Dirs {
    pub data: String,
    pub results: String,
    /// The data directory did not exist before this run.
    made_data: bool,
}

impl Dirs {
    /// `datadir` and `resultdir`, each with `/<timestamp>` when configured.
    pub fn of(config: &Config, stamp: &str) -> Dirs {
        let dir = |key: &str, stamped: &str| {
            let base = config.value("global", key).trim_end_matches('/');
            let base = if base.is_empty() { "/" } else { base };
            match config.flag("global", stamped) {
                true => format!("{base}/{stamp}"),
                false => base.to_string(),
            }
        };
        Dirs {
            data: dir("datadir", "timestamp-datadir"),
            results: dir("resultdir", "timestamp-resultdir"),
            made_data: false,
        }
    }

    /// Rank 0 makes both directories and writes the configuration's copies
    /// (their secrets hidden). Data in an object store (`listing`) is a
    /// key prefix: it must hold nothing yet, and nothing is made for it.
    pub fn prepare(
        &mut self,
        rank: usize,
        r: &Io500Run,
        listing: Option<&dyn Listing>,
    ) -> Result<()> {
        if let Some(listing) = listing {
            if rank == 0 {
                if !r.cleanup {
                    self.check_objects(listing)?;
                }
                self.write_configs(r)?;
            }
            self.made_data = true;
            return Ok(());
        }
        let data = Path::new(&self.data);
        let existed = data.exists();
        if rank == 0 {
            // --cleanup removes an earlier run's data: it is there.
            if !r.cleanup {
                self.check_data(existed)?;
            }
            make(&self.data)?;
            writable(&self.data)?;
            // ior does not make its file's directory; the harness does.
            for d in ["ior-easy", "ior-hard"] {
                make(&format!("{}/{d}", self.data))?;
            }
            self.write_configs(r)?;
        }
        self.made_data = !existed || r.cleanup;
        Ok(())
    }

    fn write_configs(&self, r: &Io500Run) -> Result<()> {
        make(&self.results)?;
        write(
            &self.results,
            "config-orig.ini",
            &hide_secrets(&r.config_text),
        )?;
        write(
            &self.results,
            "config.ini",
            &hide_secrets(&r.config.effective_ini()),
        )
    }

    /// An object store's data prefix must be empty, as a data directory.
    fn check_objects(&self, listing: &dyn Listing) -> Result<()> {
        let held = listing
            .holds_anything(&self.data)
            .map_err(|e| Error::task(0, format!("cannot list {}: {e}", self.data)))?;
        match held {
            false => Ok(()),
            true => Err(Error::task(
                0,
                format!(
                    "the data prefix {} holds objects: IO500 runs on an empty one \
                     (remove them, or set timestamp-datadir = TRUE)",
                    self.data
                ),
            )),
        }
    }

    fn check_data(&self, existed: bool) -> Result<()> {
        if !existed {
            return Ok(());
        }
        let data = Path::new(&self.data);
        let mut entries =
            std::fs::read_dir(data).map_err(|e| Error::io(0, "cannot read", data, &e))?;
        match entries.next() {
            None => Ok(()),
            Some(_) => Err(Error::task(
                0,
                format!(
                    "the data directory {} is not empty: IO500 runs on an empty directory \
                     (move its contents away, or set timestamp-datadir = TRUE)",
                    self.data
                ),
            )),
        }
    }

    /// Rank 0 removes the phases' directories (the run made them in an
    /// empty data directory) and the data directory if it made that too;
    /// in an object store, every object and upload under the data prefix
    /// (it was empty before the run).
    pub fn clean_up(&self, rank: usize, listing: Option<&dyn Listing>) -> Result<()> {
        if rank != 0 {
            return Ok(());
        }
        if let Some(listing) = listing {
            let removed = listing.remove_all(&self.data);
            removed.map_err(|e| Error::task(0, format!("cannot empty {}: {e}", self.data)))?;
            return Ok(());
        }
        remove_under(&self.data, &DATA_DIRS)?;
        remove_under(&self.data, &EXTENSION_DIRS)?;
        if self.made_data {
            let _ = std::fs::remove_dir(&self.data);
        }
        Ok(())
    }
}

/// An ini's text with the value of every secret option hidden
/// (`--S3-libs3.secret-key=...` in an `api` line).
fn hide_secrets(ini: &str) -> String {
    let mut out = String::with_capacity(ini.len());
    for line in ini.lines() {
        match line.split_once('=') {
            Some((key, value)) if line.to_ascii_lowercase().contains("secret-key") => {
                out.push_str(&format!("{key}= {}", super::storage::redacted(value)));
            }
            _ => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

/// A data directory the tasks cannot write to is refused before any phase.
fn writable(dir: &str) -> Result<()> {
    rustix::fs::access(dir, rustix::fs::Access::WRITE_OK)
        .map_err(|e| Error::task(0, format!("the data directory {dir} is not writable: {e}")))
}

fn make(dir: &str) -> Result<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::io(0, "cannot create directory", Path::new(dir), &e))
}

/// Rank 0 removes each of `dirs` under the data directory `data` that is
/// there (the run made them in an empty data directory).
pub(super) fn remove_under(data: &str, dirs: &[&str]) -> Result<()> {
    for d in dirs {
        let path = Path::new(data).join(d);
        if path.exists() {
            std::fs::remove_dir_all(&path).map_err(|e| Error::io(0, "cannot remove", &path, &e))?;
        }
    }
    Ok(())
}

/// Writes `name` in `dir` (rank 0's result files).
pub(super) fn write(dir: &str, name: &str, text: &str) -> Result<()> {
    let path = Path::new(dir).join(name);
    std::fs::write(&path, text).map_err(|e| Error::io(0, "cannot write", &path, &e))
}
