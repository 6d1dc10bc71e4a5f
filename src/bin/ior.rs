//! `ior`: the same as `pario ior`, so existing scripts keep working.

fn main() -> std::process::ExitCode {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_else(|| "ior".into());
    pario::cli::ior_main(&program, args.collect())
}
