"""rwmix: the bookkeeping of ior's mixed access (issue 28): DUMMY transfers
per second per task with -O rwmixRead=50 against a plain DUMMY write of the
same transfer size; the target row is -t 8 (the judge: the median of the
interleaved rounds' ratios). For information, at one task: larger transfers
(-t 64k, -t 1m, with -b large enough for as many transfers as DUMMY moves
in a fraction of a second) and a transferSizeSplit mix against -t 8."""

import shutil

from .. import pario
from ..proc import MIB, clear, size_str

TARGET_RATIO = 0.9
BLOCK = 256 * MIB
SEED = "--random-offset-seed=1"
SPLIT = "8/50:64/30:512/20"
# (-t, -b, -O of the mixed side): the information rows.
OTHERS = (("64k", "512g", "rwmixRead=50"), ("1m", "8t", "rwmixRead=50"),
          ("8", size_str(BLOCK), f"rwmixRead=50,transferSizeSplit={SPLIT}"))


def dummy(s, tasks, xfer, block, mix, target):
    args = ["-a", "DUMMY", "-t", xfer, "-b", block, "-w", "-o", s.path("rwmix", "dummy")]

    def variant(name, extra, access):
        def once():
            rows = s.ior(args + extra, tasks=tasks, label=f"rwmix DUMMY {tasks} task(s) ({name})")
            return {"rate": pario.transfers_per_task_s(pario.one(rows, access, "DUMMY"))}
        return (name, once)

    sides = ((mix, ["-O", mix, SEED], "mixed"), (f"plain write -t {xfer}", [], "write"))
    values, noise = s.alternate(f"rwmix DUMMY -t {xfer} {mix}, {tasks} task(s)",
                                [variant(*v) for v in sides])
    mixed, plain = [(name, values[name]["rate"]) for name, _, _ in sides]
    s.ab_row(f"PARIO_TASKS={tasks} ior -a DUMMY -t {xfer} -b {block} -w -O {mix}", "mixed",
             "transfers/s/task", "rate", mixed, plain, noise, target, judge="paired")


def run(s):
    d = s.path("rwmix")
    clear(d)
    for tasks in sorted({1, s.tasks}):
        dummy(s, tasks, "8", size_str(BLOCK), "rwmixRead=50", TARGET_RATIO)
    for xfer, block, mix in OTHERS:
        dummy(s, 1, xfer, block, mix, None)
    shutil.rmtree(d)
