"""residency: the page-cache residency measurement (the residency example,
next to --ior) of a 10 GiB file written by dd; the file is always removed."""

import os
import re

from .. import stats
from ..machine import CpuMeter
from ..proc import GIB, BenchError, log, run_cmd

TARGET_S = 0.1
FILE_SIZE = 10 * GIB


def measure(s, binary, path, rounds):
    """The example's seconds and output lines, `rounds` times."""
    seconds, lines = [], []
    log(f"[residency] {rounds} rounds")
    for _ in range(rounds):
        s.note_cmd("residency", [binary, path])
        out, _ = run_cmd([binary, path], what="residency")
        m = re.search(r" in ([0-9.]+) s", out)
        if not m:
            raise BenchError("no time in the residency example's output:\n" + out)
        seconds.append(float(m.group(1)))
        lines.append(out.strip())
    return seconds, lines


def run(s):
    binary = os.path.join(os.path.dirname(s.args.ior), "examples", "residency")
    if not os.access(binary, os.X_OK):
        raise BenchError(f"no residency example at {binary} "
                         "(cargo build --release --example residency)")
    st = os.statvfs(s.work)
    if st.f_bavail * st.f_frsize < FILE_SIZE + GIB:
        raise BenchError(f"residency: under 11 GiB free in {s.work}")
    path = s.path("residency-10g")
    try:
        dd = ["dd", "if=/dev/zero", f"of={path}", "bs=4M", "count=2560", "status=none"]
        s.note_cmd("residency: write the file (untimed)", dd)
        log("[residency] writing 10 GiB with dd")
        run_cmd(dd, what="dd")
        if os.stat(path).st_size != FILE_SIZE:
            raise BenchError("dd wrote a file of the wrong size")
        meter = CpuMeter()
        seconds, lines = measure(s, binary, path, max(3, s.rounds))
        noise = meter.stop()
    finally:
        if os.path.exists(path):
            os.remove(path)
    t = stats.summary(seconds)
    s.rows.append({
        "table": "main", "workload": "residency of a 10 GiB file (examples/residency)",
        "mode": "sampled" if "sampled" in lines[-1] else "-", "metric": "seconds",
        "kind": "s", "pario": t, "target": f"< {TARGET_S} s", "ok": t["median"] < TARGET_S,
        "noise": noise, "output": lines,
    })
