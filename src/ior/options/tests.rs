use super::*;
use crate::ior::params::IorParams;
use crate::output::Format;

fn args(line: &str) -> Vec<String> {
    line.split_whitespace().map(str::to_string).collect()
}

fn one_test(line: &str) -> IorTest {
    let mut tests = parse(&args(line))
        .unwrap_or_else(|e| panic!("{line}: {e}"))
        .expect("not help");
    assert_eq!(tests.len(), 1);
    tests.remove(0)
}

fn one(line: &str) -> IorParams {
    one_test(line).params
}

fn help() -> String {
    grammar().help_text()
}

/// A module option's value as a flag, as the backend reads it.
trait ModuleFlag {
    fn module_flag(&self, key: &str) -> bool;
}

impl ModuleFlag for IorParams {
    fn module_flag(&self, key: &str) -> bool {
        self.module_options
            .get(key)
            .and_then(|v| v.parse::<i64>().ok())
            .is_some_and(|v| v != 0)
    }
}

fn error(line: &str) -> String {
    match parse(&args(line)) {
        Err(e) => e.0,
        Ok(t) => panic!("{line} was accepted: {:?}", t.map(|t| t.len())),
    }
}

#[test]
fn defaults_are_iors() {
    let p = one("");
    assert_eq!(p.api, "POSIX");
    assert_eq!(p.geometry.transfer_size, 262144);
    assert_eq!(p.geometry.block_size, 1 << 20);
    assert_eq!(p.geometry.segment_count, 1);
    assert_eq!(p.phases.repetitions, 1);
    assert_eq!(p.files.test_file_name, "testFile");
    assert!(
        p.phases.write_file && p.phases.read_file,
        "no phase given: write and read"
    );
    assert_eq!(p.geometry.num_tasks, None);
    assert_eq!(p.reorder.task_per_node_offset, 1);
    assert_eq!(p.geometry.random_offset_seed, -1);
}

#[test]
fn every_flag_sets_its_field() {
    let p = one("-C -e -E -F -g -k -K -m -r -R -G 5 -u -v -v -w -W -x -Y -z -q");
    assert!(
        p.reorder.reorder_tasks
            && p.transfers.fsync
            && p.files.use_existing_test_file
            && p.geometry.file_per_proc
    );
    assert!(
        p.phases.intra_test_barriers
            && p.files.keep_file
            && p.files.keep_file_with_error
            && p.files.multi_file
    );
    assert!(
        p.phases.read_file
            && p.phases.check_read
            && p.files.unique_dir
            && p.phases.write_file
            && p.phases.check_write
    );
    assert!(
        p.transfers.single_xfer_attempt
            && p.transfers.fsync_per_write
            && p.verification.quit_on_error
    );
    assert_eq!(p.output.verbose, 2);
    assert_eq!(p.geometry.random_offset, 1);
    assert_eq!(p.verification.time_stamp_signature, Some(5));
    let grouped = one("-wrkeFC");
    assert!(
        grouped.phases.write_file
            && grouped.phases.read_file
            && grouped.files.keep_file
            && grouped.transfers.fsync
            && grouped.geometry.file_per_proc
            && grouped.reorder.reorder_tasks
    );
}

#[test]
fn only_the_phases_given_run() {
    let p = one("-w");
    assert!(p.phases.write_file && !p.phases.read_file);
    let p = one("-r");
    assert!(!p.phases.write_file && p.phases.read_file);
    let p = one("-r -R -G 7");
    assert!(p.reads() && !p.phases.write_file);
}

#[test]
fn every_value_option() {
    let p = one("-a DUMMY -A 42 -b 16m -d 0 -G -3 -i 3 -l o -N 4 -o /tmp/f -Q 2 -s 16 -t 1m -T 5 -X 9 --randomPrefill=0 --random-offset-seed=11");
    assert_eq!(p.api, "DUMMY");
    assert_eq!(p.output.reference_number, 42);
    assert_eq!(p.geometry.block_size, 16 << 20);
    assert_eq!(p.verification.time_stamp_signature, Some(-3));
    assert_eq!(p.phases.repetitions, 3);
    assert_eq!(
        p.verification.data_packet_type,
        crate::pattern::PacketType::Offset
    );
    assert_eq!(p.geometry.num_tasks, Some(4));
    assert_eq!(p.files.test_file_name, "/tmp/f");
    assert_eq!(p.reorder.task_per_node_offset, 2);
    assert_eq!(p.geometry.segment_count, 16);
    assert_eq!(p.geometry.transfer_size, 1 << 20);
    assert_eq!(p.phases.max_time_duration, 5);
    assert_eq!(p.reorder.reorder_tasks_random_seed, 9);
    assert_eq!(p.geometry.random_offset_seed, 11);
    assert_eq!(one("-N -1").geometry.num_tasks, None);
    assert_eq!(
        one("--dataPacketType=random").verification.data_packet_type,
        crate::pattern::PacketType::Random
    );
    assert_eq!(
        one("-l incompressible").verification.data_packet_type,
        crate::pattern::PacketType::Incompressible
    );
}

