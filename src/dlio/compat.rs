//! Which behaviour a run follows where DLIO's `mlperf_storage_v2.0` branch
//! (the one `mlpstorage` v2.0 runs) departs from its own workload files or
//! from MLPerf Storage's written rules.
//!
//! pario follows the workload and the rules by default and offers the
//! branch's behaviour by name, for comparison with published results; every
//! output says which ran. The departures this switch covers (see
//! docs/dlio.md):
//! - the PyTorch loader: the branch reads each rank's samples in ascending
//!   order every epoch, although the workload asks for `sample_shuffle`;
//!   the rules' run shuffles the rank's block with the seed, as the
//!   branch's own sampler computes it and then leaves unused;
//! - training throughput: the rules count every step over the whole epoch
//!   ("the I/O operations excluded from the AU calculation are included in
//!   the samples/second"); the branch counts `steps − 2` over the time with
//!   the excluded steps taken out;
//! - `file_shuffle` and `read_type` in a workload file: the branch keeps
//!   them as raw strings, so any value (even `off`, `on_demand`) turns file
//!   shuffling on and the per-sample reopen off.

use serde::{Deserialize, Serialize};

/// The behaviour of a run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Compat {
    /// What the workload files and MLPerf Storage's rules say.
    #[default]
    #[serde(rename = "rules")]
    Rules,
    /// What DLIO's `mlperf_storage_v2.0` branch does.
    #[serde(rename = "mlperf_storage_v2.0")]
    Branch,
}

impl Compat {
    /// Its name on the command line and in the outputs.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Rules => "rules",
            Compat::Branch => "mlperf_storage_v2.0",
        }
    }

    /// From its name (`None` for any other).
    pub fn from_name(name: &str) -> Option<Compat> {
        [Compat::Rules, Compat::Branch]
            .into_iter()
            .find(|c| c.name() == name)
    }

    /// What a run's outputs say about it.
    pub fn describe(self) -> &'static str {
        match self {
            Compat::Rules => "the workload and MLPerf Storage's rules (pario's default)",
            Compat::Branch => "DLIO's mlperf_storage_v2.0 branch, departures included",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for c in [Compat::Rules, Compat::Branch] {
            assert_eq!(Compat::from_name(c.name()), Some(c));
            let json = serde_json::to_string(&c).unwrap();
            assert_eq!(json, format!("\"{}\"", c.name()));
            assert_eq!(serde_json::from_str::<Compat>(&json).unwrap(), c);
        }
        assert_eq!(Compat::from_name("branch"), None);
        assert_eq!(Compat::default(), Compat::Rules);
    }
}
