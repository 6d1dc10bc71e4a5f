//! `dlio_benchmark`: the same as `pario dlio`, so that `mlpstorage
//! --dlio-bin-path DIR` and existing scripts run pario.

fn main() -> std::process::ExitCode {
    pario::cli::main(&pario::cli::DlioCommand)
}
