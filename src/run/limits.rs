//! What a node can hold, checked before anything is created: buffers that
//! would not fit in the node's available memory are a usage error (exit 2),
//! not an abort in the middle of a run.

use crate::error::UsageError;
use crate::memhog;
use crate::units::human_bytes;

/// `per_task` bytes of buffers for each of the `tasks_here` tasks of this
/// node must fit in its available memory; `what` names the options.
pub fn buffers_fit(what: &str, per_task: u64, tasks_here: usize) -> Result<(), UsageError> {
    let Ok(available) = memhog::node_available() else {
        return Ok(());
    };
    let need = per_task.saturating_mul(tasks_here as u64);
    if need <= available {
        return Ok(());
    }
    Err(UsageError(format!(
        "{what}: the {tasks_here} task(s) on this node need {} of buffers ({} each), \
         more than the {} it has available",
        human_bytes(need),
        human_bytes(per_task),
        human_bytes(available)
    )))
}
