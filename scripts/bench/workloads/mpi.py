"""The MPI family, pario against pario: mpi (the MPI engine against the local
one), mpiio (-a MPIIO against -a POSIX) and fixedcost (wall time of whole
mpirun commands)."""

import os
import shutil
import time

from .. import pario
from ..proc import BenchError, clear, expect_no_files, log, run_cmd, size_str

TARGET_MPI_RATIO = 0.95  # "MPI equals local within noise"
TARGET_MPIIO_RATIO = 0.95
TARGET_FIXED_COST_S = 0.2
MPI_INIT_C = """#include <mpi.h>
int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
"""


def need_mpi(s):
    if not shutil.which("mpirun"):
        raise BenchError("mpirun is missing (apt-get install openmpi-bin)")
    if not os.access(s.args.mpi_ior, os.X_OK):
        raise BenchError(f"no MPI build of ior at {s.args.mpi_ior} (cargo build --release "
                         "--features mpi --target-dir target-mpi, or --mpi-ior PATH)")


def mpi_env():
    """The environment of an mpirun: no PARIO_TASKS (one task per rank), and
    Open MPI's consent to run as root when we are root."""
    env = {"PARIO_TASKS": None}
    if os.geteuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def mpirun(s, cmd):
    return ["mpirun", "-n", str(s.tasks), "--oversubscribe"] + s.args.mpirun_option + cmd


def engines(s):
    """The MPI engine (mpirun -n N, MPI build) against the local engine
    (PARIO_TASKS=N, default build), the same write-and-read command."""
    need_mpi(s)
    d = s.path("mpi")
    segments = 1 if s.args.quick else 4
    cases = [
        (["-t", "1m", "-b", "256m", "-s", str(segments), "-F", "-e"], "bw", "MiB/s"),
        (["-t", "4k", "-b", size_str(s.args.iops_block), "-F"], "iops", "IOPS"),
    ]
    n = s.tasks
    a, b = f"mpirun -n {n}", f"PARIO_TASKS={n}"
    for shape, metric, unit in cases:
        std = "ior " + " ".join(shape)
        args = shape + ["-o", os.path.join(d, "testFile")]
        clear(d)

        def run_mpi(args=args, std=std, metric=metric):
            rows = s.ior_cmd(mpirun(s, [s.args.mpi_ior] + args), mpi_env(),
                             f"mpi {std} (mpirun, MPI build)", n)
            expect_no_files(d, "pario without -k")
            return pario.one_each(rows, pario.FIGURE[metric], "mpirun ior")

        def run_local(args=args, std=std, metric=metric):
            rows = s.ior(args, tasks=n, label=f"mpi {std} (local engine)")
            expect_no_files(d, "pario without -k")
            return pario.one_each(rows, pario.FIGURE[metric], "local ior")

        values, noise = s.alternate(f"mpi {std}", [(a, run_mpi), (b, run_local)])
        for access in ("write", "read"):
            s.ab_row(std, access, unit, metric, (a, values[a][access]),
                     (b, values[b][access]), noise, TARGET_MPI_RATIO)
    shutil.rmtree(d)


def mpiio(s):
    """-a MPIIO against -a POSIX, both under mpirun (MPI build)."""
    need_mpi(s)
    d = s.path("mpiio")
    clear(d)
    shape = ["-t", "1m", "-b", "256m", "-F"]

    def variant(api):
        cmd = mpirun(s, [s.args.mpi_ior, "-a", api] + shape + ["-o", os.path.join(d, "testFile")])

        def once():
            rows = s.ior_cmd(cmd, mpi_env(), f"mpiio -a {api}", s.tasks)
            expect_no_files(d, "pario without -k")
            return pario.one_each(rows, "bwMiB", f"-a {api}")
        return (f"-a {api}", once)

    values, noise = s.alternate("mpiio", [variant("MPIIO"), variant("POSIX")])
    for access in ("write", "read"):
        s.ab_row("mpirun ior " + " ".join(shape), access, "MiB/s", "bw",
                 ("-a MPIIO", values["-a MPIIO"][access]),
                 ("-a POSIX", values["-a POSIX"][access]), noise, TARGET_MPIIO_RATIO)
    shutil.rmtree(d)


