#!/usr/bin/env python3
"""End-to-end benchmarks of pario against Debian's fio.

Runs standard IOR workloads with pario's `ior` binary and the equivalent fio
jobs in the same run, alternating the two tools round by round (pario first in
even rounds, fio first in odd ones), and prints one table with the median,
minimum and maximum of each figure and the ratio pario/fio.

Workloads (select with --workloads, default: bw,iops,dummy,mem):

  bw       ior -t 1m -b 256m -s 4 -F -e   vs  fio --bs=1m --size=1g, one job
           per task, --ioengine=psync (--fsync_on_close=1 for writes, as -e),
           in three modes:
             write/fresh      the files do not exist before the timed write:
                              ior's default (it removes old files first, and
                              its files after the run); fio --fallocate=none,
                              files deleted after every fio round
             write/overwrite  the files exist, fully written: ior -E -k; fio
                              on files at full size (so it lays nothing out)
             read             read of existing, fully written files:
                              ior -r -k; fio --rw=read
           Both tools use the same files (fio gets ior's names, one job per
           file), so they touch the same memory; --separate-files gives fio
           its own files (--directory, --numjobs) instead.
  iops     ior -t 4k -b 64m -F            vs  fio --bs=4k --size=64m, same modes
           (the IOPS columns: pario's IOPS, fio's iops)
  dummy    ior -a DUMMY -t 8 -b 64m -w with 1 and with --tasks tasks: transfers
           per second per task = (block / 8) / wr/rd time (no fio counterpart)
  mem      peak RSS (/usr/bin/time -v) of ior -t 1m|16m -b 64m -w -r with 1, 2
           and 4 tasks; the targets: 1 task <= 8 MiB + one transfer buffer,
           and each extra task (median over 1 task) <= one transfer buffer
  syscalls strace -f -y of one 1m and one 4k write and read per tool: the
           pwrite64/pread64 calls on the test files (one per transfer
           expected), all calls on the files, all calls. Only when asked
           (--workloads all or ...,syscalls).

pario against pario (only when asked; printed as a second table, "A" against
"B", alternating A and B round by round like pario and fio):

  mpi      the MPI engine against the local one, the same command:
           mpirun -n TASKS ior (MPI build, --mpi-ior) against PARIO_TASKS=TASKS
           ior (default build): -t 1m -b 256m -s 4 -F -e (write and read
           MiB/s) and -t 4k -b 64m -F (write and read IOPS); target: MPI
           equals local within noise, checked as MPI/local >= 0.95
  mpiio    mpirun -n TASKS ior -a MPIIO -t 1m -b 256m -F against -a POSIX
           (both MPI build): write and read MiB/s, target MPIIO >= 0.95 x POSIX
  fixedcost  wall time of the whole command mpirun -n TASKS ior -a DUMMY -t 1m
           -b 1m against mpirun -n TASKS true (and, when mpicc is there, a C
           program that only calls MPI_Init, MPI_Barrier and MPI_Finalize),
           --fixedcost-runs runs each, rotating; target: ior - true <= 0.2 s.
           With Open MPI (and OMPI_MCA_pml not set) the same commands also
           run with OMPI_MCA_pml=ob1, which skips UCX's start-up.
  latency  per-transfer latency recording on (the default) against off
           (-O recordLatency=0): PARIO_TASKS=TASKS ior -t 4k -b 64m -F write
           and read IOPS (target on/off >= 0.98), and ior -a DUMMY -t 8
           -b 256m -w transfers per second per task with 1 and TASKS tasks
           (target on/off >= 0.8)
  residency  the page-cache residency measurement of a 10 GiB file: dd writes
           it (bs=4M count=2560) in the work directory, the residency example
           (target/release/examples/residency, next to --ior) measures it
           max(3, --rounds) times, the file is removed (also on failure);
           target < 0.1 s

Every measurement: --warmup untimed rounds of each tool, then --rounds
rounds alternating the tools (pario first in even rounds, fio first in odd
ones). The table gives the median [min-max] of each tool, the ratio of the
medians, and the range of the per-round ratios. pario's figure is the one in
its Results table (IOR's definition: all bytes over the span from the first
task's open to the last task's close); timed pario runs also get
-O saveRankPerformanceDetailsCSV=FILE, from which the column "pario, fio's
timing" recomputes pario's figure as fio computes its own (all bytes over the
longest single task's open-to-close time). The last column is the share of
the CPUs that other processes used (and the hypervisor stole) meanwhile: on a
shared machine, see --wait-idle, --nice and --fio-option=--thread.

Exit status: 0 when every measurement ran (1 on a failure, 130 when
interrupted); with --check, 2 when a figure misses its target.

Examples:
  scripts/bench.py                        # build, then the defaults, 5 rounds
  scripts/bench.py --quick                # 3 rounds, 256 MiB per task for bw
  scripts/bench.py --no-build --workloads bw,iops --rounds 15 --json out.json
  scripts/bench.py --workloads mpi,mpiio,fixedcost,latency --rounds 15

Everything is written under a fresh temporary directory inside --dir (default
/dev/shm), which is removed on exit, also on failure or interruption.
"""

import argparse
import csv
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20
KIB = 1 << 10
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL_WORKLOADS = ["bw", "iops", "dummy", "mem"]
OPTIONAL_WORKLOADS = ["syscalls", "mpi", "mpiio", "fixedcost", "latency", "residency"]
MPI_WORKLOADS = ["mpi", "mpiio", "fixedcost"]

# Targets from the project's issue.
TARGET_BW_RATIO = 0.97
TARGET_IOPS_RATIO = 0.95
TARGET_DUMMY_PER_TASK = 30e6
MEM_BASE_KIB = 8 * 1024  # 8 MiB + one transfer buffer per task
TARGET_MPI_RATIO = 0.95  # "MPI equals local within noise"
TARGET_MPIIO_RATIO = 0.95
TARGET_FIXED_COST_S = 0.2
TARGET_LATENCY_IOPS_RATIO = 0.98
TARGET_LATENCY_DUMMY_RATIO = 0.8
TARGET_RESIDENCY_S = 0.1
RESIDENCY_FILE = 10 << 30
# A round is quiet when other processes used less than this share of the CPUs.
QUIET = 0.10


class BenchError(Exception):
    pass


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_size(text):
    m = re.fullmatch(r"(\d+)([kmgKMG]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 64m, 1g)")
    n = int(m.group(1))
    return n * {"": 1, "k": KIB, "m": MIB, "g": 1 << 30}[m.group(2).lower()]


def size_str(n):
    for unit, f in (("g", 1 << 30), ("m", MIB), ("k", KIB)):
        if n % f == 0:
            return f"{n // f}{unit}"
    return str(n)


