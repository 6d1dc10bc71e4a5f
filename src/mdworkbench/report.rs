//! md-workbench's report (the JSON document), its events, and its text
//! layout: md-workbench 4.1's lines, numbers in C's formats.

use std::io;

use serde::Serialize;

use super::results::{rates, OpKind, PhaseSummary, Quantiles, RankPhase};
use super::MdwRun;
use crate::comm::Comm;
use crate::output::{Document, LogSink, NotesOnly, Table, TextSink};
use crate::run::info::{nodemap, version, ParioInfo};
use crate::units::c_exp;

/// A whole run.
#[derive(Debug, Clone, Serialize)]
pub struct MdwReport {
    pub version: String,
    pub began: String,
    /// md-workbench's `Args:` line.
    pub args: String,
    pub pario: ParioInfo,
    pub nodemap: String,
    pub tasks: usize,
    pub data_sets: u64,
    pub precreate_per_set: u64,
    pub objects_per_set: u64,
    pub iterations: u64,
    pub object_size: u64,
    pub offset: i64,
    pub seed: i64,
    pub phases: Vec<PhaseSummary>,
    pub finished: String,
    /// Seconds from the start to the end of the run (`Total runtime`).
    pub runtime_s: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip)]
    pub quiet: bool,
    #[serde(skip)]
    pub process_reports: bool,
    #[serde(skip)]
    pub detailed: bool,
    #[serde(skip)]
    pub read_only: bool,
}

impl MdwReport {
    pub fn new(comm: &dyn Comm, m: &MdwRun) -> MdwReport {
        let p = &m.params;
        MdwReport {
            version: version(),
            began: local_time(),
            args: m.args_line.clone(),
            pario: ParioInfo::of(comm),
            nodemap: nodemap(comm.topology()),
            tasks: comm.size(),
            data_sets: p.data_sets,
            precreate_per_set: p.precreate,
            objects_per_set: p.objects,
            iterations: p.iterations,
            object_size: p.object_size,
            offset: p.offset,
            seed: 0,
            phases: Vec::new(),
            finished: String::new(),
            runtime_s: 0.0,
            error: None,
            quiet: p.quiet,
            process_reports: p.process_reports,
            detailed: p.detailed,
            read_only: p.read_only,
        }
    }
}

/// pario's CSV: one row per phase (rank 0's figures over all ranks), then
/// md-workbench's seven quantiles of each operation (empty when it made
/// none).
const COLUMNS: [&str; 50] = [
    "phase",
    "iteration",
    "waiting_factor",
    "tasks",
    "time_max_s",
    "time_min_s",
    "time_mean_s",
    "balance",
    "stddev_s",
    "rate_iops",
    "objects_per_s",
    "dsets_per_s",
    "throughput_mib_s",
    "op_max_s",
    "dsets_created",
    "dsets_removed",
    "objs_created",
    "objs_read",
    "objs_stat",
    "objs_deleted",
    "errors",
    "stonewall_iter",
    "read_min_s",
    "read_q1_s",
    "read_median_s",
    "read_q3_s",
    "read_q90_s",
    "read_q99_s",
    "read_max_s",
    "stat_min_s",
    "stat_q1_s",
    "stat_median_s",
    "stat_q3_s",
    "stat_q90_s",
    "stat_q99_s",
    "stat_max_s",
    "create_min_s",
    "create_q1_s",
    "create_median_s",
    "create_q3_s",
    "create_q90_s",
    "create_q99_s",
    "create_max_s",
    "delete_min_s",
    "delete_q1_s",
    "delete_median_s",
    "delete_q3_s",
    "delete_q90_s",
    "delete_q99_s",
    "delete_max_s",
];

impl Document for MdwReport {
    fn table(&self) -> Table {
        let rows = self
            .phases
            .iter()
            .map(|ph| csv_row(ph, self.tasks))
            .collect();
        Table {
            columns: &COLUMNS,
            rows,
        }
    }
}

