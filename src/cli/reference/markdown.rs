//! The guide's option reference (`docs/options.md`): a table per command
//! and per backend.

use super::{dlio_settings, program_of, Page};
use crate::options::Documented;

/// Text made safe in a table cell: no `|` ending the cell, no `<` read as HTML.
fn cell(text: &str) -> String {
    text.replace('|', "\\|")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Code in a table cell.
fn code(text: &str) -> String {
    match text.is_empty() {
        true => String::new(),
        false => format!("`{}`", text.replace('|', "\\|")),
    }
}

fn table<'a>(options: impl Iterator<Item = &'a Documented>) -> String {
    let mut out = String::from("| option | value (default) | description |\n|---|---|---|\n");
    for o in options {
        let names: Vec<String> = o.spellings().iter().map(|s| code(s)).collect();
        out.push_str(&format!(
            "| {} | {} | {} |\n",
            names.join(", "),
            o.value_shown().map_or(String::new(), |v| code(&v)),
            cell(o.help.trim())
        ));
    }
    out
}

fn section(page: &Page) -> String {
    let mut out = format!("## {}\n\n", page.command);
    let usage = format!("{} [OPTIONS] {}", page.command, page.operands);
    out.push_str(&format!("`{}`: {}.", usage.trim_end(), page.about));
    if let Some(p) = program_of(page.tool) {
        out.push_str(&format!(
            " Also `pario {}`. Compatible with {}.",
            page.tool, p.original
        ));
    }
    out.push_str("\n\n");
    if page.directives() {
        out.push_str("Every long option is also a directive: `-O name=value[,name=value]`, case-insensitive.\n\n");
    }
    out.push_str(&table(page.own()));
    if page.options.iter().any(|o| !o.module.is_empty()) {
        out.push_str("\nWith `-a NAME`, the backend's options too: see [Backends](#backends).\n");
    }
    if page.tool == "dlio" {
        out.push_str("\npario's settings, given as overrides (`pario.NAME=VALUE`; DLIO ignores them):\n\n| setting | values | default | description |\n|---|---|---|---|\n");
        for (name, values, default, help) in dlio_settings() {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                code(&name),
                code(values),
                code(default),
                cell(help)
            ));
        }
    }
    out
}

/// The whole chapter.
pub(super) fn reference(pages: &[Page], backends: &[(&'static str, Vec<Documented>)]) -> String {
    let mut out = String::from(
        "# Option reference\n\n\
         Every option of every tool and backend: its spellings, its value as the\n\
         tool's `-h` shows it (the default, or what to give) and its description,\n\
         generated from the option tables that parse them (`pario help --markdown`;\n\
         the man pages in [man/](man/) come from the same tables). Do not edit:\n\
         regenerate with `cargo run --bin pario -- help --write .` (a test compares).\n\
         Every program also takes `-h` (its options, with defaults) and `--version`.\n\
         Backends behind a cargo feature (`MPIIO`, `HDF5`) are listed in every\n\
         build; their options say which build they need.\n\n",
    );
    for page in pages {
        out.push_str(&format!(
            "* [{}](#{})\n",
            page.command,
            anchor(&page.command)
        ));
    }
    out.push_str("* [Backends](#backends)\n\n");
    for page in pages {
        out.push_str(&section(page));
        out.push('\n');
    }
    out.push_str("## Backends\n\nChosen with `-a NAME`; each option given as `--name.option[=value]` or `-O name.option=value`.\n");
    for (name, list) in backends {
        out.push_str(&format!("\n### {name}\n\n"));
        match list.is_empty() {
            true => out.push_str("No options.\n"),
            false => out.push_str(&table(list.iter())),
        }
    }
    out
}

/// A heading's anchor as GitHub makes it.
fn anchor(title: &str) -> String {
    title
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}
