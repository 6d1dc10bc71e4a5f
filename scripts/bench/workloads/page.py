"""report (this module is `page`: the package has a report.py of its own):
`pario report` on a result of 1,000 repetitions (ior with its latency
percentiles), its time and the size of the page."""

import os
import shutil
import time

from .. import stats
from ..machine import CpuMeter
from ..proc import BenchError, clear, log, run_cmd

TARGET_S = 1.0
TARGET_BYTES = 5 * 1000 * 1000
REPETITIONS = 1000


def run(s):
    d = s.path("report")
    clear(d)
    pario = os.path.join(os.path.dirname(s.args.ior), "pario")
    result = os.path.join(d, "result.json")
    make = [s.args.ior, "-t", "4k", "-b", "64k", "-i", str(REPETITIONS), "-w", "-r",
            "-O", f"summaryFormat=JSON,summaryFile={result}", "-o", os.path.join(d, "f")]
    s.note_cmd("report: the result (untimed)", make)
    log(f"[report] ior -i {REPETITIONS}")
    run_cmd(make, env={"PARIO_TASKS": "2"}, what="ior")
    page = os.path.join(d, "report.html")
    cmd = [pario, "report", result, "-o", page]
    s.note_cmd("report", cmd)
    meter = CpuMeter()
    seconds = []
    for _ in range(max(3, s.rounds)):
        start = time.perf_counter()
        run_cmd(cmd, what="pario report")
        seconds.append(time.perf_counter() - start)
    noise = meter.stop()
    size = os.path.getsize(page)
    if size == 0:
        raise BenchError("pario report wrote an empty page")
    shutil.rmtree(d)
    t = stats.summary(seconds)
    for metric, kind, value, target, ok in (
            ("seconds", "s", t, f"< {TARGET_S} s", t["median"] < TARGET_S),
            ("bytes of HTML", "bytes", stats.summary([size]), "< 5 MB", size < TARGET_BYTES)):
        s.rows.append({
            "table": "main", "workload": f"pario report, ior -i {REPETITIONS} with latency",
            "mode": "-", "metric": metric, "kind": kind, "pario": value, "target": target,
            "ok": ok, "noise": noise,
        })
