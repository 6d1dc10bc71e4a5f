//! The reference generated from the option tables (`pario help`): the
//! checked-in man pages, option chapter and completions regenerate
//! identically, every man page renders, bash completes from its script, and
//! every program answers `--version`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::{bin, finish, scratch, Run};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn run(program: &str, args: &[&str]) -> Run {
    finish(Command::new(bin(program)).args(args).output().expect("run"))
}

/// Whether a program is on the PATH.
fn found(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The files `pario help --write` makes, relative to the repository.
fn generated(dir: &Path) -> Vec<String> {
    let out = run("pario", &["help", "--write", dir.to_str().expect("utf-8")]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    let prefix = format!("{}/", dir.display());
    out.stdout
        .lines()
        .map(|l| {
            l.strip_prefix(&prefix)
                .expect("under the directory")
                .to_string()
        })
        .collect()
}

#[test]
fn the_checked_in_reference_regenerates_identically() {
    if crate::common::programs_built_with("mpi") {
        // MPIIO's and HDF5's options join the tables in those builds; the
        // checked-in files are the default build's.
        return;
    }
    let dir = scratch("pario-reference");
    let files = generated(dir.path());
    assert_eq!(files.len(), 10, "{files:?}");
    for file in files {
        let fresh = std::fs::read_to_string(dir.path().join(&file)).expect("generated");
        let kept = std::fs::read_to_string(root().join(&file)).unwrap_or_default();
        assert!(
            fresh == kept,
            "{file} differs from the option tables: regenerate with `cargo run --bin pario -- help --write .`"
        );
    }
}

#[test]
fn every_man_page_renders() {
    if !found("man") {
        eprintln!("man is not installed: skipped");
        return;
    }
    for page in [
        "ior",
        "mdtest",
        "md-workbench",
        "io500",
        "dlio_benchmark",
        "pario",
    ] {
        let path = root().join(format!("docs/man/{page}.1"));
        let out = finish(
            Command::new("man")
                .args(["--warnings", "-l"])
                .arg(&path)
                .env("MANWIDTH", "80")
                .env("MANPAGER", "cat")
                .env("PAGER", "cat")
                .output()
                .expect("run man"),
        );
        assert_eq!(out.status, 0, "{page}: {}", out.stderr);
        assert_eq!(out.stderr, "", "{page}: roff warnings");
        for section in ["NAME", "SYNOPSIS", "OPTIONS", "EXIT STATUS"] {
            assert!(out.stdout.contains(section), "{page}: no {section}");
        }
    }
    let ior = std::fs::read_to_string(root().join("docs/man/ior.1")).expect("ior.1");
    assert!(
        ior.contains("\\fB\\-b\\fR, \\fB\\-\\-blockSize\\fR"),
        "ior.1 lacks -b"
    );
    assert!(ior.contains(".SS POSIX"), "ior.1 lacks POSIX's options");
}

/// What bash's completion function answers for `words` (the last one being
/// completed).
fn bash_completes(words: &str) -> Vec<String> {
    let script = format!(
        "source '{}'; COMP_WORDS=({words}); COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1)); \
         _pario_complete; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
        root().join("completions/pario.bash").display()
    );
    let out = finish(
        Command::new("bash")
            .args(["-c", &script])
            .output()
            .expect("bash"),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    out.stdout
        .lines()
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

#[test]
fn bash_completes_tools_options_directives_and_backend_options() {
    if !found("bash") {
        eprintln!("bash is not installed: skipped");
        return;
    }
    assert_eq!(bash_completes("pario i"), ["ior", "io500"]);
    assert_eq!(bash_completes("ior --blockS"), ["--blockSize="]);
    assert_eq!(bash_completes("ior --posix.od"), ["--posix.odirect"]);
    assert_eq!(
        bash_completes("ior -O stoneWallingWearOutI"),
        ["stoneWallingWearOutIterations="]
    );
    assert_eq!(
        bash_completes("ior -O blockSize=1m,transferSizeS"),
        ["blockSize=1m,transferSizeSplit="]
    );
    assert_eq!(
        bash_completes("pario mdtest --random-s"),
        ["--random-seed="]
    );
    assert_eq!(bash_completes("dlio_benchmark pario.a"), ["pario.as="]);
    assert_eq!(bash_completes("pario help --mar"), ["--markdown"]);
}

#[test]
fn zsh_and_fish_scripts_parse() {
    for (shell, file) in [
        ("zsh", "completions/_pario"),
        ("fish", "completions/pario.fish"),
    ] {
        if !found(shell) {
            eprintln!("{shell} is not installed: skipped");
            continue;
        }
        let out = finish(
            Command::new(shell)
                .arg("-n")
                .arg(root().join(file))
                .output()
                .expect("shell"),
        );
        assert_eq!(out.status, 0, "{shell}: {}", out.stderr);
    }
}

#[test]
fn every_program_answers_version() {
    let pario = format!("pario {}", env!("CARGO_PKG_VERSION"));
    let features = match crate::common::programs_built_with("mpi") {
        true => "features: mpi",
        false => "features: none",
    };
    for (program, args, compatible) in [
        ("ior", &["--version"][..], Some("compatible with IOR 4.1.0")),
        (
            "ior",
            &["-t", "1m", "--version"][..],
            Some("compatible with IOR 4.1.0"),
        ),
        (
            "mdtest",
            &["--version"][..],
            Some("compatible with mdtest of IOR 4.1.0"),
        ),
        (
            "md-workbench",
            &["--version"][..],
            Some("compatible with md-workbench of IOR 4.1.0"),
        ),
        (
            "io500",
            &["--version"][..],
            Some("compatible with the IO500 harness"),
        ),
        (
            "dlio_benchmark",
            &["--version"][..],
            Some("compatible with DLIO's mlperf_storage_v2.0"),
        ),
        ("pario", &["--version"][..], None),
        (
            "pario",
            &["ior", "--version"][..],
            Some("compatible with IOR 4.1.0"),
        ),
        ("pario", &["compare", "--version"][..], None),
    ] {
        let out = run(program, args);
        assert_eq!(out.status, 0, "{program} {args:?}: {}", out.stderr);
        let lines: Vec<&str> = out.stdout.lines().collect();
        assert!(lines[0].contains(&pario), "{program}: {}", out.stdout);
        if let Some(c) = compatible {
            assert!(lines[1].starts_with(c), "{program}: {}", out.stdout);
        }
        assert!(out.stdout.contains(features), "{program}: {}", out.stdout);
        let mpi = crate::common::programs_built_with("mpi");
        assert_eq!(out.stdout.contains("MPI library: "), mpi);
    }
}

#[test]
fn pario_help_shows_a_tool_and_refuses_unknown_pages() {
    let out = run("pario", &["help", "ior"]);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("Synopsis ior"), "{}", out.stdout);
    for args in [
        &["help", "--man", "nosuch"][..],
        &["help", "--completions", "tcsh"][..],
        &["help", "nosuch"][..],
    ] {
        let out = run("pario", args);
        assert_eq!(out.status, 2, "{args:?}");
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
        assert_eq!(out.stdout, "");
    }
}
