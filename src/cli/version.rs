//! `--version` on every tool: pario's version, the version of the tool it
//! stands in for, the build's features and the MPI library it was built
//! with, so that a result's provenance can be asked of the program itself.

use super::reference::program_of;

/// Whether a command line asks for the version (`--version` anywhere).
pub(super) fn asked(args: &[String]) -> bool {
    args.iter().any(|a| a == "--version")
}

/// The text of `TOOL --version` (`pario` for `pario --version`).
pub(super) fn text(tool: &str) -> String {
    let pario = env!("CARGO_PKG_VERSION");
    let mut out = match program_of(tool) {
        Some(p) => format!(
            "{} (pario {pario})\ncompatible with {}\n",
            p.program, p.original
        ),
        None if tool == "pario" => format!("pario {pario}\n"),
        None => format!("pario {tool} (pario {pario})\n"),
    };
    out.push_str(&format!("features: {}\n", features()));
    if let Some(library) = crate::engine::mpi_library() {
        out.push_str(&format!("MPI library: {library}\n"));
    }
    out
}

/// The cargo features this build has, or what their absence means.
fn features() -> String {
    let built: Vec<&str> = [
        ("mpi", cfg!(feature = "mpi")),
        ("hdf5", cfg!(feature = "hdf5")),
    ]
    .into_iter()
    .filter_map(|(name, on)| on.then_some(name))
    .collect();
    match built.is_empty() {
        true => "none (tasks are threads of one process; no MPI)".into(),
        false => built.join(" "),
    }
}
