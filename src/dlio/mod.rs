//! `dlio_benchmark` (DLIO, as MLPerf Storage runs it).
//!
//! The tool itself (`impl Tool for Dlio`) follows in the next commits; for
//! now the module holds what DLIO draws from numpy's legacy random state,
//! the metrics and the training machinery.

pub mod compat;
pub mod host;
pub mod metrics;
pub mod random_state;
pub mod train;
