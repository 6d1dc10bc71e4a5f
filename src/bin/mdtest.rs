//! `mdtest`: the same as `pario mdtest`, so existing scripts keep working.

fn main() -> std::process::ExitCode {
    pario::cli::main(&pario::mdtest::Mdtest)
}
