//! Wrong data found by verification, counted per task and summed.

use crate::comm::{Comm, ReduceOp};
use crate::error::{Error, Result};

/// What verification found: the units (transfers, files) with wrong data,
/// the bytes in wrong words, and the units checked.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WrongData {
    pub wrong: u64,
    pub bytes: u64,
    pub checked: u64,
}

impl WrongData {
    pub fn add(&mut self, other: WrongData) {
        self.wrong += other.wrong;
        self.bytes += other.bytes;
        self.checked += other.checked;
    }

    /// The sum over all tasks (every task gets it).
    pub fn sum(self, comm: &dyn Comm) -> Result<WrongData> {
        let mut v = [self.wrong, self.bytes, self.checked];
        comm.all_reduce_u64(&mut v, ReduceOp::Sum)?;
        Ok(WrongData {
            wrong: v[0],
            bytes: v[1],
            checked: v[2],
        })
    }

    /// Rank 0's counts, on every task (after work only some tasks did, such
    /// as a sweep step, which rank 0 is always part of).
    pub fn from_rank0(self, comm: &dyn Comm) -> Result<WrongData> {
        let mine = match comm.rank() {
            0 => self,
            _ => WrongData::default(),
        };
        mine.sum(comm)
    }

    /// The data error (exit status 3), if anything was wrong; `units` names
    /// what was counted.
    pub fn error(&self, units: &'static str) -> Option<Error> {
        (self.wrong > 0).then_some(Error::Data {
            wrong: self.wrong,
            units,
            bytes: self.bytes,
        })
    }
}
