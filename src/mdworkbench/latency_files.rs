//! `-L PREFIX`: md-workbench's latency files, one per phase and operation,
//! written by rank 0: its own operations, or with `--latency-all` every
//! rank's (rank order, unsorted).

use std::fmt::Write as _;
use std::io;

use super::ops::{AllTimes, OpTimes};
use super::results::OpKind;
use crate::units::c_exp;

/// Where the files go and whose operations they hold.
#[derive(Debug, Clone, PartialEq)]
pub struct LatencyFiles {
    pub prefix: String,
    pub all_ranks: bool,
}

/// The files of a phase: the name md-workbench gives each, and the
/// operations it holds.
pub fn kinds(phase: &str, read_only: bool) -> Vec<(&'static str, OpKind)> {
    match phase {
        "precreate" => vec![("precreate", OpKind::Create)],
        "cleanup" => vec![("cleanup", OpKind::Delete)],
        _ if read_only => vec![("read", OpKind::Read), ("stat", OpKind::Stat)],
        _ => vec![
            ("read", OpKind::Read),
            ("stat", OpKind::Stat),
            ("create", OpKind::Create),
            ("delete", OpKind::Delete),
        ],
    }
}

impl LatencyFiles {
    /// `PREFIX-<factor>-<iteration>-<name>[-all].csv`.
    pub fn name(&self, factor: f64, iteration: u64, op: &str) -> String {
        let all = if self.all_ranks { "-all" } else { "" };
        format!("{}-{factor:.2}-{iteration}-{op}{all}.csv", self.prefix)
    }

    /// Writes a phase's files on rank 0 from every rank's operations
    /// (`times[rank][op]`).
    pub fn write(
        &self,
        phase: &str,
        read_only: bool,
        factor: f64,
        iteration: u64,
        times: &AllTimes,
    ) -> io::Result<()> {
        for (name, op) in kinds(phase, read_only) {
            let ranks = if self.all_ranks {
                &times[..]
            } else {
                &times[..1]
            };
            let path = self.name(factor, iteration, name);
            let text = csv(ranks.iter().map(|r| &r[op as usize]));
            std::fs::write(&path, text)
                .map_err(|e| io::Error::new(e.kind(), format!("latency file {path}: {e}")))?;
        }
        Ok(())
    }
}

/// `time,runtime`, then each operation's start in the phase (`%.7f`) and
/// duration (`%.4e`).
fn csv<'a>(ranks: impl Iterator<Item = &'a OpTimes>) -> String {
    let mut text = String::from("time,runtime\n");
    for r in ranks {
        for (start, took) in r.starts.iter().zip(&r.durations) {
            let _ = writeln!(text, "{:.7},{}", *start as f64, c_exp(*took as f64, 4));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_lines_are_md_workbenchs() {
        let f = LatencyFiles {
            prefix: "/x/lat".into(),
            all_ranks: false,
        };
        assert_eq!(f.name(0.0625, 2, "stat"), "/x/lat-0.06-2-stat.csv");
        let all = LatencyFiles {
            all_ranks: true,
            ..f
        };
        assert_eq!(
            all.name(1.0, 0, "precreate"),
            "/x/lat-1.00-0-precreate-all.csv"
        );
        let r = OpTimes {
            durations: vec![2.1458e-06, 9.5367e-07],
            starts: vec![0.0, 0.00002],
        };
        assert_eq!(
            csv([&r].into_iter()),
            "time,runtime\n0.0000000,2.1458e-06\n0.0000200,9.5367e-07\n"
        );
    }
}
