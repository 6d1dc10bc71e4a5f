//! Training as DLIO runs it ([`workflow`]): the files ([`files`]), the plan
//! from the configuration ([`setup`]), the samplers ([`sampler`]), the
//! readers ([`read`], over [`pyfile`], [`numpy_load`], [`tfrecord`]), the
//! loaders ([`loader`], [`tf_loader`]), the step loop ([`run`]) and its
//! checkpoints ([`checkpoint`]); DLIO's files ([`dlio_files`]) and lines
//! ([`events`]), pario's report ([`report`]) and text ([`text`]).

pub mod checkpoint;
pub mod compute;
pub mod dlio_files;
pub mod events;
pub mod files;
pub mod json;
pub mod loader;
pub mod numpy_load;
pub mod plan;
pub mod pyfile;
pub mod read;
pub mod report;
pub mod run;
pub mod sampler;
pub mod setup;
pub mod stats;
pub mod text;
pub mod tf_loader;
pub mod tfrecord;
pub mod workflow;
