//! IOR's options: one table for the command line, `-O` directives and `-f`
//! scripts, and the checks that reject bad combinations before any I/O.

use crate::backend::{self, registry};
use crate::error::UsageError;
use crate::memhog::NodeMemory;
use crate::options::{
    count, directive, flag, listed, long_flag, long_value, module_specs, on, on_value, parsed, set,
    shown, some, some_text, spec, text, unsupported, value, ArgKind, Field, Grammar, OptSpec,
};
use crate::output::Summary;
use crate::pattern::PacketType;
use crate::units::{
    parse_count, parse_int, parse_non_negative, parse_positive, parse_seconds, parse_size,
};

use super::draws::{Distribution, Mix, SizeSplit};
use super::params::{IorParams, Sweep};
use super::IorTest;

/// IOR 3's short flags for what IOR 4 made module options (`-B` is
/// `--posix.odirect`).
fn module_flag(key: &'static str) -> Field<IorParams> {
    Field::boxed(move |p: &mut IorParams, s| {
        if s.flag_bool()? {
            p.module_options.insert(key.to_string(), "1".into());
        } else {
            p.module_options.remove(key);
        }
        Ok(())
    })
}

/// An IOR option pario refuses when it is switched on (see `unsupported`).
fn refused(why: &'static str) -> Field<IorParams> {
    Field::boxed(move |_: &mut IorParams, s| unsupported(s, why))
}

