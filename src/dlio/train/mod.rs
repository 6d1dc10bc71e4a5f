//! Training as DLIO runs it: the sampler, the readers, the loader and the
//! step loop.

pub mod numpy_load;
pub mod pyfile;
pub mod read;
pub mod sampler;
pub mod tfrecord;
