//! DLIO's checkpoint workload (MLPerf Storage's llama3 checkpointing):
//! the model's layout over the ranks, `torch.save`'s file format and
//! requests, the write and read phases and their figures.

pub mod container;
pub mod io;
pub mod layout;
pub mod load;
pub mod model;
pub mod pickle;
pub mod requests;
pub mod state;
