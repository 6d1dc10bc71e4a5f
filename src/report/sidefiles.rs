//! The CSV files a run writes next to its JSON result, given to the report
//! after that result: the full latency histograms (ior's
//! `latencyHistogramFile`, mdtest's `--latencyHistogramFile`), every
//! task's times (ior's `saveRankPerformanceDetailsCSV`, mdtest's
//! `--saveRankPerformanceDetails`: each phase's fastest to slowest task)
//! and md-workbench's `-L` files (every operation's latency: exact
//! percentiles). Each is known by its header line.

use std::collections::BTreeMap;

/// ior's per-task file, one row per task and phase.
const RANK_HEADER: &str =
    "access,iteration,rank,open_start,open_end,xfer_start,xfer_end,close_start,close_end";

/// One task's times in one phase (seconds from the run's clock origin).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRow {
    pub access: String,
    pub iteration: u64,
    pub rank: u64,
    pub open: (f64, f64),
    pub xfer: (f64, f64),
    pub close: (f64, f64),
}

/// A figure's latency distribution, every repetition merged: (seconds,
/// operations at that bucket), by bucket.
pub type Histogram = Vec<(f64, u64)>;

/// mdtest's per-task file: a row `all`, then one per task, per iteration.
const MDTEST_RANKS: &str = "rank,iteration,items,";

/// md-workbench's `-L` file: each operation's start and duration.
const MDW_LATENCY: &str = "time,runtime";

/// A repetition's fastest, mean and slowest task, seconds.
pub type Spread = (f64, f64, f64);

/// What a side file holds.
pub enum Side {
    /// Per figure (named as `compare` names it).
    Histograms(BTreeMap<String, Histogram>),
    Tasks(Vec<TaskRow>),
    /// Per figure, a repetition's fastest, mean and slowest task.
    Spreads(Vec<(String, Spread)>),
}

/// Reads a side file, known by its header.
pub fn read(path: &str) -> Result<Side, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
    parse(path, &bytes)
}

/// Reads a result's side files, the histograms of all of them merged
/// (md-workbench writes a file per operation and repetition).
pub fn read_all(paths: &[String]) -> Result<Vec<Side>, String> {
    let mut out = Vec::new();
    let mut merged: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
    for path in paths {
        match read(path)? {
            Side::Histograms(h) => {
                for (figure, buckets) in h {
                    let into = merged.entry(figure).or_default();
                    for (s, c) in buckets {
                        let b = into.entry(s.to_bits()).or_default();
                        *b = b.saturating_add(c);
                    }
                }
            }
            other => out.push(other),
        }
    }
    if !merged.is_empty() {
        out.push(Side::Histograms(sorted(merged)));
    }
    Ok(out)
}

/// Buckets by their seconds' bits, as histograms in order of seconds.
fn sorted(merged: BTreeMap<String, BTreeMap<u64, u64>>) -> BTreeMap<String, Histogram> {
    merged
        .into_iter()
        .map(|(k, b)| {
            let mut h: Histogram = b.into_iter().map(|(s, c)| (f64::from_bits(s), c)).collect();
            h.sort_by(|a, b| a.0.total_cmp(&b.0));
            (k, h)
        })
        .collect()
}

