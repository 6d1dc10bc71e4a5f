//! Training as DLIO runs it: the sampler, the readers, the loaders and the
//! step loop.

pub mod checkpoint;
pub mod compute;
pub mod loader;
pub mod numpy_load;
pub mod plan;
pub mod pyfile;
pub mod read;
pub mod run;
pub mod sampler;
pub mod stats;
pub mod tf_loader;
pub mod tfrecord;
