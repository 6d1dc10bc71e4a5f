//! The checks that reject every combination of IOR options that cannot
//! run, before any file is touched. They run in a fixed order, so a command
//! line with several mistakes always names the same one first.

use std::path::Path;

use crate::backend::{self, registry, Choice, Demands};
use crate::error::UsageError;
use crate::memhog::{self, NodeMemory};
use crate::run::limits;
use crate::tool::Tasks;
use crate::units::human_bytes;

use super::super::draws::short_size;
use super::super::params::{IorParams, Ordering, Sweep};

type Check = Result<(), UsageError>;

fn err(message: String) -> Check {
    Err(UsageError(message))
}

/// Rejects every combination that cannot run, before any file is touched;
/// returns the test's checked backend.
pub fn validate(p: &IorParams) -> Result<Choice, UsageError> {
    check_file_name(p)?;
    check_geometry(p)?;
    check_memory(p)?;
    check_stonewall(p)?;
    check_data(p)?;
    check_mix(p)?;
    check_files(p)?;
    check_backend(p)
}

/// Only a script can carry a NUL byte (a command-line argument cannot). A
/// shared file cannot be an existing directory.
fn check_file_name(p: &IorParams) -> Check {
    let name = &p.files.test_file_name;
    if name.contains('\0') {
        return err(format!(
            "-o {}: a file name cannot hold a NUL byte",
            name.replace('\0', "\\0")
        ));
    }
    let shared = name.split('@').next().unwrap_or(name);
    if !p.geometry.file_per_proc && !p.files.multi_file && Path::new(shared).is_dir() {
        return err(format!(
            "-o {shared}: is a directory; the shared test file needs a file name (or -F for a file per task)"
        ));
    }
    Ok(())
}

/// Transfers, blocks and segments that describe a file.
fn check_geometry(p: &IorParams) -> Check {
    let g = &p.geometry;
    let (t, b) = (g.transfer_size, g.block_size);
    if t == 0 {
        return err("-t 0: the transfer size must be positive".into());
    }
    if let (Some(_), Some(n)) = (&g.sweep, g.num_tasks) {
        return err(format!(
            "-N {n} and sweep both choose the tasks of the test: give one of them"
        ));
    }
    if b == 0 {
        return err("-b 0: the block size must be positive".into());
    }
    if g.segment_count == 0 {
        return err("-s 0: the segment count must be at least 1".into());
    }
    if t % 8 != 0 {
        return err(format!(
            "-t {t}: the transfer size must be a multiple of 8 bytes"
        ));
    }
    if b < t {
        return err(format!(
            "-b {b}: the block size must not be smaller than the transfer size ({t})"
        ));
    }
    if b % t != 0 {
        return err(format!(
            "-b {b}: the block size must be a multiple of the transfer size ({t})"
        ));
    }
    g.segment_count
        .checked_mul(b)
        .and_then(|v| v.checked_mul(g.num_tasks.unwrap_or(1) as u64))
        .ok_or_else(|| UsageError("-s/-b: the file size overflows 64 bits".into()))?;
    Ok(())
}

/// `-M` in bytes cannot be more than the node has.
fn check_memory(p: &IorParams) -> Check {
    let Some(NodeMemory::Bytes(bytes)) = p.memory.per_node else {
        return Ok(());
    };
    match memhog::node_total() {
        Ok(total) if bytes > total => err(format!(
            "-M {}: more than this node's memory ({})",
            human_bytes(bytes),
            human_bytes(total)
        )),
        _ => Ok(()),
    }
}

/// `-D` and the directives that go with it.
fn check_stonewall(p: &IorParams) -> Check {
    let wall = &p.stonewall;
    if wall.wear_out && wall.deadline == 0 {
        return err("-O stoneWallingWearOut=1 needs a deadline: add -D <seconds>".into());
    }
    if wall.deadline > 0 && p.phases.check_write {
        return err("-D cannot be combined with -W: a stonewalled write leaves data that -W would report as missing".into());
    }
    if let Some(status) = &wall.status_file {
        if !p.files.keep_file {
            return err(format!(
                "-O stoneWallingStatusFile={status} needs -k: the count it stores describes files that would otherwise be removed"
            ));
        }
        if p.phases.write_file && wall.deadline > 0 && !wall.wear_out {
            return err(format!(
                "-O stoneWallingStatusFile={status} with -D needs -O stoneWallingWearOut=1, or the tasks' files would hold different counts"
            ));
        }
    }
    if wall.min_time > 0 && p.transfers.collective {
        return err("-O minTimeDuration cannot be combined with collective I/O (-c)".into());
    }
    Ok(())
}

/// Reordering and verification.
fn check_data(p: &IorParams) -> Check {
    let phases = &p.phases;
    if p.reorder.reorder_tasks && p.reorder.reorder_tasks_random > 0 {
        return err("-C and -Z both reorder tasks: choose one".into());
    }
    let signed = p.verification.time_stamp_signature.is_some();
    if phases.check_read && !phases.write_file && !signed {
        return err("-R without -w needs -G: the signature the data was written with".into());
    }
    if phases.check_write && !phases.write_file {
        return err("-W checks data after writing, so it needs -w".into());
    }
    if (phases.check_read || phases.check_write)
        && p.ordering() == Ordering::Random
        && !p.mix.active()
    {
        return err("-R/-W cannot verify -z -z: random offsets may overlap or leave holes".into());
    }
    Ok(())
}

