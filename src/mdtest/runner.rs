//! The mdtest runner.

use super::params::MdtestParams;
use crate::comm::Comm;
use crate::error::{Error, Result};

/// Runs mdtest on this task.
pub fn run(_comm: &dyn Comm, _params: &MdtestParams, _command_line: &str) -> Result<()> {
    Err(Error::usage(
        "mdtest is not available yet in this version of pario",
    ))
}
