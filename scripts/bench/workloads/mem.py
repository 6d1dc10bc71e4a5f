"""mem: peak RSS (/usr/bin/time -v) of ior -t 1m|16m -b 64m -w -r with 1, 2
and 4 tasks. Targets: 1 task <= 8 MiB + one transfer buffer (every round),
and each extra task (medians, over 1 task) <= one transfer buffer."""

import os
import re

from .. import pario, stats
from ..proc import KIB, MIB, BenchError, clear, log, run_cmd, size_str
from ..table import fmt_stat

TIME = "/usr/bin/time"
BASE_KIB = 8 * 1024


def max_rss_kib(s, cmd, env):
    out, err = run_cmd(cmd, env=env, cwd=s.work, what="pario ior (time -v)")
    pario.ior_results(pario.document(out, "ior under time -v"), "ior under time -v")
    m = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    if not m:
        raise BenchError("no max RSS in /usr/bin/time -v output:\n" + err[-3000:])
    return int(m.group(1))


def judge(rss, tasks, xfer_kib, one_task):
    """(target, ok, extra text) of a row."""
    if tasks == 1:
        limit = BASE_KIB + xfer_kib
        return f"<= {limit / 1024:.0f} MiB", rss["max"] <= limit, ""
    per_task = (rss["median"] - one_task) / (tasks - 1)
    return (f"+<= {xfer_kib / 1024:.0f} MiB/task", per_task <= xfer_kib,
            f" (+{per_task / 1024:.2f} MiB/task)")


def run(s):
    if not os.access(TIME, os.X_OK):
        raise BenchError("mem: /usr/bin/time is missing (apt-get install time)")
    rounds = max(1, min(s.rounds, 3))
    d = s.path("mem")
    clear(d)
    for xfer in (MIB, 16 * MIB):
        one_task = None
        for tasks in (1, 2, 4):
            log(f"[mem] -t {size_str(xfer)}, {tasks} task(s): {rounds} rounds")
            cmd = [TIME, "-v", s.args.ior, "-t", size_str(xfer), "-b", "64m", "-w", "-r",
                   "-o", os.path.join(d, "testFile")] + pario.IOR_JSON
            env = {"PARIO_TASKS": str(tasks)}
            s.note_cmd(f"mem -t {size_str(xfer)} {tasks} task(s)", cmd, env)
            rss = stats.summary(max_rss_kib(s, cmd, env) for _ in range(rounds))
            if tasks == 1:
                one_task = rss["median"]
            target, ok, extra = judge(rss, tasks, xfer // KIB, one_task)
            s.rows.append({
                "table": "main", "mode": "-", "metric": "max RSS", "kind": "kib",
                "workload": f"ior -t {size_str(xfer)} -b 64m -w -r "
                            f"({tasks} task{'s' if tasks > 1 else ''})",
                "pario": rss, "pario_text": fmt_stat(rss, "kib") + extra,
                "target": target, "ok": ok,
            })
