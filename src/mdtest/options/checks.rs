//! The checks that reject every value and combination of mdtest options
//! that cannot run, before anything is created; in a fixed order, so a
//! command line with several mistakes always names the same one first.

use crate::backend::{self, registry, Choice};
use crate::error::UsageError;
use crate::run::limits;
use crate::tool::Tasks;

use super::super::layout::Layout;
use super::super::params::MdtestParams;
use super::sweep;

type Check = Result<(), UsageError>;

fn err(message: String) -> Check {
    Err(UsageError(message))
}

/// Rejects every value and combination that cannot run, before anything is
/// created; returns the checked backend. Checks that need the number of
/// tasks are in [`validate_tasks`].
pub fn validate(p: &MdtestParams) -> Result<Choice, UsageError> {
    let backend = check_api(p)?;
    check_stonewall(p)?;
    check_order(p)?;
    check_tree(p)?;
    check_data(p, &backend)?;
    check_sweep(p)?;
    check_outputs(p)?;
    check_dirs(p)?;
    Layout::check(p).map_err(UsageError)?;
    Ok(backend)
}

/// A backend with the metadata calls mdtest makes.
fn check_api(p: &MdtestParams) -> Result<Choice, UsageError> {
    let backend = backend::configure(&p.api, &p.module_options).map_err(UsageError)?;
    if !backend.capabilities().metadata {
        err(format!(
            "-a {}: mdtest runs on {} only, the APIs with the metadata calls it makes",
            p.api,
            registry::either(&registry::names_with(|c| c.metadata))
        ))?;
    }
    Ok(backend)
}

/// `-W`: one branch per directory, barriers, every task its own items.
fn check_stonewall(p: &MdtestParams) -> Check {
    let seconds = p.stonewall.seconds;
    if seconds > 0 && p.tree.branch_factor > 1 {
        return err(format!(
            "-W {seconds}: the stonewall timer works only with a branching factor of 1 (-b {})",
            p.tree.branch_factor
        ));
    }
    if seconds > 0 && p.order.no_barriers {
        return err("-W (stonewall) needs barriers, so it cannot be combined with -B".into());
    }
    if seconds > 0 && p.order.collective_creates {
        return err("-W (stonewall) cannot be combined with -c (task 0 creates every item)".into());
    }
    Ok(())
}

/// `-d`: each test directory, if it exists, is a directory.
fn check_dirs(p: &MdtestParams) -> Check {
    for dir in &p.dirs {
        let path = std::path::Path::new(dir);
        if path.exists() && !path.is_dir() {
            return err(format!("-d {dir}: is not a directory"));
        }
    }
    Ok(())
}

/// How the tasks share the items: `-B`, `-N`, `-c`, `-S`, `-u`, `-d a@b`.
fn check_order(p: &MdtestParams) -> Check {
    let (o, t) = (&p.order, &p.tree);
    let several_dirs = p.dirs.len() > 1;
    if o.no_barriers && o.nstride > 0 {
        return err(format!(
            "-B cannot be combined with -N {}: without barriers a task could stat or remove items before their creator has made them",
            o.nstride
        ));
    }
    if t.shared_file && o.collective_creates {
        return err("-c cannot be combined with -S".into());
    }
    if several_dirs && o.collective_creates {
        return err("-c cannot be combined with several test directories (-d a@b)".into());
    }
    if o.collective_creates && o.no_barriers {
        return err("-c cannot be combined with -B".into());
    }
    if t.unique_dir && t.shared_file {
        return err("-u cannot be combined with -S".into());
    }
    if t.shared_file && p.phases.dirs_only && !p.phases.files_only {
        return err(
            "-S (one shared set of files) cannot be combined with -D (directories only)".into(),
        );
    }
    if several_dirs && o.nstride > 0 {
        return err(format!(
            "-N {}: a stride between tasks cannot be combined with several test directories (-d a@b)",
            o.nstride
        ));
    }
    if several_dirs && !t.unique_dir {
        return err(format!(
            "-d {}: several test directories need -u (each task in its own tree)",
            p.dirs.join("@")
        ));
    }
    Ok(())
}

/// The tree and the items in it.
fn check_tree(p: &MdtestParams) -> Check {
    let t = &p.tree;
    if t.branch_factor < 1 && t.depth > 0 {
        return err(format!(
            "-b 0: a tree of depth {} needs a branching factor of at least 1",
            t.depth
        ));
    }
    if t.items > 0 && t.items_per_dir > 0 {
        if t.unique_dir {
            return err("-n and -I cannot both be given with -u: give the number of items (-n) or the number of items per directory (-I)".into());
        }
        if t.items % t.items_per_dir != 0 {
            return err(format!(
                "-n {}: the number of items must be a multiple of the items per directory (-I {})",
                t.items, t.items_per_dir
            ));
        }
    }
    Ok(())
}

