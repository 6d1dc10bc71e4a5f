//! The reference of every command, generated from the option tables that
//! parse it (`pario help`): man pages, the guide's option chapter and shell
//! completions. Nothing here lists an option by hand: a new row of a table
//! appears everywhere, and one without help text is refused.

mod completion;
mod man;
mod markdown;

use std::path::Path;
use std::process::ExitCode;

use super::{Command, TOOLS};
use crate::backend;
use crate::options::{module_specs, ArgKind, Documented, Grammar};

/// A command with a program of its own, and the tool it stands in for.
pub(super) struct Program {
    /// Its name in [`TOOLS`].
    pub tool: &'static str,
    /// The program's name (`dlio_benchmark` for `pario dlio`).
    pub program: &'static str,
    /// What follows the options on its command line.
    pub operands: &'static str,
    /// The original and the version whose options and files it takes.
    pub original: &'static str,
}

/// The programs of the suite, in man-page order.
pub(super) const PROGRAMS: &[Program] = &[
    Program {
        tool: "ior",
        program: "ior",
        operands: "",
        original: "IOR 4.1.0 (hpc/ior)",
    },
    Program {
        tool: "mdtest",
        program: "mdtest",
        operands: "",
        original: "mdtest of IOR 4.1.0",
    },
    Program {
        tool: "md-workbench",
        program: "md-workbench",
        operands: "",
        original: "md-workbench of IOR 4.1.0",
    },
    Program {
        tool: "io500",
        program: "io500",
        operands: "CONFIG.ini",
        original: "the IO500 harness (its ini files, phases, scores and result files)",
    },
    Program {
        tool: "dlio",
        program: "dlio_benchmark",
        operands: "workload=NAME [++workload.KEY=VALUE ...] [pario.NAME=VALUE ...]",
        original: "DLIO's mlperf_storage_v2.0 branch, as MLPerf Storage v2.0 runs it",
    },
];

/// The program of a tool of [`TOOLS`], if it has one.
pub(super) fn program_of(tool: &str) -> Option<&'static Program> {
    PROGRAMS.iter().find(|p| p.tool == tool)
}

/// What `pario <tool>` takes after its options, for the tools without a
/// program of their own.
fn operands_of(tool: &str) -> &'static str {
    match tool {
        "concurrent" => "FILE",
        "compare" => "A.json B.json",
        "report" => "RESULT [CSV...] ... -o PAGE.html",
        _ => program_of(tool).map_or("", |p| p.operands),
    }
}

/// One command as the reference shows it.
struct Page {
    /// `ior`, or `pario compare` for a command of `pario` only.
    command: String,
    /// Its name in [`TOOLS`].
    tool: &'static str,
    about: &'static str,
    operands: &'static str,
    options: Vec<Documented>,
}

impl Page {
    /// Its own options (not a backend's).
    fn own(&self) -> impl Iterator<Item = &Documented> {
        self.options.iter().filter(|o| o.module.is_empty())
    }

    /// Whether it takes `-O key=value` directives.
    fn directives(&self) -> bool {
        self.options.iter().any(|o| o.kind == ArgKind::Directives)
    }
}

/// Every command of [`TOOLS`], in its order.
fn pages() -> Vec<Page> {
    let page = |tool: &&dyn Command| Page {
        command: match program_of(tool.name()) {
            Some(p) => p.program.to_string(),
            None => format!("pario {}", tool.name()),
        },
        tool: tool.name(),
        about: tool.about(),
        operands: operands_of(tool.name()),
        options: tool.documented(),
    };
    TOOLS.iter().map(page).collect()
}

