//! DLIO's configuration: Hydra's composition of the bundled `config.yaml`,
//! a workload file and the command line's overrides, typed by DLIO's
//! schema.

pub mod overrides;
pub mod value;
pub mod yaml;
