//! Where a task prints lines of its own (traces, wrong words, verification
//! errors, MPI-IO hints), decided once per run from the outputs.

/// A task's own lines go to stdout with the tool's text, or to stderr when
/// stdout carries a JSON or CSV document (which must stay parseable).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskLines {
    Stdout,
    Stderr,
}

impl TaskLines {
    /// `Stdout` when stdout is free for text.
    pub fn new(stdout_is_text: bool) -> TaskLines {
        if stdout_is_text {
            TaskLines::Stdout
        } else {
            TaskLines::Stderr
        }
    }

    /// Prints one line (`format_args!`, without the newline).
    pub fn print(self, line: std::fmt::Arguments<'_>) {
        match self {
            TaskLines::Stdout => println!("{line}"),
            TaskLines::Stderr => eprintln!("{line}"),
        }
    }
}
