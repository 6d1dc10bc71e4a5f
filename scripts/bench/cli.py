"""The command line: options, building, running the workloads, the report and
the exit status."""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import __doc__ as PACKAGE_DOC
from . import machine, report
from .proc import KIB, MIB, BenchError, log, parse_size
from .session import Session
from .workloads import build as build_wl
from .workloads import (aio, concurrent, dlio, dlioref, dliotrain, dummy, find, fio,
                        instructions, integrity, io500, latency, mdtest, mdworkbench, mem, mpi,
                        residency, rwmix, s3, stops, sweep, syscalls)
from .workloads import report as report_wl

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.join(REPO, "target"))
MODES = ("write/fresh", "write/overwrite", "read")
WORKLOADS = {
    "bw": fio.bw, "iops": fio.iops, "dummy": dummy.run, "mem": mem.run,
    "syscalls": syscalls.run, "mpi": mpi.engines, "mpiio": mpi.mpiio,
    "hdf5": mpi.hdf5,
    "fixedcost": mpi.fixedcost, "latency": latency.run, "residency": residency.run,
    "integrity": integrity.run, "mdtest": mdtest.run, "build": build_wl.run,
    "instructions": instructions.run, "stops": stops.run, "mdworkbench": mdworkbench.run,
    "find": find.run, "io500": io500.run, "aio": aio.run, "report": report_wl.run,
    "sweep": sweep.run, "rwmix": rwmix.run, "concurrent": concurrent.run, "s3": s3.run,
    "dlio": dlio.run, "dlio-train": dliotrain.run, "dlio-ref": dlioref.run,
}
DEFAULT = ["bw", "iops", "dummy", "mem"]
MPI = ["mpi", "mpiio", "fixedcost", "stops"]
FIO = ["bw", "iops", "syscalls"]
BASELINE = ["build", "instructions"]


