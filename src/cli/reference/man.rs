//! Man pages (roff, `man 7 man`'s macros) of each program and of `pario`.

use super::{dlio_settings, Page, Program};
use crate::options::Documented;

/// Text made safe for roff: backslashes and dashes escaped, and a line that
/// would start with a control character protected.
pub(super) fn esc(text: &str) -> String {
    let text = text.replace('\\', "\\e").replace('-', "\\-");
    match text.starts_with(['.', '\'']) {
        true => format!("\\&{text}"),
        false => text,
    }
}

/// `.TH` and NAME.
fn head(name: &str, about: &str) -> String {
    format!(
        ".TH {} 1 \"\" \"pario {}\" \"pario manual\"\n.SH NAME\n{} \\- {}\n",
        name.to_uppercase(),
        env!("CARGO_PKG_VERSION"),
        esc(name),
        esc(about)
    )
}

/// One option as a tagged paragraph: its spellings, value, default, help.
fn option(o: &Documented) -> String {
    let names: Vec<String> = o
        .spellings()
        .iter()
        .map(|s| format!("\\fB{}\\fR", esc(s)))
        .collect();
    let value = o
        .value_shown()
        .map_or(String::new(), |v| format!("=\\fI{}\\fR", esc(&v)));
    format!(".TP\n{}{value}\n{}\n", names.join(", "), esc(o.help.trim()))
}

fn options<'a>(list: impl Iterator<Item = &'a Documented>) -> String {
    list.map(option).collect()
}

/// The options every program takes besides its table's.
const COMMON: &str = ".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nThe options with their defaults.\n\
.TP\n\\fB\\-\\-version\\fR\npario's version, the version of the tool it stands in for, the build's features and its MPI library.\n";

/// ENVIRONMENT, EXIT STATUS and SEE ALSO.
fn tail(see_also: &[&str]) -> String {
    let refs: Vec<String> = see_also
        .iter()
        .map(|p| format!("\\fB{}\\fR(1)", esc(p)))
        .collect();
    format!(
        ".SH ENVIRONMENT\n.TP\n\\fBPARIO_TASKS\\fR\nThe number of tasks (threads of one process) when not started by an MPI launcher.\n\
         .SH EXIT STATUS\n0 success, 1 a task failed, 2 bad options or input (nothing was touched), \
         3 wrong data found, 128+N stopped by signal N.\n\
         .SH SEE ALSO\n{}\n.PP\nThe user guide: docs/README.md in pario's sources.\n",
        refs.join(", ")
    )
}

/// The page of a program (`ior.1`): its options, then its backends'.
pub(super) fn program(page: &Page, program: &Program) -> String {
    let operands = match page.operands {
        "" => String::new(),
        o => format!(" {}", esc(o)),
    };
    let mut out = head(program.program, page.about);
    out.push_str(&format!(
        ".SH SYNOPSIS\n\\fB{}\\fR [\\fIOPTIONS\\fR]{operands}\n.br\n\\fBpario {}\\fR [\\fIOPTIONS\\fR]{operands}\n",
        esc(program.program),
        esc(page.tool)
    ));
    out.push_str(&format!(
        ".SH DESCRIPTION\n{}. Compatible with {}: the same options, files and output.\n",
        esc(page.about),
        esc(program.original)
    ));
    if page.directives() {
        out.push_str(".PP\nEvery long option is also a directive: \\fB\\-O\\fR \\fIname\\fR=\\fIvalue\\fR[,\\fIname\\fR=\\fIvalue\\fR...], case\\-insensitive.\n");
    }
    out.push_str(".SH OPTIONS\n");
    out.push_str(&options(page.own()));
    out.push_str(COMMON);
    let mut modules: Vec<&str> = Vec::new();
    for o in page.options.iter().filter(|o| !o.module.is_empty()) {
        if !modules.contains(&o.module) {
            modules.push(o.module);
        }
    }
    if !modules.is_empty() {
        out.push_str(
            ".SH BACKEND OPTIONS\nEach backend's options, taken with \\fB\\-a\\fR \\fINAME\\fR.\n",
        );
    }
    for module in modules {
        out.push_str(&format!(".SS {}\n", esc(module)));
        out.push_str(&options(page.options.iter().filter(|o| o.module == module)));
    }
    if program.tool == "dlio" {
        out.push_str(".SH PARIO SETTINGS\nGiven as overrides, \\fBpario.\\fR\\fINAME\\fR=\\fIVALUE\\fR (DLIO ignores them).\n");
        for (name, values, default, help) in dlio_settings() {
            out.push_str(&format!(
                ".TP\n\\fB{}\\fR=\\fI{}\\fR\n{} (default: {})\n",
                esc(&name),
                esc(values),
                esc(help),
                esc(default)
            ));
        }
    }
    let others: Vec<&str> = super::PROGRAMS
        .iter()
        .map(|p| p.program)
        .chain(["pario"])
        .filter(|p| *p != program.program)
        .collect();
    out.push_str(&tail(&others));
    out
}