def fixedcost_programs(s, d):
    """(name, command) of the programs whose wall time under mpirun is taken:
    ior, the minimal MPI program when mpicc is there, and true."""
    programs = [("ior", [s.args.mpi_ior, "-a", "DUMMY", "-t", "1m", "-b", "1m",
                         "-o", os.path.join(d, "dummy")])]
    if shutil.which("mpicc"):
        src = os.path.join(d, "mpi_init.c")
        with open(src, "w") as f:
            f.write(MPI_INIT_C)
        run_cmd(["mpicc", "-O2", "-o", os.path.join(d, "mpi_init"), src], what="mpicc")
        programs.append(("MPI_Init+Finalize", [os.path.join(d, "mpi_init")]))
    else:
        log("[fixedcost] no mpicc: the minimal MPI program is left out")
    return programs + [("true", ["true"])]


def fixedcost(s):
    """Wall time of whole mpirun commands: ior -a DUMMY -t 1m -b 1m against
    true (and against a C program that only starts and stops MPI). With Open
    MPI (OMPI_MCA_pml unset), the same with OMPI_MCA_pml=ob1."""
    need_mpi(s)
    d = s.path("fixedcost")
    clear(d)
    programs = fixedcost_programs(s, d)
    settings = [("", {})]
    version, _ = run_cmd(["mpirun", "--version"], what="mpirun --version")
    if "Open MPI" in version and "OMPI_MCA_pml" not in os.environ:
        settings.append(("OMPI_MCA_pml=ob1 ", {"OMPI_MCA_pml": "ob1"}))
    variants = []
    for prefix, extra in settings:
        for name, prog in programs:
            def once(cmd=mpirun(s, prog), env=dict(mpi_env(), **extra),
                     label=f"fixedcost {prefix}{name}"):
                s.note_cmd(label, cmd, env)
                start = time.monotonic()
                run_cmd(cmd, env=env, cwd=s.work, what=label)
                return {"wall": time.monotonic() - start}
            variants.append((prefix + name, once))
    values, noise = s.alternate("fixedcost", variants, rounds=s.args.fixedcost_runs,
                                warmup=max(s.warmup, 3))
    ior = "ior -a DUMMY -t 1m -b 1m"
    for prefix, _ in settings:
        w = {name: values[prefix + name]["wall"] for name, _ in programs}
        what = f"{prefix}mpirun -n {s.tasks} ... (wall time)"
        s.ab_row(what, "ior - true", "s", "s", (ior, w["ior"]), ("true", w["true"]), noise,
                 TARGET_FIXED_COST_S, diff=True)
        if "MPI_Init+Finalize" in w:
            init = ("MPI_Init+Finalize", w["MPI_Init+Finalize"])
            s.ab_row(what, "MPI start-up", "s", "s", init, ("true", w["true"]), noise, diff=True)
            s.ab_row(what, "pario's own", "s", "s", (ior, w["ior"]), init, noise, diff=True)
    shutil.rmtree(d)


TARGET_HDF5_RATIO = 0.9


def hdf5(s):
    """-a HDF5 against -a MPIIO on one shared file, independent and collective
    (-c), both from the HDF5 build (--hdf5-ior) under mpirun."""
    if not os.access(s.args.hdf5_ior, os.X_OK):
        raise BenchError(f"no HDF5 build of ior at {s.args.hdf5_ior} (cargo build --release "
                         "--features hdf5 --target-dir target-hdf5, or --hdf5-ior PATH)")
    if not shutil.which("mpirun"):
        raise BenchError("mpirun is missing (apt-get install openmpi-bin)")
    d = s.path("hdf5")
    for mode in ([], ["-c"]):
        clear(d)
        shape = ["-t", "1m", "-b", "256m"] + mode

        def variant(api, shape=shape):
            cmd = mpirun(s, [s.args.hdf5_ior, "-a", api] + shape
                         + ["-o", os.path.join(d, "testFile")])

            def once():
                rows = s.ior_cmd(cmd, mpi_env(), f"hdf5 -a {api} {' '.join(shape)}", s.tasks)
                expect_no_files(d, "pario without -k")
                return pario.one_each(rows, "bwMiB", f"-a {api}")
            return (f"-a {api}", once)

        values, noise = s.alternate(f"hdf5 {' '.join(shape)}",
                                    [variant("HDF5"), variant("MPIIO")])
        for access in ("write", "read"):
            s.ab_row("mpirun ior " + " ".join(shape), access, "MiB/s", "bw",
                     ("-a HDF5", values["-a HDF5"][access]),
                     ("-a MPIIO", values["-a MPIIO"][access]), noise, TARGET_HDF5_RATIO)
    shutil.rmtree(d)
