//! A backend built on every rank of a DLIO run (the run's, or the POSIX
//! one with O_DIRECT that reading or checkpointing asks for); a failure on
//! any rank ends every rank.

use crate::backend::{Backend, Choice, Context};
use crate::comm::{agree, Comm};
use crate::console::TaskLines;
use crate::error::{Error, Result};

pub fn on_every_rank(
    comm: &dyn Comm,
    choice: &Choice,
    lines: TaskLines,
) -> Result<Box<dyn Backend>> {
    let context = Context {
        comm,
        active: true,
        collective: false,
        lines,
    };
    let built = choice
        .build(&context)
        .map_err(|e| Error::task(comm.rank(), e));
    agree(comm, built)
}
