//! Before a load: the files must be there, and the page cache of this node
//! must not serve them unnoticed (DLIO reads back on the node that wrote,
//! from memory: dlio_benchmark#277). Each rank looks at how much of the
//! files it will read sits in its node's page cache (`mincore`), asks the
//! kernel to drop it (`fdatasync` + `fadvise(DONTNEED)`) unless told to
//! keep it, and looks again; rank 0 sums, and the load is marked as
//! cached (or refused, when asked) if half of it is still in memory.

use super::engine::{checkpoint_dir, Checkpoints, Pattern};
use super::plan::{CachePolicy, RunPlan, Said};
use crate::backend::cpath::c_path;
use crate::comm::{agree, Comm, ReduceOp};
use crate::error::{Error, Result};
use crate::pagecache::{CacheReport, Residency};

/// Checks that every file the loads read is there, whole (before the
/// first load). A run that only reads gets a usage error.
pub fn check_present(comm: &dyn Comm, ck: &mut Checkpoints, plan: &RunPlan) -> Result<()> {
    let source = (comm.rank() + plan.shift) % comm.size();
    let mut missing = None;
    'k: for k in 1..=plan.reads {
        for (path, size) in ck.paths_of(source, 1, k) {
            let found = c_path(&path).and_then(|c| ck.backend().namespace().size_of(&c));
            let ok = match found {
                Ok(Some(s)) => s == size,
                Ok(None) => true,
                Err(_) => false,
            };
            if !ok {
                missing = Some(format!(
                    "checkpoint {}: {} is missing or not {size} bytes ({} checkpoints to read: write them first, with pario.keep_checkpoints=true if in another run)",
                    checkpoint_dir("", 1, k).trim_start_matches('/'),
                    path.display(),
                    plan.reads
                ));
                break 'k;
            }
        }
    }
    let outcome = match missing {
        Some(m) if plan.writes == 0 => Err(Error::usage(m)),
        Some(m) => Err(Error::task(comm.rank(), m)),
        None => Ok(()),
    };
    agree(comm, outcome)
}

fn add(into: &mut Residency, r: Residency) {
    into.resident += r.resident;
    into.examined += r.examined;
    into.total += r.total;
}

/// This rank's residency of the files, `None` when the backend cannot
/// tell.
fn residency(ck: &Checkpoints, files: &[(std::path::PathBuf, u64)]) -> Result<Option<Residency>> {
    let mut sum = Residency::default();
    for (path, size) in files {
        let c = c_path(path).map_err(|e| Error::io(ck.rank(), "cannot name", path, &e))?;
        match ck.backend().namespace().residency(&c, &[(0, *size)]) {
            Ok(Some(r)) => add(&mut sum, r),
            Ok(None) => return Ok(None),
            Err(e) => {
                return Err(Error::io(
                    ck.rank(),
                    "cannot look at the page cache of",
                    path,
                    &e,
                ))
            }
        }
    }
    Ok(Some(sum))
}

/// Sums residencies on rank 0 (every rank calls it).
fn summed(comm: &dyn Comm, r: Option<Residency>) -> Result<Option<Residency>> {
    let r0 = r.unwrap_or_default();
    let mut v = [r0.resident, r0.examined, r0.total, r.is_none() as u64];
    comm.all_reduce_u64(&mut v, ReduceOp::Sum)?;
    Ok((v[3] == 0).then_some(Residency {
        resident: v[0],
        examined: v[1],
        total: v[2],
    }))
}

/// The page cache of checkpoint `k`'s files `source`'s, before this rank
/// loads them; rank 0's report is the sum over the ranks.
pub fn before_load(
    comm: &dyn Comm,
    ck: &mut Checkpoints,
    k: u64,
    source: usize,
    plan: &RunPlan,
    say: &mut dyn FnMut(Said),
) -> Result<CacheReport> {
    if k == 1 {
        check_present(comm, ck, plan)?;
    }
    let files = ck.paths_of(source, 1, k);
    let mine = residency(ck, &files);
    let before = agree(comm, mine)?;
    let evict = plan.cache != CachePolicy::Keep && before.is_some_and(|r| r.resident > 0);
    let after = if evict {
        let dropped = files.iter().try_for_each(|(path, size)| {
            let c = c_path(path).map_err(|e| Error::io(ck.rank(), "cannot name", path, &e))?;
            ck.backend()
                .namespace()
                .evict(&c, &[(0, *size)])
                .map_err(|e| Error::io(ck.rank(), "cannot drop from the page cache", path, &e))
        });
        agree(comm, dropped)?;
        agree(comm, residency(ck, &files))?
    } else {
        None
    };
    let any_evicted = crate::comm::reduce_u64(comm, evict as u64, ReduceOp::Max)? == 1;
    let before = summed(comm, before)?;
    let after = summed(comm, after)?;
    let topology = comm.topology();
    let elsewhere = topology.node_of(comm.rank()) != topology.node_of(source);
    let cross = crate::comm::reduce_u64(comm, elsewhere as u64, ReduceOp::Min)? == 1;
    let mut report = CacheReport {
        before: before.unwrap_or_default(),
        after_eviction: after.filter(|_| any_evicted),
        cross_node: cross,
        direct: matches!(ck.settings.pattern, Pattern::Direct { .. }),
        warning: None,
    };
    report.assess();
    if before.is_none() {
        report.warning = None;
    }
    let refused = plan.cache == CachePolicy::Refuse && report.warning.is_some();
    let verdict = match (comm.rank(), refused) {
        (0, true) => Err(Error::task(
            0,
            format!(
                "checkpoint {k}: the load would be served from the page cache ({}); refused (pario.checkpoint_cache=refuse)",
                report.describe()
            ),
        )),
        _ => Ok(()),
    };
    agree(comm, verdict)?;
    if before.is_some() {
        say(Said::Pario(&format!(
            "checkpoint {k}: {}",
            report.describe()
        )));
    }
    Ok(report)
}
