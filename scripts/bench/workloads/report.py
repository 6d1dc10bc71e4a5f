"""report: `pario report` on real results, untimed to make, timed to read
and draw.

* one ior result of 1,000 repetitions with its latency histograms and task
  times (issue 17: under 1 s and under 5 MB of HTML);
* fifty ior results (five transfer sizes, 5 repetitions each), each with its
  histogram and task files (issue 29: under 1 s and under 10 MB).

The results come from real runs of `ior` on 2 tasks in the work directory.
The peak memory is the report process's own (GNU time's maximum resident
set), when /usr/bin/time is there.
"""

import os
import subprocess
import time

from .. import stats
from ..machine import CpuMeter
from ..proc import MIB, BenchError, log, run_cmd

REPETITIONS = 1000
TARGET_S = 1.0
TARGET_ONE = 5 * 1000 * 1000
RESULTS = 50
TARGET_MANY = 10 * 1000 * 1000
SIZES = ["4k", "16k", "64k", "256k", "1m"]


def ior_result(s, name, args):
    """Runs ior with its JSON, histogram and task files: the three paths."""
    json_path, hist, tasks = (s.path(f"{name}.json"), s.path(f"{name}-latency.csv"),
                              s.path(f"{name}-tasks.csv"))
    cmd = [s.args.ior, "-a", "POSIX", "-w", "-r", *args, "-o", s.path(f"{name}-file"),
           "-O", "summaryFormat=JSON", "-O", f"latencyHistogramFile={hist}",
           "-O", f"saveRankPerformanceDetailsCSV={tasks}"]
    out, _ = run_cmd(cmd, env={"PARIO_TASKS": "2"}, cwd=s.work, what="ior")
    with open(json_path, "w") as f:
        f.write(out)
    return cmd, [json_path, hist, tasks]


def one_result(s):
    cmd, inputs = ior_result(s, "thousand", ["-i", str(REPETITIONS), "-t", "4k", "-b", "4k"])
    s.note_cmd("report: the result (untimed, PARIO_TASKS=2)", cmd)
    return inputs


def many_results(s):
    inputs = []
    for i in range(RESULTS):
        size = SIZES[i % len(SIZES)]
        cmd, files = ior_result(s, f"many-{i:02}", ["-i", "5", "-t", size, "-b", "1m"])
        inputs += files
    shown = [c.replace(f"many-{RESULTS - 1:02}", "many-NN") for c in cmd]
    s.note_cmd(f"report: {RESULTS} results (untimed, PARIO_TASKS=2, -t {', '.join(SIZES)} "
               "in turn)", shown)
    return inputs


def timed(cmd, cwd):
    """Seconds and the peak resident set (KiB) of one run. The peak comes
    from GNU time (`/usr/bin/time -f %M`), whose own small process forks
    the report: a child of Python would count Python's memory, which the
    kernel keeps as the peak across exec."""
    gnu_time = "/usr/bin/time"
    wrapped = [gnu_time, "-f", "%M", *cmd] if os.access(gnu_time, os.X_OK) else cmd
    start = time.perf_counter()
    p = subprocess.run(wrapped, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True)
    seconds = time.perf_counter() - start
    if p.returncode != 0:
        raise BenchError(f"pario report failed: {p.stderr[:500]}")
    last = p.stderr.strip().splitlines()[-1:] if wrapped is not cmd else []
    return seconds, int(last[0]) if last and last[0].isdigit() else None


def measure(s, label, inputs, target_bytes, what):
    pario = os.path.join(os.path.dirname(s.args.ior), "pario")
    html = s.path(f"{label}.html")
    cmd = [pario, "report", *inputs, "-o", html]
    s.note_cmd(f"report: {what}", [pario, "report", "...", "-o", html])
    rounds = max(3, s.rounds)
    log(f"[report] {what}: {rounds} rounds")
    meter = CpuMeter()
    runs = [timed(cmd, s.work) for _ in range(rounds)]
    noise = meter.stop()
    size = os.path.getsize(html)
    t = stats.summary([r[0] for r in runs])
    s.rows.append({
        "table": "main", "workload": f"pario report, {what}", "mode": "-", "metric": "seconds",
        "kind": "s", "pario": t, "target": f"< {TARGET_S} s", "ok": t["median"] < TARGET_S,
        "noise": noise,
    })
    s.rows.append({
        "table": "main", "workload": f"the report's HTML, {what}", "mode": "-",
        "metric": "size", "kind": "kib", "pario": stats.summary([size / 1024]),
        "target": f"< {target_bytes / MIB:.2f} MiB ({target_bytes // 1000000} MB)",
        "ok": size < target_bytes, "noise": noise,
    })
    peaks = [r[1] for r in runs if r[1] is not None]
    if peaks:
        s.rows.append({
            "table": "main", "workload": f"the report's peak memory, {what}", "mode": "-",
            "metric": "memory", "kind": "kib", "pario": stats.summary(peaks),
            "target": "-", "ok": True, "noise": noise,
        })
    os.remove(html)


def run(s):
    pario = os.path.join(os.path.dirname(s.args.ior), "pario")
    if not os.access(pario, os.X_OK):
        raise BenchError(f"no pario binary at {pario}")
    log(f"[report] ior -i {REPETITIONS}, and {RESULTS} ior results, for the inputs")
    one = one_result(s)
    many = many_results(s)
    try:
        measure(s, "one", one, TARGET_ONE,
                f"ior -i {REPETITIONS}, 2 tasks, histograms and task times")
        measure(s, "many", many, TARGET_MANY,
                f"{RESULTS} ior results, 2 tasks, 5 repetitions, histograms and task times")
    finally:
        for path in one + many:
            if os.path.exists(path):
                os.remove(path)
