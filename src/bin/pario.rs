//! `pario <tool> [options]`: the suite's entry point.

fn main() -> std::process::ExitCode {
    pario::cli::pario_main()
}