fn csv_row(ph: &PhaseSummary, tasks: usize) -> Vec<String> {
    let opt = |v: Option<u64>| v.map(|v| v.to_string()).unwrap_or_default();
    let mut row = vec![
        ph.phase.to_string(),
        opt(ph.iteration),
        ph.waiting_factor.to_string(),
        tasks.to_string(),
    ];
    let figures = [
        ph.max_s,
        ph.min_s,
        ph.mean_s,
        ph.balance,
        ph.stddev_s,
        ph.rate,
        ph.objects_per_s,
        ph.dsets_per_s,
        ph.throughput_mib,
        ph.op_max_s,
    ];
    row.extend(figures.iter().map(|v| format!("{v:.9}")));
    row.extend(ph.counts.all().iter().map(u64::to_string));
    row.push(ph.counts.errors.total().to_string());
    row.push(opt(ph.stonewall_iter));
    for op in OpKind::ALL {
        match ph.quantiles.iter().find(|q| q.op == op) {
            Some(q) => row.extend(
                [q.min, q.q1, q.median, q.q3, q.q90, q.q99, q.max]
                    .iter()
                    .map(|v| c_exp(*v, 4)),
            ),
            None => row.extend(std::iter::repeat_n(String::new(), 7)),
        }
    }
    row
}

/// What md-workbench's `time:` stamps look like.
fn local_time() -> String {
    chrono::Local::now().format("%Y-%m-%d %H:%M:%S").to_string()
}

/// The events of a run, on rank 0.
pub trait MdwSink: LogSink {
    fn run_started(&mut self, _report: &MdwReport) -> io::Result<()> {
        Ok(())
    }
    fn phase_done(&mut self, _phase: &PhaseSummary, _report: &MdwReport) -> io::Result<()> {
        Ok(())
    }
    fn run_done(&mut self, _report: &MdwReport) -> io::Result<()> {
        Ok(())
    }
}

impl MdwSink for NotesOnly {}

/// The text layout's marker.
pub struct MdWorkbench;

pub type MdwText = TextSink<MdWorkbench>;

impl MdwSink for TextSink<MdWorkbench> {
    fn run_started(&mut self, r: &MdwReport) -> io::Result<()> {
        let mut text = format!("Args: {}\nNodemap: {}\n", r.args, r.nodemap);
        if let Some(job) = &r.pario.job {
            text.push_str(&format!("Launched by: {}\n", job.describe()));
        }
        if !r.quiet {
            let total = r.data_sets
                * (r.objects_per_set * r.iterations + r.precreate_per_set)
                * r.tasks as u64;
            let set = (r.tasks as u64 * r.data_sets * r.precreate_per_set * r.object_size) as f64
                / 1048576.0;
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
        if r.detailed {
            return self.emit(&detailed_row(ph, r));
        }
        let mut text = global_line(ph, r);
        if r.process_reports {
            for (rank, own) in ph.ranks.iter().enumerate() {
                let q = ph.rank_quantiles.get(rank).map_or(&[][..], Vec::as_slice);
                text.push_str(&format!("{rank}: {}", rank_line(ph, own, q, r)));
            }
        }
        self.emit(&text)
    }

    fn run_done(&mut self, r: &MdwReport) -> io::Result<()> {
        if r.quiet || r.error.is_some() {
            return Ok(());
        }
        self.emit(&format!(
            "Total runtime: {:.0}s time: {}\n",
            r.runtime_s,
            local_time()
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

/// C's `%.1f` of a value that may be NaN (`-nan`, as glibc prints 0/0).
fn c_fixed(v: f64, precision: usize) -> String {
    match v.is_nan() {
        true => "-nan".into(),
        false => format!("{v:.precision$}"),
    }
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
        assert_eq!(c_fixed(f64::NAN, 1), "-nan");
        assert_eq!(c_fixed(0.04, 1), "0.0");
    }
}
