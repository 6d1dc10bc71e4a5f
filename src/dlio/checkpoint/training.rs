//! Checkpoints during training (`workflow.checkpoint` with `train`): the
//! step loop's hook (`train::checkpoint::Checkpointer`) over a rank's
//! [`Checkpoints`]. No collective around a save, as DLIO's training
//! checkpoints; the directory is made by the ranks that write into it.

use std::io;

use super::engine::{checkpoint_dir, Checkpoints};
use super::setup;
use crate::backend::{Backend, Choice};
use crate::comm::Comm;
use crate::dlio::config::schema::Config;
use crate::dlio::options::ParioOptions;
use crate::dlio::train::checkpoint::{Checkpointer, NoCheckpoint};
use crate::error::{Error, Result};

/// A rank's checkpoints for a training run (a collective: the sizes are
/// summed over the ranks).
pub fn for_training<'b>(
    comm: &dyn Comm,
    config: &Config,
    options: &ParioOptions,
    choice: &Choice,
    root: Option<&str>,
    backend: &'b dyn Backend,
) -> Result<Checkpoints<'b>> {
    let settings = setup::settings_of(config, options, choice, root).map_err(Error::usage)?;
    let mut ck = Checkpoints::new(comm, backend, settings)?;
    ck.keep = options.checkpoint.keep == Some(true);
    Ok(ck)
}

/// The step loop's checkpoints: none without `workflow.checkpoint`.
pub fn checkpointer<'b>(
    comm: &dyn Comm,
    config: &Config,
    options: &ParioOptions,
    choice: &Choice,
    root: Option<&str>,
    backend: &'b dyn Backend,
) -> Result<Box<dyn Checkpointer + 'b>> {
    if !config.workflow.checkpoint {
        return Ok(Box::new(NoCheckpoint));
    }
    let ck = for_training(comm, config, options, choice, root, backend)?;
    Ok(Box::new(ck))
}

fn io_error(e: Error) -> io::Error {
    io::Error::other(e.to_string())
}

impl Checkpointer for Checkpoints<'_> {
    fn size_gib(&self) -> f64 {
        self.size.gb()
    }

    fn save(&mut self, epoch: usize, step: usize) -> io::Result<()> {
        if self.files() == 0 {
            return Ok(());
        }
        let dir = checkpoint_dir(&self.settings.folder, epoch as u64, step as u64);
        self.make_dirs(&dir).map_err(io_error)?;
        Checkpoints::save(self, epoch as u64, step as u64)
            .map(|_| ())
            .map_err(io_error)
    }

    /// This rank's files; the directories once every rank's files are gone
    /// ([`Checkpointer::remove_saved_dirs`]).
    fn remove_saved(&mut self) -> io::Result<()> {
        if self.keep {
            return Ok(());
        }
        self.remove_files().map_err(io_error)
    }

    fn remove_saved_dirs(&mut self) {
        if !self.keep {
            self.remove_dirs();
        }
    }
}
