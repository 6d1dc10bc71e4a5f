//! The plan's arithmetic, from the probes' figures: each write phase's
//! size for stonewall-time x margin at its probed rate (the rate of the
//! probe's later half, see [`super::steady`]), and each phase's predicted
//! time (its probe's time scaled by how much more the run does).

use super::ini::{Change, PlanRate};
use super::steady::Steady;
use crate::io500::config::Config;
use crate::io500::phases::{Kind, Phase};
use crate::units::parse_size;

/// How much longer than the stonewall each write phase is sized to last,
/// at least: more when the probe's fastest bin ran faster than its mean.
/// A larger size costs nothing (the stonewall ends the writing); on a
/// shared disk a run wrote up to 2.2 times its probe's rate.
pub const MARGIN: f64 = 2.0;

/// The margin at most (a probe's bins are short: one may be a burst).
pub const MAX_MARGIN: f64 = 4.0;

/// The mdtest phases' margin, at least and at most: an item the stonewall
/// leaves unmade costs nothing (the later phases take only what was made),
/// while a creation rate after bulk writes swung 3 to 20 fold between
/// probe and run on a disk (the write-back of the ior phases' data).
pub const MDTEST_MARGIN: (f64, f64) = (8.0, 16.0);

/// The margin's bounds for write phase `p`.
fn margin_bounds(p: &Phase) -> (f64, f64) {
    match p.kind {
        Kind::Mdtest => MDTEST_MARGIN,
        _ => (MARGIN, MAX_MARGIN),
    }
}

/// ior-hard's transfer, block and segment size (the harness's fixed 47008).
const HARD_SEGMENT: u64 = 47_008;

const GIB: f64 = 1_073_741_824.0;

/// What one phase's probe measured.
#[derive(Debug, Clone)]
pub struct Probe {
    pub phase: &'static Phase,
    /// Its wall time (the phase's `t_delta`).
    pub seconds: f64,
    /// Its score: GiB/s or kIOPS.
    pub score: f64,
    /// It ran (not `run = FALSE`, not failed).
    pub ran: bool,
    /// A write probe's rate over its later half (none: too short a
    /// timeline, or not a write phase).
    pub steady: Option<Steady>,
}

/// A write phase's proposed size and the arithmetic behind it.
#[derive(Debug, Clone)]
pub struct Sizing {
    pub rate: PlanRate,
    pub change: Change,
    /// Where the rate and the margin come from, as printed.
    pub why: String,
    /// The arithmetic, as printed.
    pub line: String,
}

/// A phase's predicted time in the run.
#[derive(Debug, Clone)]
pub struct Predicted {
    pub phase: &'static str,
    pub probe: f64,
    pub factor: f64,
    pub seconds: f64,
}

/// The whole plan.
#[derive(Debug, Clone)]
pub struct Plan {
    pub stonewall: u64,
    pub probe: u64,
    pub tasks: usize,
    pub sizes: Vec<Sizing>,
    pub times: Vec<Predicted>,
    /// Phases that could not be sized (no rate), with why.
    pub kept: Vec<String>,
}

/// The probe length for a stonewall: a tenth of it, 3 to 5 s (the later
/// half of 3 s is past a disk's slow start; a plan for 300 s costs a few
/// percent of the run), never longer than the stonewall itself.
pub fn probe_seconds(stonewall: u64) -> u64 {
    (stonewall / 10).clamp(3, 5).min(stonewall.max(1))
}

/// The rate as printed (6 decimals): the arithmetic starts from it, so a
/// reader can redo it.
fn printed(rate: f64) -> f64 {
    format!("{rate:.6}").parse().unwrap_or(0.0)
}

/// The size of `p` that lasts `stonewall` x `margin` at `rate` on `tasks`.
pub fn sizing(
    config: &Config,
    p: &Phase,
    rate: f64,
    margin: f64,
    stonewall: u64,
    tasks: usize,
) -> Sizing {
    let rate = printed(rate);
    let margin: f64 = format!("{margin:.2}").parse().unwrap_or(MARGIN);
    let head = |unit: &str, per: &str| {
        format!(
            "{}: {rate:.6} {unit} x {per} x {stonewall} s x {margin} / {tasks} tasks",
            p.name
        )
    };
    let (key, value, line) = match p.kind {
        Kind::Ior if p.group == "ior-easy" => {
            let bytes = rate * GIB * stonewall as f64 * margin / tasks as f64;
            let t = config
                .get_size("ior-easy", "transferSize")
                .unwrap_or(1)
                .max(1);
            let block = ((bytes / t as f64).ceil() as u64).max(1) * t;
            let value = match block % (1 << 20) {
                0 => format!("{}m", block >> 20),
                _ => block.to_string(),
            };
            let line = format!(
                "{} = {bytes:.0} bytes a task; in whole transfers of {}: blockSize = {value}",
                head("GiB/s", "1073741824 B/GiB"),
                config.value("ior-easy", "transferSize")
            );
            ("blockSize", value, line)
        }
        Kind::Ior => {
            let bytes = rate * GIB * stonewall as f64 * margin / tasks as f64;
            let segments = ((bytes / HARD_SEGMENT as f64).ceil() as u64).max(1);
            let line = format!(
                "{} / {HARD_SEGMENT} B a segment = segmentCount {segments}",
                head("GiB/s", "1073741824 B/GiB")
            );
            ("segmentCount", segments.to_string(), line)
        }
        _ => {
            let n =
                ((rate * 1000.0 * stonewall as f64 * margin / tasks as f64).ceil() as u64).max(1);
            (
                "n",
                n.to_string(),
                format!("{} = n {n}", head("kIOPS", "1000 IOPS/kIOPS")),
            )
        }
    };
    let line = format!("{line} (configured: {})", config.value(p.group, key));
    Sizing {
        rate: PlanRate {
            phase: p.name.to_string(),
            rate,
            tasks,
            margin: Some(margin),
        },
        change: Change {
            section: p.group,
            key,
            value,
        },
        why: String::new(),
        line,
    }
}