def options():
    ap = argparse.ArgumentParser(
        prog="python3 -m scripts.bench", description=PACKAGE_DOC.split("\n\n")[0],
        epilog=PACKAGE_DOC.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    add = ap.add_argument
    add("workloads", nargs="*", metavar="WORKLOAD",
        help=f"any of {', '.join(WORKLOADS)}, or all (default: {' '.join(DEFAULT)})")
    add("--rounds", type=int, help="timed rounds per measurement (default 5; integrity 9, "
        "mdtest and mdworkbench 7, build 15)")
    add("--warmup", type=int, help="untimed rounds of each side first (default 1; mdtest 0)")
    add("--quick", action="store_true",
        help="3 rounds, and -s 1 instead of -s 4 for bw, mpi and build")
    add("--tasks", type=int, default=2, help="tasks = fio jobs = MPI ranks (default 2)")
    add("--dir", default="/dev/shm", help="where the work directory goes (default /dev/shm)")
    add("--no-build", action="store_true", help="do not run cargo build first")
    add("--ior", default=os.path.join(TARGET, "release", "ior"),
        help="pario's ior (default target/release/ior)")
    add("--mdtest", help="pario's mdtest (default: next to --ior)")
    add("--md-workbench", help="pario's md-workbench (default: next to --ior)")
    add("--wait-idle", type=float, default=0, metavar="SECONDS",
        help="before each measurement, wait up to SECONDS for other processes to use under "
             "10%% of the CPUs (default 0: do not wait)")
    add("--nice", type=int, default=0, metavar="N",
        help="measure in a session of its own whose autogroup and processes have this nice "
             "value, e.g. -15 on a machine shared with builds (negative values need root). "
             "fio's job processes call setsid() and escape it: add --fio-option=--thread")
    add("--json", metavar="FILE", help="also write every figure as JSON here")
    add("--output", metavar="FILE", help="also write the report here")
    add("--check", action="store_true", help="exit with status 2 when a figure misses its target")
    group = ap.add_argument_group("bw, iops, syscalls (against fio)")
    group.add_argument("--modes", default=",".join(MODES),
                       help=f"of bw and iops (default {','.join(MODES)})")
    group.add_argument("--separate-files", action="store_true",
                       help="fio uses files of its own instead of pario's")
    group.add_argument("--fio-option", action="append", default=[], metavar="OPT",
                       help="extra option for every timed fio run, e.g. "
                            "--fio-option=--gtod_reduce=1 (repeatable)")
    group.add_argument("--iops-block", type=parse_size, default=64 * MIB,
                       help="block of the 4k workloads (iops, mpi, latency, build; default 64m)")
    group = ap.add_argument_group("mpi, mpiio, fixedcost, hdf5")
    group.add_argument("--mpi-ior", default=os.path.join(REPO, "target-mpi", "release", "ior"),
                       help="ior built with --features mpi (default target-mpi/release/ior)")
    group.add_argument("--hdf5-ior", default=os.path.join(REPO, "target-hdf5", "release", "ior"),
                       help="hdf5: ior built with --features hdf5 (default "
                            "target-hdf5/release/ior)")
    group.add_argument("--mpirun-option", action="append", default=[], metavar="OPT",
                       help="extra option for every mpirun, e.g. --mpirun-option=--bind-to "
                            "--mpirun-option=none (repeatable; always -n TASKS --oversubscribe)")
    group.add_argument("--fixedcost-runs", type=int, default=30, metavar="N",
                       help="timed runs of each fixedcost command (default 30, after at least "
                            "3 untimed ones)")
    group = ap.add_argument_group("integrity, mdtest, build")
    group.add_argument("--packet", default="t", help="integrity: -l packet type (default t)")
    group.add_argument("--also", action="append", default=[], metavar="IOR",
                       help="integrity: another ior build measured in the same rounds")
    group.add_argument("--kernel", action="append", default=[], metavar="NAME",
                       help="integrity: run -r -R with PARIO_VERIFY_KERNEL=NAME (generic, avx2, "
                            "avx512); repeated, every kernel is measured in the same rounds "
                            "(default: the one pario chooses)")
    group.add_argument("--items", type=int, default=10000,
                       help="mdtest, build, concurrent: -n (default 10000)")
    group.add_argument("--iterations", type=int, default=3, help="mdtest: -i (default 3)")
    group.add_argument("--aio-dir", default="/var/tmp",
                       help="aio: a directory on the machine's disk (default /var/tmp)")
    group.add_argument("--aio-size", default="1g", help="aio: each task's file (default 1g)")
    group.add_argument("--aio-seconds", type=int, default=5,
                       help="aio: seconds per random-read run (default 5)")
    group.add_argument("--find-files", type=int, default=200000,
                       help="find: files in the mdtest-easy + mdtest-hard tree (default 200000)")
    group.add_argument("--mdtest-tasks", help="mdtest: task counts (default 1,TASKS)")
    group.add_argument("--baseline", metavar="DIR",
                       help="build: the directory of a previous build's ior and mdtest")
    group.add_argument("--stop-after", type=float, default=3.0, metavar="SECONDS",
                       help="stops: seconds between the start and the signal (default 3)")
    group.add_argument("--build-shapes", default="bw,iops,dummy,mdtest",
                       help="build: which workloads among bw,iops,dummy,dummy4k,mdtest "
                            "(default bw,iops,dummy,mdtest)")
    group = ap.add_argument_group("s3")
    group.add_argument("--s3-pin", action="store_true",
                       help="the server on CPU 1 and each client on CPU 0 (taskset), so that "
                            "neither takes the other's core")
    group = ap.add_argument_group("mdworkbench")
    group.add_argument("--mdw-tasks", help="task counts (default: those of --mdtest-tasks, "
                       "1,TASKS)")
    group.add_argument("--mdw-data-sets", type=int, default=10, metavar="D",
                       help="md-workbench -D (default 10)")
    group.add_argument("--mdw-objects", type=int, default=1000, metavar="I",
                       help="md-workbench -I: objects per data set and phase (default 1000)")
    group.add_argument("--mdw-precreate", type=int, default=1000, metavar="P",
                       help="md-workbench -P (default 1000)")
    group.add_argument("--mdw-iterations", type=int, default=3, metavar="R",
                       help="md-workbench -R: benchmark phases per run (default 3)")
    return ap


def parse(argv):
    ap = options()
    args = ap.parse_args(argv)
    names = [w for arg in args.workloads for w in arg.split(",") if w] or DEFAULT
    if names == ["all"]:
        names = [w for w in WORKLOADS if w not in BASELINE]
    bad = [w for w in names if w not in WORKLOADS]
    if bad:
        ap.error(f"unknown workload(s): {', '.join(bad)}")
    args.workloads = names
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if any(m not in MODES for m in args.modes):
        ap.error(f"modes are {', '.join(MODES)}")
    args.mdtest_tasks = sorted({int(t) for t in args.mdtest_tasks.split(",")}) \
        if args.mdtest_tasks else sorted({1, args.tasks})
    args.mdw_tasks = sorted({int(t) for t in args.mdw_tasks.split(",")}) \
        if args.mdw_tasks else args.mdtest_tasks
    if min([args.tasks, args.fixedcost_runs, args.items, args.iterations, args.mdw_data_sets,
            args.mdw_objects, args.mdw_precreate, args.mdw_iterations]
           + args.mdtest_tasks + args.mdw_tasks) < 1 \
            or (args.rounds is not None and args.rounds < 1) or (args.warmup or 0) < 0:
        ap.error("counts must be at least 1 (--warmup at least 0)")
    if args.iops_block % (4 * KIB):
        ap.error("--iops-block must be a multiple of 4k")
    if any(w in names for w in BASELINE) and not args.baseline:
        ap.error("the build and instructions workloads need --baseline DIR")
    if "instructions" in names and not shutil.which("valgrind"):
        sys.exit("bench: valgrind is not installed (apt-get install valgrind)")
    if any(w in names for w in FIO) and not shutil.which("fio"):
        sys.exit("bench: fio is not installed (apt-get install fio)")
    return args


def build(args):
    """cargo build what the workloads need."""
    steps = [["cargo", "build", "--release", "--bins"]]
    if any(w in args.workloads for w in MPI):
        # A target directory of its own, so target/release stays non-MPI.
        steps.append(steps[0] + ["--features", "mpi", "--target-dir", "target-mpi"])
    if "hdf5" in args.workloads:
        steps.append(steps[0] + ["--features", "hdf5", "--target-dir", "target-hdf5"])
    if "residency" in args.workloads:
        steps.append(["cargo", "build", "--release", "--example", "residency"])
    if "find" in args.workloads:
        steps.append(["cargo", "build", "--release", "--example", "find"])
    if "s3" in args.workloads:
        steps.append(["cargo", "build", "--release", "--example", "s3loop"])
    for cmd in steps:
        log("building: " + " ".join(cmd))
        if subprocess.run(cmd, cwd=REPO).returncode != 0:
            sys.exit(f"bench: {' '.join(cmd)} failed")


def measure(session):
    """Runs the workloads; the exit status so far."""
    try:
        for name in session.args.workloads:
            session.workload = name
            WORKLOADS[name](session)
    except BenchError as e:
        log(f"bench: error: {e}")
        return 1
    except KeyboardInterrupt as e:
        log(f"bench: interrupted ({str(e) or 'SIGINT'})")
        return 130
    return 0


def main(argv=None):
    args = parse(argv)
    if not args.no_build:
        build(args)
    args.ior = os.path.abspath(args.ior)
    args.mdtest = os.path.abspath(args.mdtest or os.path.join(os.path.dirname(args.ior), "mdtest"))
    args.md_workbench = os.path.abspath(
        args.md_workbench or os.path.join(os.path.dirname(args.ior), "md-workbench"))
    args.mpi_ior = os.path.abspath(args.mpi_ior)
    args.hdf5_ior = os.path.abspath(args.hdf5_ior)
    args.also = [os.path.abspath(p) for p in args.also]  # commands run in the work directory
    if not os.access(args.ior, os.X_OK):
        sys.exit(f"bench: no ior binary at {args.ior} (build it, or --ior PATH)")
    if "mdworkbench" in args.workloads and not os.access(args.md_workbench, os.X_OK):
        sys.exit(f"bench: no md-workbench binary at {args.md_workbench} (build it, or "
                 "--md-workbench PATH)")
    if args.nice:
        machine.run_niced(args.nice)

    def on_signal(signum, _frame):  # so that the work directory is always removed
        raise KeyboardInterrupt(f"signal {signum}")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    started = time.time()
    info = report.machine_info(args, any(w in args.workloads for w in MPI + ["hdf5"]))
    work = tempfile.mkdtemp(prefix="pario-bench.", dir=args.dir)
    session = Session(args, work)
    log(f"work directory {work} on {info['dir']}; tasks {args.tasks}")
    try:
        status = measure(session)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = report.render(session, info, time.time() - started)
    print(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text + "\n")
    if args.json:
        report.write_json(args.json, session, info)
    if status == 0 and args.check and any(not r["ok"] for r in session.rows):
        status = 2
    return status
