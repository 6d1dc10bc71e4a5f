//! mdtest's options: one table for the command line and `-O` directives, and
//! the checks that reject bad values and combinations before anything is
//! created.

use crate::backend::{self, registry, Choice};
use crate::error::UsageError;
use crate::options::{
    flag, long_flag, long_value, module_specs, spec, unsupported, value, ArgKind, Grammar, OptSpec,
    Setting,
};
use crate::pattern::PacketType;
use crate::units::{parse_count, parse_int, parse_non_negative, parse_positive, parse_size};

use super::params::MdtestParams;

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
        long_value(&["summaryFormat"], "default", "pario: also write the results as JSON or CSV [default|JSON|CSV|pario-CSV], or several (JSON,CSV: one file each)", |p: &mut MdtestParams, s| {
                p.output.summary.set_formats(s.value())
            })
        .listed(),
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

mod checks;
pub use checks::{validate, validate_tasks};

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