/// `pario.1`: the front end, its own commands, and every backend's options.
pub(super) fn pario(pages: &[Page], backends: &[(&'static str, Vec<Documented>)]) -> String {
    let mut out = head("pario", "parallel I/O benchmarks for HPC and AI storage");
    out.push_str(".SH SYNOPSIS\n\\fBpario\\fR \\fITOOL\\fR [\\fIOPTIONS\\fR]\n.br\n\\fBpario help\\fR [\\fITOOL\\fR | \\fB\\-\\-man\\fR \\fIPAGE\\fR | \\fB\\-\\-markdown\\fR | \\fB\\-\\-completions\\fR \\fISHELL\\fR | \\fB\\-\\-write\\fR \\fIDIR\\fR]\n.br\n\\fBpario \\-\\-version\\fR\n");
    out.push_str(".SH DESCRIPTION\nA suite of drop\\-in storage benchmarks. Each tool is a subcommand; those with a program of their own have their own page.\n.SH TOOLS\n");
    for page in pages {
        out.push_str(&format!(
            ".TP\n\\fB{}\\fR\n{}\n",
            esc(page.tool),
            esc(page.about)
        ));
    }
    for page in pages.iter().filter(|p| super::program_of(p.tool).is_none()) {
        out.push_str(&format!(
            ".SH {}\n\\fB{}\\fR [\\fIOPTIONS\\fR] {}\n",
            esc(&page.command.to_uppercase()),
            esc(&page.command),
            esc(page.operands)
        ));
        out.push_str(&options(page.own()));
    }
    out.push_str(".SH HELP\n.TP\n\\fBpario help\\fR \\fITOOL\\fR\nThe tool's options (as \\fITOOL\\fR \\fB\\-h\\fR).\n\
        .TP\n\\fBpario help \\-\\-man\\fR \\fIPAGE\\fR\nA man page: ior, mdtest, md\\-workbench, io500, dlio_benchmark or pario.\n\
        .TP\n\\fBpario help \\-\\-markdown\\fR\nThe option reference of the user guide (docs/options.md).\n\
        .TP\n\\fBpario help \\-\\-completions\\fR \\fIbash\\fR|\\fIzsh\\fR|\\fIfish\\fR\nThe shell's completions.\n\
        .TP\n\\fBpario help \\-\\-write\\fR \\fIDIR\\fR\nAll of them, into DIR/docs and DIR/completions.\n");
    out.push_str(".SH BACKEND OPTIONS\nTaken by the tools with \\fB\\-a\\fR \\fINAME\\fR, as \\fB\\-\\-\\fR\\fIname.option\\fR or \\fB\\-O\\fR \\fIname.option\\fR=\\fIvalue\\fR.\n");
    for (name, list) in backends {
        out.push_str(&format!(".SS {}\n", esc(name)));
        match list.is_empty() {
            true => out.push_str("No options.\n"),
            false => out.push_str(&options(list.iter())),
        }
    }
    let programs: Vec<&str> = super::PROGRAMS.iter().map(|p| p.program).collect();
    out.push_str(&tail(&programs));
    out
}
