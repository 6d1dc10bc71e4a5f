//! pario: a parallel I/O benchmark suite for HPC storage, with drop-in `ior`
//! and `mdtest` commands. See `ARCHITECTURE.md` for how the modules fit.

pub mod backend;
pub mod buffer;
pub mod cli;
pub mod comm;
pub mod compare;
pub mod concurrent;
pub mod console;
pub mod dlio;
pub mod engine;
pub mod error;
pub mod io500;
pub mod ior;
pub mod latency;
pub mod launcher;
pub mod mdtest;
pub mod mdworkbench;
pub mod memhog;
pub mod options;
pub mod output;
pub mod pagecache;
pub mod pattern;
pub mod progress;
pub mod random;
pub mod report;
pub mod run;
pub mod series;
pub mod signals;
pub mod stats;
pub mod tool;
pub mod units;