def run(cmd, env=None, cwd=None, what=None):
    """Runs a command, returns (stdout, stderr); raises BenchError on failure."""
    full_env = dict(os.environ)
    for k, v in (env or {}).items():
        if v is None:
            full_env.pop(k, None)  # None: unset
        else:
            full_env[k] = v
    p = subprocess.Popen(cmd, env=full_env, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = p.communicate()
    except BaseException:
        # Interrupted: ask the child to stop first. fio's job processes live in
        # sessions of their own; fio stops them on SIGTERM, not on SIGKILL.
        p.terminate()
        try:
            p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
        raise
    if p.returncode != 0:
        raise BenchError(
            f"{what or cmd[0]} failed (exit {p.returncode}): {' '.join(cmd)}\n"
            f"--- stdout ---\n{stdout[-3000:]}\n--- stderr ---\n{stderr[-3000:]}"
        )
    return stdout, stderr


# ---------------------------------------------------------------- parsing ---

RESULT_FIELDS = [
    "access", "bw", "iops", "latency", "block_kib", "xfer_kib",
    "open", "wrrd", "close", "total", "iter",
]


def parse_ior(text):
    """The rows of pario's text Results table: {access: [row, ...]}."""
    rows = {}
    in_results = False
    for line in text.splitlines():
        if line.startswith("Results:"):
            in_results = True
            continue
        if in_results and (line.startswith("Max ") or line.startswith("Summary of all tests")):
            in_results = False
            continue
        if not in_results:
            continue
        fields = line.split()
        if len(fields) == len(RESULT_FIELDS) and fields[0] in ("write", "read"):
            row = {"access": fields[0]}
            for name, value in zip(RESULT_FIELDS[1:], fields[1:]):
                row[name] = float(value)
            rows.setdefault(fields[0], []).append(row)
    if not rows:
        raise BenchError("no write/read row in pario's Results table:\n" + text[-3000:])
    return rows


def per_task_figure(csv_path, access, metric, tasks, expected_bytes):
    """pario's figure computed as fio computes its group figure: all bytes
    (or transfers) over the longest task's own open-to-close time, rather
    than over the span from the first task's open to the last one's close."""
    with open(csv_path) as f:
        rows = [r for r in csv.DictReader(f) if r["access"] == access]
    if len(rows) != tasks:
        raise BenchError(f"{csv_path}: expected {tasks} {access} rows, got {len(rows)}")
    longest = max(float(r["close_end"]) - float(r["open_start"]) for r in rows)
    moved = sum(int(r["bytes"]) for r in rows)
    if moved != expected_bytes:
        raise BenchError(f"pario {access} moved {moved} bytes, expected {expected_bytes}")
    if metric == "bw":
        return moved / MIB / longest
    return sum(int(r["transfers"]) for r in rows) / longest


def parse_fio(text, ddir):
    """fio's --output-format=json with --group_reporting: the ddir stats."""
    start = text.find("{")
    if start < 0:
        raise BenchError("no JSON in fio's output:\n" + text[-3000:])
    data = json.loads(text[start:])
    job = data["jobs"][0]
    if job.get("error"):
        raise BenchError(f"fio job error {job['error']}")
    s = job[ddir]
    return {
        "bw": s["bw_bytes"] / MIB,
        "iops": s["iops"],
        "runtime_ms": s["runtime"],
        "io_bytes": s["io_bytes"],
        "total_ios": s["total_ios"],
    }


# ------------------------------------------------------------------ stats ---

def summary(values):
    return {
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "values": values,
    }


def fmt(v, kind):
    if v is None:
        return "-"
    if kind == "bw":
        return f"{v:.0f}"
    if kind == "iops":
        return f"{v / 1e3:.0f}k"
    if kind == "rate":
        return f"{v / 1e6:.1f}M"
    if kind == "kib":
        return f"{v / 1024:.2f} MiB"
    if kind == "s":
        return f"{v:.4f} s"
    return f"{v:g}"


def fmt_stat(s, kind):
    if s is None:
        return "-"
    return f"{fmt(s['median'], kind)} [{fmt(s['min'], kind)}-{fmt(s['max'], kind)}]"


# ------------------------------------------------------------------ noise ---

class CpuMeter:
    """CPU time the rest of the machine used while we measured: busy time
    from /proc/stat less our own and our children's, and the steal time."""

    def __init__(self):
        self.start = self._snapshot()

    @staticmethod
    def _snapshot():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        tick = os.sysconf("SC_CLK_TCK")
        user, nice, system, idle, iowait, irq, softirq, steal = (v + [0] * 8)[:8]
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return {
            "wall": time.monotonic(),
            "busy": (user + nice + system + irq + softirq) / tick,
            "steal": steal / tick,
            "ours": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
        }

    def stop(self):
        end = self._snapshot()
        d = {k: end[k] - self.start[k] for k in end}
        capacity = d["wall"] * (os.cpu_count() or 1)
        if capacity <= 0:
            return {"others": 0.0, "steal": 0.0}
        return {
            "others": max(0.0, d["busy"] - d["ours"]) / capacity,
            "steal": d["steal"] / capacity,
        }


def wait_idle(limit, threshold=None):
    """Waits (up to `limit` seconds) until the rest of the machine has used
    less than `threshold` of the CPUs over one second. Returns the seconds
    waited and the last share seen."""
    threshold = QUIET if threshold is None else threshold
    waited, share = 0.0, 0.0
    while True:
        meter = CpuMeter()
        time.sleep(1.0)
        share = meter.stop()["others"]
        waited += 1.0
        if share < threshold or waited >= limit:
            return waited, share


# ------------------------------------------------------------------ bench ---

class Bench:
    def __init__(self, args, workdir):
        self.args = args
        self.work = workdir
        self.ior = args.ior
        self.tasks = args.tasks
        self.rows = []  # the table
        self.commands = []  # (label, command line) as run

    # -- helpers --------------------------------------------------------------

    def settle(self, what):
        """With --wait-idle, waits for the other processes to calm down."""
        if self.args.wait_idle <= 0:
            return
        waited, share = wait_idle(self.args.wait_idle)
        if share >= QUIET:
            log(f"[{what}] machine still busy after {waited:.0f} s "
                f"(others {share * 100:.0f}%); measuring anyway")

    def note_cmd(self, label, cmd, env=None):
        prefix = " ".join(f"{k}={v}" for k, v in (env or {}).items() if v is not None)
        line = (prefix + " " if prefix else "") + " ".join(cmd)
        if (label, line) not in self.commands:
            self.commands.append((label, line))

    def pario(self, args, tasks=None, label=None):
        env = {"PARIO_TASKS": str(tasks or self.tasks)}
        cmd = [self.ior] + args
        if label:
            self.note_cmd(label, cmd, env)
        out, _ = run(cmd, env=env, cwd=self.work, what="pario ior")
        return parse_ior(out)

    def fio(self, files, rw, bs, size, extra, label=None):
        """fio, psync, one job per task with `--group_reporting`. `files` is
        either a directory (fio names one file per job in it) or the list of
        the jobs' files."""
        cmd = [
            "fio", f"--rw={rw}", f"--bs={size_str(bs)}", f"--size={size_str(size)}",
            "--ioengine=psync", "--group_reporting", "--output-format=json",
        ] + extra + self.args.fio_option
        if isinstance(files, str):
            cmd += ["--name=bench", f"--directory={files}", f"--numjobs={self.tasks}"]
        else:
            # Options before the first --name are global; one job per file.
            for i, f in enumerate(files):
                cmd += [f"--name=bench{i}", f"--filename={f}"]
        if label:
            self.note_cmd(label, cmd)
        out, _ = run(cmd, cwd=self.work, what="fio")
        return parse_fio(out, "write" if rw == "write" else "read")

    @staticmethod
    def files_in(directory):
        return sorted(
            os.path.join(directory, f) for f in os.listdir(directory)
            if os.path.isfile(os.path.join(directory, f))
        )

    def expect_files(self, directory, size, what):
        """The tool left exactly one fully sized file per task; their inodes."""
        files = self.files_in(directory)
        sizes = [os.stat(f).st_size for f in files]
        if len(files) != self.tasks or any(s != size for s in sizes):
            raise BenchError(
                f"{what}: expected {self.tasks} files of {size} bytes in {directory}, "
                f"found {list(zip(files, sizes))}"
            )
        return {f: os.stat(f).st_ino for f in files}

    def clear(self, directory):
        if os.path.exists(directory):
            shutil.rmtree(directory)
        os.makedirs(directory)

    # -- bandwidth / IOPS against fio -----------------------------------------

    def vs_fio(self, name, xfer, block, segments, fsync, metric, target):
        """One workload in the three modes; appends table rows.

        By default fio works on the very files pario uses (ior's names, one
        fio job per file), so both tools touch the same memory pages: on this
        kind of VM, which physical pages a file got changes its speed by up to
        20 %. With --separate-files each tool has its own files."""
        rounds = self.args.rounds
        per_task = block * segments
        ior_dir = os.path.join(self.work, name, "ior")
        fio_dir = os.path.join(self.work, name, "fio") if self.args.separate_files else ior_dir
        ior_file = os.path.join(ior_dir, "testFile")
        ior_base = ["-t", size_str(xfer), "-b", size_str(block)]
        if segments != 1:
            ior_base += ["-s", str(segments)]
        ior_base += ["-F"] + (["-e"] if fsync else []) + ["-o", ior_file]
        fio_fsync = ["--fsync_on_close=1"] if fsync else []
        if self.args.separate_files:
            fio_files = fio_dir
        else:
            fio_files = [f"{ior_file}.{rank:08d}" for rank in range(self.tasks)]
        std = f"ior {' '.join(ior_base[:-2])}"
        expected_bytes = per_task * self.tasks
        modes = [m for m in ("write/fresh", "write/overwrite", "read") if m in self.args.modes]
        results = {m: {"pario": [], "fio": [], "pario_per_task": []} for m in modes}

        def check_fio(r, what):
            if r["io_bytes"] != expected_bytes:
                raise BenchError(f"fio {what} moved {r['io_bytes']} bytes, expected {expected_bytes}")

        # Timed pario runs also save per-task times, to compute pario's figure
        # the way fio computes its own (see per_task_figure).
        rank_csv = os.path.join(self.work, "ranks.csv")
        timed = ["-O", f"saveRankPerformanceDetailsCSV={rank_csv}"]

        def pario_value(rows, access):
            if len(rows.get(access, [])) != 1:
                raise BenchError(f"expected one {access} row from pario, got {rows}")
            other = per_task_figure(rank_csv, access, metric, self.tasks, expected_bytes)
            os.remove(rank_csv)
            return rows[access][0][metric], other

        for mode in modes:
            log(f"[{name}] {mode}: {rounds} rounds")
            self.clear(ior_dir)
            self.clear(fio_dir)
            if mode == "write/fresh":
                def run_pario():
                    if self.files_in(ior_dir):
                        raise BenchError("files exist before a fresh write")
                    rows = self.pario(["-w"] + ior_base + timed, label=f"{name} write/fresh (pario)")
                    if self.files_in(ior_dir):
                        raise BenchError("pario left files behind without -k")
                    return pario_value(rows, "write")

                def run_fio():
                    if self.files_in(fio_dir):
                        raise BenchError("files exist before a fresh write")
                    r = self.fio(fio_files, "write", xfer, per_task,
                                 ["--fallocate=none"] + fio_fsync,
                                 label=f"{name} write/fresh (fio; files deleted after each round)")
                    self.expect_files(fio_dir, per_task, "fio write")
                    check_fio(r, "write")
                    self.clear(fio_dir)
                    return r[metric]
            else:
                # The files are written once, untimed: by pario, and by fio
                # too when it has files of its own.
                self.pario(["-w", "-k"] + ior_base, label=f"{name} setup (pario, untimed)")
                ior_inodes = self.expect_files(ior_dir, per_task, "pario -w -k")
                if self.args.separate_files:
                    r = self.fio(fio_files, "write", xfer, per_task, fio_fsync,
                                 label=f"{name} setup (fio, untimed)")
                    check_fio(r, "setup write")
                fio_inodes = self.expect_files(fio_dir, per_task, "setup write")
                if mode == "write/overwrite":
                    def run_pario():
                        rows = self.pario(["-w", "-E", "-k"] + ior_base + timed,
                                          label=f"{name} write/overwrite (pario)")
                        if self.expect_files(ior_dir, per_task, "pario -E -k") != ior_inodes:
                            raise BenchError("pario -E replaced the files instead of overwriting")
                        return pario_value(rows, "write")

                    def run_fio():
                        r = self.fio(fio_files, "write", xfer, per_task, fio_fsync,
                                     label=f"{name} write/overwrite (fio; files exist at full size)")
                        check_fio(r, "overwrite")
                        if self.expect_files(fio_dir, per_task, "fio overwrite") != fio_inodes:
                            raise BenchError("fio replaced the files instead of overwriting")
                        return r[metric]
                else:
                    def run_pario():
                        rows = self.pario(["-r", "-k"] + ior_base + timed, label=f"{name} read (pario)")
                        return pario_value(rows, "read")

                    def run_fio():
                        r = self.fio(fio_files, "read", xfer, per_task, [],
                                     label=f"{name} read (fio)")
                        check_fio(r, "read")
                        if self.expect_files(fio_dir, per_task, "fio read") != fio_inodes:
                            raise BenchError("fio re-laid out the files before reading")
                        return r[metric]

            # Untimed warm-up rounds: on a VM with free page reporting, memory
            # that sat free for a few seconds is slow to touch again.
            self.settle(f"{name} {mode}")
            meter = CpuMeter()
            for _ in range(self.args.warmup):
                run_pario()
                run_fio()
            round_others = []
            for i in range(rounds):
                round_meter = CpuMeter()
                order = [("pario", run_pario), ("fio", run_fio)]
                if i % 2:
                    order.reverse()
                for tool, fn in order:
                    if tool == "pario":
                        value, per_task_value = fn()
                        results[mode]["pario"].append(value)
                        results[mode]["pario_per_task"].append(per_task_value)
                    else:
                        results[mode]["fio"].append(fn())
                round_others.append(round_meter.stop()["others"])
            noise = meter.stop()
            noise["per_round"] = round_others
            shutil.rmtree(os.path.join(self.work, name))

            p, f = results[mode]["pario"], results[mode]["fio"]
            ps, fs = summary(p), summary(f)
            ratio = ps["median"] / fs["median"]
            paired = [a / b for a, b in zip(p, f)]
            pt = summary(results[mode]["pario_per_task"])
            quiet = [r for r, o in zip(paired, round_others) if o < QUIET]
            unit = "MiB/s" if metric == "bw" else "IOPS"
            self.rows.append({
                "workload": std, "mode": mode, "metric": f"{unit}",
                "kind": metric, "pario": ps, "fio": fs, "ratio": ratio,
                "paired": summary(paired),
                "target": f">= {target:.2f} x fio",
                "ok": ratio >= target,
                "noise": noise,
                "quiet": summary(quiet) if quiet else None,
                "pario_per_task": pt,
                "ratio_per_task": pt["median"] / fs["median"],
            })

    def bw(self):
        segments = 1 if self.args.quick else 4
        self.vs_fio("bw", MIB, 256 * MIB, segments, True, "bw", TARGET_BW_RATIO)

    def iops(self):
        self.vs_fio("iops", 4 * KIB, self.args.iops_block, 1, False, "iops", TARGET_IOPS_RATIO)

    # -- DUMMY -----------------------------------------------------------------

    def dummy(self):
        block = 64 * MIB
        for tasks in sorted({1, self.tasks}):
            log(f"[dummy] {tasks} task(s): {self.args.rounds} rounds")
            args = ["-a", "DUMMY", "-t", "8", "-b", size_str(block), "-w",
                    "-o", os.path.join(self.work, "dummy")]
            per_task = []
            self.settle(f"dummy {tasks}")
            meter = CpuMeter()
            for _ in range(self.args.warmup):
                self.pario(args, tasks=tasks)
            for _ in range(self.args.rounds):
                rows = self.pario(args, tasks=tasks, label=f"dummy {tasks} task(s)")
                row = rows["write"][0]
                # (block / 8) transfers per task over the wr/rd span.
                per_task.append((block / 8) / row["wrrd"])
            s = summary(per_task)
            self.rows.append({
                "workload": f"ior -a DUMMY -t 8 -b 64m -w ({tasks} task{'s' if tasks > 1 else ''})",
                "mode": "-", "metric": "transfers/s/task", "kind": "rate",
                "pario": s, "fio": None, "ratio": None, "paired": None,
                "target": f">= {TARGET_DUMMY_PER_TASK / 1e6:.0f}M",
                "ok": s["median"] >= TARGET_DUMMY_PER_TASK,
                "noise": meter.stop(),
            })

    # -- memory ----------------------------------------------------------------

    def mem(self):
        """Peak RSS. The target: 1 task <= 8 MiB + one transfer buffer, and
        each extra task adds at most one transfer buffer."""
        time_bin = "/usr/bin/time"
        if not os.access(time_bin, os.X_OK):
            raise BenchError("mem: /usr/bin/time is missing (apt-get install time)")
        rounds = max(1, min(self.args.rounds, 3))
        d = os.path.join(self.work, "mem")
        self.clear(d)
        for xfer in (MIB, 16 * MIB):
            one_task = None
            for tasks in (1, 2, 4):
                log(f"[mem] -t {size_str(xfer)}, {tasks} task(s): {rounds} rounds")
                cmd = [time_bin, "-v", self.ior, "-t", size_str(xfer), "-b", "64m",
                       "-w", "-r", "-o", os.path.join(d, "testFile")]
                env = {"PARIO_TASKS": str(tasks)}
                self.note_cmd(f"mem -t {size_str(xfer)} {tasks} task(s)", cmd, env)
                rss = []
                for _ in range(rounds):
                    out, err = run(cmd, env=env, cwd=self.work, what="pario ior (time -v)")
                    parse_ior(out)
                    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
                    if not m:
                        raise BenchError("no max RSS in /usr/bin/time -v output:\n" + err)
                    rss.append(int(m.group(1)))
                s = summary(rss)
                xfer_kib = xfer // KIB
                if tasks == 1:
                    one_task = s["median"]
                    limit = MEM_BASE_KIB + xfer_kib
                    target = f"<= {limit / 1024:.0f} MiB"
                    ok = s["max"] <= limit
                    extra = ""
                else:
                    per_task = (s["median"] - one_task) / (tasks - 1)
                    target = f"+<= {xfer_kib / 1024:.0f} MiB/task"
                    ok = per_task <= xfer_kib
                    extra = f" (+{per_task / 1024:.2f} MiB/task)"
                self.rows.append({
                    "workload": f"ior -t {size_str(xfer)} -b 64m -w -r ({tasks} task{'s' if tasks > 1 else ''})",
                    "mode": "-", "metric": "max RSS", "kind": "kib",
                    "pario": s, "fio": None, "ratio": None, "paired": None,
                    "pario_text": fmt_stat(s, "kib") + extra,
                    "target": target, "ok": ok,
                })

    # -- syscalls ----------------------------------------------------------------

    def syscalls(self):
        """One traced run per tool and access: calls on the test files."""
        if not shutil.which("strace"):
            raise BenchError("syscalls: strace is missing (apt-get install strace)")
        cases = [("1m", MIB, 256 * MIB, True), ("4k", 4 * KIB, 64 * MIB, False)]
        d = os.path.join(self.work, "strace")
        for name, xfer, block, fsync in cases:
            for access in ("write", "read"):
                log(f"[syscalls] {name} {access}")
                self.clear(d)
                base = ["-t", size_str(xfer), "-b", size_str(block), "-F"] + \
                    (["-e"] if fsync else []) + ["-o", os.path.join(d, "testFile")]
                fio_args = [
                    "fio", "--name=bench", f"--directory={d}", f"--bs={size_str(xfer)}",
                    f"--size={size_str(block)}", f"--numjobs={self.tasks}",
                    "--ioengine=psync", "--group_reporting", "--output-format=json",
                ] + (["--fsync_on_close=1"] if fsync else [])
                env = {"PARIO_TASKS": str(self.tasks)}
                if access == "read":
                    run([self.ior, "-w", "-k"] + base, env=env)
                    run(fio_args + ["--rw=write"])
                    p_cmd = [self.ior, "-r", "-k"] + base
                    f_cmd = fio_args + ["--rw=read"]
                else:
                    p_cmd = [self.ior, "-w"] + base
                    f_cmd = fio_args + ["--rw=write", "--fallocate=none"]
                counts = {}
                for tool, cmd in (("pario", p_cmd), ("fio", f_cmd)):
                    trace = os.path.join(self.work, f"strace-{tool}.txt")
                    full = ["strace", "-f", "-y", "-qq", "-o", trace] + cmd
                    self.note_cmd(f"syscalls {name} {access} ({tool})", full,
                                  env if tool == "pario" else None)
                    run(full, env=env, cwd=self.work, what="strace")
                    with open(trace) as f:
                        counts[tool] = count_syscalls(f, d)
                    os.remove(trace)
                transfers = self.tasks * block // xfer
                call = "pwrite64" if access == "write" else "pread64"

                def text(c):
                    return (f"{c['on_files'].get(call, 0)} {call}, "
                            f"{sum(c['on_files'].values())} on files, {c['total']} in all")
                self.rows.append({
                    "workload": f"strace {name} {access}",
                    "mode": "-",
                    "metric": "syscalls",
                    "kind": "raw",
                    "pario_text": text(counts["pario"]),
                    "fio_text": text(counts["fio"]),
                    "pario": None, "fio": None, "ratio": None, "paired": None,
                    "target": f"{call} = {transfers}",
                    "ok": counts["pario"]["on_files"].get(call, 0) == transfers,
                    "counts": counts,
                })
        self.clear(d)

    # -- pario against pario ------------------------------------------------------

    def alternate(self, what, variants, rounds=None, warmup=None):
        """Runs each variant (name, fn) `warmup` times untimed, then `rounds`
        rounds, rotating which goes first (with two: A first in even rounds,
        B first in odd ones). fn() returns {key: value}. Returns the values
        ({name: {key: [value per round]}}), the share of the CPUs other
        processes used in each round, and the noise over the whole
        measurement."""
        rounds = self.args.rounds if rounds is None else rounds
        warmup = self.args.warmup if warmup is None else warmup
        log(f"[{what}] {rounds} rounds")
        self.settle(what)
        meter = CpuMeter()
        for _ in range(warmup):
            for _, fn in variants:
                fn()
        values = {name: {} for name, _ in variants}
        round_others = []
        for i in range(rounds):
            round_meter = CpuMeter()
            k = i % len(variants)
            for name, fn in variants[k:] + variants[:k]:
                for key, v in fn().items():
                    values[name].setdefault(key, []).append(v)
            round_others.append(round_meter.stop()["others"])
        noise = meter.stop()
        noise["per_round"] = round_others
        return values, round_others, noise

    def ab_row(self, workload, mode, metric, kind, a, av, b, bv, round_others, noise,
               target=None, diff=False):
        """A row of the pario-against-pario table: A against B, as the ratio
        of the medians (A/B >= target) or, with diff, their difference
        (A - B <= target); target None: for information."""
        sa, sb = summary(av), summary(bv)
        if diff:
            value = sa["median"] - sb["median"]
            paired = [x - y for x, y in zip(av, bv)]
            ok = target is None or value <= target
            target_text = "-" if target is None else f"<= {target:.2f} s"
        else:
            value = sa["median"] / sb["median"]
            paired = [x / y for x, y in zip(av, bv)]
            ok = target is None or value >= target
            target_text = "-" if target is None else f">= {target:.2f}"
        quiet = [p for p, o in zip(paired, round_others) if o < QUIET]
        self.rows.append({
            "table": "ab", "workload": workload, "mode": mode, "metric": metric,
            "kind": kind, "a": a, "b": b, "a_stats": sa, "b_stats": sb,
            "compare": "A - B" if diff else "A/B", "value": value,
            "ratio": None if diff else value, "paired": summary(paired),
            "quiet": summary(quiet) if quiet else None,
            "target": target_text, "ok": ok, "noise": noise,
        })

    def mpi_env(self):
        """The environment of an mpirun: no PARIO_TASKS (one task per rank),
        and Open MPI's consent to run as root when we are root."""
        env = {"PARIO_TASKS": None}
        if os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
        return env

    def mpirun(self, cmd, tasks=None):
        return ["mpirun", "-n", str(tasks or self.tasks), "--oversubscribe"] + \
            self.args.mpirun_option + cmd

    def need_mpi(self):
        if not shutil.which("mpirun"):
            raise BenchError("mpirun is missing (apt-get install openmpi-bin)")
        if not os.access(self.args.mpi_ior, os.X_OK):
            raise BenchError(f"no MPI build of ior at {self.args.mpi_ior} (cargo build --release "
                             "--features mpi --target-dir target-mpi, or --mpi-ior PATH)")

    def ior_run(self, cmd, env, label, tasks):
        """Runs one ior command (local or under mpirun), checks that it ran
        `tasks` tasks, returns its Results rows."""
        self.note_cmd(label, cmd, env)
        out, _ = run(cmd, env=env, cwd=self.work, what=label)
        m = re.search(r"^tasks\s*:\s*(\d+)", out, re.M)
        if not m or int(m.group(1)) != tasks:
            raise BenchError(f"{label}: expected {tasks} tasks, the header says "
                             f"{m.group(1) if m else 'nothing'}:\n{out[-3000:]}")
        return parse_ior(out)

    @staticmethod
    def one_each(rows, metric, what):
        """{"write": figure, "read": figure} from a -w -r run's rows."""
        if len(rows.get("write", [])) != 1 or len(rows.get("read", [])) != 1:
            raise BenchError(f"{what}: expected one write and one read row, got {rows}")
        return {"write": rows["write"][0][metric], "read": rows["read"][0][metric]}

    def mpi(self):
        """The MPI engine (mpirun -n N, MPI build) against the local engine
        (PARIO_TASKS=N, default build), the same write-and-read command."""
        self.need_mpi()
        d = os.path.join(self.work, "mpi")
        segments = 1 if self.args.quick else 4
        cases = [
            (["-t", "1m", "-b", "256m", "-s", str(segments), "-F", "-e"], "bw", "MiB/s"),
            (["-t", "4k", "-b", size_str(self.args.iops_block), "-F"], "iops", "IOPS"),
        ]
        n = self.tasks
        for shape, metric, unit in cases:
            std = "ior " + " ".join(shape)
            args = shape + ["-o", os.path.join(d, "testFile")]
            self.clear(d)

            def run_mpi():
                rows = self.ior_run(self.mpirun([self.args.mpi_ior] + args), self.mpi_env(),
                                    f"mpi {std} (mpirun, MPI build)", n)
                if self.files_in(d):
                    raise BenchError("pario left files behind without -k")
                return self.one_each(rows, metric, "mpirun ior")

            def run_local():
                rows = self.ior_run([self.ior] + args, {"PARIO_TASKS": str(n)},
                                    f"mpi {std} (local engine)", n)
                if self.files_in(d):
                    raise BenchError("pario left files behind without -k")
                return self.one_each(rows, metric, "local ior")

            a, b = f"mpirun -n {n}", f"PARIO_TASKS={n}"
            values, others, noise = self.alternate(
                f"mpi {std}", [(a, run_mpi), (b, run_local)])
            for access in ("write", "read"):
                self.ab_row(std, access, unit, metric, a, values[a][access],
                            b, values[b][access], others, noise, TARGET_MPI_RATIO)
        shutil.rmtree(d)

    def mpiio(self):
        """-a MPIIO against -a POSIX, both under mpirun (MPI build)."""
        self.need_mpi()
        d = os.path.join(self.work, "mpiio")
        self.clear(d)
        shape = ["-t", "1m", "-b", "256m", "-F"]
        std = "mpirun ior " + " ".join(shape)

        def variant(api):
            cmd = self.mpirun([self.args.mpi_ior, "-a", api] + shape +
                              ["-o", os.path.join(d, "testFile")])

            def fn():
                rows = self.ior_run(cmd, self.mpi_env(), f"mpiio -a {api}", self.tasks)
                if self.files_in(d):
                    raise BenchError("pario left files behind without -k")
                return self.one_each(rows, "bw", f"-a {api}")
            return (f"-a {api}", fn)

        values, others, noise = self.alternate("mpiio", [variant("MPIIO"), variant("POSIX")])
        for access in ("write", "read"):
            self.ab_row(std, access, "MiB/s", "bw", "-a MPIIO", values["-a MPIIO"][access],
                        "-a POSIX", values["-a POSIX"][access], others, noise,
                        TARGET_MPIIO_RATIO)
        shutil.rmtree(d)

    def fixedcost(self):
        """Wall time of whole mpirun commands: ior -a DUMMY -t 1m -b 1m
        against true (and against a C program that only starts and stops
        MPI, when mpicc is there)."""
        self.need_mpi()
        d = os.path.join(self.work, "fixedcost")
        self.clear(d)
        programs = [("ior", [self.args.mpi_ior, "-a", "DUMMY", "-t", "1m", "-b", "1m",
                             "-o", os.path.join(d, "dummy")])]
        if shutil.which("mpicc"):
            src = os.path.join(d, "mpi_init.c")
            with open(src, "w") as f:
                f.write("#include <mpi.h>\n"
                        "int main(int argc, char **argv) {\n"
                        "    MPI_Init(&argc, &argv);\n"
                        "    MPI_Barrier(MPI_COMM_WORLD);\n"
                        "    MPI_Finalize();\n"
                        "    return 0;\n"
                        "}\n")
            run(["mpicc", "-O2", "-o", os.path.join(d, "mpi_init"), src], what="mpicc")
            programs.append(("MPI_Init+Finalize", [os.path.join(d, "mpi_init")]))
        else:
            log("[fixedcost] no mpicc: the minimal MPI program is left out")
        programs.append(("true", ["true"]))
        settings = [("", {})]
        version, _ = run(["mpirun", "--version"], what="mpirun --version")
        if "Open MPI" in version and "OMPI_MCA_pml" not in os.environ:
            settings.append(("OMPI_MCA_pml=ob1 ", {"OMPI_MCA_pml": "ob1"}))
        variants = []
        for prefix, extra in settings:
            for name, prog in programs:
                env = dict(self.mpi_env(), **extra)
                cmd = self.mpirun(prog)

                def fn(cmd=cmd, env=env, label=f"fixedcost {prefix}{name}"):
                    self.note_cmd(label, cmd, env)
                    start = time.monotonic()
                    run(cmd, env=env, cwd=self.work, what=label)
                    return {"wall": time.monotonic() - start}
                variants.append((prefix + name, fn))
        values, others, noise = self.alternate(
            "fixedcost", variants, rounds=self.args.fixedcost_runs,
            warmup=max(self.args.warmup, 3))
        n = self.tasks
        for prefix, _ in settings:
            w = {name: values[prefix + name]["wall"] for name, _ in programs}
            what = f"{prefix}mpirun -n {n} ... (wall time)"
            self.ab_row(what, "ior - true", "s", "s", "ior -a DUMMY -t 1m -b 1m", w["ior"],
                        "true", w["true"], others, noise, TARGET_FIXED_COST_S, diff=True)
            if "MPI_Init+Finalize" in w:
                self.ab_row(what, "MPI start-up", "s", "s", "MPI_Init+Finalize",
                            w["MPI_Init+Finalize"], "true", w["true"], others, noise, diff=True)
                self.ab_row(what, "pario's own", "s", "s", "ior -a DUMMY -t 1m -b 1m", w["ior"],
                            "MPI_Init+Finalize", w["MPI_Init+Finalize"], others, noise, diff=True)
        shutil.rmtree(d)

    def latency(self):
        """Per-transfer latency recording on (the default) against off."""
        d = os.path.join(self.work, "latency")
        self.clear(d)
        off = ["-O", "recordLatency=0"]
        n = self.tasks
        shape = ["-t", "4k", "-b", size_str(self.args.iops_block), "-F"]
        std = "ior " + " ".join(shape)

        def iops(extra, name):
            def fn():
                rows = self.pario(shape + extra + ["-o", os.path.join(d, "testFile")],
                                  tasks=n, label=f"latency {std} ({name})")
                if self.files_in(d):
                    raise BenchError("pario left files behind without -k")
                return self.one_each(rows, "iops", "4k")
            return (name, fn)

        values, others, noise = self.alternate(
            f"latency {std}", [iops([], "recording on"), iops(off, "recordLatency=0")])
        for access in ("write", "read"):
            self.ab_row(f"PARIO_TASKS={n} {std}", access, "IOPS", "iops",
                        "recording on", values["recording on"][access],
                        "recordLatency=0", values["recordLatency=0"][access],
                        others, noise, TARGET_LATENCY_IOPS_RATIO)

        block = 256 * MIB
        for tasks in sorted({1, n}):
            args = ["-a", "DUMMY", "-t", "8", "-b", size_str(block), "-w",
                    "-o", os.path.join(d, "dummy")]

            def dummy(extra, name, tasks=tasks, args=args):
                def fn():
                    rows = self.pario(args + extra, tasks=tasks,
                                      label=f"latency DUMMY {tasks} task(s) ({name})")
                    # (block / 8) transfers per task over the wr/rd span.
                    return {"rate": (block / 8) / rows["write"][0]["wrrd"]}
                return (name, fn)
            values, others, noise = self.alternate(
                f"latency DUMMY, {tasks} task(s)",
                [dummy([], "recording on"), dummy(off, "recordLatency=0")])
            self.ab_row(f"PARIO_TASKS={tasks} ior -a DUMMY -t 8 -b 256m -w", "write",
                        "transfers/s/task", "rate",
                        "recording on", values["recording on"]["rate"],
                        "recordLatency=0", values["recordLatency=0"]["rate"],
                        others, noise, TARGET_LATENCY_DUMMY_RATIO)
        shutil.rmtree(d)

    def residency(self):
        """The residency example on a 10 GiB file written with dd."""
        binary = os.path.join(os.path.dirname(self.ior), "examples", "residency")
        if not os.access(binary, os.X_OK):
            raise BenchError(f"no residency example at {binary} "
                             "(cargo build --release --example residency)")
        st = os.statvfs(self.work)
        if st.f_bavail * st.f_frsize < RESIDENCY_FILE + (1 << 30):
            raise BenchError(f"residency: under 11 GiB free in {self.work}")
        path = os.path.join(self.work, "residency-10g")
        rounds = max(3, self.args.rounds)
        seconds, lines = [], []
        try:
            dd = ["dd", "if=/dev/zero", f"of={path}", "bs=4M", "count=2560", "status=none"]
            self.note_cmd("residency: write the file (untimed)", dd)
            log("[residency] writing 10 GiB with dd")
            run(dd, what="dd")
            if os.stat(path).st_size != RESIDENCY_FILE:
                raise BenchError("dd wrote a file of the wrong size")
            meter = CpuMeter()
            log(f"[residency] {rounds} rounds")
            for _ in range(rounds):
                self.note_cmd("residency", [binary, path])
                out, _ = run([binary, path], what="residency")
                m = re.search(r" in ([0-9.]+) s", out)
                if not m:
                    raise BenchError("no time in the residency example's output:\n" + out)
                seconds.append(float(m.group(1)))
                lines.append(out.strip())
            noise = meter.stop()
        finally:
            if os.path.exists(path):
                os.remove(path)
        s = summary(seconds)
        self.rows.append({
            "workload": "residency of a 10 GiB file (examples/residency)",
            "mode": "sampled" if "sampled" in lines[-1] else "-",
            "metric": "seconds", "kind": "s",
            "pario": s, "fio": None, "ratio": None, "paired": None,
            "target": f"< {TARGET_RESIDENCY_S} s", "ok": s["median"] < TARGET_RESIDENCY_S,
            "noise": noise, "output": lines,
        })

    # -- output ------------------------------------------------------------------

    def table(self):
        head = ["workload", "mode", "metric", "pario med [min-max]", "fio med [min-max]",
                "pario/fio", "paired ratios [min-max]", "target", "ok",
                "quiet rounds: n, ratio", "pario, fio's timing", "others/steal"]
        lines = []
        for r in self.rows:
            if r.get("table") == "ab":
                continue
            k = r["kind"]
            pario = r.get("pario_text") or fmt_stat(r["pario"], k)
            fio = r.get("fio_text") or fmt_stat(r["fio"], k)
            ratio = "-" if r["ratio"] is None else f"{r['ratio']:.3f}"
            paired = "-" if r["paired"] is None else \
                f"{r['paired']['min']:.2f}-{r['paired']['max']:.2f}"
            noise = r.get("noise")
            noise = "-" if noise is None else \
                f"{noise['others'] * 100:.0f}%/{noise['steal'] * 100:.0f}%"
            pt = r.get("pario_per_task")
            pt = "-" if pt is None else f"{fmt(pt['median'], k)} ({r['ratio_per_task']:.3f})"
            if r["paired"] is None:
                quiet = "-"
            elif r.get("quiet") is None:
                quiet = "0"
            else:
                quiet = f"{len(r['quiet']['values'])}, {r['quiet']['median']:.3f}"
            lines.append([r["workload"], r["mode"], r["metric"], pario, fio, ratio, paired,
                          r["target"], "yes" if r["ok"] else "NO", quiet, pt, noise])
        return markdown_table(head, lines)

    def ab_table(self):
        """The pario-against-pario rows (mpi, mpiio, fixedcost, latency)."""
        head = ["workload", "mode", "metric", "A", "A med [min-max]", "B", "B med [min-max]",
                "A/B or A-B", "paired [min-max]", "target", "ok", "quiet rounds: n, median",
                "others/steal"]
        lines = []
        for r in self.rows:
            if r.get("table") != "ab":
                continue
            k = r["kind"]
            diff = r["compare"] == "A - B"

            def num(v):
                return f"{v:+.4f} s" if diff else f"{v:.3f}"
            noise = r["noise"]
            quiet = "0" if r["quiet"] is None else \
                f"{len(r['quiet']['values'])}, {num(r['quiet']['median'])}"
            lines.append([
                r["workload"], r["mode"], r["metric"], r["a"], fmt_stat(r["a_stats"], k),
                r["b"], fmt_stat(r["b_stats"], k), num(r["value"]),
                f"{num(r['paired']['min'])} to {num(r['paired']['max'])}",
                r["target"], "yes" if r["ok"] else "NO", quiet,
                f"{noise['others'] * 100:.0f}%/{noise['steal'] * 100:.0f}%"])
        return markdown_table(head, lines) if lines else None


def markdown_table(head, lines):
    widths = [max(len(h), *(len(line[i]) for line in lines)) if lines else len(h)
              for i, h in enumerate(head)]

    def row(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [row(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [row(line) for line in lines]
    return "\n".join(out)


def count_syscalls(lines, directory):
    """Counts the calls in `strace -f -y` output: in all, and those whose
    arguments name a file under `directory` (by path or through an fd)."""
    total = {}
    on_files = {}
    start = re.compile(r"^\d+\s+(\w+)\(")
    for line in lines:
        m = start.match(line)
        if not m:
            continue  # "<... resumed>" halves, signals, exits
        name = m.group(1)
        total[name] = total.get(name, 0) + 1
        if directory in line:
            on_files[name] = on_files.get(name, 0) + 1
    return {"total": sum(total.values()), "by_call": total, "on_files": on_files}


def machine_info():
    info = {}
    info["nproc"] = os.cpu_count()
    with open("/proc/meminfo") as f:
        info["mem_total_kib"] = int(f.readline().split()[1])
    info["kernel"] = os.uname().release
    try:
        info["fio"] = subprocess.run(["fio", "--version"], capture_output=True,
                                     text=True).stdout.strip()
    except OSError:
        info["fio"] = None
    cpu = None
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    info["cpu"] = cpu
    return info


def fs_type(path):
    best, kind = "", "?"
    with open("/proc/mounts") as f:
        for line in f:
            parts = line.split()
            mnt = parts[1]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                best, kind = mnt, parts[2]
    return kind


def autogroups_enabled():
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def run_niced(nice):
    """Goes on in a child in a session of its own, at `nice`: with scheduler
    autogroups (one per session), a process's nice value only weighs against
    the processes of its own session, so the new session's autogroup gets the
    nice value too. The parent forwards signals and exits as the child did."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if autogroups_enabled():
            try:
                with open("/proc/self/autogroup", "w") as f:
                    f.write(str(nice))
            except OSError as e:
                sys.exit(f"bench: cannot set the autogroup's nice to {nice}: {e}")
        try:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        except OSError as e:
            sys.exit(f"bench: cannot set nice {nice}: {e}")
        return

    def forward(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, forward)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode")
             else status >> 8)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--rounds", type=int, default=5,
                    help="alternating pario/fio rounds per measurement (default 5)")
    ap.add_argument("--quick", action="store_true",
                    help="3 rounds, and -s 1 (256 MiB per task) instead of -s 4 for bw")
    ap.add_argument("--workloads", default=",".join(ALL_WORKLOADS),
                    help="comma-separated subset of "
                         f"{','.join(ALL_WORKLOADS + OPTIONAL_WORKLOADS)} "
                         f"(default {','.join(ALL_WORKLOADS)}); 'all' adds syscalls")
    ap.add_argument("--modes", default="write/fresh,write/overwrite,read",
                    help="modes of bw and iops (default write/fresh,write/overwrite,read)")
    ap.add_argument("--warmup", type=int, default=1,
                    help="untimed rounds of each tool before each measurement (default 1)")
    ap.add_argument("--separate-files", action="store_true",
                    help="fio uses files of its own instead of pario's (see BENCHMARKS.md)")
    ap.add_argument("--fio-option", action="append", default=[], metavar="OPT",
                    help="extra option for every timed fio run, e.g. "
                         "--fio-option=--gtod_reduce=1 (repeatable)")
    ap.add_argument("--wait-idle", type=float, default=0, metavar="SECONDS",
                    help="before each measurement, wait up to SECONDS for other processes "
                         "to use under 10%% of the CPUs (default 0: do not wait)")
    ap.add_argument("--nice", type=int, default=0, metavar="N",
                    help="measure in a session of its own whose autogroup and processes "
                         "have this nice value, e.g. -15 on a machine shared with builds "
                         "(negative values need root). fio's job processes call setsid() "
                         "and escape it: add --fio-option=--thread (default: unchanged)")
    ap.add_argument("--tasks", type=int, default=2, help="tasks = fio jobs (default 2)")
    ap.add_argument("--iops-block", type=parse_size, default=64 * MIB,
                    help="block (bytes per task) of the 4k workload (default 64m)")
    ap.add_argument("--dir", default="/dev/shm",
                    help="where the temporary work directory goes (default /dev/shm)")
    ap.add_argument("--no-build", action="store_true",
                    help="do not run 'cargo build --release --bins' first")
    ap.add_argument("--ior", default=os.path.join(REPO, "target", "release", "ior"),
                    help="pario's ior binary (default target/release/ior)")
    ap.add_argument("--mpi-ior", default=os.path.join(REPO, "target-mpi", "release", "ior"),
                    help="pario's ior built with --features mpi, for mpi, mpiio and fixedcost "
                         "(default target-mpi/release/ior)")
    ap.add_argument("--mpirun-option", action="append", default=[], metavar="OPT",
                    help="extra option for every mpirun, e.g. --mpirun-option=--bind-to "
                         "--mpirun-option=none (repeatable; mpirun always gets -n TASKS "
                         "--oversubscribe)")
    ap.add_argument("--fixedcost-runs", type=int, default=30, metavar="N",
                    help="timed runs of each command of fixedcost (default 30, after at "
                         "least 3 untimed ones)")
    ap.add_argument("--json", metavar="FILE", help="also write all figures as JSON here")
    ap.add_argument("--check", action="store_true",
                    help="exit with status 2 when a figure misses its target")
    args = ap.parse_args()

    wl = [w.strip() for w in args.workloads.split(",") if w.strip()]
    if wl == ["all"]:
        wl = ALL_WORKLOADS + OPTIONAL_WORKLOADS
    bad = [w for w in wl if w not in ALL_WORKLOADS + OPTIONAL_WORKLOADS]
    if bad:
        ap.error(f"unknown workload(s): {', '.join(bad)}")
    if args.fixedcost_runs < 1:
        ap.error("--fixedcost-runs must be at least 1")
    args.modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    bad = [m for m in args.modes if m not in ("write/fresh", "write/overwrite", "read")]
    if bad:
        ap.error(f"unknown mode(s): {', '.join(bad)}")
    if args.quick and args.rounds == 5:
        args.rounds = 3
    if args.rounds < 1 or args.tasks < 1 or args.warmup < 0:
        ap.error("--rounds and --tasks must be at least 1")
    if args.iops_block % (4 * KIB):
        ap.error("--iops-block must be a multiple of 4k")
    if any(w in wl for w in ("bw", "iops", "syscalls")) and not shutil.which("fio"):
        sys.exit("bench: fio is not installed (apt-get install fio)")

    if not args.no_build:
        log("building: cargo build --release --bins")
        p = subprocess.run(["cargo", "build", "--release", "--bins"], cwd=REPO)
        if p.returncode != 0:
            sys.exit("bench: cargo build failed")
        if any(w in wl for w in MPI_WORKLOADS):
            # A target directory of its own, so target/release stays non-MPI.
            log("building: cargo build --release --bins --features mpi --target-dir target-mpi")
            p = subprocess.run(["cargo", "build", "--release", "--bins", "--features", "mpi",
                                "--target-dir", "target-mpi"], cwd=REPO)
            if p.returncode != 0:
                sys.exit("bench: cargo build --features mpi failed")
        if "residency" in wl:
            log("building: cargo build --release --example residency")
            p = subprocess.run(["cargo", "build", "--release", "--example", "residency"],
                               cwd=REPO)
            if p.returncode != 0:
                sys.exit("bench: cargo build --example residency failed")
    args.ior = os.path.abspath(args.ior)
    args.mpi_ior = os.path.abspath(args.mpi_ior)
    if not os.access(args.ior, os.X_OK):
        sys.exit(f"bench: no ior binary at {args.ior} (build it, or --ior PATH)")

    if args.nice:
        run_niced(args.nice)
    # Signals become exceptions, so the finally below always cleans up.
    def on_signal(signum, _frame):
        raise KeyboardInterrupt(f"signal {signum}")
    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, on_signal)

    work = tempfile.mkdtemp(prefix="pario-bench.", dir=args.dir)
    started = time.time()
    bench = Bench(args, work)
    info = machine_info()
    info["dir"] = f"{args.dir} ({fs_type(os.path.realpath(args.dir))})"
    info["ior"] = args.ior
    info["autogroups"] = autogroups_enabled()
    info["fio_options"] = args.fio_option
    if any(w in wl for w in MPI_WORKLOADS) and shutil.which("mpirun"):
        info["mpi_ior"] = args.mpi_ior
        info["mpirun"] = subprocess.run(["mpirun", "--version"], capture_output=True,
                                        text=True).stdout.strip().splitlines()[0]
        info["mpirun_options"] = args.mpirun_option
    info["separate_files"] = args.separate_files
    try:
        info["git"] = subprocess.run(
            ["git", "-C", os.path.dirname(args.ior), "describe", "--always", "--dirty"],
            capture_output=True, text=True).stdout.strip() or None
    except OSError:
        info["git"] = None
    status = 0
    try:
        log(f"work directory {work} on {info['dir']}; rounds {args.rounds}; tasks {args.tasks}")
        for w in wl:
            getattr(bench, w)()
    except BenchError as e:
        log(f"bench: error: {e}")
        status = 1
    except KeyboardInterrupt as e:
        log(f"bench: interrupted ({str(e) or 'SIGINT'})")
        status = 130
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"pario benchmarks: {info['nproc']} CPUs ({info['cpu']}), "
          f"{info['mem_total_kib'] / 1024 / 1024:.1f} GiB, Linux {info['kernel']}, "
          f"{info['fio']}, dir {info['dir']}, {args.tasks} tasks, {args.rounds} rounds, "
          f"nice {os.getpriority(os.PRIO_PROCESS, 0)}, "
          f"{time.time() - started:.0f} s")
    print(f"ior binary: {info['ior']} (tree {info['git'] or 'unknown'}); "
          f"extra fio options: {' '.join(args.fio_option) or 'none'}; "
          f"fio files: {'its own' if args.separate_files else 'the same as pario'}; "
          f"scheduler autogroups: {'on' if info['autogroups'] else 'off'}")
    if "mpirun" in info:
        print(f"MPI: {info['mpirun']}; MPI ior binary: {info['mpi_ior']}; "
              f"mpirun -n {args.tasks} --oversubscribe {' '.join(args.mpirun_option)}")
    print()
    if any(r.get("table") != "ab" for r in bench.rows) or not bench.rows:
        print(bench.table())
        print()
    ab = bench.ab_table()
    if ab:
        print("pario against pario (A and B alternating round by round; A/B is the ratio "
              "of the medians, A - B their difference; quiet rounds: the median of the "
              "per-round ratios or differences over the quiet rounds):")
        print()
        print(ab)
        print()
    print("pario, fio's timing: pario's median computed as fio does (bytes or transfers over "
          "the longest task's open-to-close time), and its ratio to fio's median.")
    busy = [r for r in bench.rows if (r.get("noise") or {}).get("others", 0) > QUIET
            and r.get("table") != "ab"]
    if busy and info["autogroups"] and "--thread" not in args.fio_option:
        print("NOTE: other processes used over 10% of the CPUs in some rows. fio's jobs are "
              "processes that call setsid(), so with scheduler autogroups each job gets a "
              "CPU share of its own against other sessions, while pario's tasks (threads) "
              "share one: compare with --fio-option=--thread (and --nice) on a busy machine.")
    print(f"quiet rounds: the rounds in which other processes used under {QUIET:.0%} of the "
          "CPUs, and the median of their per-round ratios pario/fio.")
    print("others/steal: share of the machine's CPU time that other processes used, and "
          "that the hypervisor stole, while that row was measured.")
    print()
    print("Commands (one round; pario rows come from its Results table, fio from its JSON):")
    for label, line in bench.commands:
        print(f"  [{label}] {line}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": info, "rounds": args.rounds, "tasks": args.tasks,
                       "rows": bench.rows, "commands": bench.commands}, f, indent=1)
    if status == 0 and args.check and any(not r["ok"] for r in bench.rows):
        status = 2
    return status


if __name__ == "__main__":
    sys.exit(main())
