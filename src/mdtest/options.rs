//! mdtest's options: one table for the command line and `-O` directives, and
//! the checks that reject bad values and combinations before anything is
//! created.

use crate::backend::{self, registry, Choice};
use crate::error::UsageError;
use crate::options::{
    count, flag, long_flag, long_value, module_specs, on, on_value, parsed, set, shown, some,
    some_text, spec, text, unsupported, value, ArgKind, Grammar, OptSpec,
};
use crate::output::Summary;
use crate::pattern::PacketType;
use crate::units::{parse_count, parse_int, parse_non_negative, parse_positive, parse_size};

use super::params::MdtestParams;

/// The table of every mdtest option, in mdtest's help order.
pub fn grammar() -> Grammar<MdtestParams> {
    let mut specs: Vec<OptSpec<MdtestParams>> = vec![
        value('a', &["api"], format!("API for I/O [{}]", registry::api_list(|c| c.metadata)), text(|p| &mut p.api, "API name")),
        value('b', &["branchingFactor"], "branching factor of hierarchical directory structure", parsed(|p| &mut p.tree.branch_factor, parse_non_negative)),
        value('d', &["directory"], "directory or multiple directories where the test will run [dir|dir1@dir2@dir3...]", shown("./out", set(|p, s| {
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
        }))),
        flag('B', &["noBarriers"], "no barriers between phases", on(|p| &mut p.order.no_barriers)),
        flag('C', &["createOnly"], "only create files/dirs", on(|p| &mut p.phases.create)),
        flag('T', &["statOnly"], "only stat files/dirs", on(|p| &mut p.phases.stat)),
        flag('E', &["readOnly"], "only read files/dir", on(|p| &mut p.phases.read)),
        flag('r', &["removeOnly"], "only remove files or directories left behind by previous runs", on(|p| &mut p.phases.remove)),
        flag('U', &["renameDirs"], "enable rename directory phase", on(|p| &mut p.phases.rename)),
        flag('D', &["dirsOnly"], "perform test on directories only (no files)", on(|p| &mut p.phases.dirs_only)),
        value('e', &["readBytes"], "bytes to read from each file", parsed(|p| &mut p.data.read_bytes, parse_size)),
        value('f', &["first"], "first number of tasks on which the test will run", shown("1", some(|p| &mut p.sweep.first, positive))),
        flag('F', &["filesOnly"], "perform test on files only (no directories)", on(|p| &mut p.phases.files_only)),
        flag('g', &["globalDirLayout"], "global default directory layout for test subdirectories (Lustre; not supported)", set(|_, s| {
            unsupported(s, "Lustre directory layouts are not supported by pario (set them with 'lfs setdirstripe')")
        })),
        value('G', &["dataSeed"], "Offset for the data in the read/write buffer, if not set, a random value is used", shown("time", some(|p| &mut p.data.data_seed, parse_int))),
        value('i', &["iterations"], "number of iterations the test will run", parsed(|p| &mut p.phases.iterations, parse_positive)),
        value('I', &["itemsPerDir"], "number of items per directory in tree", parsed(|p| &mut p.tree.items_per_dir, parse_count)),
        flag('k', &["makeNode"], "use mknod to create file", on(|p| &mut p.phases.make_node)),
        value('l', &["last"], "last number of tasks on which the test will run", shown("0", some(|p| &mut p.sweep.last, positive))),
        flag('L', &["leafOnly"], "files only at leaf level of tree", on(|p| &mut p.tree.leaf_only)),
        value('n', &["items"], "every process will creat/stat/read/remove # directories and files", parsed(|p| &mut p.tree.items, parse_count)),
        value('N', &["neighborStride"], "stride # between tasks for file/dir operation (local=0; set to 1 to avoid client cache)", parsed(|p| &mut p.order.nstride, |v| Ok(parse_non_negative(v)? as usize))),
        value('p', &["preDelay"], "pre-iteration delay (in seconds)", parsed(|p| &mut p.phases.pre_delay, parse_non_negative)),
        flag('P', &["printRateAndTime"], "print rate AND time", on(|p| &mut p.output.print_rate_and_time)),
        long_flag(&["print-all-procs"], "all processes print an excerpt of their results", on(|p| &mut p.output.print_all_procs)),
        flag('R', &["randomize"], "random access to files (only for stat)", on(|p| &mut p.order.randomize)),
        long_value(&["random-seed", "randomSeed"], "random seed for -R", parsed(|p| &mut p.order.random_seed, |v| {
            let seed = parse_int(v)?;
            if !(0..=i64::from(i32::MAX)).contains(&seed) {
                return Err("the seed must be between 0 and 2147483647".into());
            }
            Ok(seed)
        })),
        value('s', &["stride"], "stride between the number of tasks for each test", parsed(|p| &mut p.sweep.stride, positive)),
        flag('S', &["sharedFile"], "shared file access (file only, no directories)", on(|p| &mut p.tree.shared_file)),
        flag('c', &["collectiveCreates"], "collective creates: task 0 does all creates", on(|p| &mut p.order.collective_creates)),
        flag('t', &["timeUniqueDirOverhead"], "time unique working directory overhead", on(|p| &mut p.order.time_unique_dir_overhead)),
        flag('u', &["uniqueDir"], "unique working directory for each task", on(|p| &mut p.tree.unique_dir)),
        flag('v', &["verbose"], "verbosity (each instance of option increments by one)", count(|p| &mut p.output.verbose)),
        value('V', &["verbosity"], "verbosity value", parsed(|p| &mut p.output.verbose, |v| {
            u32::try_from(parse_non_negative(v)?).map_err(|_| "too large".to_string())
        })),
        value('w', &["writeBytes"], "bytes to write to each file after it is created", parsed(|p| &mut p.data.write_bytes, parse_size)),
        value('W', &["stonewallTimer"], "number in seconds; stonewall timer, write as many seconds and ensure all processes did the same number of operations (currently only stops during create phase and files)", parsed(|p| &mut p.stonewall.seconds, parse_non_negative)),
        value('x', &["stoneWallingStatusFile"], "StoneWallingStatusFile; contains the number of iterations of the creation phase, can be used to split phases across runs", shown("STRING", some_text(|p| &mut p.stonewall.file, "stonewall status file name"))),
        flag('X', &["verify-read", "verifyRead"], "Verify the data read", on(|p| &mut p.data.verify_read)),
        long_flag(&["verify-write", "verifyWrite"], "Verify the data after a write by reading it back immediately", on(|p| &mut p.data.verify_write)),
        flag('y', &["syncFile"], "sync file after writing", on(|p| &mut p.data.sync_file)),
        flag('Y', &["callSync"], "call the sync command after each phase (included in the timing; note it causes all IO to be flushed from your node)", on(|p| &mut p.data.call_sync)),
        value('z', &["depth"], "depth of hierarchical directory structure", parsed(|p| &mut p.tree.depth, parse_non_negative)),
        flag('Z', &["printTime"], "print time instead of rate", on(|p| &mut p.output.print_time)),
        long_value(&["dataPacketType"], "type of packet that will be created [offset|incompressible|timestamp|random|o|i|t|r]", parsed(|p| &mut p.data.data_packet_type, PacketType::parse)),
        long_value(&["run-cmd-before-phase"], "call this external command before each phase (excluded from the timing)", some_text(|p| &mut p.phases.run_cmd_before_phase, "command")),
        long_value(&["run-cmd-after-phase"], "call this external command after each phase (included in the timing)", some_text(|p| &mut p.phases.run_cmd_after_phase, "command")),
        long_flag(&["warningAsErrors"], "Any warning should lead to an error.", on(|p| &mut p.output.warning_as_errors)),
        long_value(&["recordLatency"], "pario: record every operation's latency in a histogram (percentiles after the summary)", on_value(|p| &mut p.output.record_latency)),
        long_value(&["latencyHistogramFile"], "pario: write the full merged latency histograms to this CSV file", some_text(|p| &mut p.output.latency_file, "file name")),
        long_value(&["progress"], "pario: show live progress of long phases on a terminal (0: never)", on_value(|p| &mut p.output.progress)),
        long_value(&["saveRankPerformanceDetails"], "Save the individual rank information into this CSV file.", some_text(|p| &mut p.output.save_rank_details, "file name")),
        long_value(&["savePerOpDataCSV"], "Store the performance of each rank into an individual file prefixed with this option (not supported)", set(|_, _| {
            Err("per-operation timing files are not built yet in this version of pario".into())
        })),
        long_flag(&["showRankStatistics"], "Include statistics per rank", on(|p| &mut p.output.show_rank_statistics)),
        long_value(&["allocateBufferOnGPU"], "Allocate I/O buffers on the GPU (not supported)", shown("0", set(|_, s| unsupported(s, "GPU buffers are not supported by pario")))),
        long_value(&["GPUid"], "Select the GPU to use (not supported)", shown("-1", set(|_, _| Err("GPU buffers are not supported by pario".into())))),
    ];
    specs.extend(Summary::options(
        |p: &mut MdtestParams| &mut p.output.summary,
        false,
    ));
    specs.push(spec(
        Some('O'),
        &["directives"],
        ArgKind::Directives,
        "pario: options by their long names (e.g. -O summaryFormat=JSON,summaryFile=r.json)",
        shown("STRING", set(|_, _| Ok(()))),
    ));
    specs.extend(module_specs(backend::all_module_options()));
    Grammar::new("mdtest", specs)
}

/// A task count of at least 1.
fn positive(v: &str) -> Result<usize, String> {
    Ok(parse_positive(v)? as usize)
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
