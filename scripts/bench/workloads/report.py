"""report: `pario report` on an ior result of 1,000 repetitions with its
latency histograms and task times (issue 17: under 1 s and under 5 MB of
HTML). The result comes from a real run: `ior -i 1000` of one 4 KiB
transfer per task on 2 tasks in the work directory, untimed."""

import os
import time

from .. import stats
from ..machine import CpuMeter
from ..proc import MIB, BenchError, log, run_cmd

REPETITIONS = 1000
TARGET_S = 1.0
TARGET_BYTES = 5 * 1000 * 1000


def make_result(s):
    """The JSON result, its histogram file and its task file."""
    json_path, hist, tasks = s.path("ior.json"), s.path("latency.csv"), s.path("tasks.csv")
    cmd = [s.args.ior, "-a", "POSIX", "-w", "-r", "-i", str(REPETITIONS), "-t", "4k",
           "-b", "4k", "-o", s.path("report-file"), "-O", "summaryFormat=JSON",
           "-O", f"latencyHistogramFile={hist}", "-O", f"saveRankPerformanceDetailsCSV={tasks}"]
    s.note_cmd("report: the result (untimed, PARIO_TASKS=2)", cmd)
    log(f"[report] ior -i {REPETITIONS} for the result")
    out, _ = run_cmd(cmd, env={"PARIO_TASKS": "2"}, cwd=s.work, what="ior")
    with open(json_path, "w") as f:
        f.write(out)
    return [json_path, hist, tasks]


def run(s):
    pario = os.path.join(os.path.dirname(s.args.ior), "pario")
    if not os.access(pario, os.X_OK):
        raise BenchError(f"no pario binary at {pario}")
    inputs = make_result(s)
    html = s.path("report.html")
    cmd = [pario, "report", *inputs, "-o", html]
    s.note_cmd("report", cmd)
    rounds = max(3, s.rounds)
    log(f"[report] {rounds} rounds")
    meter = CpuMeter()
    seconds = []
    for _ in range(rounds):
        start = time.perf_counter()
        run_cmd(cmd, cwd=s.work, what="pario report")
        seconds.append(time.perf_counter() - start)
    noise = meter.stop()
    size = os.path.getsize(html)
    t = stats.summary(seconds)
    s.rows.append({
        "table": "main", "workload": f"pario report, ior -i {REPETITIONS}, 2 tasks, histograms",
        "mode": "-", "metric": "seconds", "kind": "s", "pario": t,
        "target": f"< {TARGET_S} s", "ok": t["median"] < TARGET_S, "noise": noise,
    })
    s.rows.append({
        "table": "main", "workload": "the report's HTML", "mode": "-", "metric": "size",
        "kind": "kib", "pario": stats.summary([size / 1024]),
        "target": f"< {TARGET_BYTES / MIB:.2f} MiB (5 MB)", "ok": size < TARGET_BYTES,
        "noise": noise,
    })
    for path in inputs + [html, s.path("report-file")]:
        if os.path.exists(path):
            os.remove(path)
