//! `mdtest`: the same as `pario mdtest`, so existing scripts keep working.

fn main() -> std::process::ExitCode {
    let mut args = std::env::args();
    let program = args.next().unwrap_or_else(|| "mdtest".into());
    pario::cli::mdtest_main(&program, args.collect())
}
