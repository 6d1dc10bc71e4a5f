//! What one task measured in one phase of ior: its time stamps, what it
//! moved, where stonewalling stopped it; a fixed-size record that rank 0
//! gathers from every task ([`crate::comm::Record`]) and reduces with IOR's
//! formulas ([`super::results`]).

use crate::comm::Record;

/// One task's record of one phase.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct TaskTimes {
    /// Whether the task took part (`-N` may leave some out).
    pub active: bool,
    pub open_start: f64,
    pub open_end: f64,
    pub xfer_start: f64,
    pub xfer_end: f64,
    pub close_start: f64,
    pub close_end: f64,
    pub bytes: u64,
    pub transfers: u64,
    /// Transfers made when the task stopped at the deadline (or finished).
    pub stonewall_pairs: u64,
    /// Bytes moved by then.
    pub stonewall_bytes: u64,
    /// Seconds from the start of the transfers to then.
    pub stonewall_time: f64,
    /// Whether the deadline stopped the task.
    pub hit_deadline: bool,
    /// A drawn phase: what it read and wrote.
    pub kinds: KindTally,
}

/// Operations and bytes of a drawn phase, per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KindTally {
    pub read_ops: u64,
    pub read_bytes: u64,
    pub write_ops: u64,
    pub write_bytes: u64,
}

impl Record for TaskTimes {
    const FIELDS: usize = 17;

    fn to_fields(&self) -> Vec<f64> {
        vec![
            if self.active { 1.0 } else { 0.0 },
            self.open_start,
            self.open_end,
            self.xfer_start,
            self.xfer_end,
            self.close_start,
            self.close_end,
            self.bytes as f64,
            self.transfers as f64,
            self.stonewall_pairs as f64,
            self.stonewall_bytes as f64,
            self.stonewall_time,
            if self.hit_deadline { 1.0 } else { 0.0 },
            self.kinds.read_ops as f64,
            self.kinds.read_bytes as f64,
            self.kinds.write_ops as f64,
            self.kinds.write_bytes as f64,
        ]
    }

    fn from_fields(r: &[f64]) -> TaskTimes {
        TaskTimes {
            active: r[0] != 0.0,
            open_start: r[1],
            open_end: r[2],
            xfer_start: r[3],
            xfer_end: r[4],
            close_start: r[5],
            close_end: r[6],
            bytes: r[7] as u64,
            transfers: r[8] as u64,
            stonewall_pairs: r[9] as u64,
            stonewall_bytes: r[10] as u64,
            stonewall_time: r[11],
            hit_deadline: r[12] != 0.0,
            kinds: KindTally {
                read_ops: r[13] as u64,
                read_bytes: r[14] as u64,
                write_ops: r[15] as u64,
                write_bytes: r[16] as u64,
            },
        }
    }
}

impl TaskTimes {
    pub fn xfer_time(&self) -> f64 {
        self.xfer_end - self.xfer_start
    }
}
