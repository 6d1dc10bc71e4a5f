//! `-f` script files: several tests in one invocation.
//!
//! ```text
//! IOR START
//!   api=POSIX          # comments run to the end of a line
//!   blockSize=16m, transferSize=1m
//! RUN
//!   filePerProc=1
//! RUN
//! IOR STOP
//! ```
//! The command-line options are the defaults of the first test. Each `RUN`
//! closes a test; the next test starts as a copy of the one before it, as in IOR.
//! Directives after the last `RUN` form one more test.

use super::{Grammar, ModuleOptions};
use crate::error::UsageError;

fn is_keyword(line: &str, keyword: &str) -> bool {
    let words: Vec<&str> = line.split_whitespace().collect();
    let expected: Vec<&str> = keyword.split_whitespace().collect();
    words.len() == expected.len()
        && words
            .iter()
            .zip(&expected)
            .all(|(a, b)| a.eq_ignore_ascii_case(b))
}

/// Parses the text of a script into tests, starting from `defaults`.
pub fn parse_script<T: Clone + ModuleOptions>(
    grammar: &Grammar<T>,
    name: &str,
    text: &str,
    defaults: &T,
) -> Result<Vec<T>, UsageError> {
    let mut lines = text.lines().enumerate();
    let start_found = lines.any(|(_, l)| is_keyword(l, "IOR START"));
    if !start_found {
        return Err(UsageError(format!(
            "-f {name}: no 'IOR START' line in the script"
        )));
    }
    let mut tests = Vec::new();
    let mut current = defaults.clone();
    // Whether directives have come since the last RUN (or the start).
    let mut has_content = false;
    for (number, raw) in lines {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if is_keyword(line, "IOR STOP") {
            break;
        }
        if is_keyword(line, "RUN") {
            tests.push(current.clone());
            has_content = false;
            continue;
        }
        has_content = true;
        grammar
            .apply_directives(line, &mut current)
            .map_err(|e| UsageError(format!("-f {name}, line {}: {}", number + 1, e.0)))?;
    }
    // Directives after the last RUN form one more test; a script without
    // any RUN is one test.
    if has_content || tests.is_empty() {
        tests.push(current);
    }
    Ok(tests)
}

/// Reads and parses a script file.
pub fn read_script<T: Clone + ModuleOptions>(
    grammar: &Grammar<T>,
    path: &str,
    defaults: &T,
) -> Result<Vec<T>, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("-f {path}: cannot read the script: {e}")))?;
    parse_script(grammar, path, &text, defaults)
}
