//! `mdtest`: the metadata benchmark (work in progress: entry points only).

pub mod options;
pub mod params;
pub mod runner;

use std::process::ExitCode;

use crate::engine;
use crate::error::Error;

/// mdtest's "Command line used:" text: the program, then each argument in
/// single quotes.
pub fn command_line(program: &str, args: &[String]) -> String {
    let mut line = program.to_string();
    for a in args {
        line.push_str(&format!(" '{a}'"));
    }
    line
}

/// Prints a failure once and returns its exit status.
pub fn report_failure(tool: &str, error: &Error) -> ExitCode {
    if engine::is_printer() {
        eprintln!("{tool}: error: {error}");
    }
    ExitCode::from(error.exit_code())
}
