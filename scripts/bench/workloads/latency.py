"""latency: per-transfer latency recording on (the default) against off
(-O recordLatency=0)."""

import shutil

from .. import pario
from ..proc import MIB, clear, expect_no_files, size_str

TARGET_IOPS_RATIO = 0.98
TARGET_DUMMY_RATIO = 0.8
OFF = ["-O", "recordLatency=0"]
ON_OFF = (("recording on", []), ("recordLatency=0", OFF))
DUMMY_BLOCK = 256 * MIB


def iops(s, d):
    """PARIO_TASKS=TASKS ior -t 4k -b 64m -F: write and read IOPS."""
    shape = ["-t", "4k", "-b", size_str(s.args.iops_block), "-F"]
    std = "ior " + " ".join(shape)

    def variant(name, extra):
        def once():
            rows = s.ior(shape + extra + ["-o", s.path("latency", "testFile")],
                         label=f"latency {std} ({name})")
            expect_no_files(d, "pario without -k")
            return pario.one_each(rows, "iops", "4k")
        return (name, once)

    values, noise = s.alternate(f"latency {std}", [variant(*v) for v in ON_OFF])
    for access in ("write", "read"):
        on, off = [(name, values[name][access]) for name, _ in ON_OFF]
        s.ab_row(f"PARIO_TASKS={s.tasks} {std}", access, "IOPS", "iops", on, off, noise,
                 TARGET_IOPS_RATIO)


def dummy(s, tasks):
    """ior -a DUMMY -t 8 -b 256m -w: transfers per second per task."""
    args = ["-a", "DUMMY", "-t", "8", "-b", size_str(DUMMY_BLOCK), "-w",
            "-o", s.path("latency", "dummy")]

    def variant(name, extra):
        def once():
            rows = s.ior(args + extra, tasks=tasks, label=f"latency DUMMY {tasks} task(s) ({name})")
            return {"rate": pario.transfers_per_task_s(pario.one(rows, "write", "DUMMY"))}
        return (name, once)

    values, noise = s.alternate(f"latency DUMMY, {tasks} task(s)", [variant(*v) for v in ON_OFF])
    on, off = [(name, values[name]["rate"]) for name, _ in ON_OFF]
    s.ab_row(f"PARIO_TASKS={tasks} ior -a DUMMY -t 8 -b 256m -w", "write", "transfers/s/task",
             "rate", on, off, noise, TARGET_DUMMY_RATIO)


def run(s):
    d = s.path("latency")
    clear(d)
    iops(s, d)
    for tasks in sorted({1, s.tasks}):
        dummy(s, tasks)
    shutil.rmtree(d)
