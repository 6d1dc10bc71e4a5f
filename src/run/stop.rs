//! Stopping a run on a signal: the tasks agree on the stop at a phase's end
//! ([`agreed`]), rank 0 reports what was measured, and what the run created
//! is removed. The handler and its flag are [`crate::signals`].

use crate::comm::{Comm, CommError, ReduceOp};
use crate::error::{Error, Result};

pub use crate::signals::{grace, install, leave_in, name, requested, signal, sleep};

/// Whether any task was asked to stop, agreed by every task (a reduction):
/// the signal's number.
pub fn agreed(comm: &dyn Comm) -> Result<Option<i32>, CommError> {
    let mut v = [signal().unwrap_or(0) as u64];
    comm.all_reduce_u64(&mut v, ReduceOp::Max)?;
    Ok((v[0] != 0).then_some(v[0] as i32))
}

/// Stops here if any task was asked to (every task must call it at the
/// same point: it is a reduction).
pub fn check(comm: &dyn Comm) -> Result<()> {
    match agreed(comm)? {
        Some(signal) => Err(interrupted(signal)),
        None => Ok(()),
    }
}

/// The error of a run `signal` stopped.
pub fn interrupted(signal: i32) -> Error {
    Error::Interrupted {
        signal,
        name: name(signal).to_string(),
    }
}