/// The rate a write phase is sized at: its probe's later half's, or its
/// whole score if that is more.
fn rate(p: &Probe) -> f64 {
    p.steady.map_or(p.score, |s| s.rate.max(p.score))
}

/// A write probe's rate and margin: its later half's mean (its whole
/// score if that is more), and the fastest bin over that mean (from
/// the phase's bounds, [`margin_bounds`]); how, as printed.
fn rate_of(p: &Probe) -> (f64, f64, String) {
    let unit = p.phase.unit();
    let (least, most) = margin_bounds(p.phase);
    let Some(s) = p.steady else {
        return (
            p.score,
            least,
            format!(
                "{}: the probe's score {:.6} {unit} (too short for a later half), margin {least}",
                p.phase.name, p.score
            ),
        );
    };
    let rate = rate(p);
    let margin = (printed(s.fastest) / printed(rate)).clamp(least, most);
    let why = format!(
        "{}: {:.6} {unit} over {:.2}-{:.2} s of the probe (its score {:.6}), fastest bin \
         {:.6}: margin {margin:.2} (fastest / rate, {least} to {most})",
        p.phase.name, s.rate, s.from, s.to, p.score, s.fastest
    );
    (rate, margin, why)
}

impl Plan {
    /// The plan from the probes of every phase, run `probe` s each.
    pub fn of(config: &Config, probes: &[Probe], stonewall: u64, probe: u64, tasks: usize) -> Plan {
        let mut sizes = Vec::new();
        let mut kept = Vec::new();
        for p in probes.iter().filter(|p| p.phase.write) {
            match (p.ran, p.score > 0.0) {
                (true, true) => {
                    let (rate, margin, why) = rate_of(p);
                    let s = sizing(config, p.phase, rate, margin, stonewall, tasks);
                    sizes.push(Sizing { why, ..s });
                }
                (false, _) => kept.push(format!("{}: did not run", p.phase.name)),
                (true, false) => kept.push(format!("{}: no rate measured", p.phase.name)),
            }
        }
        let times = probes
            .iter()
            .map(|p| {
                let scaled = factor(p, probes, stonewall, probe);
                let seconds = if p.ran {
                    predicted(p, scaled, stonewall, probe)
                } else {
                    0.0
                };
                let factor = match p.seconds > 0.0 && p.ran {
                    true => seconds / p.seconds,
                    false => scaled,
                };
                Predicted {
                    phase: p.phase.name,
                    probe: p.seconds,
                    factor,
                    seconds,
                }
            })
            .collect();
        Plan {
            stonewall,
            probe,
            tasks,
            sizes,
            times,
            kept,
        }
    }

    /// The predicted wall time of every phase together.
    pub fn total(&self) -> f64 {
        self.times.iter().map(|t| t.seconds).sum()
    }

    pub fn changes(&self) -> Vec<Change> {
        self.sizes.iter().map(|s| s.change.clone()).collect()
    }

    pub fn rates(&self) -> Vec<PlanRate> {
        self.sizes.iter().map(|s| s.rate.clone()).collect()
    }
}

/// How long `p` runs in the run, `scaled` times its probe's work. A phase
/// that lasted its probe's stonewall runs the run's stonewall, then what
/// followed the probe's stonewall (the wear-out, and the flush of what is
/// left in the page cache at close: bounded by the kernel's dirty limits,
/// not by the stonewall, so not scaled; scaling it over-predicted a disk
/// run by 25 s a phase); any other phase its probe time `scaled`.
fn predicted(p: &Probe, scaled: f64, stonewall: u64, probe: u64) -> f64 {
    let lasts = p.phase.write || p.phase.name == "ior-rnd4K-easy-read";
    match lasts && p.seconds >= probe as f64 {
        true => stonewall as f64 + (p.seconds - probe as f64),
        false => p.seconds * scaled,
    }
}

/// A phase that lasts its stonewall (the write phases, the random reads)
/// ran min(t, probe) s up to it in the probe: the run's lasts `stonewall`
/// s up to it, the wear-out after it in proportion.
fn stonewalled(p: &Probe, stonewall: u64, probe: u64) -> f64 {
    match p.seconds > 0.0 {
        true => stonewall as f64 / p.seconds.min(probe as f64),
        false => 1.0,
    }
}

