//! The parameters of an mdtest run.

/// One mdtest run's options.
#[derive(Debug, Clone, Default)]
pub struct MdtestParams {}