/// What is written, read and verified, and how files are made.
fn check_data(p: &MdtestParams, backend: &Choice) -> Check {
    let d = &p.data;
    check_mknod(p)?;
    if d.verify_read && !p.phases.read {
        return err(
            "-X verifies the data read, so it needs the read phase (-E, or no phase option)".into(),
        );
    }
    if d.verify_read && d.read_bytes == 0 {
        return err("-X verifies the data read, so it needs -e (bytes to read) above 0".into());
    }
    if p.phases.create && p.phases.read && p.file_phases() && d.read_bytes > d.write_bytes {
        return err(format!(
            "-e {}: a run that writes and reads files cannot read more bytes than it writes (-w {})",
            d.read_bytes, d.write_bytes
        ));
    }
    if d.verify_write && d.write_bytes == 0 {
        return err("--verify-write reads back what -w wrote, so it needs -w above 0".into());
    }
    if d.verify_read && !p.phases.create && d.data_seed.is_none() {
        return err("-X without the create phase in this run needs -G: the data seed the files were written with".into());
    }
    if (d.verify_read || d.verify_write) && !backend.capabilities().stores_data {
        return err(format!(
            "-X/--verify-write verify data, but the {} backend stores none",
            backend.name()
        ));
    }
    if p.output.warning_as_errors && p.phases.read && d.read_bytes == 0 && p.file_phases() {
        return err(
            "Read bytes is 0, thus, a read test will actually just open/close (--warningAsErrors)"
                .into(),
        );
    }
    if let Some(align) = backend.alignment() {
        for (flag, size) in [("-w", d.write_bytes), ("-e", d.read_bytes)] {
            if size % align != 0 {
                return err(format!(
                    "{flag} {size}: O_DIRECT needs sizes that are multiples of {align} bytes"
                ));
            }
        }
    }
    Ok(())
}

/// `-k` makes empty files, each once.
fn check_mknod(p: &MdtestParams) -> Check {
    if !p.phases.make_node {
        return Ok(());
    }
    if p.data.write_bytes > 0 {
        return err(format!(
            "-k (mknod) creates empty files, so it cannot be combined with -w {}",
            p.data.write_bytes
        ));
    }
    if p.order.collective_creates || p.tree.shared_file {
        let other = match p.order.collective_creates {
            true => "-c (task 0 creates every file first)",
            false => "-S (every task creates the same files)",
        };
        return err(format!(
            "-k (mknod) cannot be combined with {other}: that file would be made twice"
        ));
    }
    Ok(())
}

/// `-f`, `-l`.
fn check_sweep(p: &MdtestParams) -> Check {
    if let (Some(first), Some(last)) = (p.sweep.first, p.sweep.last) {
        if first > last {
            return err(format!(
                "-f {first} -l {last}: the first number of tasks is larger than the last"
            ));
        }
    }
    if p.sweep.first.is_some() && p.sweep.last.is_none() {
        return err("-f needs -l (the last number of tasks of the sweep)".into());
    }
    Ok(())
}

/// `--summaryFormat` and `--summaryFile`.
fn check_outputs(p: &MdtestParams) -> Check {
    let summary = &p.output.summary;
    if let Some(path) = summary.text_file() {
        return err(format!(
            "--summaryFile {path}: give --summaryFormat=JSON or CSV too"
        ));
    }
    summary
        .check()
        .map_err(|e| UsageError(format!("--summaryFormat: {e}")))
}

/// The checks that need the running tasks: how many (`-l`, `-d a@b`, `-X
/// -S`, totals that fit 64 bits) and how many share this node's memory
/// (the buffers).
pub fn validate_tasks(p: &MdtestParams, tasks: Tasks) -> Check {
    let size = tasks.total;
    if let Some(last) = p.sweep.last {
        if last > size {
            return err(format!(
                "-l {last}: only {size} tasks are running (set PARIO_TASKS or use mpirun -np)"
            ));
        }
    }
    if p.dirs.len() > size {
        return err(format!(
            "-d: {} test directories but only {size} tasks (at most one directory per task)",
            p.dirs.len()
        ));
    }
    let steps = sweep(p, size);
    if p.data.verify_read && p.tree.shared_file && steps.iter().any(|&n| n > 1) {
        return err(
            "-X with -S: several tasks write the same files, so their contents cannot be verified"
                .into(),
        );
    }
    let per_task = Layout::new(p).map_err(UsageError)?.items_per_task();
    let most = steps.iter().copied().max().unwrap_or(size) as u64;
    if per_task.checked_mul(most).is_none() {
        return err(format!(
            "-n {}: {most} tasks with {per_task} items each is more items than 64 bits can count",
            p.tree.items
        ));
    }
    let d = &p.data;
    let check = if d.verify_write { d.write_bytes } else { 0 };
    let buffers = d
        .write_bytes
        .saturating_add(d.read_bytes)
        .saturating_add(check);
    let what = match (d.write_bytes > 0, d.read_bytes > 0) {
        (true, true) => "-w/-e",
        (false, true) => "-e",
        _ => "-w",
    };
    limits::buffers_fit(what, buffers, tasks.here)
}
