"""sweep: a sweep step against a plain run of the same tasks. The step runs on
a communicator split off for it, which must cost nothing per transfer."""

import shutil

from .. import pario
from ..proc import MIB, clear, size_str

TARGET_RATIO = 0.98
BLOCK = 256 * MIB


def step(s, tasks, job):
    """PARIO_TASKS=job ior -a DUMMY -t 8 -b 256m -w -O sweep=tasks, against
    PARIO_TASKS=tasks without a sweep: transfers per second per task."""
    args = ["-a", "DUMMY", "-t", "8", "-b", size_str(BLOCK), "-w", "-o", s.path("sweep", "dummy")]

    def variant(name, extra, run_tasks):
        def once():
            rows = s.ior(args + extra, tasks=run_tasks, label=f"sweep DUMMY ({name})")
            return {"rate": pario.transfers_per_task_s(pario.one(rows, "write", "DUMMY"))}
        return (name, once)

    swept = f"sweep={tasks} of {job}"
    variants = [variant(swept, ["-O", f"sweep={tasks}"], job), variant("plain", [], tasks)]
    values, noise = s.alternate(f"sweep DUMMY, {tasks} of {job} task(s)", variants)
    a, b = [(name, values[name]["rate"]) for name, _ in variants]
    s.ab_row(f"PARIO_TASKS={job} ior -a DUMMY -t 8 -b 256m -w -O sweep={tasks}", "write",
             "transfers/s/task", "rate", a, b, noise, TARGET_RATIO, judge="paired")


def run(s):
    d = s.path("sweep")
    clear(d)
    step(s, s.tasks, s.tasks)
    if s.tasks > 1:
        step(s, 1, s.tasks)
    shutil.rmtree(d)