/// A side file's bytes (from `path`); an error is one line naming the file
/// and the line.
pub fn parse(path: &str, bytes: &[u8]) -> Result<Side, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        format!("{path}:{line}: not text (UTF-8)")
    })?;
    let header = text.lines().next().unwrap_or("");
    let bad = |n: usize| format!("{path}:{}: not a row of this file", n + 2);
    let rows = text
        .lines()
        .skip(1)
        .enumerate()
        .filter(|(_, l)| !l.is_empty());
    if header.starts_with(RANK_HEADER) {
        let mut tasks = Vec::new();
        for (n, line) in rows {
            tasks.push(task_row(line).ok_or_else(|| bad(n))?);
        }
        return Ok(Side::Tasks(tasks));
    }
    if header.starts_with(MDTEST_RANKS) {
        return mdtest_ranks(header, rows).map(Side::Spreads).map_err(bad);
    }
    if header == MDW_LATENCY {
        let figure = mdw_figure(path).ok_or_else(|| {
            format!(
                "{path}: an md-workbench latency file (-L) named otherwise than PREFIX-F-I-OP.csv"
            )
        })?;
        let mut buckets: BTreeMap<u64, u64> = BTreeMap::new();
        for (n, line) in rows {
            let took = line.split(',').nth(1).and_then(|s| s.parse::<f64>().ok());
            let took = took
                .filter(|s| s.is_finite() && *s >= 0.0)
                .ok_or_else(|| bad(n))?;
            *buckets.entry(took.to_bits()).or_default() += 1;
        }
        return Ok(Side::Histograms(sorted(BTreeMap::from([(
            figure, buckets,
        )]))));
    }
    let name: fn(&str, &str) -> String = match header {
        "test,access,iteration,latency_s,cumulative_fraction,count" => |a, b| format!("test {a} {b}"),
        "tasks,operation,iteration,latency_s,cumulative_fraction,count" => {
            |a, b| format!("{a} tasks: {b}")
        }
        _ => {
            return Err(format!(
                "{path}: neither a result (JSON) nor a latency histogram, task times or -L latency file (CSV) of pario"
            ))
        }
    };
    // Buckets are the same values in every repetition (one histogram
    // layout), so merging is adding the counts of equal values.
    let mut merged: BTreeMap<String, BTreeMap<u64, u64>> = BTreeMap::new();
    for (n, line) in rows {
        let f: Vec<&str> = line.split(',').collect();
        let seconds = f.get(3).and_then(|s| s.parse::<f64>().ok());
        let seconds = seconds.filter(|s| s.is_finite() && *s >= 0.0);
        let (Some(seconds), Some(count)) = (seconds, f.get(5).and_then(|s| s.parse::<u64>().ok()))
        else {
            return Err(bad(n));
        };
        let buckets = merged.entry(name(f[0], f[1])).or_default();
        let bucket = buckets.entry(seconds.to_bits()).or_default();
        *bucket = bucket.saturating_add(count);
    }
    Ok(Side::Histograms(sorted(merged)))
}

/// md-workbench's latency key of an `-L` file, from its name
/// (`PREFIX-<factor>-<iteration>-<op>[-all].csv`).
fn mdw_figure(path: &str) -> Option<String> {
    let stem = path.rsplit('/').next()?.strip_suffix(".csv")?;
    let stem = stem.strip_suffix("-all").unwrap_or(stem);
    let op = stem.rsplit('-').next()?;
    Some(match op {
        "precreate" => "precreate create".into(),
        "cleanup" => "cleanup delete".into(),
        "read" | "stat" | "create" | "delete" => format!("benchmark {op}"),
        _ => return None,
    })
}

/// Each phase of each iteration: its tasks' times (the `time-OP`
/// columns of the task rows after an `all` row), as fastest, mean and
/// slowest under mdtest's figure name (`2 tasks: File creation`).
/// An error is the index of the bad row.
fn mdtest_ranks<'a>(
    header: &str,
    rows: impl Iterator<Item = (usize, &'a str)>,
) -> Result<Vec<(String, Spread)>, usize> {
    let ops: Vec<(usize, &str)> = header
        .split(',')
        .enumerate()
        .filter_map(|(i, c)| c.strip_prefix("time-").map(|op| (i, op)))
        .collect();
    let mut out = Vec::new();
    let mut block: Vec<Vec<Option<f64>>> = Vec::new();
    let mut flush = |block: &mut Vec<Vec<Option<f64>>>| {
        for (k, (_, op)) in ops.iter().enumerate() {
            let times: Vec<f64> = block.iter().filter_map(|t| t[k]).collect();
            if let (false, Some(lo), Some(hi)) = (
                times.is_empty(),
                times.iter().copied().reduce(f64::min),
                times.iter().copied().reduce(f64::max),
            ) {
                let mean = times.iter().sum::<f64>() / times.len() as f64;
                out.push((format!("{} tasks: {op}", block.len()), (lo, mean, hi)));
            }
        }
        block.clear();
    };
    for (n, line) in rows {
        let f: Vec<&str> = line.split(',').collect();
        if f.len() < ops.last().map_or(0, |o| o.0 + 1) {
            return Err(n);
        }
        if f[0] == "all" {
            flush(&mut block);
            continue;
        }
        f[0].parse::<u64>().map_err(|_| n)?;
        let time = |i: usize| match f[i] {
            "" => Ok(None),
            t => t
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(Some)
                .ok_or(n),
        };
        block.push(
            ops.iter()
                .map(|(i, _)| time(*i))
                .collect::<Result<_, _>>()?,
        );
    }
    flush(&mut block);
    Ok(out)
}

