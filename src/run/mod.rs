//! Run support: what every tool's runner needs and none should write twice.

pub mod files;
pub mod fs;
pub mod info;
pub mod limits;
pub mod seeds;
pub mod stonewall;
pub mod stop;
pub mod system;
pub mod tally;
pub mod warnings;
