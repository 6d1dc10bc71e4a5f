//! mdtest's options: one table for the command line and `-O` directives, and
//! the checks that reject bad values and combinations before anything is
//! created.

use crate::backend::{self, registry, Choice};
use crate::options::{
    flag, long_flag, long_value, module_specs, spec, unsupported, value, ArgKind, Grammar, OptSpec,
    Setting, UsageError,
};
use crate::pattern::PacketType;
use crate::units::{parse_count, parse_int, parse_non_negative, parse_positive, parse_size};

use super::params::MdtestParams;
use super::tree::Layout;

fn text(s: Setting<'_>, what: &str) -> Result<String, String> {
    let v = s.value().trim();
    if v.is_empty() {
        return Err(format!("the {what} is empty"));
    }
    Ok(v.to_string())
}

/// The table of every mdtest option, in mdtest's help order.
pub fn grammar() -> Grammar<MdtestParams> {
    let mut specs: Vec<OptSpec<MdtestParams>> = vec![
        value('a', &["api"], "POSIX", format!("API for I/O [{}]", registry::names_with(|c| c.metadata).join("|")), |p, s| {
            p.api = text(s, "API name")?;
            Ok(())
        }),
        value('b', &["branchingFactor"], "1", "branching factor of hierarchical directory structure", |p, s| {
            p.tree.branch_factor = parse_non_negative(s.value())?;
            Ok(())
        }),
        value('d', &["directory"], "./out", "directory or multiple directories where the test will run [dir|dir1@dir2@dir3...]", |p, s| {
            let v = s.value();
            if v.is_empty() {
                return Err("the directory is empty".into());
            }
            let dirs: Vec<String> = v.split('@').map(str::to_string).collect();
            if let Some(i) = dirs.iter().position(|d| d.is_empty()) {
                return Err(format!("directory number {} of the '@' list is empty", i + 1));
            }
            p.dirs = dirs;
            Ok(())
        }),
        flag('B', &["noBarriers"], "no barriers between phases", |p, s| {
            p.order.no_barriers = s.flag_bool()?;
            Ok(())
        }),
        flag('C', &["createOnly"], "only create files/dirs", |p, s| {
            p.phases.create = s.flag_bool()?;
            Ok(())
        }),
        flag('T', &["statOnly"], "only stat files/dirs", |p, s| {
            p.phases.stat = s.flag_bool()?;
            Ok(())
        }),
        flag('E', &["readOnly"], "only read files/dir", |p, s| {
            p.phases.read = s.flag_bool()?;
            Ok(())
        }),
        flag('r', &["removeOnly"], "only remove files or directories left behind by previous runs", |p, s| {
            p.phases.remove = s.flag_bool()?;
            Ok(())
        }),
        flag('U', &["renameDirs"], "enable rename directory phase", |p, s| {
            p.phases.rename = s.flag_bool()?;
            Ok(())
        }),
        flag('D', &["dirsOnly"], "perform test on directories only (no files)", |p, s| {
            p.phases.dirs_only = s.flag_bool()?;
            Ok(())
        }),
        value('e', &["readBytes"], "0", "bytes to read from each file", |p, s| {
            p.data.read_bytes = parse_size(s.value())?;
            Ok(())
        }),
        value('f', &["first"], "1", "first number of tasks on which the test will run", |p, s| {
            p.sweep.first = Some(parse_positive(s.value())? as usize);
            Ok(())
        }),
        flag('F', &["filesOnly"], "perform test on files only (no directories)", |p, s| {
            p.phases.files_only = s.flag_bool()?;
            Ok(())
        }),
        flag('g', &["globalDirLayout"], "global default directory layout for test subdirectories (Lustre; not supported)", |_, s| {
            unsupported(s, "Lustre directory layouts are not supported by pario (set them with 'lfs setdirstripe')")
        }),
        value('G', &["dataSeed"], "time", "Offset for the data in the read/write buffer, if not set, a random value is used", |p, s| {
            p.data.data_seed = Some(parse_int(s.value())?);
            Ok(())
        }),
        value('i', &["iterations"], "1", "number of iterations the test will run", |p, s| {
            p.phases.iterations = parse_positive(s.value())?;
            Ok(())
        }),
        value('I', &["itemsPerDir"], "0", "number of items per directory in tree", |p, s| {
            p.tree.items_per_dir = parse_count(s.value())?;
            Ok(())
        }),
        flag('k', &["makeNode"], "use mknod to create file", |p, s| {
            p.phases.make_node = s.flag_bool()?;
            Ok(())
        }),
        value('l', &["last"], "0", "last number of tasks on which the test will run", |p, s| {
            p.sweep.last = Some(parse_positive(s.value())? as usize);
            Ok(())
        }),
        flag('L', &["leafOnly"], "files only at leaf level of tree", |p, s| {
            p.tree.leaf_only = s.flag_bool()?;
            Ok(())
        }),
        value('n', &["items"], "0", "every process will creat/stat/read/remove # directories and files", |p, s| {
            p.tree.items = parse_count(s.value())?;
            Ok(())
        }),
        value('N', &["neighborStride"], "0", "stride # between tasks for file/dir operation (local=0; set to 1 to avoid client cache)", |p, s| {
            p.order.nstride = parse_non_negative(s.value())? as usize;
            Ok(())
        }),
        value('p', &["preDelay"], "0", "pre-iteration delay (in seconds)", |p, s| {
            p.phases.pre_delay = parse_non_negative(s.value())?;
            Ok(())
        }),
        flag('P', &["printRateAndTime"], "print rate AND time", |p, s| {
            p.output.print_rate_and_time = s.flag_bool()?;
            Ok(())
        }),
        long_flag(&["print-all-procs"], "all processes print an excerpt of their results", |p, s| {
            p.output.print_all_procs = s.flag_bool()?;
            Ok(())
        }),
        flag('R', &["randomize"], "random access to files (only for stat)", |p, s| {
            p.order.randomize = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["random-seed", "randomSeed"], "0", "random seed for -R", |p, s| {
            let seed = parse_int(s.value())?;
            if !(0..=i64::from(i32::MAX)).contains(&seed) {
                return Err("the seed must be between 0 and 2147483647".into());
            }
            p.order.random_seed = seed;
            Ok(())
        }),
        value('s', &["stride"], "1", "stride between the number of tasks for each test", |p, s| {
            p.sweep.stride = parse_positive(s.value())? as usize;
            Ok(())
        }),
        flag('S', &["sharedFile"], "shared file access (file only, no directories)", |p, s| {
            p.tree.shared_file = s.flag_bool()?;
            Ok(())
        }),
        flag('c', &["collectiveCreates"], "collective creates: task 0 does all creates", |p, s| {
            p.order.collective_creates = s.flag_bool()?;
            Ok(())
        }),
        flag('t', &["timeUniqueDirOverhead"], "time unique working directory overhead", |p, s| {
            p.order.time_unique_dir_overhead = s.flag_bool()?;
            Ok(())
        }),
        flag('u', &["uniqueDir"], "unique working directory for each task", |p, s| {
            p.tree.unique_dir = s.flag_bool()?;
            Ok(())
        }),
        flag('v', &["verbose"], "verbosity (each instance of option increments by one)", |p, s| {
            p.output.verbose = s.flag_count(p.output.verbose)?;
            Ok(())
        }),
        value('V', &["verbosity"], "0", "verbosity value", |p, s| {
            p.output.verbose = u32::try_from(parse_non_negative(s.value())?).map_err(|_| "too large".to_string())?;
            Ok(())
        }),
        value('w', &["writeBytes"], "0", "bytes to write to each file after it is created", |p, s| {
            p.data.write_bytes = parse_size(s.value())?;
            Ok(())
        }),
        value('W', &["stonewallTimer"], "0", "number in seconds; stonewall timer, write as many seconds and ensure all processes did the same number of operations (currently only stops during create phase and files)", |p, s| {
            p.stonewall.seconds = parse_non_negative(s.value())?;
            Ok(())
        }),
        value('x', &["stoneWallingStatusFile"], "STRING", "StoneWallingStatusFile; contains the number of iterations of the creation phase, can be used to split phases across runs", |p, s| {
            p.stonewall.file = Some(text(s, "stonewall status file name")?);
            Ok(())
        }),
        flag('X', &["verify-read", "verifyRead"], "Verify the data read", |p, s| {
            p.data.verify_read = s.flag_bool()?;
            Ok(())
        }),
        long_flag(&["verify-write", "verifyWrite"], "Verify the data after a write by reading it back immediately", |p, s| {
            p.data.verify_write = s.flag_bool()?;
            Ok(())
        }),
        flag('y', &["syncFile"], "sync file after writing", |p, s| {
            p.data.sync_file = s.flag_bool()?;
            Ok(())
        }),
        flag('Y', &["callSync"], "call the sync command after each phase (included in the timing; note it causes all IO to be flushed from your node)", |p, s| {
            p.data.call_sync = s.flag_bool()?;
            Ok(())
        }),
        value('z', &["depth"], "0", "depth of hierarchical directory structure", |p, s| {
            p.tree.depth = parse_non_negative(s.value())?;
            Ok(())
        }),
        flag('Z', &["printTime"], "print time instead of rate", |p, s| {
            p.output.print_time = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["dataPacketType"], "t", "type of packet that will be created [offset|incompressible|timestamp|random|o|i|t|r]", |p, s| {
            p.data.data_packet_type = PacketType::parse(s.value())?;
            Ok(())
        }),
        long_value(&["run-cmd-before-phase"], "", "call this external command before each phase (excluded from the timing)", |p, s| {
            p.phases.run_cmd_before_phase = Some(text(s, "command")?);
            Ok(())
        }),
        long_value(&["run-cmd-after-phase"], "", "call this external command after each phase (included in the timing)", |p, s| {
            p.phases.run_cmd_after_phase = Some(text(s, "command")?);
            Ok(())
        }),
        long_flag(&["warningAsErrors"], "Any warning should lead to an error.", |p, s| {
            p.output.warning_as_errors = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["recordLatency"], "1", "pario: record every operation's latency in a histogram (percentiles after the summary)", |p, s| {
            p.output.record_latency = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["latencyHistogramFile"], "", "pario: write the full merged latency histograms to this CSV file", |p, s| {
            p.output.latency_file = Some(s.value().to_string());
            Ok(())
        }),
        long_value(&["progress"], "1", "pario: show live progress of long phases on a terminal (0: never)", |p, s| {
            p.output.progress = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["saveRankPerformanceDetails"], "", "Save the individual rank information into this CSV file.", |p, s| {
            p.output.save_rank_details = Some(text(s, "file name")?);
            Ok(())
        }),
        long_value(&["savePerOpDataCSV"], "", "Store the performance of each rank into an individual file prefixed with this option (not supported)", |_, _| {
            Err("per-operation timing files are not built yet in this version of pario".into())
        }),
        long_flag(&["showRankStatistics"], "Include statistics per rank", |p, s| {
            p.output.show_rank_statistics = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["allocateBufferOnGPU"], "0", "Allocate I/O buffers on the GPU (not supported)", |_, s| {
            unsupported(s, "GPU buffers are not supported by pario")
        }),
        long_value(&["GPUid"], "-1", "Select the GPU to use (not supported)", |_, _| {
            Err("GPU buffers are not supported by pario".into())
        }),
        OptSpec {
            list: true,
            ..long_value(&["summaryFormat"], "default", "pario: also write the results as JSON or CSV [default|JSON|CSV], or both (JSON,CSV: one file each)", |p, s| {
                p.output.summary.set_formats(s.value())
            })
        },
        long_value(&["summaryFile"], "", "pario: write the JSON or CSV results to this file (default: stdout, and the text goes away)", |p, s| {
            p.output.summary.file = Some(text(s, "summary file name")?);
            Ok(())
        }),
        spec(Some('O'), &["directives"], ArgKind::Directives, "STRING", "pario: options by their long names (e.g. -O summaryFormat=JSON,summaryFile=r.json)", |_, _| Ok(())),
    ];
    specs.extend(module_specs(backend::all_module_options()));
    Grammar {
        tool: "mdtest",
        specs,
    }
}

/// Parses a whole command line. `Ok(None)` means `-h` was given.
pub fn parse(args: &[String]) -> Result<Option<(MdtestParams, Choice)>, UsageError> {
    let command_line = grammar().parse_command_line(args, MdtestParams::default())?;
    if command_line.help {
        return Ok(None);
    }
    let mut params = command_line.params;
    params.apply_default_phases();
    let backend = validate(&params)?;
    Ok(Some((params, backend)))
}

/// Rejects every value and combination that cannot run, before anything is
/// created. Checks that need the number of tasks are in [`validate_tasks`].
pub fn validate(p: &MdtestParams) -> Result<Choice, UsageError> {
    let err = |m: String| Err(UsageError(m));
    let backend = backend::configure(&p.api, &p.module_options).map_err(UsageError)?;
    if !backend.capabilities().metadata {
        return err(format!(
            "-a {}: mdtest runs on {} only, the APIs with the metadata calls it makes",
            p.api,
            registry::either(&registry::names_with(|c| c.metadata))
        ));
    }
    if p.stonewall.seconds > 0 && p.tree.branch_factor > 1 {
        return err(format!(
            "-W {}: the stonewall timer works only with a branching factor of 1 (-b {})",
            p.stonewall.seconds, p.tree.branch_factor
        ));
    }
    if p.stonewall.seconds > 0 && p.order.no_barriers {
        return err("-W (stonewall) needs barriers, so it cannot be combined with -B".into());
    }
    if p.stonewall.seconds > 0 && p.order.collective_creates {
        return err("-W (stonewall) cannot be combined with -c (task 0 creates every item)".into());
    }
    if p.order.no_barriers && p.order.nstride > 0 {
        return err(format!(
            "-B cannot be combined with -N {}: without barriers a task could stat or remove items before their creator has made them",
            p.order.nstride
        ));
    }
    if p.tree.shared_file && p.order.collective_creates {
        return err("-c cannot be combined with -S".into());
    }
    if p.dirs.len() > 1 && p.order.collective_creates {
        return err("-c cannot be combined with several test directories (-d a@b)".into());
    }
    if p.order.collective_creates && p.order.no_barriers {
        return err("-c cannot be combined with -B".into());
    }
    if p.tree.unique_dir && p.tree.shared_file {
        return err("-u cannot be combined with -S".into());
    }
    if p.tree.shared_file && p.phases.dirs_only && !p.phases.files_only {
        return err(
            "-S (one shared set of files) cannot be combined with -D (directories only)".into(),
        );
    }
    if p.dirs.len() > 1 && p.order.nstride > 0 {
        return err(format!(
            "-N {}: a stride between tasks cannot be combined with several test directories (-d a@b)",
            p.order.nstride
        ));
    }
    if p.dirs.len() > 1 && !p.tree.unique_dir {
        return err(format!(
            "-d {}: several test directories need -u (each task in its own tree)",
            p.dirs.join("@")
        ));
    }
    if p.tree.branch_factor < 1 && p.tree.depth > 0 {
        return err(format!(
            "-b 0: a tree of depth {} needs a branching factor of at least 1",
            p.tree.depth
        ));
    }
    if p.tree.items > 0 && p.tree.items_per_dir > 0 {
        if p.tree.unique_dir {
            return err("-n and -I cannot both be given with -u: give the number of items (-n) or the number of items per directory (-I)".into());
        }
        if p.tree.items % p.tree.items_per_dir != 0 {
            return err(format!(
                "-n {}: the number of items must be a multiple of the items per directory (-I {})",
                p.tree.items, p.tree.items_per_dir
            ));
        }
    }
    if p.data.write_bytes > 0 && p.phases.make_node {
        return err(format!(
            "-k (mknod) creates empty files, so it cannot be combined with -w {}",
            p.data.write_bytes
        ));
    }
    if p.phases.make_node && (p.order.collective_creates || p.tree.shared_file) {
        return err(format!(
            "-k (mknod) cannot be combined with {}: that file would be made twice",
            if p.order.collective_creates {
                "-c (task 0 creates every file first)"
            } else {
                "-S (every task creates the same files)"
            }
        ));
    }
    if p.data.verify_read && !p.phases.read {
        return err(
            "-X verifies the data read, so it needs the read phase (-E, or no phase option)".into(),
        );
    }
    if p.data.verify_read && p.data.read_bytes == 0 {
        return err("-X verifies the data read, so it needs -e (bytes to read) above 0".into());
    }
    if p.phases.create && p.phases.read && p.file_phases() && p.data.read_bytes > p.data.write_bytes
    {
        return err(format!(
            "-e {}: a run that writes and reads files cannot read more bytes than it writes (-w {})",
            p.data.read_bytes, p.data.write_bytes
        ));
    }
    if p.data.verify_write && p.data.write_bytes == 0 {
        return err("--verify-write reads back what -w wrote, so it needs -w above 0".into());
    }
    if p.data.verify_read && !p.phases.create && p.data.data_seed.is_none() {
        return err("-X without the create phase in this run needs -G: the data seed the files were written with".into());
    }
    if (p.data.verify_read || p.data.verify_write) && !backend.capabilities().stores_data {
        return err(format!(
            "-X/--verify-write verify data, but the {} backend stores none",
            backend.name()
        ));
    }
    if p.output.warning_as_errors && p.phases.read && p.data.read_bytes == 0 && p.file_phases() {
        return err(
            "Read bytes is 0, thus, a read test will actually just open/close (--warningAsErrors)"
                .into(),
        );
    }
    if let Some(align) = backend.alignment() {
        for (flag, size) in [("-w", p.data.write_bytes), ("-e", p.data.read_bytes)] {
            if size % align != 0 {
                return err(format!(
                    "{flag} {size}: O_DIRECT needs sizes that are multiples of {align} bytes"
                ));
            }
        }
    }
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
    if let Some(path) = p.output.summary.text_file() {
        return err(format!(
            "--summaryFile {path}: give --summaryFormat=JSON or CSV too"
        ));
    }
    p.output
        .summary
        .check()
        .map_err(|e| UsageError(format!("--summaryFormat: {e}")))?;
    Layout::check(p).map_err(UsageError)?;
    Ok(backend)
}

/// The checks that depend on the number of tasks (`size`).
pub fn validate_tasks(p: &MdtestParams, size: usize) -> Result<(), UsageError> {
    let err = |m: String| Err(UsageError(m));
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
    let tasks = sweep(p, size);
    if p.data.verify_read && p.tree.shared_file && tasks.iter().any(|&n| n > 1) {
        return err(
            "-X with -S: several tasks write the same files, so their contents cannot be verified"
                .into(),
        );
    }
    Ok(())
}

/// The task counts of the sweep (`-f`, `-l`, `-s`); one entry (all tasks)
/// without `-l`.
pub fn sweep(p: &MdtestParams, size: usize) -> Vec<usize> {
    match p.sweep.last {
        None => vec![size],
        Some(last) => {
            let first = p.sweep.first.unwrap_or(1);
            (first..=last.min(size)).step_by(p.sweep.stride).collect()
        }
    }
}

#[cfg(test)]
mod tests;
