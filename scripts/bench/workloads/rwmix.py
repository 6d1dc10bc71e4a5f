"""rwmix: the bookkeeping of ior's mixed access (issue 28): DUMMY transfers
per second per task with -O rwmixRead=50 against a plain DUMMY write."""

import shutil

from .. import pario
from ..proc import MIB, clear, size_str

TARGET_RATIO = 0.9
BLOCK = 256 * MIB
MIX = ["-O", "rwmixRead=50", "--random-offset-seed=1"]


def dummy(s, tasks):
    args = ["-a", "DUMMY", "-t", "8", "-b", size_str(BLOCK), "-w", "-o", s.path("rwmix", "dummy")]

    def variant(name, extra, access):
        def once():
            rows = s.ior(args + extra, tasks=tasks, label=f"rwmix DUMMY {tasks} task(s) ({name})")
            return {"rate": pario.transfers_per_task_s(pario.one(rows, access, "DUMMY"))}
        return (name, once)

    sides = (("rwmixRead=50", MIX, "mixed"), ("plain write", [], "write"))
    values, noise = s.alternate(f"rwmix DUMMY, {tasks} task(s)", [variant(*v) for v in sides])
    mixed, plain = [(name, values[name]["rate"]) for name, _, _ in sides]
    s.ab_row(f"PARIO_TASKS={tasks} ior -a DUMMY -t 8 -b 256m -w -O rwmixRead=50", "mixed",
             "transfers/s/task", "rate", mixed, plain, noise, TARGET_RATIO)


def run(s):
    d = s.path("rwmix")
    clear(d)
    for tasks in sorted({1, s.tasks}):
        dummy(s, tasks)
    shutil.rmtree(d)