/// The table of every IOR option.
pub fn grammar() -> Grammar<IorParams> {
    let mut specs: Vec<OptSpec<IorParams>> = vec![
        // Flags, in IOR's help order.
        flag('c', &["collective"], "collective -- collective I/O (-a MPIIO)", on(|p| &mut p.transfers.collective)),
        flag('C', &["reorderTasks", "reorderTasksConstant"], "reorderTasks -- changes task ordering for readback (useful to avoid client cache)", on(|p| &mut p.reorder.reorder_tasks)),
        flag('e', &["fsync"], "fsync -- perform a fsync() operation at the end of each read/write phase", on(|p| &mut p.transfers.fsync)),
        flag('E', &["useExistingTestFile"], "useExistingTestFile -- do not remove test file before write access", on(|p| &mut p.files.use_existing_test_file)),
        flag('F', &["filePerProc"], "filePerProc -- file-per-process", on(|p| &mut p.geometry.file_per_proc)),
        flag('g', &["intraTestBarriers"], "intraTestBarriers -- use barriers between open, write/read, and close", on(|p| &mut p.phases.intra_test_barriers)),
        flag('k', &["keepFile"], "keepFile -- don't remove the test file(s) on program exit", on(|p| &mut p.files.keep_file)),
        flag('K', &["keepFileWithError"], "keepFileWithError  -- keep error-filled file(s) after data-checking", on(|p| &mut p.files.keep_file_with_error)),
        flag('m', &["multiFile"], "multiFile -- use number of reps (-i) for multiple file count", on(|p| &mut p.files.multi_file)),
        flag('q', &["quitOnError"], "quitOnError -- during file error-checking, abort on error", on(|p| &mut p.verification.quit_on_error)),
        flag('r', &["readFile"], "readFile -- read existing file", on(|p| &mut p.phases.read_file)),
        flag('R', &["checkRead"], "checkRead -- verify that the output of read matches the expected signature (used with -G)", on(|p| &mut p.phases.check_read)),
        flag('u', &["uniqueDir"], "uniqueDir -- use unique directory name for each file-per-process", on(|p| &mut p.files.unique_dir)),
        flag('v', &["verbose"], "verbose -- output information (repeating flag increases level)", count(|p| &mut p.output.verbose)),
        flag('w', &["writeFile"], "writeFile -- write file", on(|p| &mut p.phases.write_file)),
        flag('W', &["checkWrite"], "checkWrite -- check read after write", on(|p| &mut p.phases.check_write)),
        flag('x', &["singleXferAttempt"], "singleXferAttempt -- do not retry transfer if incomplete", on(|p| &mut p.transfers.single_xfer_attempt)),
        flag('y', &["dualMount"], "dualMount -- use dual mount points for a filesystem", refused("dual mount points are not supported by pario")),
        flag('Y', &["fsyncPerWrite"], "fsyncPerWrite -- perform sync operation after every write operation", on(|p| &mut p.transfers.fsync_per_write)),
        flag('z', &["randomOffset"], "randomOffset -- access is to random, not sequential, offsets within a file (-z -z: random offsets that may repeat)", count(|p| &mut p.geometry.random_offset)),
        flag('Z', &["reorderTasksRandom"], "reorderTasksRandom -- changes task ordering to random ordering for readback (-Z -Z: any random permutation)", count(|p| &mut p.reorder.reorder_tasks_random)),
        flag('H', &["showHints"], "showHints -- show hints (same as --mpiio.showHints)", module_flag("mpiio.showHints")),
        flag('I', &["individualDataSets"], "individualDataSets -- datasets not shared by all procs [not working]", refused("individual data sets are not supported by pario (IOR does not implement them either)")),
        flag('n', &["noFill"], "noFill -- no fill in HDF5 file creation (same as --hdf5.noFill)", module_flag("hdf5.noFill")),
        flag('p', &["preallocate"], "preallocate -- preallocate file size (same as --mpiio.preallocate)", module_flag("mpiio.preallocate")),
        flag('P', &["useSharedFilePointer"], "useSharedFilePointer -- use shared file pointer [not working]", refused("shared file pointers are not supported by pario")),
        flag('S', &["useStridedDatatype"], "useStridedDatatype -- put strided access into datatype [not working]", refused("strided datatypes are not supported by pario")),
        flag('V', &["useFileView"], "useFileView -- use MPI_File_set_view (same as --mpiio.useFileView)", module_flag("mpiio.useFileView")),
        flag('B', &["useO_DIRECT"], "useO_DIRECT -- same as --posix.odirect (IOR 3)", module_flag("posix.odirect")),
        long_flag(&["warningAsErrors"], "Any warning should lead to an error.", on(|p| &mut p.output.warning_as_errors)),
        long_flag(&["dryRun"], "do not perform any I/Os just run evtl. inputs print dummy output", on(|p| &mut p.transfers.dry_run)),
        long_flag(&["allocateBufferOnGPU"], "Allocate the buffer on the GPU.", refused("GPU buffers are not supported by pario")),
        // Options with values.
        value('a', &["api"], format!("API for I/O [{}]", registry::api_list(|_| true)), text(|p| &mut p.api, "API name")),
        value('A', &["refNum"], "refNum -- user supplied reference number to include in the summary", parsed(|p| &mut p.output.reference_number, parse_int)),
        value('b', &["blockSize"], "blockSize -- contiguous bytes to write per task  (e.g.: 8, 4k, 2m, 1g)", parsed(|p| &mut p.geometry.block_size, parse_size)),
        value('d', &["interTestDelay"], "interTestDelay -- delay between reps in seconds", parsed(|p| &mut p.phases.inter_test_delay, parse_seconds)),
        value('D', &["deadlineForStonewalling"], "deadlineForStonewalling -- seconds before stopping write or read phase", parsed(|p| &mut p.stonewall.deadline, parse_non_negative)),
        directive(&["stoneWallingWearOut"], "-- once the stonewalling timeout is over, all process finish to access the amount of data", shown("1", on(|p| &mut p.stonewall.wear_out))),
        directive(&["stoneWallingWearOutIterations"], "-- stop after processing this number of iterations, needed for reading data back written with stoneWallingWearOut", shown("N", parsed(|p| &mut p.stonewall.wear_out_iterations, parse_non_negative))),
        directive(&["stoneWallingStatusFile"], "-- this file keeps the number of iterations from stonewalling during write and allows to use them for read", shown("FILE", some_text(|p| &mut p.stonewall.status_file, "file name"))),
        directive(&["minTimeDuration"], "-- minimum Runtime for the run (will repeat from beginning of the file if time is not yet over)", parsed(|p| &mut p.stonewall.min_time, parse_non_negative)),
        value('f', &["scriptFile"], "scriptFile -- test script name", shown("STRING", some_text(|p| &mut p.script, "script name"))),
        value('G', &["setTimeStampSignature"], "setTimeStampSignature -- set value for time stamp signature/random seed", shown("0", some(|p| &mut p.verification.time_stamp_signature, parse_int))),
        value('i', &["repetitions"], "repetitions -- number of repetitions of test", parsed(|p| &mut p.phases.repetitions, parse_positive)),
        value('j', &["outlierThreshold"], "outlierThreshold -- warn on outlier N seconds from mean", parsed(|p| &mut p.measure.outlier_threshold, parse_non_negative)),
        value('J', &["setAlignment"], "setAlignment -- HDF5 alignment in bytes (e.g.: 8, 4k, 2m, 1g) (same as --hdf5.setAlignment)", shown("1", set(|p, s| {
            parse_size(s.value())?;
            p.module_options.insert("hdf5.setAlignment".into(), s.value().to_string());
            Ok(())
        }))),
        value('l', &["dataPacketType"], "datapacket type-- type of packet that will be created [offset|incompressible|timestamp|random|o|i|t|r]", parsed(|p| &mut p.verification.data_packet_type, PacketType::parse)),
        value('M', &["memoryPerNode"], "memoryPerNode -- hog memory on the node  (e.g.: 2g, 75%)", shown("STRING", set(|p, s| {
            p.memory.per_node = Some(NodeMemory::parse(s.value())?);
            p.memory.per_task = None;
            Ok(())
        }))),
        value('N', &["numTasks"], "numTasks -- number of tasks that are participating in the test (overrides MPI)", shown("-1", set(|p, s| {
            p.geometry.num_tasks = match parse_int(s.value())? {
                -1 => None,
                n if n >= 1 => Some(n as usize),
                _ => return Err("the number of tasks must be at least 1 (or -1 for all)".into()),
            };
            Ok(())
        }))),
        value('o', &["testFile"], "testFile -- full name for test", text(|p| &mut p.files.test_file_name, "test file name")),
        spec(Some('O'), &["directives"], ArgKind::Directives, "string of IOR directives (e.g. -O checkRead=1,GPUid=2)", shown("STRING", set(|_, _| Ok(())))),
        value('Q', &["taskPerNodeOffset"], "taskPerNodeOffset for read tests use with -C & -Z options (-C constant N, -Z at least N)", parsed(|p| &mut p.reorder.task_per_node_offset, |v| Ok(parse_positive(v)? as i64))),
        value('s', &["segmentCount"], "segmentCount -- number of segments", parsed(|p| &mut p.geometry.segment_count, parse_count)),
        value('t', &["transferSize"], "transferSize -- size of transfer in bytes (e.g.: 8, 4k, 2m, 1g)", parsed(|p| &mut p.geometry.transfer_size, parse_size)),
        value('T', &["maxTimeDuration"], "maxTimeDuration -- max time in minutes executing repeated test; it aborts only between iterations and not within a test!", parsed(|p| &mut p.phases.max_time_duration, parse_non_negative)),
        value('U', &["hintsFileName"], "hintsFileName -- full name for hints file (same as --mpiio.hintsFileName)", shown("STRING", set(|p, s| {
            p.module_options.insert("mpiio.hintsFileName".into(), s.value().to_string());
            Ok(())
        }))),
        value('X', &["reorderTasksRandomSeed"], "reorderTasksRandomSeed -- random seed for -Z option", parsed(|p| &mut p.reorder.reorder_tasks_random_seed, parse_int)),
        long_value(&["randomPrefill"], "For random -z access only: Prefill the file with this blocksize, e.g., 2m", parsed(|p| &mut p.geometry.random_prefill, parse_size)),
        long_value(&["random-offset-seed", "randomOffsetSeed"], "The seed for -z", parsed(|p| &mut p.geometry.random_offset_seed, parse_int)),
    ];
    specs.extend(Summary::options(
        |p: &mut IorParams| &mut p.output.summary,
        true,
    ));
    specs.extend(pario_directives());
    specs.extend(unsupported_hints());
    specs.extend(module_specs(backend::all_module_options()));
    Grammar::new("ior", specs)
}

