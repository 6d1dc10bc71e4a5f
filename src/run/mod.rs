//! Run support: what every tool's runner needs and none should write twice.

pub mod info;
