//! The guide's examples run: every ` ```console ` block of README.md and
//! docs/*.md, each `$ ` line a command (a line ending in `\` continues on
//! the next), is run in order with pario's programs first on the PATH, in a
//! scratch directory on tmpfs named by `$SCRATCH`, and must succeed. Other
//! blocks show commands for real systems and are not run.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{bin, finish, scratch};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The console blocks of a Markdown text, each as its commands.
fn console_blocks(text: &str) -> Vec<Vec<String>> {
    let mut blocks = Vec::new();
    let mut current: Option<Vec<String>> = None;
    let mut continued = false;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```console") => current = Some(Vec::new()),
            (Some(_), "```") => blocks.extend(current.take()),
            (Some(commands), l) if continued => {
                let last = commands.last_mut().expect("a command");
                last.push_str(l.trim_end_matches('\\'));
                continued = l.ends_with('\\');
            }
            (Some(commands), l) => {
                if let Some(command) = l.strip_prefix("$ ") {
                    commands.push(command.trim_end_matches('\\').to_string());
                    continued = command.ends_with('\\');
                }
            }
            _ => {}
        }
    }
    blocks
}

/// README.md and the guide's pages, with their console blocks.
fn examples() -> Vec<(String, Vec<Vec<String>>)> {
    let mut files = vec![root().join("README.md")];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.sort();
    files.extend(pages);
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(&f).expect("read");
            let name = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
            (name, console_blocks(&text))
        })
        .filter(|(_, blocks)| !blocks.is_empty())
        .collect()
}

fn run_block(commands: &[String], programs: &Path, what: &str) {
    let dir = scratch("pario-guide");
    let path = format!(
        "{}:{}",
        programs.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    for command in commands {
        let out = finish(
            Command::new("bash")
                .args(["-c", command])
                .current_dir(dir.path())
                .env("PATH", &path)
                .env("SCRATCH", dir.path())
                .env_remove("PARIO_TASKS")
                .output()
                .expect("bash"),
        );
        assert_eq!(
            out.status, 0,
            "{what}: `$ {command}` failed:\n{}\n{}",
            out.stdout, out.stderr
        );
    }
}

#[test]
fn the_guides_console_examples_run() {
    let programs = Path::new(bin("pario"))
        .parent()
        .expect("a directory")
        .to_path_buf();
    let mut count = 0;
    for (file, blocks) in examples() {
        for (i, block) in blocks.iter().enumerate() {
            run_block(
                block,
                &programs,
                &format!("{file}, console block {}", i + 1),
            );
            count += block.len();
        }
    }
    // The marker is what selects them: losing it must not pass unnoticed.
    assert!(count >= 8, "only {count} runnable examples found");
}

#[test]
fn console_blocks_are_read_with_their_continuations() {
    let text =
        "```sh\n$ not run\n```\n```console\n$ ior -w \\\n    -r\noutput\n$ mdtest -n 1\n```\n";
    assert_eq!(
        console_blocks(text),
        [vec!["ior -w -r".to_string(), "mdtest -n 1".to_string()]]
    );
}
