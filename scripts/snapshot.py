"""Snapshots of every tool's outputs, to compare two builds for a change that
must not alter behaviour (a refactoring).

    python3 scripts/snapshot.py BIN_DIR OUT_DIR     # run every case
    diff -r OUT_A OUT_B                             # compare two snapshots

A case is one command line or several steps (a result file written, then
read by report, compare or io500 --verify). Each case runs in a fresh scratch directory under /dev/shm with PARIO_TASKS=2
and the DUMMY or POSIX backend; what varies from run to run (dates, times,
rates, host names, seeds, paths) is masked, the rest (text layout, parameters,
JSON and CSV keys in their order, extra files, error lines, exit statuses) is kept.
"""

import json
import os
import re
import shutil
import subprocess
import sys

CASES = [
    # (name, tool, args); "{d}" is the case's scratch directory.
    ("ior-help", "ior", ["-h"]),
    ("mdtest-help", "mdtest", ["-h"]),
    ("mdw-help", "md-workbench", ["-h"]),
    ("io500-help", "io500", ["-h"]),
    ("pario-help", "pario", ["--help"]),
    ("report-help", "pario", ["report", "-h"]),
    ("compare-help", "pario", ["compare", "-h"]),
    ("ior-bad-t", "ior", ["-t", "3x"]),
    ("ior-bad-combo", "ior", ["-t", "3k", "-b", "4k"]),
    ("ior-empty-o", "ior", ["-o", ""]),
    ("ior-empty-summary", "ior", ["-O", "summaryFile="]),
    ("ior-unknown", "ior", ["--nope"]),
    ("ior-lustre", "ior", ["-O", "lustreStripeCount=4"]),
    ("ior-basic", "ior", ["-w", "-r", "-t", "64k", "-b", "256k", "-s", "2", "-o", "{d}/f"]),
    ("ior-fpp-json", "ior", ["-w", "-r", "-W", "-R", "-F", "-t", "4k", "-b", "16k", "-o", "{d}/f",
                             "-O", "summaryFormat=JSON"]),
    ("ior-csv", "ior", ["-w", "-t", "4k", "-b", "16k", "-o", "{d}/f", "-O", "summaryFormat=CSV",
                        "-i", "2", "-v"]),
    ("ior-dummy", "ior", ["-a", "DUMMY", "-w", "-r", "-t", "1m", "-b", "4m", "-vv"]),
    ("ior-zz", "ior", ["-w", "-r", "-z", "-z", "-t", "4k", "-b", "64k", "-o", "{d}/f", "-C"]),
    ("ior-files", "ior", ["-w", "-t", "4k", "-b", "16k", "-o", "{d}/f",
                          "-O", "latencyHistogramFile={d}/h.csv",
                          "-O", "saveRankPerformanceDetailsCSV={d}/r.csv",
                          "-O", "summaryFormat=JSON,CSV", "-O", "summaryFile={d}/s"]),
    ("ior-script", "ior", ["-f", "{d}/script"]),
    ("mdtest-basic", "mdtest", ["-n", "20", "-d", "{d}/m"]),
    ("mdtest-tree", "mdtest", ["-n", "30", "-z", "2", "-b", "2", "-u", "-d", "{d}/m", "-w", "10",
                               "-e", "10", "-X", "-P"]),
    ("mdtest-files", "mdtest", ["-n", "10", "-F", "-d", "{d}/m", "--summaryFormat=JSON",
                                "--saveRankPerformanceDetails={d}/r.csv",
                                "--latencyHistogramFile={d}/h.csv"]),
    ("mdtest-empty", "mdtest", ["-n", "10", "--summaryFile="]),
    ("mdtest-bad", "mdtest", ["-n", "10", "-z", "x"]),
    ("mdtest-sweep", "mdtest", ["-n", "5", "-d", "{d}/m", "-f", "1", "-l", "2"]),
    ("mdw-basic", "md-workbench", ["-o", "{d}/w", "-I", "5", "-P", "5", "-D", "2", "-R", "2"]),
    ("mdw-latency", "md-workbench", ["-o", "{d}/w", "-I", "5", "-P", "5", "-D", "2", "-R", "1",
                                     "-L", "{d}/lat"]),
    ("mdw-json", "md-workbench", ["-o", "{d}/w", "-I", "3", "-P", "3", "-D", "1", "-R", "1",
                                  "--summaryFormat=JSON"]),
    ("mdw-empty", "md-workbench", ["--summaryFile="]),
    ("io500-list", "io500", ["{d}/io500.ini", "--list"]),
    ("io500-hash", "io500", ["{d}/io500.ini", "--config-hash"]),
    ("io500-bad", "io500", ["{d}/io500.ini", "--mode=x"]),
    ("io500-run", "io500", ["{d}/io500.ini", "--timestamp=T"]),
    # Backends and their module options.
    ("ior-aio", "ior", ["-a", "AIO", "-w", "-r", "-t", "4k", "-b", "64k", "-o", "{d}/f",
                        "--aio.max-pending=4", "--aio.granularity=2"]),
    ("ior-mmap", "ior", ["-a", "MMAP", "-w", "-r", "-t", "4k", "-b", "64k", "-o", "{d}/f",
                         "--mmap.madv_pattern=1"]),
    ("ior-posix-opts", "ior", ["-w", "-t", "4k", "-b", "16k", "-o", "{d}/f", "--posix.evict",
                               "-O", "posix.odirect=0"]),
    ("ior-aio-bad", "ior", ["-a", "AIO", "--aio.max-pending=0"]),
    ("ior-aio-bad2", "ior", ["-a", "AIO", "--aio.granularity=x"]),
    ("ior-posix-bad", "ior", ["--posix.odirect=x"]),
    ("ior-wrong-module", "ior", ["-a", "MMAP", "--posix.odirect"]),
    ("ior-s3-bad", "ior", ["-a", "S3", "--s3.layout=nope"]),
    ("ior-s3-nohost", "ior", ["-a", "S3", "-w", "-o", "b/k"]),
    ("ior-libs3-bad", "ior", ["-a", "S3-libs3", "--S3-libs3.host=", "-w"]),
    ("ior-libs3-comma", "ior", ["-a", "S3-libs3", "--S3-libs3.host=,", "-w"]),
    ("mdtest-aio", "mdtest", ["-a", "AIO", "-n", "5", "-d", "{d}/m", "--aio.max-pending=2"]),
    ("mdw-dummy", "md-workbench", ["-a", "DUMMY", "-I", "3", "-P", "3", "-R", "1"]),
]

