//! `ior`: the same as `pario ior`, so existing scripts keep working.

fn main() -> std::process::ExitCode {
    pario::cli::main(&pario::ior::Ior)
}