#[test]
fn attached_and_equals_values() {
    let p = one("-b16m -t=1m -s=4 -i2");
    assert_eq!(
        (
            p.geometry.block_size,
            p.geometry.transfer_size,
            p.geometry.segment_count,
            p.phases.repetitions
        ),
        (16 << 20, 1 << 20, 4, 2)
    );
    let p = one("-t 47008 -b 47008 -s 1k");
    assert_eq!(
        (
            p.geometry.transfer_size,
            p.geometry.block_size,
            p.geometry.segment_count
        ),
        (47008, 47008, 1024)
    );
}

#[test]
fn repeated_flags_count() {
    assert_eq!(one("-z -z").geometry.random_offset, 2);
    assert_eq!(one("-zz").geometry.random_offset, 2);
    assert_eq!(one("-vvv").output.verbose, 3);
}

#[test]
fn directives_by_long_name() {
    let p = one("-O blockSize=8m,transferSize=2m,filePerProc=1,FSYNC=1 -O segmentcount=3");
    assert_eq!(
        (
            p.geometry.block_size,
            p.geometry.transfer_size,
            p.geometry.segment_count
        ),
        (8 << 20, 2 << 20, 3)
    );
    assert!(p.geometry.file_per_proc && p.transfers.fsync);
    let p = one("-O summaryFormat=JSON,summaryFile=/tmp/s.json");
    assert_eq!(p.output.summary.formats, [Format::Json]);
    assert_eq!(p.output.summary.file.as_deref(), Some("/tmp/s.json"));
    assert_eq!(
        one("-O summaryFormat=csv").output.summary.formats,
        [Format::Csv]
    );
    // A list: the items without '=' continue the value of summaryFormat.
    let p = one("-O summaryFormat=JSON,CSV,summaryFile=run");
    assert_eq!(p.output.summary.formats, [Format::Json, Format::Csv]);
    assert_eq!(one("-O numTasks=3").geometry.num_tasks, Some(3));
    assert!(one("-O keepFile=1").files.keep_file);
    assert!(!one("-k -O keepFile=0").files.keep_file);
    assert_eq!(one("-O verbose=3").output.verbose, 3);
    assert!(one("-O reorderTasksConstant=1").reorder.reorder_tasks);
}

#[test]
fn module_options() {
    let p = one("--posix.odirect -t 4k -b 4m");
    assert!(p.module_flag("posix.odirect"));
    assert!(one("-O useO_DIRECT=1 -t 4k -b 4m").module_flag("posix.odirect"));
    assert!(one("-B -t 4k -b 4m").module_flag("posix.odirect"));
    // -B's long name is IOR 3's directive, and it turns O_DIRECT off too.
    assert!(one("--useO_DIRECT -t 4k -b 4m").module_flag("posix.odirect"));
    assert!(!one("-B -O useO_DIRECT=0").module_flag("posix.odirect"));
    assert!(!one("--posix.odirect -O useO_DIRECT=0").module_flag("posix.odirect"));
    let p = one("-a DUMMY --dummy.delay-xfer=10 --dummy.delay-only-rank0");
    assert_eq!(p.module_options["dummy.delay-xfer"], "10");
    assert!(p.module_flag("dummy.delay-only-rank0"));
    assert!(one("-a MMAP --mmap.madv_pattern").module_flag("mmap.madv_pattern"));
}

