//! IOR's options: one table for the command line, `-O` directives and `-f`
//! scripts, and the checks that reject bad combinations before any I/O.

use crate::backend::{self, registry};
use crate::error::UsageError;
use crate::memhog::NodeMemory;
use crate::options::{
    directive, flag, long_flag, long_value, module_specs, spec, unsupported, value, ArgKind,
    Grammar, OptSpec, Setting,
};
use crate::pattern::PacketType;
use crate::units::{
    parse_count, parse_int, parse_non_negative, parse_positive, parse_seconds, parse_size,
};

use super::params::{IorParams, Sweep};
use super::IorTest;

/// IOR 3's short flags for what IOR 4 made module options.
fn module_flag(p: &mut IorParams, key: &str, s: Setting<'_>) -> Result<(), String> {
    if s.flag_bool()? {
        p.module_options.insert(key.to_string(), "1".into());
    } else {
        p.module_options.remove(key);
    }
    Ok(())
}

const NOT_SUPPORTED: &str = "is not supported by pario";
const ARE_NOT_SUPPORTED: &str = "are not supported by pario";

/// The table of every IOR option.
pub fn grammar() -> Grammar<IorParams> {
    let mut specs: Vec<OptSpec<IorParams>> = vec![
        // Flags, in IOR's help order.
        flag('c', &["collective"], "collective -- collective I/O (-a MPIIO)", |p, s| {
            p.transfers.collective = s.flag_bool()?;
            Ok(())
        }),
        flag('C', &["reorderTasks", "reorderTasksConstant"], "reorderTasks -- changes task ordering for readback (useful to avoid client cache)", |p, s| {
            p.reorder.reorder_tasks = s.flag_bool()?;
            Ok(())
        }),
        flag('e', &["fsync"], "fsync -- perform a fsync() operation at the end of each read/write phase", |p, s| {
            p.transfers.fsync = s.flag_bool()?;
            Ok(())
        }),
        flag('E', &["useExistingTestFile"], "useExistingTestFile -- do not remove test file before write access", |p, s| {
            p.files.use_existing_test_file = s.flag_bool()?;
            Ok(())
        }),
        flag('F', &["filePerProc"], "filePerProc -- file-per-process", |p, s| {
            p.geometry.file_per_proc = s.flag_bool()?;
            Ok(())
        }),
        flag('g', &["intraTestBarriers"], "intraTestBarriers -- use barriers between open, write/read, and close", |p, s| {
            p.phases.intra_test_barriers = s.flag_bool()?;
            Ok(())
        }),
        flag('k', &["keepFile"], "keepFile -- don't remove the test file(s) on program exit", |p, s| {
            p.files.keep_file = s.flag_bool()?;
            Ok(())
        }),
        flag('K', &["keepFileWithError"], "keepFileWithError  -- keep error-filled file(s) after data-checking", |p, s| {
            p.files.keep_file_with_error = s.flag_bool()?;
            Ok(())
        }),
        flag('m', &["multiFile"], "multiFile -- use number of reps (-i) for multiple file count", |p, s| {
            p.files.multi_file = s.flag_bool()?;
            Ok(())
        }),
        flag('q', &["quitOnError"], "quitOnError -- during file error-checking, abort on error", |p, s| {
            p.verification.quit_on_error = s.flag_bool()?;
            Ok(())
        }),
        flag('r', &["readFile"], "readFile -- read existing file", |p, s| {
            p.phases.read_file = s.flag_bool()?;
            Ok(())
        }),
        flag('R', &["checkRead"], "checkRead -- verify that the output of read matches the expected signature (used with -G)", |p, s| {
            p.phases.check_read = s.flag_bool()?;
            Ok(())
        }),
        flag('u', &["uniqueDir"], "uniqueDir -- use unique directory name for each file-per-process", |p, s| {
            p.files.unique_dir = s.flag_bool()?;
            Ok(())
        }),
        flag('v', &["verbose"], "verbose -- output information (repeating flag increases level)", |p, s| {
            p.output.verbose = s.flag_count(p.output.verbose)?;
            Ok(())
        }),
        flag('w', &["writeFile"], "writeFile -- write file", |p, s| {
            p.phases.write_file = s.flag_bool()?;
            Ok(())
        }),
        flag('W', &["checkWrite"], "checkWrite -- check read after write", |p, s| {
            p.phases.check_write = s.flag_bool()?;
            Ok(())
        }),
        flag('x', &["singleXferAttempt"], "singleXferAttempt -- do not retry transfer if incomplete", |p, s| {
            p.transfers.single_xfer_attempt = s.flag_bool()?;
            Ok(())
        }),
        flag('y', &["dualMount"], "dualMount -- use dual mount points for a filesystem", |_, s| unsupported(s, &format!("dual mount points {ARE_NOT_SUPPORTED}"))),
        flag('Y', &["fsyncPerWrite"], "fsyncPerWrite -- perform sync operation after every write operation", |p, s| {
            p.transfers.fsync_per_write = s.flag_bool()?;
            Ok(())
        }),
        flag('z', &["randomOffset"], "randomOffset -- access is to random, not sequential, offsets within a file (-z -z: random offsets that may repeat)", |p, s| {
            p.geometry.random_offset = s.flag_count(p.geometry.random_offset)?;
            Ok(())
        }),
        flag('Z', &["reorderTasksRandom"], "reorderTasksRandom -- changes task ordering to random ordering for readback (-Z -Z: any random permutation)", |p, s| {
            p.reorder.reorder_tasks_random = s.flag_count(p.reorder.reorder_tasks_random)?;
            Ok(())
        }),
        flag('H', &["showHints"], "showHints -- show hints (same as --mpiio.showHints)", |p, s| module_flag(p, "mpiio.showHints", s)),
        flag('I', &["individualDataSets"], "individualDataSets -- datasets not shared by all procs [not working]", |_, s| {
            unsupported(s, &format!("individual data sets {ARE_NOT_SUPPORTED} (IOR does not implement them either)"))
        }),
        flag('n', &["noFill"], "noFill -- no fill in HDF5 file creation", |_, s| unsupported(s, &format!("HDF5 {NOT_SUPPORTED}"))),
        flag('p', &["preallocate"], "preallocate -- preallocate file size (same as --mpiio.preallocate)", |p, s| module_flag(p, "mpiio.preallocate", s)),
        flag('P', &["useSharedFilePointer"], "useSharedFilePointer -- use shared file pointer [not working]", |_, s| {
            unsupported(s, &format!("shared file pointers {ARE_NOT_SUPPORTED}"))
        }),
        flag('S', &["useStridedDatatype"], "useStridedDatatype -- put strided access into datatype [not working]", |_, s| {
            unsupported(s, &format!("strided datatypes {ARE_NOT_SUPPORTED}"))
        }),
        flag('V', &["useFileView"], "useFileView -- use MPI_File_set_view (same as --mpiio.useFileView)", |p, s| module_flag(p, "mpiio.useFileView", s)),
        flag('B', &["useO_DIRECT"], "useO_DIRECT -- same as --posix.odirect (IOR 3)", |p, s| module_flag(p, "posix.odirect", s)),
        long_flag(&["warningAsErrors"], "Any warning should lead to an error.", |p, s| {
            p.output.warning_as_errors = s.flag_bool()?;
            Ok(())
        }),
        long_flag(&["dryRun"], "do not perform any I/Os just run evtl. inputs print dummy output", |p, s| {
            p.transfers.dry_run = s.flag_bool()?;
            Ok(())
        }),
        long_flag(&["allocateBufferOnGPU"], "Allocate the buffer on the GPU.", |_, s| unsupported(s, &format!("GPU buffers {ARE_NOT_SUPPORTED}"))),
        // Options with values.
        value('a', &["api"], "POSIX", format!("API for I/O [{}]", registry::names_with(|_| true).join("|")), |p, s| {
            p.api = s.value().trim().to_string();
            Ok(())
        }),
        value('A', &["refNum"], "0", "refNum -- user supplied reference number to include in the summary", |p, s| {
            p.output.reference_number = parse_int(s.value())?;
            Ok(())
        }),
        value('b', &["blockSize"], "1048576", "blockSize -- contiguous bytes to write per task  (e.g.: 8, 4k, 2m, 1g)", |p, s| {
            p.geometry.block_size = parse_size(s.value())?;
            Ok(())
        }),
        value('d', &["interTestDelay"], "0", "interTestDelay -- delay between reps in seconds", |p, s| {
            p.phases.inter_test_delay = parse_seconds(s.value())?;
            Ok(())
        }),
        value('D', &["deadlineForStonewalling"], "0", "deadlineForStonewalling -- seconds before stopping write or read phase", |p, s| {
            p.stonewall.deadline = parse_non_negative(s.value())?;
            Ok(())
        }),
        directive(&["stoneWallingWearOut"], "1", "-- once the stonewalling timeout is over, all process finish to access the amount of data", |p, s| {
            p.stonewall.wear_out = s.flag_bool()?;
            Ok(())
        }),
        directive(&["stoneWallingWearOutIterations"], "N", "-- stop after processing this number of iterations, needed for reading data back written with stoneWallingWearOut", |p, s| {
            p.stonewall.wear_out_iterations = parse_non_negative(s.value())?;
            Ok(())
        }),
        directive(&["stoneWallingStatusFile"], "FILE", "-- this file keeps the number of iterations from stonewalling during write and allows to use them for read", |p, s| {
            if s.value().is_empty() {
                return Err("the file name is empty".into());
            }
            p.stonewall.status_file = Some(s.value().to_string());
            Ok(())
        }),
        directive(&["minTimeDuration"], "0", "-- minimum Runtime for the run (will repeat from beginning of the file if time is not yet over)", |p, s| {
            p.stonewall.min_time = parse_non_negative(s.value())?;
            Ok(())
        }),
        value('f', &["scriptFile"], "STRING", "scriptFile -- test script name", |p, s| {
            p.script = Some(s.value().to_string());
            Ok(())
        }),
        value('G', &["setTimeStampSignature"], "0", "setTimeStampSignature -- set value for time stamp signature/random seed", |p, s| {
            p.verification.time_stamp_signature = Some(parse_int(s.value())?);
            Ok(())
        }),
        value('i', &["repetitions"], "1", "repetitions -- number of repetitions of test", |p, s| {
            p.phases.repetitions = parse_positive(s.value())?;
            Ok(())
        }),
        value('j', &["outlierThreshold"], "0", "outlierThreshold -- warn on outlier N seconds from mean", |p, s| {
            p.measure.outlier_threshold = parse_non_negative(s.value())?;
            Ok(())
        }),
        value('J', &["setAlignment"], "1", "setAlignment -- HDF5 alignment in bytes (e.g.: 8, 4k, 2m, 1g)", |_, s| {
            parse_size(s.value())?;
            Err(format!("HDF5 alignment {NOT_SUPPORTED}"))
        }),
        value('l', &["dataPacketType"], "t", "datapacket type-- type of packet that will be created [offset|incompressible|timestamp|random|o|i|t|r]", |p, s| {
            p.verification.data_packet_type = PacketType::parse(s.value())?;
            Ok(())
        }),
        value('M', &["memoryPerNode"], "STRING", "memoryPerNode -- hog memory on the node  (e.g.: 2g, 75%)", |p, s| {
            p.memory.per_node = Some(NodeMemory::parse(s.value())?);
            p.memory.per_task = None;
            Ok(())
        }),
        value('N', &["numTasks"], "-1", "numTasks -- number of tasks that are participating in the test (overrides MPI)", |p, s| {
            let n = parse_int(s.value())?;
            p.geometry.num_tasks = match n {
                -1 => None,
                n if n >= 1 => Some(n as usize),
                _ => return Err("the number of tasks must be at least 1 (or -1 for all)".into()),
            };
            Ok(())
        }),
        value('o', &["testFile"], "testFile", "testFile -- full name for test", |p, s| {
            if s.value().is_empty() {
                return Err("the test file name is empty".into());
            }
            p.files.test_file_name = s.value().to_string();
            Ok(())
        }),
        spec(Some('O'), &["directives"], ArgKind::Directives, "STRING", "string of IOR directives (e.g. -O checkRead=1,GPUid=2)", |_, _| Ok(())),
        value('Q', &["taskPerNodeOffset"], "1", "taskPerNodeOffset for read tests use with -C & -Z options (-C constant N, -Z at least N)", |p, s| {
            p.reorder.task_per_node_offset = parse_positive(s.value())? as i64;
            Ok(())
        }),
        value('s', &["segmentCount"], "1", "segmentCount -- number of segments", |p, s| {
            p.geometry.segment_count = parse_count(s.value())?;
            Ok(())
        }),
        value('t', &["transferSize"], "262144", "transferSize -- size of transfer in bytes (e.g.: 8, 4k, 2m, 1g)", |p, s| {
            p.geometry.transfer_size = parse_size(s.value())?;
            Ok(())
        }),
        value('T', &["maxTimeDuration"], "0", "maxTimeDuration -- max time in minutes executing repeated test; it aborts only between iterations and not within a test!", |p, s| {
            p.phases.max_time_duration = parse_non_negative(s.value())?;
            Ok(())
        }),
        value('U', &["hintsFileName"], "STRING", "hintsFileName -- full name for hints file (same as --mpiio.hintsFileName)", |p, s| {
            p.module_options.insert("mpiio.hintsFileName".into(), s.value().to_string());
            Ok(())
        }),
        value('X', &["reorderTasksRandomSeed"], "0", "reorderTasksRandomSeed -- random seed for -Z option", |p, s| {
            p.reorder.reorder_tasks_random_seed = parse_int(s.value())?;
            Ok(())
        }),
        long_value(&["randomPrefill"], "0", "For random -z access only: Prefill the file with this blocksize, e.g., 2m", |p, s| {
            p.geometry.random_prefill = parse_size(s.value())?;
            Ok(())
        }),
        long_value(&["random-offset-seed", "randomOffsetSeed"], "-1", "The seed for -z", |p, s| {
            p.geometry.random_offset_seed = parse_int(s.value())?;
            Ok(())
        }),
        directive(&["summaryFile"], "FILE", "-- store result data into this file", |p, s| {
            p.output.summary.file = Some(s.value().to_string());
            Ok(())
        }),
        directive(&["summaryFormat"], "[default,JSON,CSV]", "-- use the format for outputting the summary (CSV: IOR's columns; pario-CSV: pario's fuller table; a list writes several)", |p: &mut IorParams, s| {
            p.output.summary.set_formats(s.value())
        }).listed(),
        directive(&["saveRankPerformanceDetailsCSV"], "<FILE>", "-- store the performance of each rank into the named CSV file.", |p, s| {
            p.output.save_rank_details_csv = Some(s.value().to_string());
            Ok(())
        }),
        directive(&["sweep"], "0", "-- run the test on N, N/2, ... 1 nodes ('nodes') or on each of a list of task counts (e.g. 8,4,2), then print a scaling table", |p: &mut IorParams, s| {
            p.geometry.sweep = Sweep::parse(s.value())?;
            Ok(())
        }).listed(),
        directive(&["memoryPerTask"], "0", "-- hog this much memory on each task (e.g.: 512m)", |p, s| {
            p.memory.per_task = Some(parse_size(s.value())?);
            p.memory.per_node = None;
            Ok(())
        }),
        directive(&["recordLatency"], "1", "-- record every transfer's latency in a histogram (percentiles after the Results table)", |p, s| {
            p.measure.record_latency = s.flag_bool()?;
            Ok(())
        }),
        directive(&["latencyHistogramFile"], "FILE", "-- write the full merged latency histograms to FILE (CSV)", |p, s| {
            p.output.latency_file = Some(s.value().to_string());
            Ok(())
        }),
        directive(&["cacheCheck"], "1", "-- measure how much of the data is in the page cache before each read (mincore)", |p, s| {
            p.measure.cache_check = s.flag_bool()?;
            Ok(())
        }),
        directive(&["evictBeforeRead"], "0", "-- sync and drop the test files from the page cache before each read (fadvise DONTNEED)", |p, s| {
            p.measure.evict_before_read = s.flag_bool()?;
            Ok(())
        }),
        long_value(&["progress"], "1", "show live progress of long phases on a terminal (0: never)", |p, s| {
            p.output.progress = s.flag_bool()?;
            Ok(())
        }),
        directive(&["platform"], "STRING", "-- a label for the platform, shown in the JSON parameters", |p, s| {
            p.output.platform = s.value().to_string();
            Ok(())
        }),
    ];
    for name in [
        "lustreStripeCount",
        "lustreStripeSize",
        "lustreStartOST",
        "lustreIgnoreLocks",
    ] {
        specs.push(directive(&[name], "", "-- Lustre striping (not supported: use 'lfs setstripe' on the directory)", |_, _| {
            Err(format!("Lustre striping {NOT_SUPPORTED}; set it with 'lfs setstripe' on the test directory"))
        }));
    }
    for name in [
        "gpfsHintAccess",
        "gpfsReleaseToken",
        "beegfsNumTargets",
        "beegfsChunkSize",
    ] {
        specs.push(directive(
            &[name],
            "",
            "-- file system specific hints (not supported)",
            |_, _| Err(format!("file system specific hints {ARE_NOT_SUPPORTED}")),
        ));
    }
    specs.extend(module_specs(backend::all_module_options()));
    Grammar { tool: "ior", specs }
}

/// Parses a whole command line into the tests to run (one unless `-f`).
/// `Ok(None)` means `-h` was given.
pub fn parse(args: &[String]) -> Result<Option<Vec<IorTest>>, UsageError> {
    let grammar = grammar();
    let command_line = grammar.parse_command_line(args, IorParams::default())?;
    if command_line.help {
        return Ok(None);
    }
    let defaults = command_line.params;
    let tests = match defaults.script.clone() {
        Some(path) => crate::options::script::read_script(&grammar, &path, &defaults)?,
        None => vec![defaults],
    };
    let mut checked = Vec::new();
    for (id, mut params) in tests.into_iter().enumerate() {
        params.apply_default_phases();
        let backend = validate(&params).map_err(|e| match id {
            0 => e,
            _ => UsageError(format!("test {id}: {}", e.0)),
        })?;
        checked.push(IorTest { params, backend });
    }
    Ok(Some(checked))
}

mod checks;
pub use checks::{check_tasks, validate};

#[cfg(test)]
mod tests;
