//! `io500`: the IO500 workflow in one binary: its ini configuration, its
//! phases run in-process with pario's own tools, its find, scores and
//! result files.

pub mod config;
pub mod find;
pub mod hash;
