"""build: this build (--ior, --mdtest) against a previous one (--baseline DIR
holding its ior and mdtest), the standard workloads in the same rounds, new
and old alternating (new first in even rounds). Each figure is judged on the
median of its per-round ratios new/old, with a 95 % interval."""

import os

from .. import pario
from ..proc import BenchError, clear, expect_no_files, size_str

TARGET_RATIO = 0.98


def binaries(s):
    """{"new": (ior, mdtest), "old": (ior, mdtest)}"""
    if not s.args.baseline:
        raise BenchError("build: --baseline DIR (a previous build's ior and mdtest) is needed")
    old = tuple(os.path.join(s.args.baseline, b) for b in ("ior", "mdtest"))
    sides = {"new": (s.args.ior, s.args.mdtest), "old": old}
    for path in sides["new"] + old:
        if not os.access(path, os.X_OK):
            raise BenchError(f"build: no executable {path}")
    return sides


def compare(s, what, metric, kind, figures):
    """Alternates figures("new") and figures("old") (each returning
    {figure: value}) and adds a row per figure."""
    variants = [(side, lambda side=side: figures(side)) for side in ("new", "old")]
    values, noise = s.alternate(f"build: {what}", variants)
    for key in values["new"]:
        s.ab_row(what, key, metric, kind, ("new", values["new"][key]),
                 ("old", values["old"][key]), noise, TARGET_RATIO, judge="paired")


def ior_shape(s, sides, shape, tasks, metric, kind, figures_of):
    """ior SHAPE with `tasks` tasks; figures_of(results) -> {figure: value}."""
    d = s.path("build")
    args = shape + ["-o", os.path.join(d, "testFile")]

    def figures(side):
        rows = s.ior(args, tasks=tasks, label=f"build {side}: ior {' '.join(shape)}",
                     binary=sides[side][0])
        expect_no_files(d, "pario without -k")
        return figures_of(rows)
    clear(d)
    compare(s, f"PARIO_TASKS={tasks} ior {' '.join(shape)}", metric, kind, figures)


def write_and_read(key):
    return lambda rows: pario.one_each(rows, key, "ior")


def dummy_rate(rows):
    return {"write": pario.transfers_per_task_s(pario.one(rows, "write", "DUMMY"))}


def mdtest(s, sides, tasks):
    # mdtest makes -d but not its parent (an ior shape run first would have).
    os.makedirs(s.path("build"), exist_ok=True)
    args = ["-n", str(s.args.items), "-F", "-d", s.path("build", "mdtest")]

    def figures(side):
        return s.mdtest(args, tasks, f"build {side}: mdtest", binary=sides[side][1])[0]
    compare(s, f"PARIO_TASKS={tasks} mdtest -n {s.args.items} -F", "ops/s", "ops", figures)


def run(s):
    sides = binaries(s)
    segments = "1" if s.args.quick else "4"
    n = s.tasks
    shapes = s.args.build_shapes.split(",")
    if "bw" in shapes:
        ior_shape(s, sides, ["-t", "1m", "-b", "256m", "-s", segments, "-F", "-e"], n,
                  "MiB/s", "bw", write_and_read("bwMiB"))
    if "iops" in shapes:
        ior_shape(s, sides, ["-t", "4k", "-b", size_str(s.args.iops_block), "-F"], n,
                  "IOPS", "iops", write_and_read("iops"))
    for tasks in sorted({1, n}) if "dummy" in shapes else []:
        ior_shape(s, sides, ["-a", "DUMMY", "-t", "8", "-b", "64m", "-w"], tasks,
                  "transfers/s/task", "rate", dummy_rate)
    # 4 KiB transfers on DUMMY: the per-transfer bookkeeping of a real
    # transfer size with no I/O to hide it (issue 41's time series).
    for tasks in sorted({1, n}) if "dummy4k" in shapes else []:
        ior_shape(s, sides, ["-a", "DUMMY", "-t", "4k", "-b", "16g", "-w"], tasks,
                  "transfers/s/task", "rate", dummy_rate)
    for tasks in sorted({1, n}) if "mdtest" in shapes else []:
        mdtest(s, sides, tasks)
    clear(s.path("build"))
    os.rmdir(s.path("build"))
