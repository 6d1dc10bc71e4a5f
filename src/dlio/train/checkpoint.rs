//! Checkpoints during training: the hook the step loop calls. The
//! checkpoint workload's machinery implements it (`dlio::checkpoint`:
//! DLIO's files, `torch.save`'s bytes and requests; for unet3d rank 0's
//! `global_epoch<E>_step<S>/model_states-0.pt`, one int8 tensor of the
//! model's size). pario removes what it wrote at the end of the run (DLIO
//! keeps it) unless `pario.keep_checkpoints=true`.

use std::io;

/// What the step loop asks of a checkpoint mechanism.
pub trait Checkpointer {
    /// GB (2^30 bytes) of one whole checkpoint, all ranks together.
    fn size_gib(&self) -> f64;
    /// Saves this rank's part of `global_epoch{epoch}_step{step}`.
    fn save(&mut self, epoch: usize, step: usize) -> io::Result<()>;
    /// Removes the files it saved.
    fn remove_saved(&mut self) -> io::Result<()>;
    /// Then, once every rank's files are gone, the directories it made.
    fn remove_saved_dirs(&mut self) {}
}

/// No checkpoint (`workflow.checkpoint` off).
pub struct NoCheckpoint;

impl Checkpointer for NoCheckpoint {
    fn size_gib(&self) -> f64 {
        0.0
    }

    fn save(&mut self, _epoch: usize, _step: usize) -> io::Result<()> {
        Ok(())
    }

    fn remove_saved(&mut self) -> io::Result<()> {
        Ok(())
    }
}
