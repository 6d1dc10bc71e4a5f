//! md-workbench's text layout: md-workbench 4.1's lines, numbers in C's
//! formats.

use std::io;

use super::report::MdwReport;
use super::results::{rates, PhaseSummary, Quantiles, RankPhase};
use super::sink::MdwSink;
use crate::output::TextSink;
use crate::units::{c_exp, c_fixed, MIB};

/// The text layout's marker.
pub struct MdWorkbench;

pub type MdwText = TextSink<MdWorkbench>;

impl MdwSink for TextSink<MdWorkbench> {
    fn run_started(&mut self, r: &MdwReport) -> io::Result<()> {
        let mut text = format!("Args: {}\nNodemap: {}\n", r.args, r.nodemap);
        text.push_str(&r.pario.header_lines());
        if !r.quiet {
            let total = r.data_sets
                * (r.objects_per_set * r.iterations + r.precreate_per_set)
                * r.tasks as u64;
            let set = (r.tasks as u64 * r.data_sets * r.precreate_per_set * r.object_size) as f64
                / MIB as f64;
            text.push_str(&format!(
                "MD-Workbench total objects: {total} workingset size: {set:.3} MiB (version: {}) time: {}\n",
                r.version, r.began
            ));
            if r.objects_per_set > r.precreate_per_set {
                text.push_str("WARNING: num > precreate, this may cause the situation that no objects are available to read\n");
            }
            if r.detailed {
                text.push_str(DETAILED_HEADER);
            }
        }
        self.emit(&text)
    }

    fn phase_done(&mut self, ph: &PhaseSummary, r: &MdwReport) -> io::Result<()> {
        let mut text = match r.detailed {
            true => detailed_row(ph, r),
            false => global_line(ph, r),
        };
        if r.process_reports && !r.detailed {
            for (rank, own) in ph.ranks.iter().enumerate() {
                let q = ph.rank_quantiles.get(rank).map_or(&[][..], Vec::as_slice);
                text.push_str(&format!("{rank}: {}", rank_line(ph, own, q, r)));
            }
        }
        // Never hidden: the waits of requests sent again are in the time.
        if let Some(n @ 1..) = ph.retries {
            let at = ph
                .iteration
                .map_or(String::new(), |i| format!(" (iteration {i})"));
            text.push_str(&format!(
                "WARNING: {}{at}: {n} requests were sent again after HTTP 500 or 503 \
                 (SlowDown); the phase's time includes their waits\n",
                ph.phase
            ));
        }
        self.emit(&text)
    }

    fn run_done(&mut self, r: &MdwReport) -> io::Result<()> {
        if r.quiet || r.error.is_some() {
            return Ok(());
        }
        self.emit(&format!(
            "Total runtime: {:.0}s time: {}\n",
            r.runtime_s, r.finished
        ))
    }
}

/// `--print-detailed-stats`' header, as md-workbench prints it (13 names
/// over 11 columns).
pub const DETAILED_HEADER: &str =
    "phase\t\td name\tcreate\tdelete\tob nam\tcreate\tread\tstat\tdelete\tt_inc_b\tt_no_bar\tthp\tmax_t\n";

/// A phase as `--print-detailed-stats` prints it: its counters, times,
/// throughput and longest operation; with errors, the six error counts.
pub fn detailed_row(ph: &PhaseSummary, r: &MdwReport) -> String {
    let c = &ph.counts;
    if c.errors.total() > 0 {
        let errs: Vec<String> = c.errors.all().iter().map(u64::to_string).collect();
        return format!("{} err\t{}\n", ph.phase, errs.join("\t"));
    }
    let all = RankPhase {
        counts: ph.counts,
        time_s: ph.max_s,
        op_max_s: ph.op_max_s,
    };
    let tp = rates(ph.phase, &all, r.object_size, r.read_only).3;
    let counts: Vec<String> = c.all().iter().map(u64::to_string).collect();
    format!(
        "{} \t{}\t{:.3}s\t{:.3}s\t{tp:.2} MiB/s {}\n",
        ph.phase,
        counts.join("\t"),
        ph.max_s,
        ph.max_s,
        c_exp(ph.op_max_s, 4)
    )
}