/// How many times more write probe `w` the run writes: its score for the
/// stonewall over what the probe wrote (by the stonewall without a
/// timeline). The score, not the later half the sizes take: it counts
/// the time the data took to reach the storage (the flush at close), so
/// it is what a longer phase keeps up where the page cache took the
/// probe's first seconds; on a disk the later half predicted 1.3 to 2.3
/// times the data and files the run made.
fn grown(w: &Probe, stonewall: u64, probe: u64) -> f64 {
    match w.steady {
        Some(s) if s.amount > 0.0 => w.score * stonewall as f64 / s.amount,
        _ => stonewalled(w, stonewall, probe),
    }
}

/// How many times longer `p` runs in the run than in its probe: a write
/// phase and the random reads by the stonewall; a read, stat or delete of
/// what a write phase made by how many times more that phase writes; find
/// by the files the mdtest phases made; md-workbench by its objects (from
/// the stonewall, at most 60 s).
fn factor(p: &Probe, probes: &[Probe], stonewall: u64, probe: u64) -> f64 {
    let writer = |group: &str| {
        probes
            .iter()
            .find(|w| w.phase.write && w.phase.group == group)
    };
    let of_group = |group: &str| writer(group).map_or(1.0, |w| grown(w, stonewall, probe));
    match p.phase.kind {
        _ if p.phase.write || p.phase.name == "ior-rnd4K-easy-read" => {
            stonewalled(p, stonewall, probe)
        }
        Kind::Find => {
            let groups: &[&str] = match p.phase.name {
                "find-easy" => &["mdtest-easy"],
                "find-hard" => &["mdtest-hard"],
                _ => &["mdtest-easy", "mdtest-hard"],
            };
            // Weighted by the files each group's probe made.
            let made = |g: &str| writer(g).map_or(0.0, |w| w.score * w.seconds);
            let files: f64 = groups.iter().map(|g| made(g)).sum();
            let scaled: f64 = groups.iter().map(|g| made(g) * of_group(g)).sum();
            if files > 0.0 {
                scaled / files
            } else {
                1.0
            }
        }
        Kind::MdWorkbench => stonewall.min(60) as f64 / probe.min(60) as f64,
        Kind::Timestamp => 1.0,
        _ => of_group(p.phase.group),
    }
}

/// The plan as printed: the sizes with their arithmetic, then each
/// phase's predicted time.
pub fn text(plan: &Plan) -> String {
    let mut out = String::from(
        "\nProposed sizes: each write phase sized to last stonewall-time x its margin at its \
         probed rate (the mean over the later half of its probe's stonewall)\n",
    );
    for s in &plan.sizes {
        out.push_str(&format!(
            "  {}\n  {}\n    -> [{}] {} = {}\n",
            s.why, s.line, s.change.section, s.change.key, s.change.value
        ));
    }
    let short = plan.times.iter().filter(|t| t.probe < plan.probe as f64);
    for t in short.filter(|t| plan.sizes.iter().any(|s| s.rate.phase == t.phase)) {
        out.push_str(&format!(
            "  note: {}'s probe ran out of its configured size before its {} s stonewall: \
             its rate is a short run's (a larger size probes better)\n",
            t.phase, plan.probe
        ));
    }
    for u in &plan.kept {
        out.push_str(&format!("  {u}: its size is left as configured\n"));
    }
    out.push_str(&format!(
        "\nPredicted wall time: each phase's probe time x how many times more it does in the run \
         (a phase that lasted its probe's stonewall: the run's stonewall and what followed the \
         probe's)\n  {:<22}{:>10}{:>10}{:>14}\n",
        "phase", "probe s", "factor", "predicted s"
    ));
    for t in &plan.times {
        out.push_str(&format!(
            "  {:<22}{:>10.3}{:>10.3}{:>14.1}\n",
            t.phase, t.probe, t.factor, t.seconds
        ));
    }
    let total = plan.total();
    out.push_str(&format!(
        "  {:<42}{total:>14.1}\nPredicted wall time of the run: {total:.0} s ({:.1} min)\n",
        "total",
        total / 60.0
    ));
    out
}

/// Bytes or items a task writes with `config`'s sizes in write phase `p`
/// (`None`: not a size the plan sets).
pub fn configured_amount(config: &Config, p: &Phase) -> Option<f64> {
    match (p.kind, p.group) {
        (Kind::Ior, "ior-easy") => {
            Some(parse_size(config.get("ior-easy", "blockSize")?).ok()? as f64)
        }
        (Kind::Ior, _) => {
            Some(config.get_uint(p.group, "segmentCount")? as f64 * HARD_SEGMENT as f64)
        }
        (Kind::Mdtest, _) => Some(config.get_uint(p.group, "n")? as f64),
        _ => None,
    }
}

/// One task's amount a second at a planned rate (bytes or items).
pub fn per_task_amount(rate: &PlanRate, p: &Phase) -> f64 {
    let unit = match p.kind {
        Kind::Ior => GIB,
        _ => 1000.0,
    };
    rate.per_task() * unit
}

#[cfg(test)]
mod tests;