#[test]
fn bad_numbers() {
    assert_eq!(
        error("-b -5"),
        "-b -5: '-5' is negative; sizes must be positive"
    );
    assert_eq!(
        error("-t 1x"),
        "-t 1x: '1x' has an unknown size suffix 'x' (use k, m, g, t, p or e)"
    );
    assert_eq!(
        error("-b abc"),
        "-b abc: 'abc' is not a size (expected digits with an optional k, m, g, t suffix)"
    );
    assert_eq!(error("-s 0"), "-s 0: the segment count must be at least 1");
    assert_eq!(
        error("-N 0"),
        "-N 0: the number of tasks must be at least 1 (or -1 for all)"
    );
    assert_eq!(error("-t 0"), "-t 0: the transfer size must be positive");
    assert_eq!(error("-b 0"), "-b 0: the block size must be positive");
    assert_eq!(error("-i 0"), "-i 0: must be at least 1");
    assert_eq!(error("-i two"), "-i two: 'two' is not an integer");
    assert_eq!(
        error("-d -1"),
        "-d -1: '-1' must be a number of seconds, 0 or more"
    );
    assert_eq!(error("-d x"), "-d x: 'x' is not a number of seconds");
    assert_eq!(error("-Q 0"), "-Q 0: must be at least 1");
    assert_eq!(
        error("-l x"),
        "-l x: 'x' is not a packet type (use t|timestamp, o|offset, i|incompressible, r|random)"
    );
}

#[test]
fn bad_combinations() {
    assert_eq!(
        error("-t 1m -b 1536k"),
        "-b 1572864: the block size must be a multiple of the transfer size (1048576)"
    );
    assert_eq!(
        error("-t 4m -b 1m"),
        "-b 1048576: the block size must not be smaller than the transfer size (4194304)"
    );
    assert_eq!(
        error("-t 1001 -b 1001"),
        "-t 1001: the transfer size must be a multiple of 8 bytes"
    );
    assert_eq!(
        error("-r -R"),
        "-R without -w needs -G: the signature the data was written with"
    );
    assert_eq!(
        error("-W -r"),
        "-W checks data after writing, so it needs -w"
    );
    assert_eq!(
        error("-w -r -R -z -z"),
        "-R/-W cannot verify -z -z: random offsets may overlap or leave holes"
    );
    assert_eq!(
        error("-F -u -o a@b"),
        "-u cannot be combined with several file names (-o a@b)"
    );
    assert_eq!(error("--posix.odirect -t 1000 -b 8000"), "-t 1000: O_DIRECT needs sizes that are multiples of 4096 bytes (use -t and -b in multiples of 4k)");
    assert_eq!(error("--posix.odirect -t 512 -b 4096"), "-t 512: O_DIRECT needs sizes that are multiples of 4096 bytes (use -t and -b in multiples of 4k)");
    assert_eq!(
        error("-a DUMMY -w -W"),
        "-R/-W verify data, but the DUMMY backend stores none"
    );
    assert_eq!(
        error("--randomPrefill=4k"),
        "--randomPrefill only applies to random access (-z)"
    );
    assert_eq!(
        error("-z --randomPrefill=3k -t 1k -b 8k"),
        "--randomPrefill 3072: must divide the block size (8192) and be a multiple of 8"
    );
    assert_eq!(
        error("-s 1e -b 1e -t 1e"),
        "-s/-b: the file size overflows 64 bits"
    );
}

#[test]
fn unknown_things() {
    assert_eq!(error("-q -j"), "-j needs a value");
    assert_eq!(
        error("--no-such-thing"),
        "unknown option '--no-such-thing' (see 'ior -h')"
    );
    assert_eq!(error("-L"), "unknown option '-L' (see 'ior -h')");
    if cfg!(feature = "hdf5") {
        assert_eq!(
            error("-a FOO"),
            "-a FOO: unknown API (this build has POSIX, AIO, DUMMY, MMAP, MPIIO, HDF5, S3, S3-libs3, S3-curl)"
        );
        assert!(one("-a HDF5").api == "HDF5");
    } else if cfg!(feature = "mpi") {
        assert_eq!(
            error("-a FOO"),
            "-a FOO: unknown API (this build has POSIX, AIO, DUMMY, MMAP, MPIIO, S3, S3-libs3, S3-curl)"
        );
        assert!(one("-a MPIIO").api == "MPIIO");
    } else {
        assert_eq!(
            error("-a FOO"),
            "-a FOO: unknown API (this build has POSIX, AIO, DUMMY, MMAP, S3, S3-libs3, S3-curl)"
        );
        assert_eq!(
            error("-a MPIIO"),
            "-a MPIIO: this API needs MPI: rebuild pario with '--features mpi'"
        );
    }
    #[cfg(not(feature = "hdf5"))]
    assert_eq!(
        error("-a HDF5"),
        "-a HDF5: this API needs parallel HDF5: rebuild pario with '--features hdf5' (Debian: libhdf5-openmpi-dev)"
    );
    assert_eq!(
        error("-a NCMPI"),
        "-a NCMPI: this API is not supported by pario"
    );
    assert_eq!(
        error("-O bogus=1"),
        "unknown directive 'bogus' (see 'ior -h')"
    );
    assert_eq!(
        error("-O summaryFormat=xml"),
        "-O summaryFormat=xml: unknown summary format (use default, JSON, CSV or pario-CSV)"
    );
    assert_eq!(
        error("-f /nonexistent/script.ior")
            .split(':')
            .next()
            .unwrap(),
        "-f /nonexistent/script.ior"
    );
    assert!(error("-f /nonexistent/script.ior").contains("No such file or directory"));
}