/// pario's own directives: measurement, sweeps, mixed access, labels.
fn pario_directives() -> Vec<OptSpec<IorParams>> {
    vec![
        directive(&["saveRankPerformanceDetailsCSV"], "-- store the performance of each rank into the named CSV file.", shown("<FILE>", some_text(|p| &mut p.output.save_rank_details_csv, "file name"))),
        listed(directive(&["sweep"], "-- run the test on N, N/2, ... 1 nodes ('nodes') or on each of a list of task counts (e.g. 8,4,2), then print a scaling table", shown("0", set(|p, s| {
            p.geometry.sweep = Sweep::parse(s.value())?;
            Ok(())
        })))),
        directive(&["memoryPerTask"], "-- hog this much memory on each task (e.g.: 512m)", shown("0", set(|p, s| {
            p.memory.per_task = Some(parse_size(s.value())?);
            p.memory.per_node = None;
            Ok(())
        }))),
        directive(&["recordLatency"], "-- record every transfer's latency in a histogram (percentiles after the Results table)", on_value(|p| &mut p.measure.record_latency)),
        directive(&["latencyHistogramFile"], "-- write the full merged latency histograms to FILE (CSV)", shown("FILE", some_text(|p| &mut p.output.latency_file, "file name"))),
        directive(&["cacheCheck"], "-- measure how much of the data is in the page cache before each read (mincore)", on_value(|p| &mut p.measure.cache_check)),
        directive(&["evictBeforeRead"], "-- sync and drop the test files from the page cache before each read (fadvise DONTNEED)", on_value(|p| &mut p.measure.evict_before_read)),
        long_value(&["progress"], "show live progress of long phases on a terminal (0: never)", on_value(|p| &mut p.output.progress)),
        directive(&["rwmixRead"], "-- mixed access: this percentage of the write phase's operations read (fio's rwmixread; counts operations, not bytes)", shown("PCT", set(|p, s| {
            p.mix.read_pct = Some(Mix::parse_read_pct(s.value())?);
            Ok(())
        }))),
        directive(&["randomDistribution"], "-- draw offsets from uniform, zipf:THETA, pareto:H or normal:PCT (fio's random_distribution; seeded by --random-offset-seed)", shown("DIST", set(|p, s| {
            p.mix.distribution = Some(Distribution::parse(s.value())?);
            Ok(())
        }))),
        directive(&["transferSizeSplit"], "-- draw transfer sizes by weight, e.g. 4k/50:64k/30:1m/20 (fio's bssplit; multiples of -t)", shown("SPLIT", set(|p, s| {
            p.mix.split = Some(SizeSplit::parse(s.value())?);
            Ok(())
        }))),
        directive(&["platform"], "-- a label for the platform, shown in the JSON parameters", shown("STRING", set(|p, s| {
            p.output.platform = s.value().to_string();
            Ok(())
        }))),
    ]
}

/// File system hints IOR takes and pario refuses (one line each).
fn unsupported_hints() -> Vec<OptSpec<IorParams>> {
    let mut hints = Vec::new();
    for name in [
        "lustreStripeCount",
        "lustreStripeSize",
        "lustreStartOST",
        "lustreIgnoreLocks",
    ] {
        hints.push(directive(&[name], "-- Lustre striping (not supported: use 'lfs setstripe' on the directory)", set(|_, _| {
            Err("Lustre striping is not supported by pario; set it with 'lfs setstripe' on the test directory".into())
        })));
    }
    for name in [
        "gpfsHintAccess",
        "gpfsReleaseToken",
        "beegfsNumTargets",
        "beegfsChunkSize",
    ] {
        hints.push(directive(
            &[name],
            "-- file system specific hints (not supported)",
            set(|_, _| Err("file system specific hints are not supported by pario".into())),
        ));
    }
    hints
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
