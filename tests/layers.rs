//! The architecture, checked: the top-level modules of `src/` form layers
//! (ARCHITECTURE.md draws them), every import goes down or sideways within a
//! layer, there is no cycle between modules nor between files, no tool
//! imports another tool, and no function is longer than a screen.

mod source;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, bottom first. The tools (every module that implements
/// `Tool`) form the layer named `TOOLS`, found by reading the code.
const LAYERS: &[&[&str]] = &[
    &[
        "units", "random", "buffer", "stats", "error", "console", "signals", "launcher",
    ],
    &["options"],
    &["comm"],
    &["pagecache"],
    &["backend"],
    &["pattern", "latency", "progress", "memhog", "series"],
    &["output"],
    &["run"],
    &["tool"],
    &["TOOLS"],
    &["engine"],
    // Drivers: they run several tools in one engine.
    &["io500", "concurrent", "compare", "report"],
    &["cli"],
    &["bin"],
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read src") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The top-level module a file of `src/` belongs to (`None`: lib.rs).
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let first = file.strip_prefix(src).ok()?.components().next()?;
    let name = first.as_os_str().to_str()?.trim_end_matches(".rs");
    (name != "lib").then(|| name.to_string())
}

/// The top-level modules a text names as `crate::x` (or `pario::x`).
fn imports(text: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for prefix in ["crate::", "pario::"] {
        for (at, _) in text.match_indices(prefix) {
            let rest = &text[at + prefix.len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Module → the modules it imports, and the modules that are tools.
fn graph() -> (BTreeMap<String, BTreeSet<String>>, BTreeSet<String>) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut tools = BTreeSet::new();
    for file in files {
        let Some(module) = module_of(&src, &file) else {
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("read a source file");
        if text.contains("impl Tool for ") {
            tools.insert(module.clone());
        }
        let targets = edges.entry(module.clone()).or_default();
        targets.extend(imports(&text).into_iter().filter(|t| *t != module));
    }
    (edges, tools)
}

/// The layer of a module, if it has one.
fn layer_of(module: &str, tools: &BTreeSet<String>) -> Option<usize> {
    let name = if tools.contains(module) {
        "TOOLS"
    } else {
        module
    };
    LAYERS.iter().position(|layer| layer.contains(&name))
}

/// A cycle through `start`, if the graph has one (depth-first search).
fn cycle_from(
    start: &str,
    edges: &BTreeMap<String, BTreeSet<String>>,
    path: &mut Vec<String>,
) -> Option<Vec<String>> {
    for next in edges
        .get(path.last().expect("a path"))
        .into_iter()
        .flatten()
    {
        if next == start {
            let mut cycle = path.clone();
            cycle.push(next.clone());
            return Some(cycle);
        }
        if !path.contains(next) {
            path.push(next.clone());
            if let Some(c) = cycle_from(start, edges, path) {
                return Some(c);
            }
            path.pop();
        }
    }
    None
}

#[test]
fn no_cycle_between_top_level_modules() {
    let (edges, _) = graph();
    for module in edges.keys() {
        let cycle = cycle_from(module, &edges, &mut vec![module.clone()]);
        assert!(
            cycle.is_none(),
            "import cycle: {}",
            cycle.unwrap().join(" -> ")
        );
    }
}

#[test]
fn no_tool_imports_another() {
    let (edges, tools) = graph();
    assert!(
        tools.contains("ior") && tools.contains("mdtest"),
        "{tools:?}"
    );
    for tool in &tools {
        let others: Vec<_> = edges[tool].intersection(&tools).collect();
        assert!(others.is_empty(), "{tool} imports {others:?}");
    }
}

#[test]
fn every_import_goes_down_the_layers() {
    let (edges, tools) = graph();
    let mut wrong = Vec::new();
    for (module, targets) in &edges {
        let Some(from) = layer_of(module, &tools) else {
            wrong.push(format!(
                "{module} has no layer (add it to LAYERS and ARCHITECTURE.md)"
            ));
            continue;
        };
        for target in targets {
            match layer_of(target, &tools) {
                Some(to) if to <= from => {}
                Some(_) => wrong.push(format!("{module} imports {target}, a higher layer")),
                None => wrong.push(format!("{target} has no layer")),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn imports_are_read_from_paths() {
    let text = "use crate::comm::{agree, Comm};\nlet x = crate::units::MIB;\npario::cli::main(&pario::ior::Ior)";
    let found: Vec<String> = imports(text).into_iter().collect();
    assert_eq!(found, ["cli", "comm", "ior", "units"]);
}

/// The modules ARCHITECTURE.md lists as holding `unsafe`: the items
/// (`  - `path.rs`: why`) of its bullet on the FFI edge.
fn listed_unsafe_modules() -> BTreeSet<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(root.join("ARCHITECTURE.md")).expect("ARCHITECTURE.md");
    let start = text
        .find("* `unsafe` appears only at the system/FFI edge")
        .expect("ARCHITECTURE.md has the bullet on unsafe");
    text[start..]
        .lines()
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.strip_prefix("  - `"))
        .filter_map(|item| item.split('`').next())
        .map(str::to_string)
        .collect()
}

/// Whether Rust code (comments left out) holds an `unsafe` block, function,
/// impl or trait.
fn has_unsafe(text: &str) -> bool {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .any(|code| {
            code.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|word| word == "unsafe")
        })
}

#[test]
fn unsafe_only_in_the_listed_modules() {
    let found: BTreeSet<String> = sources()
        .into_iter()
        .filter(|(_, text)| has_unsafe(text))
        .map(|(file, _)| file)
        .collect();
    let listed = listed_unsafe_modules();
    let unlisted: Vec<_> = found.difference(&listed).collect();
    assert!(
        unlisted.is_empty(),
        "`unsafe` in modules that ARCHITECTURE.md does not list (keep it at the FFI edge, or list the module with its reason): {unlisted:?}"
    );
    let stale: Vec<_> = listed.difference(&found).collect();
    assert!(
        stale.is_empty(),
        "ARCHITECTURE.md lists modules without `unsafe`: {stale:?}"
    );
}

#[test]
fn unsafe_is_found_in_code_not_in_comments() {
    assert!(has_unsafe("let x = unsafe { f() };"));
    assert!(has_unsafe("unsafe impl Send for X {}"));
    assert!(!has_unsafe(
        "//! without `unsafe`\nlet x = 1; // unsafe here\n"
    ));
    assert!(!has_unsafe("let unsafe_ish = 1;"));
}

/// Imports the file check does not count, each because the domain needs
/// it: (importing file, imported files' prefix, why).
const ALLOWED_IMPORTS: &[(&str, &str, &str)] = &[(
    "backend/registry.rs",
    "backend/",
    "the registry lists every backend (its INFO), and each backend \
     describes itself with the registry's types (BackendInfo, Config)",
)];

/// The library's files (under `src/`) and their texts.
fn sources() -> Vec<(String, String)> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let read = |f: &PathBuf| {
        let relative = f.strip_prefix(&src).expect("under src");
        let text = std::fs::read_to_string(f).expect("read a source file");
        (relative.to_string_lossy().replace('\\', "/"), text)
    };
    files.iter().map(read).collect()
}

/// No two files import each other, directly or through others. A file's
/// imports are the items it names (`use` trees, `crate::`, `super::` and
/// `self::` paths, names a `use` brought in), each counted for the file
/// that defines it (through `pub use`). A module's own file (`mod.rs`, or
/// `x.rs` beside `x/`) naming its submodules' items is not counted: that is
/// how a module presents its parts; a submodule naming its parent's items
/// is.
#[test]
fn no_cycle_between_files() {
    let mut edges = source::Files::new(sources()).edges();
    for (from, prefix, _) in ALLOWED_IMPORTS {
        let targets = edges
            .get_mut(*from)
            .expect("an allowed import's file exists");
        targets.retain(|to| !to.starts_with(prefix));
    }
    let groups = source::cycles(&edges);
    let mut wrong = Vec::new();
    for group in &groups {
        let within = |f: &String| -> Vec<String> {
            let to = edges[f].iter().filter(|t| group.contains(t));
            to.map(|t| format!("{f} -> {t}")).collect()
        };
        let imports: Vec<String> = group.iter().flat_map(within).collect();
        wrong.push(format!("files import each other: {}", imports.join(", ")));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The longest a function may be, from `fn` to its closing brace: a screen.
const MOST_LINES: usize = 100;

/// Functions still longer while another branch splits them: (file, name,
/// why). An entry that is no longer long fails the check: remove it.
const LONG_PENDING: &[(&str, &str, &str)] = &[];

#[test]
fn no_function_longer_than_a_screen() {
    let mut long = Vec::new();
    let mut pending: Vec<_> = LONG_PENDING.iter().collect();
    for (file, text) in sources() {
        for (name, line, lines) in source::long_functions(&text, MOST_LINES) {
            let known = pending
                .iter()
                .position(|(f, n, _)| *f == file && *n == name);
            match known {
                Some(i) => drop(pending.remove(i)),
                None => long.push(format!("src/{file}:{line} {name}: {lines} lines")),
            }
        }
    }
    let stale = pending.iter().map(|(f, n, why)| {
        format!("{f} {n} is no longer over {MOST_LINES} lines ({why}): remove it from LONG_PENDING")
    });
    long.extend(stale);
    assert!(
        long.is_empty(),
        "functions over {MOST_LINES} lines (split them):\n{}",
        long.join("\n")
    );
}