/// Every backend with its options, those a cargo feature adds included
/// (the same in every build), in the grammars' order (the backends' own
/// tables, as the tools' grammars take them).
fn backends() -> Vec<(&'static str, Vec<Documented>)> {
    let specs = module_specs(backend::all_module_options()).collect();
    let mut out: Vec<(&'static str, Vec<Documented>)> = backend::registry::documented_backends()
        .into_iter()
        .map(|name| (name, Vec::new()))
        .collect();
    for option in Grammar::<()>::new("backends", specs).documented() {
        if let Some((_, list)) = out.iter_mut().find(|(name, _)| *name == option.module) {
            list.push(option);
        }
    }
    out
}

/// DLIO's `pario.NAME=VALUE` settings: (name, values, default, help).
fn dlio_settings() -> Vec<(String, &'static str, &'static str, &'static str)> {
    let row = |s: &crate::dlio::options::Setting| {
        (format!("pario.{}", s.name), s.values, s.default, s.help)
    };
    crate::dlio::options::SETTINGS.iter().map(row).collect()
}

/// Options without help text, named: the reference refuses them.
fn undocumented() -> Vec<String> {
    let mut missing = Vec::new();
    for page in pages() {
        for o in page.options.iter().filter(|o| o.help.trim().is_empty()) {
            missing.push(format!("{}: {}", page.command, o.spellings().join(", ")));
        }
    }
    missing
}

/// The man pages: (file stem, text).
fn man_pages() -> Vec<(&'static str, String)> {
    let pages = pages();
    let mut out: Vec<(&'static str, String)> = PROGRAMS
        .iter()
        .filter_map(|p| {
            pages
                .iter()
                .find(|page| page.tool == p.tool)
                .map(|page| (p.program, man::program(page, p)))
        })
        .collect();
    out.push(("pario", man::pario(&pages, &backends())));
    out
}

/// Every generated file, as (path under the repository, text).
fn files() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = man_pages()
        .into_iter()
        .map(|(stem, text)| (format!("docs/man/{stem}.1"), text))
        .collect();
    out.push((
        "docs/options.md".into(),
        markdown::reference(&pages(), &backends()),
    ));
    for shell in completion::SHELLS {
        out.push((
            completion::file_name(shell).into(),
            completion::script(shell, &pages()),
        ));
    }
    out
}

/// `pario help ...`.
pub(super) fn main(args: &[String]) -> ExitCode {
    let missing = undocumented();
    if !missing.is_empty() {
        eprintln!(
            "pario: error: options without help text: {}",
            missing.join("; ")
        );
        return ExitCode::from(2);
    }
    let text = match args {
        [flag, page] if flag == "--man" => man_pages()
            .into_iter()
            .find(|(stem, _)| stem == page)
            .map(|(_, t)| t),
        [flag] if flag == "--markdown" => Some(markdown::reference(&pages(), &backends())),
        [flag, shell] if flag == "--completions" => completion::SHELLS
            .contains(&shell.as_str())
            .then(|| completion::script(shell, &pages())),
        [flag, dir] if flag == "--write" => return write_all(Path::new(dir)),
        [tool] => return tool_help(tool),
        _ => None,
    };
    match text {
        Some(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        None => {
            eprintln!(
                "pario: error: 'pario help {}': expected TOOL, --man PAGE, --markdown, --completions bash|zsh|fish or --write DIR",
                args.join(" ")
            );
            ExitCode::from(2)
        }
    }
}

/// `pario help TOOL`: the tool's `-h`.
fn tool_help(name: &str) -> ExitCode {
    match TOOLS.iter().find(|t| t.name() == name) {
        Some(tool) => tool.main(&format!("pario {name}"), vec!["-h".into()]),
        None => {
            eprintln!("pario: error: unknown tool '{name}' (try 'pario --help')");
            ExitCode::from(2)
        }
    }
}

/// Writes every generated file under `root` (the repository).
fn write_all(root: &Path) -> ExitCode {
    for (path, text) in files() {
        let path = root.join(path);
        let written = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| std::fs::write(&path, text));
        if let Err(e) = written {
            eprintln!("pario: error: cannot write {}: {e}", path.display());
            return ExitCode::from(1);
        }
        println!("{}", path.display());
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests;
