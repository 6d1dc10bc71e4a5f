"""dummy: ior -a DUMMY -t 8 -b 64m -w, transfers per second per task, with 1
and --tasks tasks (no I/O: pario's own cost per transfer)."""

from .. import pario, stats
from ..proc import MIB, size_str

TARGET_PER_TASK = 30e6
BLOCK = 64 * MIB


def run(s):
    for tasks in sorted({1, s.tasks}):
        args = ["-a", "DUMMY", "-t", "8", "-b", size_str(BLOCK), "-w", "-o", s.path("dummy")]

        def once(tasks=tasks, args=args):
            rows = s.ior(args, tasks=tasks, label=f"dummy {tasks} task(s)")
            return {"rate": pario.transfers_per_task_s(pario.one(rows, "write", "dummy"))}
        values, noise = s.alternate(f"dummy {tasks} task(s)", [("pario", once)])
        rates = stats.summary(values["pario"]["rate"])
        s.rows.append({
            "table": "main", "mode": "-", "metric": "transfers/s/task", "kind": "rate",
            "workload": f"ior -a DUMMY -t 8 -b 64m -w ({tasks} task{'s' if tasks > 1 else ''})",
            "pario": rates, "target": f">= {TARGET_PER_TASK / 1e6:.0f}M",
            "ok": rates["median"] >= TARGET_PER_TASK, "noise": noise,
        })
