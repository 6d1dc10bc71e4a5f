//! A write probe's rate once under way, from its timeline (what it did in
//! each fixed-width time bin): the mean over the later half of its
//! stonewall, and the fastest bin there. A probe's first second runs
//! slower than the rest on a disk (allocation, the journal, the page cache
//! filling, directories created), and its score counts the flush after the
//! stonewall: neither says how much the run writes before its stonewall.

use crate::concurrent::tools::ToolReport;
use crate::io500::phases::{Kind, Phase};
use crate::io500::results::PhaseReport;
use crate::series::Timeline;

const GIB: f64 = 1_073_741_824.0;

/// A probe's rate over `from..to` s of its stonewall, in its score's unit
/// (GiB/s or kIOPS).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steady {
    /// The mean rate over `from..to`.
    pub rate: f64,
    /// The fastest bin's rate in `from..to`.
    pub fastest: f64,
    pub from: f64,
    pub to: f64,
    /// Everything the probe wrote (GiB or thousands of items).
    pub amount: f64,
}

/// The steady rate of `t`, each count `per_count` of the unit, for a
/// stonewall of `stonewall` s: the bins wholly inside its later half (the
/// bin holding the stonewall, or the phase's last, only partly counted);
/// `None` with fewer than two such bins.
pub fn of(t: &Timeline, per_count: f64, stonewall: f64) -> Option<Steady> {
    let w = t.bin_seconds;
    if !(w > 0.0 && w.is_finite() && per_count > 0.0) || t.total.len() < 2 {
        return None;
    }
    let to = stonewall.min((t.total.len() - 1) as f64 * w);
    let first = ((to / 2.0) / w - 1e-9).ceil().max(0.0) as usize;
    let last = ((to / w) + 1e-9).floor() as usize;
    let bins = t.total.get(first..last).filter(|b| b.len() >= 2)?;
    let rate = |count: u64| count as f64 * per_count / w;
    let sum: u64 = bins.iter().sum();
    let mean = sum as f64 * per_count / (bins.len() as f64 * w);
    (mean > 0.0).then(|| Steady {
        rate: mean,
        fastest: bins.iter().map(|&c| rate(c)).fold(0.0, f64::max),
        from: first as f64 * w,
        to: last as f64 * w,
        amount: t.total.iter().sum::<u64>() as f64 * per_count,
    })
}

/// The steady rate of write phase `p`'s probe, from its tool's report.
pub fn of_probe(p: &Phase, report: &PhaseReport, stonewall: f64) -> Option<Steady> {
    match (p.kind, report) {
        (Kind::Ior, PhaseReport::Tool(ToolReport::Ior(r))) => {
            let row = r
                .tests
                .first()?
                .results
                .iter()
                .find(|r| r.access == "write")?;
            let per = row.bytes as f64 / row.transfers.max(1) as f64 / GIB;
            of(row.timeline.as_ref()?, per, stonewall)
        }
        (Kind::Mdtest, PhaseReport::Tool(ToolReport::Mdtest(r))) => {
            let iteration = r.tests.first()?.iterations.first()?;
            let row = iteration
                .phases
                .iter()
                .find(|r| r.operation == "File creation")?;
            of(row.timeline.as_ref()?, 0.001, stonewall)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timeline(width: f64, total: &[u64]) -> Timeline {
        Timeline {
            bin_seconds: width,
            unit: "items".into(),
            total: total.to_vec(),
            tasks: vec![total.to_vec()],
        }
    }

    #[test]
    fn the_later_half_of_the_stonewall_gives_the_rate() {
        // A slow first second, then 100 a bin of 0.25 s, a spike, then
        // the bin holding the 2 s stonewall and a wear-out after it.
        let t = timeline(0.25, &[10, 20, 30, 40, 100, 100, 140, 100, 60, 5]);
        let s = of(&t, 0.001, 2.0).unwrap();
        assert_eq!((s.from, s.to), (1.0, 2.0));
        assert!((s.rate - 0.44).abs() < 1e-12, "{s:?}"); // 440 in 1 s
        assert!((s.fastest - 0.56).abs() < 1e-12, "{s:?}");
        assert!((s.amount - 0.605).abs() < 1e-12, "{s:?}");
        // Run out before its stonewall: the last, partial bin is left out.
        let t = timeline(0.25, &[10, 20, 40, 40, 40, 3]);
        let s = of(&t, 1.0, 5.0).unwrap();
        assert_eq!((s.from, s.to), (0.75, 1.25));
        assert_eq!(s.rate, 160.0);
        // Too few bins, or none counted: no rate.
        assert_eq!(of(&timeline(0.25, &[10, 20, 30]), 1.0, 0.5), None);
        assert_eq!(of(&timeline(0.25, &[0, 0, 0, 0, 0]), 1.0, 1.0), None);
        assert_eq!(of(&timeline(0.0, &[1, 1, 1, 1, 1]), 1.0, 1.0), None);
        assert_eq!(of(&timeline(0.25, &[5]), 1.0, 1.0), None);
    }
}