# Cases of several steps: the later ones read what the earlier ones wrote
# (report, compare, concurrent, io500 --verify); (name, [(tool, args), ...]).
STEPS = [
    ("compare-ior", [
        ("ior", ["-w", "-r", "-t", "4k", "-b", "16k", "-i", "2", "-o", "{d}/f",
                 "-O", "summaryFormat=JSON", "-O", "summaryFile={d}/a.json"]),
        ("ior", ["-w", "-r", "-t", "4k", "-b", "16k", "-i", "3", "-o", "{d}/f",
                 "-O", "summaryFormat=JSON", "-O", "summaryFile={d}/b.json"]),
        ("pario", ["compare", "{d}/a.json", "{d}/b.json"]),
        ("pario", ["compare", "--json", "{d}/a.json", "{d}/b.json"]),
        ("pario", ["compare", "{d}/a.json", "{d}/nope.json"]),
    ]),
    ("compare-mdtest", [
        ("mdtest", ["-n", "10", "-i", "2", "-d", "{d}/m", "--summaryFormat=JSON",
                    "--summaryFile={d}/a.json"]),
        ("mdtest", ["-n", "10", "-i", "2", "-d", "{d}/m", "--summaryFormat=JSON",
                    "--summaryFile={d}/b.json"]),
        ("pario", ["compare", "{d}/a.json", "{d}/b.json"]),
    ]),
    ("report-all", [
        ("ior", ["-w", "-r", "-t", "4k", "-b", "16k", "-i", "2", "-o", "{d}/f",
                 "-O", "summaryFormat=JSON", "-O", "summaryFile={d}/ior.json",
                 "-O", "latencyHistogramFile={d}/h.csv",
                 "-O", "saveRankPerformanceDetailsCSV={d}/r.csv"]),
        ("mdtest", ["-n", "10", "-d", "{d}/m", "--summaryFormat=JSON",
                    "--summaryFile={d}/mdtest.json"]),
        ("md-workbench", ["-o", "{d}/w", "-I", "3", "-P", "3", "-D", "1", "-R", "1",
                          "--summaryFormat=JSON", "--summaryFile={d}/mdw.json"]),
        ("ior", ["-w", "-t", "4k", "-b", "16k", "-o", "{d}/f", "-O", "sweep=1,2",
                 "-O", "summaryFormat=JSON", "-O", "summaryFile={d}/sweep.json"]),
        ("pario", ["report", "-o", "{d}/report.html", "{d}/ior.json", "{d}/mdtest.json",
                   "{d}/mdw.json", "{d}/sweep.json"]),
        ("pario", ["report", "-o", "{d}/bad.html", "{d}/h.csv"]),
    ]),
    ("concurrent", [
        ("pario", ["concurrent", "--json", "{d}/c.json", "{d}/mix.txt"]),
    ]),
    ("io500-verify", [
        ("io500", ["{d}/io500.ini", "--timestamp=T"]),
        ("io500", ["{d}/io500.ini", "--verify={d}/results/T/result.txt"]),
        ("pario", ["report", "-o", "{d}/io500.html", "{d}/results/T/result.json"]),
    ]),
]

