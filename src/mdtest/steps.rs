//! The task-count sweep (`-f`, `-l`, `-s`) as ior's `sweep` runs it: each
//! step's tasks (the first N ranks) on a communicator of their own
//! ([`Comm::split`]), the other tasks waiting for them.

use super::options::sweep;
use super::params::MdtestParams;
use crate::comm::Comm;
use crate::error::Result;

/// One step: its task count and, when it is not every task, this task's
/// communicator for it (`None` outside the step).
pub struct Step {
    pub tasks: usize,
    pub comm: Option<Box<dyn Comm>>,
}

/// Every step of the sweep, split off `comm` in order (collective).
pub fn split(comm: &dyn Comm, p: &MdtestParams) -> Result<Vec<Step>> {
    let size = comm.size();
    sweep(p, size)
        .into_iter()
        .map(|tasks| {
            let comm = match tasks < size {
                true => comm.split(comm.rank() < tasks)?,
                false => None,
            };
            Ok(Step { tasks, comm })
        })
        .collect()
}
