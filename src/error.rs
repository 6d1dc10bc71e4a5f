//! Errors and the exit statuses they map to.

use std::path::Path;

/// A usage error: one line naming the option and the reason. Exit status 2.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", one_line(.0))]
pub struct UsageError(pub String);

/// The text on one line: a line break or another control character (from
/// a value as the user gave it) shown escaped (`\n`).
fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(char::is_control) {
        return text.into();
    }
    let shown = |c: char| match c.is_control() {
        true => c.escape_default().to_string(),
        false => c.to_string(),
    };
    text.chars().map(shown).collect::<String>().into()
}

impl UsageError {
    pub fn new(message: impl Into<String>) -> Self {
        UsageError(message.into())
    }
}

/// A failure on one task: names the task and the cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("task {rank}: {message}")]
pub struct TaskError {
    pub rank: usize,
    pub message: String,
}

/// Everything that ends a run early.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// Bad options: detected before any file is touched. Exit status 2.
    #[error("{0}")]
    Usage(#[from] UsageError),
    /// A task failed (I/O error, short file...). Exit status 1.
    #[error("{0}")]
    Task(TaskError),
    /// The task engine failed. Exit status 1.
    #[error("{0}")]
    Comm(String),
    /// Verification found wrong data. Exit status 3. `units` names what was
    /// counted (ior: transfers; mdtest: files).
    #[error("{wrong} errors found: {wrong} {units} and {bytes} bytes were wrong")]
    Data {
        wrong: u64,
        units: &'static str,
        bytes: u64,
    },
    /// A signal stopped the run (every task agreed). Exit status 128 + the
    /// signal's number, as a shell reports a process the signal killed.
    #[error("interrupted by {name}")]
    Interrupted { signal: i32, name: String },
}

impl Error {
    /// The process exit status for this error.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_) => 2,
            Error::Data { .. } => 3,
            Error::Interrupted { signal, .. } => (128 + signal).clamp(0, 255) as u8,
            Error::Task(_) | Error::Comm(_) => 1,
        }
    }

    /// A task error about an I/O call on a path, with the system's reason.
    pub fn io(rank: usize, action: &str, path: &Path, err: &std::io::Error) -> Error {
        Error::Task(TaskError {
            rank,
            message: format!("{action} {}: {err}", path.display()),
        })
    }

    /// A task error with a free-form message.
    pub fn task(rank: usize, message: impl Into<String>) -> Error {
        Error::Task(TaskError {
            rank,
            message: message.into(),
        })
    }

    pub fn usage(message: impl Into<String>) -> Error {
        Error::Usage(UsageError(message.into()))
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_usage_error_is_one_line_whatever_the_value() {
        let e = UsageError::new("-o a\nb\r\u{1b}: 'x' is \"bad\"");
        assert_eq!(e.to_string(), "-o a\\nb\\r\\u{1b}: 'x' is \"bad\"");
        assert_eq!(UsageError::new("-t 3x: no").to_string(), "-t 3x: no");
    }
}