/// The line of a phase over all ranks.
pub fn global_line(ph: &PhaseSummary, r: &MdwReport) -> String {
    let all = RankPhase {
        counts: ph.counts,
        time_s: ph.max_s,
        op_max_s: ph.op_max_s,
    };
    let head = format!(
        "{} process max:{:.2}s min:{:.2}s mean: {:.2}s balance:{:.1} stddev:{} ",
        ph.phase,
        ph.max_s,
        ph.min_s,
        ph.mean_s,
        ph.balance,
        c_fixed(ph.stddev_s, 1)
    );
    head + &body(ph, &all, &ph.quantiles, ph.stonewall_iter, r)
}

/// A rank's own line (`--process-reports`), without its `<rank>: `.
pub fn rank_line(ph: &PhaseSummary, own: &RankPhase, q: &[Quantiles], r: &MdwReport) -> String {
    format!("{} process max:{:.2}s ", ph.phase, own.time_s) + &body(ph, own, q, None, r)
}

/// Rates, errors and quantiles: the part after the times, of the phase
/// `of` over all ranks or one rank's own `ph`.
fn body(
    of: &PhaseSummary,
    ph: &RankPhase,
    q: &[Quantiles],
    wall: Option<u64>,
    r: &MdwReport,
) -> String {
    let (phase, c) = (of.phase, &ph.counts);
    let (rate, objs, dsets, tp) = rates(phase, ph, r.object_size, r.read_only);
    let op_max = c_exp(ph.op_max_s, 4);
    let mut line = match phase {
        "precreate" => format!(
            "rate:{rate:.1} iops/s dsets: {} objects:{} rate:{dsets:.3} dset/s rate:{objs:.1} obj/s tp:{tp:.1} MiB/s op-max:{op_max}s",
            c.dsets_created, c.objs_created
        ),
        "cleanup" => format!(
            "rate:{rate:.1} iops/s objects:{} dsets: {} rate:{objs:.1} obj/s rate:{dsets:.3} dset/s op-max:{op_max}s",
            c.objs_deleted, c.dsets_removed
        ),
        _ => {
            let mut l = format!(
                "rate:{rate:.1} iops/s objects:{} rate:{objs:.1} obj/s tp:{tp:.1} MiB/s op-max:{op_max}s",
                c.objs_read
            );
            if of.waiting_factor > 1e-9 {
                l.push_str(&format!(" waiting_factor:{:.2}", of.waiting_factor));
            }
            l
        }
    };
    let errors = c.errors.total();
    if !r.quiet || errors > 0 {
        let bang = if errors > 0 { "!!!" } else { "" };
        line.push_str(&format!(" ({errors} errs{bang})"));
    }
    if let (Some(n), false) = (wall, r.quiet) {
        line.push_str(&format!(" stonewall-iter:{n}"));
    }
    for quantile in q.iter().filter(|q| q.max > 1e-9) {
        let v = [
            quantile.min,
            quantile.q1,
            quantile.median,
            quantile.q3,
            quantile.q90,
            quantile.q99,
            quantile.max,
        ];
        let cells: Vec<String> = v.iter().map(|x| format!("{}s", c_exp(*x, 4))).collect();
        line.push_str(&format!(" {}({})", quantile.op.name(), cells.join(", ")));
    }
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_printed_as_c_prints_them() {
        assert_eq!(c_exp(9.5367e-7, 4), "9.5367e-07");
        assert_eq!(c_exp(0.0, 4), "0.0000e+00");
        assert_eq!(c_fixed(-f64::NAN, 1), "-nan");
        assert_eq!(c_fixed(0.04, 1), "0.0");
    }
}
