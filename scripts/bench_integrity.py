#!/usr/bin/env python3
"""End-to-end cost of read verification (-R): `-r -R` against `-r`, alternately.

Writes the files once (`-w -k -G 42`), then alternates `-r -k -G 42` and
`-r -R -k -G 42` for several rounds, and prints the median read bandwidth of
each, their ratio, and the commands, as Markdown (BENCHMARKS.md, "Data
verification").

    scripts/bench_integrity.py [--ior target/release/ior] [--dir /dev/shm]
                               [--tasks 2] [--rounds 9] [--packet t]
                               [--also OTHER_IOR ...]

With --also, each round also runs the other builds' `-r` and `-r -R` on the
same files (written by the first), one row per build: an A/B comparison
under the same machine conditions.

The files live under a fresh directory in --dir and are removed at the end.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

SHAPES = [
    ("1 MiB transfers", ["-t", "1m", "-b", "256m", "-s", "4", "-F"]),
    ("47008-byte transfers", ["-t", "47008", "-b", "47008", "-s", "20000", "-F"]),
]


def run(ior, tasks, args):
    env = dict(os.environ, PARIO_TASKS=str(tasks))
    for var in ("IOR_FAKE_NODES", "IOR_FAKE_TASK_PER_NODES"):
        env.pop(var, None)
    out = subprocess.run([ior] + args, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"ior {' '.join(args)} failed ({out.returncode}):\n{out.stdout}\n{out.stderr}")
    return out.stdout


def read_bw(stdout):
    """The bandwidth (MiB/s) of the one read row of the Results table."""
    table = stdout.split("Summary of all tests:")[0]
    rows = [l.split() for l in table.splitlines() if l.startswith("read ")]
    if len(rows) != 1:
        sys.exit(f"expected one read row, got {rows}:\n{stdout}")
    return float(rows[0][1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ior", default="target/release/ior")
    ap.add_argument("--dir", default="/dev/shm")
    ap.add_argument("--tasks", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--packet", default="t", help="-l packet type")
    ap.add_argument("--also", action="append", default=[], metavar="IOR",
                    help="another ior build to measure in the same rounds")
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="pario-integrity-", dir=a.dir)
    print(f"{a.tasks} tasks, files in {a.dir}, -l {a.packet}, {a.rounds} rounds each, "
          f"alternating; load average before: {os.getloadavg()[0]:.2f}\n")
    builds = [a.ior] + a.also
    print("| shape | build | `-r` MiB/s (median) | `-r -R` MiB/s (median) | ratio | `-r` min–max | `-r -R` min–max |")
    print("|---|---|---|---|---|---|---|")
    commands = []
    try:
        for name, shape in SHAPES:
            common = shape + ["-l", a.packet, "-G", "42", "-k", "-o", os.path.join(work, "f")]
            write = ["-w"] + common
            plain = ["-r"] + common
            check = ["-r", "-R"] + common
            run(a.ior, a.tasks, write)
            # One untimed read of each first: page tables, caches, CPU clocks.
            for ior in builds:
                run(ior, a.tasks, plain)
                run(ior, a.tasks, check)
            bw = {(ior, kind): [] for ior in builds for kind in ("plain", "check")}
            for _ in range(a.rounds):
                for ior in builds:
                    bw[ior, "plain"].append(read_bw(run(ior, a.tasks, plain)))
                    bw[ior, "check"].append(read_bw(run(ior, a.tasks, check)))
            for ior in builds:
                plain_bw, check_bw = bw[ior, "plain"], bw[ior, "check"]
                p, c = statistics.median(plain_bw), statistics.median(check_bw)
                print(f"| {name} | {ior} | {p:.0f} | {c:.0f} | {c / p:.2f} | "
                      f"{min(plain_bw):.0f}–{max(plain_bw):.0f} | "
                      f"{min(check_bw):.0f}–{max(check_bw):.0f} |")
            sys.stdout.flush()
            for args in (write, plain, check):
                commands.append(f"PARIO_TASKS={a.tasks} {a.ior} " + " ".join(args))
            for f in os.listdir(work):
                os.remove(os.path.join(work, f))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\nload average after: {os.getloadavg()[0]:.2f}\n\nCommands:\n```")
    print("\n".join(c.replace(work, "$DIR") for c in commands))
    print("```")


if __name__ == "__main__":
    main()
