"""instructions: this build against a previous one (--baseline DIR), the
standard workloads of `build` counted in instructions instead of timed.
Each runs once per side under valgrind's callgrind, with latency recording
off (its timing groups follow the clock, so they would make the count vary);
the figure is user-space instructions per operation (transfer or item) from
two run lengths (the difference of the counts over the difference of the
operations), so start-up and the system description cancel out. Unlike
wall-clock figures on a shared VM, the count is the same from run to run for
the same binary and inputs; target: new/old <= 1.02."""

import os
import re
import tempfile

from ..proc import BenchError, clear, log, run_cmd
from ..session import local_env
from .build import binaries

TARGET_RATIO = 1.02

# (label, tool, args after the binary at length k (1 or 2), tasks, operations
# the run makes at length 1)
WORKLOADS = [
    ("ior -t 1m -b 64m -F -e", "ior", lambda k: ["-t", "1m", "-b", f"{64 * k}m", "-F", "-e"], 2,
     2 * 2 * 64),
    ("ior -t 4k -b 8m -F", "ior", lambda k: ["-t", "4k", "-b", f"{8 * k}m", "-F"], 2,
     2 * 2 * 2048),
    ("ior -a DUMMY -t 8 -b 8m -w", "ior",
     lambda k: ["-a", "DUMMY", "-t", "8", "-b", f"{8 * k}m", "-w"], 1, 1 << 20),
    ("mdtest -n 2000 -F", "mdtest", lambda k: ["-n", str(2000 * k), "-F"], 1, 4 * 2000),
]
NO_LATENCY = {"ior": ["-O", "recordLatency=0"], "mdtest": ["--recordLatency=0"]}


def count(s, binary, tool, args, tasks, work):
    """User-space instructions of one run under callgrind."""
    place = ["-o", os.path.join(work, "f")] if tool == "ior" else ["-d", os.path.join(work, "m")]
    out = os.path.join(work, "callgrind.out")
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary] + args \
        + place + NO_LATENCY[tool]
    s.note_cmd(f"instructions: {tool}", cmd, local_env(tasks))
    _, stderr = run_cmd(cmd, env=local_env(tasks), cwd=work, what=f"callgrind {tool}")
    os.remove(out)
    m = re.search(r"Collected : (\d+)", stderr)
    if not m:
        raise BenchError(f"callgrind said no total:\n{stderr[-2000:]}")
    return int(m.group(1))


def report(rows):
    lines = ["| workload | tasks | new instr./op | old instr./op | new/old | target | ok |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for label, tasks, new, old in rows:
        ratio = new / old
        ok = "yes" if ratio <= TARGET_RATIO else "NO"
        lines.append(f"| {label} | {tasks} | {new:.1f} | {old:.1f} | {ratio:.4f} | "
                     f"<= {TARGET_RATIO} | {ok} |")
    return "\n".join(lines) + "\n"


def run(s):
    sides = binaries(s)
    rows = []
    for label, tool, args, tasks, ops in WORKLOADS:
        log(f"[instructions: {label}] under callgrind at two lengths, new then old")
        per_op = {}
        for side in ("new", "old"):
            binary = sides[side][0 if tool == "ior" else 1]
            counts = []
            for k in (1, 2):
                with tempfile.TemporaryDirectory(dir=s.work) as work:
                    clear(work)
                    counts.append(count(s, binary, tool, args(k), tasks, work))
            # Twice the length makes `ops` more operations.
            per_op[side] = (counts[1] - counts[0]) / ops
        rows.append((label, tasks, per_op["new"], per_op["old"]))
        s.rows.append({"table": "instructions", "workload": label, "value": per_op["new"]
                       / per_op["old"], "ok": per_op["new"] / per_op["old"] <= TARGET_RATIO})
    s.sections.append(("instructions per operation, this build against the baseline",
                       report(rows)))
