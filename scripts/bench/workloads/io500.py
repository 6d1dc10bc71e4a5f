"""io500: what the driver adds. A scaled-down io500 run (stonewall 2 s, sizes
that end before it) on local tasks: the time outside the phases (the run's
wall time minus the phases' t_delta, target < 1 s), and ior-easy-write's and
mdtest-easy-write's figures against the same command lines run alone with
pario's ior and mdtest (their `exe` lines), alternating round by round."""

import json
import os
import shutil
import time

from ..proc import run_cmd
from ..session import local_env
from ..table import markdown_table

CONFIG = """[global]
datadir = {w}/data
resultdir = {w}/results
[debug]
stonewall-time = 2
[ior-easy]
transferSize = 1m
blockSize = 256m
[mdtest-easy]
n = 20000
[ior-hard]
segmentCount = 2000
[mdtest-hard]
n = 5000
"""
PHASES = ["ior-easy-write", "mdtest-easy-write"]


def io500_run(s, binary, cfg, stamp):
    start = time.monotonic()
    run_cmd([binary, cfg, f"--timestamp={stamp}"], env=local_env(s.tasks), cwd=s.work,
            what="io500")
    wall = time.monotonic() - start
    with open(s.path("results", stamp, "result.json")) as f:
        doc = json.load(f)
    inside = sum(p["t_delta_s"] for p in doc["phases"])
    scores = {p["name"]: p["score"] for p in doc["phases"]}
    exes = {p["name"]: p["exe"] for p in doc["phases"]}
    shutil.rmtree(s.path("results", stamp))
    return wall - inside, scores, exes


def alone(s, exes):
    """The two write phases' command lines run alone (their data made anew)."""
    out = {}
    os.makedirs(s.path("data", "alone", "ior-easy"), exist_ok=True)
    bindir = os.path.dirname(s.args.ior)
    for name in PHASES:
        words = exes[name].replace(s.path("data", "X"), s.path("data", "alone")).split()
        words = [w.replace("/results/X/", "/results/alone/") for w in words]
        cmd = [os.path.join(bindir, words[0])] + words[1:] + (
            ["-O", "summaryFormat=JSON"] if words[0] == "ior" else ["--summaryFormat=JSON"])
        os.makedirs(s.path("results", "alone"), exist_ok=True)
        text, _ = run_cmd(cmd, env=local_env(s.tasks), cwd=s.work, what=name)
        doc = json.loads(text)
        if words[0] == "ior":
            write = [r for t in doc["tests"] for r in t["Results"] if r["access"] == "write"]
            out[name] = write[0]["bwMiB"] / 1024
        else:
            phases = doc["tests"][0]["iterations"][0]["phases"]
            out[name] = [p for p in phases if p["operation"] == "File creation"][0]["rate"] / 1000
    shutil.rmtree(s.path("data", "alone"))
    shutil.rmtree(s.path("results", "alone"))
    return out


def run(s):
    binary = os.path.join(os.path.dirname(s.args.ior), "io500")
    cfg = s.path("io500.ini")
    with open(cfg, "w") as f:
        f.write(CONFIG.format(w=s.work))
    _, _, exes = io500_run(s, binary, cfg, "X")
    outside = []
    counter = iter(range(10**6))

    def in_io500():
        extra, scores, _ = io500_run(s, binary, cfg, f"R{next(counter)}")
        outside.append(extra)
        return {n: scores[n] for n in PHASES}

    values, noise = s.alternate("io500", [("io500", in_io500), ("alone", lambda: alone(s, exes))])
    for name in PHASES:
        unit = "GiB/s" if name.startswith("ior") else "kIOPS"
        s.ab_row(f"io500 {name}, {s.tasks} tasks", "phase figure", unit, "ops",
                 ("io500", values["io500"][name]), ("alone", values["alone"][name]), noise,
                 None, judge="paired")
    outside.sort()
    s.sections.append(("io500: time outside the phases", markdown_table(
        ["runs", "median (s)", "max (s)", "target"],
        [[str(len(outside)), f"{outside[len(outside) // 2]:.3f}", f"{outside[-1]:.3f}",
          "< 1 s"]])))
