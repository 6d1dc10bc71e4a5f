//! The times of md-workbench's operations on one rank, and their gathering
//! on rank 0: every operation's duration (md-workbench's quantiles need
//! them all), its start within the phase (for `-L` latency files), and the
//! per-rank HDR histograms merged into pario's percentiles.

use std::time::Duration;

use hdrhistogram::Histogram;

use super::results::OpKind;
use crate::comm::{Comm, CommError};
use crate::latency::{self, Percentiles};

/// One rank's operations in the current phase.
#[derive(Debug, Default)]
pub struct OpLog {
    /// Time each operation (off with `--recordLatency=0`: no quantiles).
    pub record: bool,
    /// Also keep when each started (`-L`).
    pub keep_starts: bool,
    durations: [Vec<f32>; 4],
    starts: [Vec<f32>; 4],
    /// The longest operation, in seconds.
    pub op_max_s: f64,
}

/// One rank's durations and starts of one operation kind, in seconds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpTimes {
    pub durations: Vec<f32>,
    pub starts: Vec<f32>,
}

/// Every rank's operations, on rank 0: `[rank][op]`.
pub type AllTimes = Vec<[OpTimes; 4]>;

impl OpLog {
    pub fn new(record: bool, keep_starts: bool) -> OpLog {
        OpLog {
            record,
            keep_starts,
            ..OpLog::default()
        }
    }

    /// Forgets the previous phase.
    pub fn reset(&mut self) {
        self.durations.iter_mut().for_each(Vec::clear);
        self.starts.iter_mut().for_each(Vec::clear);
        self.op_max_s = 0.0;
    }

    /// An operation that started `since` into the phase and took `took`.
    #[inline]
    pub fn add(&mut self, op: OpKind, since: Duration, took: Duration) {
        let secs = took.as_secs_f64();
        self.durations[op as usize].push(secs as f32);
        if self.keep_starts {
            self.starts[op as usize].push(since.as_secs_f32());
        }
        self.op_max_s = self.op_max_s.max(secs);
    }

    /// This rank's own operations of `op`.
    pub fn own(&self, op: OpKind) -> OpTimes {
        OpTimes {
            durations: self.durations[op as usize].clone(),
            starts: self.starts[op as usize].clone(),
        }
    }

    /// Every rank's operations on `root` (empty elsewhere); starts only
    /// when `with_starts`.
    pub fn gather(
        &self,
        comm: &dyn Comm,
        root: usize,
        with_starts: bool,
    ) -> Result<AllTimes, CommError> {
        let mut all: AllTimes = vec![Default::default(); comm.size()];
        for op in OpKind::ALL {
            let i = op as usize;
            for (rank, d) in gather_f32(comm, root, &self.durations[i])?
                .into_iter()
                .enumerate()
            {
                all[rank][i].durations = d;
            }
            if with_starts {
                for (rank, s) in gather_f32(comm, root, &self.starts[i])?
                    .into_iter()
                    .enumerate()
                {
                    all[rank][i].starts = s;
                }
            }
        }
        Ok(all)
    }

    /// pario's percentiles of each operation kind: every rank's histogram,
    /// merged on `root` (`None` elsewhere, and for kinds without operations).
    pub fn percentiles(
        &self,
        comm: &dyn Comm,
        root: usize,
    ) -> Result<Vec<(OpKind, Percentiles)>, CommError> {
        let mut out = Vec::new();
        for op in OpKind::ALL {
            let mut mine = latency::new_histogram();
            for d in &self.durations[op as usize] {
                let _ = mine.record(((*d as f64 * 1e9) as u64).max(1));
            }
            let merged: Histogram<u64> = latency::merge(comm, root, &mine)?;
            if let Some(p) = Percentiles::of(&merged) {
                out.push((op, p));
            }
        }
        Ok(out)
    }
}

/// Gathers a list of `f32` from every rank on `root`.
fn gather_f32(comm: &dyn Comm, root: usize, values: &[f32]) -> Result<Vec<Vec<f32>>, CommError> {
    let bytes: Vec<u8> = values.iter().flat_map(|t| t.to_le_bytes()).collect();
    let all = comm.gather(root, &bytes)?;
    Ok(all
        .iter()
        .map(|b| {
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_are_kept_only_when_asked() {
        let mut log = OpLog::new(true, false);
        log.add(
            OpKind::Stat,
            Duration::from_millis(5),
            Duration::from_micros(3),
        );
        assert_eq!(log.own(OpKind::Stat).durations.len(), 1);
        assert!(log.own(OpKind::Stat).starts.is_empty());
        let mut log = OpLog::new(true, true);
        log.add(
            OpKind::Read,
            Duration::from_millis(5),
            Duration::from_micros(3),
        );
        assert_eq!(log.own(OpKind::Read).starts, vec![0.005]);
        assert!((log.op_max_s - 3e-6).abs() < 1e-12);
        log.reset();
        assert!(log.own(OpKind::Read).durations.is_empty());
        assert_eq!(log.op_max_s, 0.0);
    }
}
