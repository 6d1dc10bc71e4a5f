//! `dlio_benchmark` (DLIO, as MLPerf Storage runs it).

pub mod compat;
pub mod metrics;
pub mod train;
