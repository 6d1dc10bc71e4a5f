//! `md-workbench`: the same as `pario md-workbench`, so existing scripts keep
//! working.

fn main() -> std::process::ExitCode {
    pario::cli::main(&pario::mdworkbench::MdWorkbench)
}
