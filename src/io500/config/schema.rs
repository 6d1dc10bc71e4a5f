//! The schema table of the harness's config.ini.

use super::{Key, Kind::*, Section, Type::*};

const fn key(name: &'static str, ty: super::Type, default: Option<&'static str>, help: &'static str) -> Key {
    Key { name, ty, default, help }
}

const fn section(name: &'static str, kind: super::Kind, extended: bool, keys: &'static [Key]) -> Section {
    Section { name, kind, extended, keys }
}

const API: Key = key("API", Str, None, "the API (and its options) of this phase; default: [global] api");
const RUN: Key = key("run", Bool, Some("TRUE"), "run this phase (FALSE scores 0 and invalidates a mandatory phase)");
const VERBOSITY: Key = key("verbosity", Int, None, "the tool's verbosity (one -v each)");
const COLLECTIVE: Key = key("collective", Bool, None, "collective I/O (-c)");

const GLOBAL: &[Key] = &[
    key("datadir", Str, Some("./datafiles"), "the directory the benchmarks write in"),
    key("timestamp-datadir", Bool, Some("TRUE"), "append the timestamp to datadir"),
    key("resultdir", Str, Some("./results"), "the directory of the result files"),
    key("timestamp-resultdir", Bool, Some("TRUE"), "append the timestamp to resultdir"),
    key("api", Str, Some("POSIX"), "the default API, with its options (POSIX --posix.odirect)"),
    key("drop-caches", Bool, Some("FALSE"), "run drop-caches-cmd before each phase, once per node"),
    key("drop-caches-cmd", Str, Some("sudo -n bash -c \"echo 3 > /proc/sys/vm/drop_caches\""), "the command that drops the caches"),
    key("io-buffers-on-gpu", Bool, Some("FALSE"), "I/O buffers on the GPU (refused: pario has no GPU support)"),
    key("verbosity", Uint, Some("1"), "the harness's verbosity"),
    key("scc", Bool, Some("FALSE"), "a student cluster competition run (30 s minimum phases)"),
    key("dataPacketType", Str, Some("timestamp"), "the data pattern of every tool"),
];
const DEBUG: &[Key] = &[
    key("stonewall-time", Uint, Some("300"), "seconds of the write phases (300 for a valid run)"),
    key("pause-dir", Str, None, "a directory whose file pauses the run between phases"),
];
const IOR_EASY: &[Key] = &[
    API,
    key("transferSize", Size, Some("2m"), "ior-easy's transfer size"),
    key("blockSize", Size, Some("9920000m"), "ior-easy's block size (the stonewall stops it)"),
    key("filePerProc", Bool, Some("TRUE"), "a file per task"),
    key("uniqueDir", Bool, Some("FALSE"), "a directory per task"),
    RUN,
    VERBOSITY,
];
const API_RUN: &[Key] = &[API, RUN];
const ONLY_RUN: &[Key] = &[RUN];
const MDTEST_EASY: &[Key] = &[API, key("n", Uint, Some("1000000"), "files per task"), RUN];
const MDWORKBENCH: &[Key] = &[
    API,
    key("waitingTime", Float, Some("0.0"), "md-workbench's waiting factor (-t)"),
    key("precreatePerSet", Uint, None, "objects precreated per dataset (-P); with filesPerProc"),
    key("filesPerProc", Uint, None, "objects per dataset and iteration (-I); with precreatePerSet"),
    RUN,
    VERBOSITY,
];
const FIND: &[Key] = &[
    key("external-script", Str, None, "a script to run instead of the built-in find"),
    key("external-mpi-args", Str, Some(""), "launcher arguments of the script"),
    key("external-extra-args", Str, Some(""), "further arguments of the script"),
    key("nproc", Uint, None, "tasks of the external script"),
    RUN,
    key("pfind-queue-length", Int, Some("10000"), "pfind's queue length"),
    key("pfind-steal-next", Bool, Some("FALSE"), "pfind's work stealing option"),
    key("pfind-parallelize-single-dir-access-using-hashing", Bool, Some("FALSE"), "pfind's hashing option"),
];
const IOR_HARD: &[Key] = &[
    API,
    key("segmentCount", Uint, Some("10000000"), "ior-hard's segments (the stonewall stops it)"),
    COLLECTIVE,
    RUN,
    VERBOSITY,
];
const IOR_HARD_PHASE: &[Key] = &[API, COLLECTIVE, RUN];
const MDTEST_HARD: &[Key] = &[
    API,
    key("n", Uint, Some("1000000"), "files per task"),
    key("files-per-dir", Uint, None, "files per directory (invalidates the run)"),
    RUN,
];
const CONCURRENT: &[Key] = &[
    key("run", Bool, Some("FALSE"), "pario: run the concurrent phase of IO500#56 after the others (outside the score and hashes)"),
    key("ratio-write", Float, Some("0.2"), "the share of the tasks writing as ior-easy does (whole percent: 0.01 steps)"),
    key("ratio-read", Float, Some("0.4"), "the share of the tasks reading ior-easy's files at random, 1 MiB at a time; the rest run md-workbench"),
    key("stonewall-time", Uint, None, "seconds every group runs (default: [debug] stonewall-time)"),
    API,
];

/// Every section, in the harness's order (that of its `config.ini`).
pub const SECTIONS: &[Section] = &[
    section("global", Settings, false, GLOBAL),
    section("debug", Settings, false, DEBUG),
    section("ior-easy", Group, false, IOR_EASY),
    section("ior-easy-write", Phase, false, API_RUN),
    section("mdtest-easy", Group, false, MDTEST_EASY),
    section("mdtest-easy-write", Phase, false, API_RUN),
    section("mdworkbench", Group, true, MDWORKBENCH),
    section("mdworkbench-create", Phase, true, ONLY_RUN),
    section("timestamp", Phase, false, &[]),
    section("find-easy", Phase, true, FIND),
    section("ior-hard", Group, false, IOR_HARD),
    section("ior-hard-write", Phase, false, IOR_HARD_PHASE),
    section("mdtest-hard", Group, false, MDTEST_HARD),
    section("mdtest-hard-write", Phase, false, API_RUN),
    section("find", Phase, false, FIND),
    section("find-hard", Phase, true, FIND),
    section("mdworkbench-bench", Phase, true, ONLY_RUN),
    section("ior-easy-read", Phase, false, API_RUN),
    section("mdtest-easy-stat", Phase, false, API_RUN),
    section("ior-hard-read", Phase, false, IOR_HARD_PHASE),
    section("mdtest-hard-stat", Phase, false, API_RUN),
    section("mdworkbench-delete", Phase, true, ONLY_RUN),
    section("mdtest-easy-delete", Phase, false, API_RUN),
    section("mdtest-hard-read", Phase, false, API_RUN),
    section("mdtest-hard-delete", Phase, false, API_RUN),
    section("ior-rnd4K-easy-read", Phase, false, API_RUN),
    section("concurrent", Extension, false, CONCURRENT),
];