fn task_row(line: &str) -> Option<TaskRow> {
    let f: Vec<&str> = line.split(',').collect();
    let num = |i: usize| f.get(i)?.parse::<f64>().ok().filter(|v| v.is_finite());
    Some(TaskRow {
        access: f.first()?.to_string(),
        iteration: f.get(1)?.parse().ok()?,
        rank: f.get(2)?.parse().ok()?,
        open: (num(3)?, num(4)?),
        xfer: (num(5)?, num(6)?),
        close: (num(7)?, num(8)?),
    })
}

/// A merged histogram as a percentile curve: (fraction of operations at
/// or below, seconds) at each bucket.
pub fn curve(h: &Histogram) -> Vec<(f64, f64)> {
    let total = h.iter().fold(0u64, |t, (_, c)| t.saturating_add(*c));
    let mut below = 0u64;
    h.iter()
        .map(|(s, c)| {
            below = below.saturating_add(*c);
            (below as f64 / total.max(1) as f64, *s)
        })
        .collect()
}

/// The phase of `access` whose tasks differ most (slowest open-to-close
/// over fastest): its rows, by rank. Stragglers show best there.
pub fn widest_phase<'a>(tasks: &'a [TaskRow], access: &str) -> Vec<&'a TaskRow> {
    let mut phases: BTreeMap<u64, Vec<&TaskRow>> = BTreeMap::new();
    for t in tasks.iter().filter(|t| t.access == access) {
        phases.entry(t.iteration).or_default().push(t);
    }
    let spread = |rows: &Vec<&TaskRow>| {
        let totals = rows.iter().map(|t| t.close.1 - t.open.0);
        let (lo, hi) = totals.fold((f64::INFINITY, 0.0f64), |(l, h), v| (l.min(v), h.max(v)));
        hi / lo.max(f64::MIN_POSITIVE)
    };
    let mut rows = phases
        .into_values()
        .max_by(|a, b| spread(a).total_cmp(&spread(b)))
        .unwrap_or_default();
    rows.sort_by_key(|t| t.rank);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn curve_of_a_histogram() {
        let c = curve(&vec![(1e-6, 1), (2e-6, 2), (4e-6, 1)]);
        assert_eq!(c, [(0.25, 1e-6), (0.75, 2e-6), (1.0, 4e-6)]);
    }

    #[test]
    fn mdtest_task_files_give_each_phase_its_fastest_and_slowest_task() {
        let text = "rank,iteration,items,rate-File creation,time-File creation,rate-File stat,time-File stat\n\
                    all,0,10,5,2.0,,\n0,0,10,5,1.0,,\n1,0,10,5,3.0,,\n\
                    all,1,10,5,2.0,9,1\n0,1,10,5,2.0,9,1\n1,1,10,5,2.0,9,1\n";
        let Ok(Side::Spreads(s)) = parse("r.csv", text.as_bytes()) else {
            panic!("not read as mdtest's task file");
        };
        assert_eq!(
            s,
            [
                ("2 tasks: File creation".to_string(), (1.0, 2.0, 3.0)),
                ("2 tasks: File creation".to_string(), (2.0, 2.0, 2.0)),
                ("2 tasks: File stat".to_string(), (1.0, 1.0, 1.0)),
            ]
        );
        let bad = "rank,iteration,items,rate-File creation,time-File creation\nx,0,1,1,1\n";
        let e = parse("r.csv", bad.as_bytes()).err().unwrap();
        assert_eq!(e, "r.csv:2: not a row of this file");
    }

    #[test]
    fn md_workbench_latency_files_merge_into_one_curve_per_operation() {
        let dir = tempfile::tempdir().unwrap();
        let mut paths = Vec::new();
        for (i, rows) in ["0.1,1e-3\n0.2,2e-3\n", "0.1,1e-3\n"].iter().enumerate() {
            let p = dir.path().join(format!("lat-0.00-{i}-read.csv"));
            std::fs::write(&p, format!("time,runtime\n{rows}")).unwrap();
            paths.push(p.display().to_string());
        }
        let sides = read_all(&paths).unwrap();
        let [Side::Histograms(h)] = &sides[..] else {
            panic!("one merged histogram");
        };
        assert_eq!(h["benchmark read"], [(1e-3, 2), (2e-3, 1)]);
        let odd = dir.path().join("lat.csv");
        std::fs::write(&odd, "time,runtime\n").unwrap();
        let e = read(&odd.display().to_string()).err().unwrap();
        assert!(e.contains("named otherwise"), "{e}");
    }
}
