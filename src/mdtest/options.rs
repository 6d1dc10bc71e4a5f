//! mdtest's options.

use super::params::MdtestParams;
use crate::options::UsageError;

/// Parses a command line; `Ok(None)` means `-h`.
pub fn parse(_args: &[String]) -> Result<Option<MdtestParams>, UsageError> {
    Err(UsageError::new(
        "mdtest is not available yet in this version of pario",
    ))
}

/// The `-h` text.
pub fn help() -> String {
    "Synopsis mdtest\n".into()
}