#[test]
fn features_not_built_are_rejected_not_ignored() {
    // The backends built, or else those a rebuild adds.
    let collective = match cfg!(all(feature = "mpi", not(feature = "hdf5"))) {
        true => "MPIIO",
        false => "MPIIO or HDF5",
    };
    assert_eq!(
        error("-c"),
        format!("-c: collective I/O needs -a {collective}, not -a POSIX")
    );
    assert_eq!(error("-C -Z"), "-C and -Z both reorder tasks: choose one");
    for (flag, module, api) in [
        ("-p", "mpiio.preallocate", "-a MPIIO"),
        ("-V", "mpiio.useFileView", "-a MPIIO"),
        ("-U hints", "mpiio.hintsFileName", "-a MPIIO"),
        ("-H", "mpiio.showHints", "-a MPIIO"),
        // IOR's HDF5 flags are the HDF5 module's options.
        ("-J 4k", "hdf5.setAlignment", "-a HDF5"),
        ("-n", "hdf5.noFill", "-a HDF5"),
    ] {
        let e = error(flag);
        assert!(e.starts_with(&format!("--{module} ")), "{flag}: {e}");
        assert!(e.contains(api), "{flag}: {e}");
    }
    assert_eq!(
        error("-a MMAP --posix.odirect -t 4k -b 4k"),
        "--posix.odirect applies to -a POSIX, not -a MMAP"
    );
    assert!(error("-O lustreStripeCount=4").contains("Lustre striping is not supported by pario"));
    assert!(error("-J 4x").contains("-J 4x: "));
    assert!(error("-y").contains("dual mount points are not supported"));
    assert!(error("--allocateBufferOnGPU").contains("GPU buffers are not supported"));
    // Switched off explicitly, they are harmless.
    assert!(!one("-O collective=0").transfers.collective);
    assert_eq!(one("-D 0").stonewall.deadline, 0);
}

#[test]
fn stonewalling_options() {
    let p = one("-w -k -D 300 -O stoneWallingWearOut=300 -O stoneWallingStatusFile=/tmp/sw -O stoneWallingWearOutIterations=7 -O minTimeDuration=2");
    assert_eq!(p.stonewall.deadline, 300);
    assert!(p.stonewall.wear_out);
    assert_eq!(p.stonewall.status_file.as_deref(), Some("/tmp/sw"));
    assert_eq!(p.stonewall.wear_out_iterations, 7);
    assert_eq!(p.stonewall.min_time, 2);
    assert!(error("-O stoneWallingWearOut=1").contains("needs a deadline"));
    assert!(error("-w -W -D 5").contains("-D cannot be combined with -W"));
    assert!(error("-r -O stoneWallingStatusFile=x").contains("needs -k"));
    assert!(error("-O stoneWallingStatusFile=").contains("the file name is empty"));
    assert!(error("-D -1").contains("must not be negative"));
}

#[test]
fn memory_hog_options() {
    assert_eq!(
        one("-M 50%").memory.per_node,
        Some(crate::memhog::NodeMemory::Percent(50))
    );
    assert_eq!(
        one("-M 1m -O memoryPerTask=2m").memory.per_task,
        Some(2 << 20)
    );
    assert_eq!(one("-M 1m -O memoryPerTask=2m").memory.per_node, None);
    assert!(error("-M 101%").contains("between 0 and 100"));
    assert!(error("-M 1e").contains("more than this node's memory"));
}

