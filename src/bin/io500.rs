//! `io500`: the same as `pario io500`: the IO500 workflow with pario's tools.

fn main() -> std::process::ExitCode {
    pario::cli::main(&pario::cli::Io500)
}
