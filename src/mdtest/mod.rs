//! `mdtest`: the metadata benchmark.
//!
//! [`options`] turns a command line into [`params::MdtestParams`]; [`tree`]
//! says which directories and items exist and what they are called;
//! [`runner`] runs the phases on every task against the task engine and a
//! backend; [`results`] holds mdtest's formulas and [`report`] the model the
//! output formats (`output::mdtest_text`, `output::mdtest_formats`) are
//! written from.

pub mod options;
pub mod params;
pub mod report;
pub mod results;
pub mod runner;
pub mod tree;

/// mdtest's "Command line used:" text: the program, then each argument in
/// single quotes.
pub fn command_line(program: &str, args: &[String]) -> String {
    let mut line = program.to_string();
    for a in args {
        line.push_str(&format!(" '{a}'"));
    }
    line
}