/// Mixed access: what the mix needs of the rest of the test.
fn check_mix(p: &IorParams) -> Check {
    let m = &p.mix;
    if !m.active() {
        return Ok(());
    }
    let g = &p.geometry;
    if let (Some(pct), false) = (m.read_pct, p.phases.write_file) {
        return err(format!(
            "-O rwmixRead={pct} mixes reads into the write phase: add -w"
        ));
    }
    if p.transfers.collective {
        return err("-O rwmixRead/randomDistribution/transferSizeSplit cannot be combined with collective I/O (-c): the tasks would make different calls".into());
    }
    if g.random_prefill > 0 {
        return err("--randomPrefill cannot be combined with a mix: a mixed phase fills its data with -t transfers itself".into());
    }
    if let Some(split) = &m.split {
        for &(size, _) in &split.entries {
            if size % g.transfer_size != 0 {
                return err(format!(
                    "-O transferSizeSplit: {} is not a multiple of the transfer size (-t {}), which stays the unit of offsets and verification",
                    short_size(size),
                    short_size(g.transfer_size)
                ));
            }
            if size > g.block_size {
                return err(format!(
                    "-O transferSizeSplit: {} is larger than the block size (-b {})",
                    short_size(size),
                    short_size(g.block_size)
                ));
            }
        }
        if p.ordering() == Ordering::Shuffled && m.distribution.is_none() {
            return err("-O transferSizeSplit with -z (every transfer once) needs fixed sizes: use -z -z or -O randomDistribution".into());
        }
    }
    Ok(())
}

/// File names, the prefill and the files written beside the test.
fn check_files(p: &IorParams) -> Check {
    let g = &p.geometry;
    if p.files.unique_dir && p.files.test_file_name.contains('@') {
        return err(format!(
            "-u cannot be combined with several file names (-o {})",
            p.files.test_file_name
        ));
    }
    if g.random_prefill > 0 {
        if p.ordering() == Ordering::Sequential {
            return err("--randomPrefill only applies to random access (-z)".into());
        }
        if g.block_size % g.random_prefill != 0 || g.random_prefill % 8 != 0 {
            return err(format!(
                "--randomPrefill {}: must divide the block size ({}) and be a multiple of 8",
                g.random_prefill, g.block_size
            ));
        }
    }
    p.output
        .summary
        .check()
        .map_err(|e| UsageError(format!("-O summaryFormat: {e}")))
}

/// The backend, and what it demands of the test: its typed configuration.
fn check_backend(p: &IorParams) -> Result<Choice, UsageError> {
    let choice = backend::configure(&p.api, &p.module_options).map_err(UsageError)?;
    let can = choice.capabilities();
    if p.transfers.collective && !can.collective {
        let able = registry::names_able(|c| c.collective);
        err(format!(
            "-c: collective I/O needs -a {}, not -a {}",
            registry::either(&able),
            choice.name()
        ))?;
    }
    if let Some(align) = choice.alignment() {
        let g = &p.geometry;
        for (flag, size) in [
            ("-t", g.transfer_size),
            ("-b", g.block_size),
            ("--randomPrefill", g.random_prefill),
        ] {
            if size % align != 0 {
                err(format!(
                    "{flag} {size}: O_DIRECT needs sizes that are multiples of {} (use -t and -b in multiples of 4k)",
                    human_bytes(align)
                ))?;
            }
        }
    }
    if (p.phases.check_read || p.phases.check_write) && !can.stores_data {
        err(format!(
            "-R/-W verify data, but the {} backend stores none",
            choice.name()
        ))?;
    }
    choice
        .refuse(&demands(p, false, None))
        .map_err(UsageError)?;
    Ok(choice)
}

/// How the test uses its files, for the backend's own refusals.
fn demands(p: &IorParams, threads: bool, tasks: Option<u64>) -> Demands {
    let g = &p.geometry;
    Demands {
        transfer: g.transfer_size,
        block: g.block_size,
        segments: g.segment_count,
        tasks,
        writes: p.phases.write_file,
        random_offsets: p.geometry.random_offset > 0,
        shared_file: !p.geometry.file_per_proc,
        collective: p.transfers.collective,
        own_deadline: p.stonewall.deadline > 0 && !p.transfers.collective,
        threads,
    }
}

/// The checks that need the running tasks: `-N` within them, totals that
/// fit 64 bits, and buffers that fit the node's memory.
pub fn check_tasks(p: &IorParams, backend: &Choice, tasks: Tasks) -> Check {
    let g = &p.geometry;
    let taking = g.num_tasks.unwrap_or(tasks.total) as u64;
    backend
        .refuse(&demands(p, tasks.threads, Some(taking)))
        .map_err(UsageError)?;
    let size = tasks.total;
    if let Some(n) = g.num_tasks.filter(|&n| n > size) {
        return err(format!("-N {n}: only {size} tasks are running"));
    }
    if let Some(Sweep::Tasks(counts)) = &g.sweep {
        if let Some(n) = counts.iter().find(|&&n| n > size) {
            return err(format!("sweep={n}: only {size} tasks are running"));
        }
    }
    let taking_part = match &g.sweep {
        Some(Sweep::Tasks(counts)) => counts.iter().copied().max().unwrap_or(size),
        _ => g.num_tasks.unwrap_or(size),
    } as u64;
    g.segment_count
        .checked_mul(g.block_size)
        .and_then(|v| v.checked_mul(taking_part))
        .ok_or_else(|| {
            UsageError(format!(
                "-s/-b: the aggregate size of {taking_part} tasks overflows 64 bits"
            ))
        })?;
    // A mixed phase keeps a write and a read buffer of its largest size.
    let largest = p.mix.split.as_ref().map_or(0, |s| s.largest());
    let per_task = match p.mix.active() {
        true => 2 * g.transfer_size.max(largest),
        false => g.transfer_size.saturating_add(g.random_prefill),
    };
    let what = if g.random_prefill > 0 {
        "-t/--randomPrefill"
    } else {
        "-t"
    };
    limits::buffers_fit(what, per_task, tasks.here)
}
