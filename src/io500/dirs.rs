//! The run's data and result directories: made (the data directory must be
//! new or empty: IO500's rules forbid files made beforehand, and it keeps
//! pario away from user data), the configuration's copies written, and at
//! the end the data the run made removed.

use std::path::Path;

use super::config::Config;
use super::Io500Run;
use crate::error::{Error, Result};

/// The phases' directories under the data directory.
const DATA_DIRS: [&str; 5] = [
    "ior-easy",
    "ior-hard",
    "mdtest-easy",
    "mdtest-hard",
    "mdworkbench",
];

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

    /// Rank 0 makes both directories and writes the configuration's copies.
    pub fn prepare(&mut self, rank: usize, r: &Io500Run) -> Result<()> {
        let data = Path::new(&self.data);
        let existed = data.exists();
        if rank == 0 {
            // --cleanup removes an earlier run's data: it is there.
            if !r.cleanup {
                self.check_data(existed)?;
            }
            make(&self.data)?;
            writable(&self.data)?;
            make(&self.results)?;
            // ior does not make its file's directory; the harness does.
            for d in ["ior-easy", "ior-hard"] {
                make(&format!("{}/{d}", self.data))?;
            }
            write(&self.results, "config-orig.ini", &r.config_text)?;
            write(&self.results, "config.ini", &r.config.effective_ini())?;
        }
        self.made_data = !existed || r.cleanup;
        Ok(())
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
    /// empty data directory) and the data directory if it made that too.
    pub fn clean_up(&self, rank: usize) -> Result<()> {
        if rank != 0 {
            return Ok(());
        }
        for d in DATA_DIRS {
            let path = Path::new(&self.data).join(d);
            if path.exists() {
                std::fs::remove_dir_all(&path)
                    .map_err(|e| Error::io(0, "cannot remove", &path, &e))?;
            }
        }
        super::concurrent::remove_data(&self.data)?;
        if self.made_data {
            let _ = std::fs::remove_dir(&self.data);
        }
        Ok(())
    }
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

/// Writes `name` in `dir` (rank 0's result files).
pub(super) fn write(dir: &str, name: &str, text: &str) -> Result<()> {
    let path = Path::new(dir).join(name);
    std::fs::write(&path, text).map_err(|e| Error::io(0, "cannot write", &path, &e))
}