#[test]
fn explanation_options() {
    let p = one("-j 3 -O recordLatency=0 -O latencyHistogramFile=h.csv -O cacheCheck=0 -O evictBeforeRead=1 --progress=0");
    assert_eq!(p.measure.outlier_threshold, 3);
    assert!(
        !p.measure.record_latency
            && !p.measure.cache_check
            && !p.output.progress
            && p.measure.evict_before_read
    );
    assert_eq!(p.output.latency_file.as_deref(), Some("h.csv"));
    assert!(one_test("--posix.evict").evicts());
    let d = one("");
    assert!(
        d.measure.record_latency
            && d.measure.cache_check
            && d.output.progress
            && !one_test("").evicts()
    );
}

#[test]
fn reordering_options() {
    let p = one("-Z -Q 2 -X -5");
    assert_eq!(
        (
            p.reorder.reorder_tasks_random,
            p.reorder.task_per_node_offset,
            p.reorder.reorder_tasks_random_seed
        ),
        (1, 2, -5)
    );
    assert_eq!(one("-Z -Z").reorder.reorder_tasks_random, 2);
}

#[test]
fn help_lists_every_short_option() {
    assert!(parse(&args("-h")).unwrap().is_none());
    assert!(parse(&args("-w -h -b 4")).unwrap().is_none());
    let h = help();
    for c in "cCeEFgkKmrRuvwWxyYzZaAbdDfGijJlMNoOQstTUX".chars() {
        assert!(h.contains(&format!("\n  -{c}")), "help lacks -{c}");
    }
    for module in [
        "Module POSIX",
        "Module DUMMY",
        "Module MMAP",
        "--posix.odirect",
        "--dummy.delay-xfer=0",
        "-O stoneWallingWearOut=1",
    ] {
        assert!(h.contains(module), "help lacks {module}");
    }
}

#[test]
fn help_lists_every_backend_option_with_its_default() {
    let h = help();
    for b in crate::backend::registry() {
        assert!(
            h.contains(&format!("\n\nModule {}\n", b.name)),
            "{}",
            b.name
        );
        for o in b.options.options() {
            // Listed once, under the backend that owns it, with its
            // default from that backend's options type.
            let line = match o.kind {
                crate::options::ArgKind::Flag => format!("\n  --{} ", o.name),
                _ => format!("\n  --{}={}", o.name, o.shown),
            };
            let (_, owner) = crate::backend::all_module_options()
                .find(|(_, l)| l.name == o.name)
                .unwrap();
            let said = format!(" (-a {}: {})", b.name, o.shown);
            assert!(
                h.contains(&line) || (owner.help.contains(&said) && h.contains(&*owner.help)),
                "{}: {line:?}",
                b.name
            );
        }
    }
    assert!(h.contains("\n  --aio.max-pending=128 "));
    assert!(h.contains("\n  --s3.layout=object "));
    assert!(h.contains("per transfer (-a S3-libs3: fragments)\n"));
}

#[test]
fn scripts_take_command_line_defaults() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("tests.ior");
    std::fs::write(&script, "IOR START\n  api=POSIX\n  blockSize=16m\n  transferSize=1m\nRUN\n  filePerProc=1\nRUN\nIOR STOP\n").unwrap();
    let line = format!("-w -i 2 -f {}", script.display());
    let tests: Vec<IorParams> = parse(&args(&line))
        .unwrap()
        .unwrap()
        .into_iter()
        .map(|t| t.params)
        .collect();
    assert_eq!(tests.len(), 2);
    assert!(tests.iter().all(|t| t.phases.write_file
        && !t.phases.read_file
        && t.phases.repetitions == 2
        && t.geometry.block_size == 16 << 20));
    assert!(!tests[0].geometry.file_per_proc && tests[1].geometry.file_per_proc);
}

#[test]
fn a_nul_byte_in_a_scripts_file_name_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("nul.ior");
    std::fs::write(&script, "IOR START\ntestFile=/tmp/a\0b\nRUN\nIOR STOP\n").unwrap();
    let e = error(&format!("-f {}", script.display()));
    assert_eq!(e, "-o /tmp/a\\0b: a file name cannot hold a NUL byte");
}

#[test]
fn script_errors_name_the_test() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.ior");
    std::fs::write(
        &script,
        "IOR START\nRUN\ntransferSize=3m\nblockSize=4m\nRUN\nIOR STOP\n",
    )
    .unwrap();
    let e = error(&format!("-f {}", script.display()));
    assert_eq!(
        e,
        "test 1: -b 4194304: the block size must be a multiple of the transfer size (3145728)"
    );
}
