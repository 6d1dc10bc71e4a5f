//! `ior`: the bandwidth benchmark.
//!
//! [`options`] turns a command line (and `-f` scripts) into [`params::IorParams`];
//! [`runner`] runs them on every task against the task engine and a backend;
//! [`layout`] says which offsets a task touches, [`files`] what its files are
//! called and [`reorder`] whose data it reads back; [`results`] holds IOR's
//! formulas and [`report`] the model every output format is written from.

pub mod files;
pub mod layout;
pub mod options;
pub mod params;
pub mod reorder;
pub mod report;
pub mod results;
pub mod runner;
pub mod stonewall;
pub mod xfer;
