//! The reference generated from the option tables (`pario help`): the
//! checked-in man pages, option chapter and completions regenerate
//! identically in every build, every man page renders, bash, zsh and fish
//! complete from their scripts, and every program answers `--version`.

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
    // Every build makes the same files: MPIIO's and HDF5's tables are in
    // every build, marked as needing theirs.
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

/// What zsh's completion function offers for each of `lines` (the last
/// word being completed), in one zsh: `_pario` loaded as compinit loads it,
/// `compadd` replaced by a function that prints its candidates (zsh itself
/// filters them by the prefix typed, so the prefix is applied here).
fn zsh_offers(lines: &[&str]) -> Vec<Vec<String>> {
    let dir = root().join("completions");
    let mut script = format!(
        "fpath=('{dir}' $fpath); autoload -Uz compinit; compinit -u -D; \
         [[ $_comps[ior] == _pario && $_comps[io500] == _pario ]] || exit 3; \
         compadd() {{ local -a a=(\"$@\"); print -rl -- \"${{(@)a[${{a[(i)--]}}+1,-1]}}\"; }}; \
         _files() {{ :; }}; ",
        dir = dir.display()
    );
    for words in lines {
        script.push_str(&format!(
            "words=({words}); CURRENT=$#words; source '{}/_pario'; print -r -- '%%'; ",
            dir.display()
        ));
    }
    let home = scratch("pario-zsh");
    let out = finish(
        Command::new("zsh")
            .args(["-f", "-c", &script])
            .env("HOME", home.path())
            .output()
            .expect("zsh"),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    let answers = out.stdout.split("%%\n");
    let typed = lines.iter().map(|w| {
        let last = w.rsplit(' ').next().unwrap_or_default();
        last.rsplit(',').next().unwrap_or_default()
    });
    typed
        .zip(answers)
        .map(|(typed, answer)| {
            let offered = answer.lines().filter(|l| l.starts_with(typed));
            offered.map(String::from).collect()
        })
        .collect()
}

/// What fish offers for each of `lines` with the script loaded (`complete
/// -C`), in one fish whose configuration and data are in a scratch
/// directory.
fn fish_offers(lines: &[&str]) -> Vec<Vec<String>> {
    let home = scratch("pario-fish");
    let mut script = format!(
        "source '{}'; ",
        root().join("completions/pario.fish").display()
    );
    for line in lines {
        script.push_str(&format!("complete -C '{line}'; echo '%%'; "));
    }
    let out = finish(
        Command::new("fish")
            .args(["--no-config", "-c", &script])
            .env("HOME", home.path())
            .env("XDG_CONFIG_HOME", home.path().join("config"))
            .env("XDG_DATA_HOME", home.path().join("data"))
            .env("XDG_CACHE_HOME", home.path().join("cache"))
            .output()
            .expect("fish"),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    let name = |l: &str| l.split('\t').next().unwrap_or_default().to_string();
    let answers = out.stdout.split("%%\n").take(lines.len());
    answers.map(|a| a.lines().map(name).collect()).collect()
}

#[test]
fn zsh_completes_options_directives_and_backend_options() {
    if !found("zsh") {
        eprintln!("zsh is not installed: skipped");
        return;
    }
    let file = root().join("completions/_pario");
    let out = finish(
        Command::new("zsh")
            .arg("-n")
            .arg(&file)
            .output()
            .expect("zsh"),
    );
    assert_eq!(out.status, 0, "zsh -n: {}", out.stderr);
    let asked = [
        ("pario i", &["ior", "io500"][..]),
        ("ior --blockS", &["--blockSize="]),
        ("ior --posix.od", &["--posix.odirect"]),
        // A backend of the mpi build, in every build's completions.
        ("ior --mpiio.show", &["--mpiio.showHints"]),
        (
            "ior -O stoneWallingWearOutI",
            &["stoneWallingWearOutIterations="],
        ),
        ("mdtest --random-s", &["--random-seed="]),
        ("io500 --pl", &["--plan"]),
    ];
    let lines: Vec<&str> = asked.iter().map(|(l, _)| *l).collect();
    for ((line, expected), got) in asked.iter().zip(zsh_offers(&lines)) {
        assert_eq!(got, *expected, "{line}");
    }
}

#[test]
fn fish_completes_options_directives_and_backend_options() {
    if !found("fish") {
        eprintln!("fish is not installed: skipped");
        return;
    }
    let file = root().join("completions/pario.fish");
    let out = finish(
        Command::new("fish")
            .arg("--no-execute")
            .arg(&file)
            .output()
            .expect("fish"),
    );
    assert_eq!(out.status, 0, "fish --no-execute: {}", out.stderr);
    let got = fish_offers(&[
        "ior --",
        "pario i",
        "mdtest --posix.o",
        "ior -O stoneWallingWearOutI",
        "pario ior --blockS",
    ]);
    for option in [
        "--blockSize",
        "--transferSize",
        "--posix.odirect",
        "--s3.endpoint",
        "--mpiio.showHints",
        "--hdf5.chunkSize",
    ] {
        assert!(got[0].iter().any(|o| o == option), "{option}: {:?}", got[0]);
    }
    assert_eq!(got[1], ["io500", "ior"]);
    assert_eq!(got[2], ["--posix.odirect"]);
    assert_eq!(got[3], ["stoneWallingWearOutIterations="]);
    assert_eq!(got[4], ["--blockSize"]);
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