MIX = """50% ior -w -r -t 4k -b 16k -o {d}/c-ior
50% mdtest -n 5 -d {d}/c-md
"""

SCRIPT = """IOR START
  api=POSIX
  testFile={d}/s
  writeFile=1, readFile=1
  blockSize=16k, transferSize=4k
RUN
  filePerProc=1
RUN
IOR STOP
"""

IO500 = """[global]
datadir = {d}/data
resultdir = {d}/results
[debug]
stonewall-time = 1
[ior-easy]
transferSize = 4k
blockSize = 64k
[mdtest-easy]
n = 20
[ior-hard]
segmentCount = 4
[mdtest-hard]
n = 20
[find]
nproc = 1
"""

MASKS = [
    (re.compile(r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
                r" +\d+ \d\d:\d\d:\d\d \d{4}\b"), "DATE"),
    (re.compile(r"\d{4}-\d\d-\d\d[ T_]\d\d[:.]\d\d[:.]\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?"), "DATE"),
    (re.compile(r"\d\d/\d\d/\d{4} \d\d:\d\d:\d\d"), "DATE"),
    (re.compile(r"-?\d+\.\d+(e[+-]?\d+)?"), "F"),
    (re.compile(r"\b(inf|nan|NaN)\b"), "F"),
]


def mask(text, scratch):
    text = text.replace(scratch, "SCRATCH")
    for host in {os.uname().nodename, os.uname().nodename.split(".")[0]}:
        text = text.replace(host, "HOST")
    for pattern, repl in MASKS:
        text = pattern.sub(repl, text)
    # Column widths follow the figures' widths.
    return re.sub(r"[ \t]+", " ", text)


def mask_json(value, scratch):
    if isinstance(value, dict):
        return {k: mask_json(v, scratch) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_json(v, scratch) for v in value]
    if isinstance(value, float):
        return "F"
    if isinstance(value, str):
        return mask(value, scratch)
    return value


def run_case(bin_dir, out_dir, name, steps):
    # A fixed name: io500's configuration hash covers the paths in it.
    scratch = "/dev/shm/pario-snapshot"
    shutil.rmtree(scratch, ignore_errors=True)
    os.mkdir(scratch)
    try:
        with open(os.path.join(scratch, "script"), "w") as f:
            f.write(SCRIPT.replace("{d}", scratch))
        with open(os.path.join(scratch, "io500.ini"), "w") as f:
            f.write(IO500.replace("{d}", scratch))
        with open(os.path.join(scratch, "mix.txt"), "w") as f:
            f.write(MIX.replace("{d}", scratch))
        lines = []
        for tool, args in steps:
            argv = [os.path.join(bin_dir, tool)] + [a.replace("{d}", scratch) for a in args]
            # Credentials that reach no server: the S3 cases stop at their options.
            env = dict(os.environ, PARIO_TASKS="2", TZ="UTC", AWS_ACCESS_KEY_ID="snapshot",
                       AWS_SECRET_ACCESS_KEY="snapshot")
            p = subprocess.run(argv, cwd=scratch, env=env, capture_output=True, text=True,
                               timeout=300)
            if len(steps) > 1:
                lines.append(f"=== {tool} {mask(' '.join(argv[1:]), scratch)}")
            lines += [f"exit {p.returncode}", "--- stdout", mask(p.stdout.replace(bin_dir, "BIN"), scratch),
                      "--- stderr", mask(p.stderr.replace(bin_dir, "BIN"), scratch)]
        for root, _, files in sorted(os.walk(scratch)):
            for fn in sorted(files):
                path = os.path.join(root, fn)
                rel = os.path.relpath(path, scratch)
                if fn in ("script", "io500.ini", "mix.txt") or os.path.getsize(path) > 1 << 20:
                    lines.append(f"--- file {mask(rel, scratch)} ({os.path.getsize(path)} bytes)")
                    continue
                with open(path, "rb") as f:
                    data = f.read()
                try:
                    body = json.dumps(mask_json(json.loads(data), scratch), indent=1)
                except (ValueError, UnicodeDecodeError):
                    body = mask(data.decode("utf-8", "replace"), scratch)
                lines.append(f"--- file {mask(rel, scratch)}\n{body}")
        with open(os.path.join(out_dir, name), "w") as f:
            f.write("\n".join(lines))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    bin_dir, out_dir = os.path.abspath(sys.argv[1]), sys.argv[2]
    os.makedirs(out_dir, exist_ok=True)
    only = sys.argv[3:]
    cases = [(name, [(tool, args)]) for name, tool, args in CASES] + STEPS
    for name, steps in cases:
        if not only or name in only:
            run_case(bin_dir, out_dir, name, steps)


if __name__ == "__main__":
    main()
