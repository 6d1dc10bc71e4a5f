//! `dlio_benchmark` (DLIO, as MLPerf Storage runs it).
//!
//! The tool itself (`impl Tool for Dlio`) follows in the next commits; for
//! now the module holds what DLIO draws from numpy's legacy random state.

pub mod config;
pub mod random_state;
