"""The report of a run: the machine, the tables, the notes and the commands."""

import json
import os
import shutil
import subprocess

from . import machine
from .machine import QUIET
from .table import ab_table, main_table


def git_tree(path):
    try:
        out = subprocess.run(["git", "-C", os.path.dirname(path), "describe", "--always",
                              "--dirty"], capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    return out or None


def machine_info(args, mpi):
    info = machine.describe()
    info["dir"] = f"{args.dir} ({machine.fs_type(os.path.realpath(args.dir))})"
    info["ior"] = args.ior
    info["git"] = git_tree(args.ior)
    info["fio_options"] = args.fio_option
    info["separate_files"] = args.separate_files
    info["load_before"] = os.getloadavg()[0]
    if mpi and shutil.which("mpirun"):
        info["mpi_ior"] = args.mpi_ior
        info["mpirun"] = machine.first_line(["mpirun", "--version"])
        info["mpirun_options"] = args.mpirun_option
    if args.baseline:
        info["baseline"] = os.path.abspath(args.baseline)
    return info


def header(s, info, seconds):
    a = s.args
    lines = [
        f"pario benchmarks: {info['nproc']} CPUs ({info['cpu']}), "
        f"{info['mem_total_kib'] / 1024 / 1024:.1f} GiB, Linux {info['kernel']}, "
        f"{info['fio']}, dir {info['dir']}, {a.tasks} tasks, "
        f"nice {os.getpriority(os.PRIO_PROCESS, 0)}, {seconds:.0f} s, load average "
        f"{info['load_before']:.2f} before and {os.getloadavg()[0]:.2f} after",
        f"ior binary: {info['ior']} (tree {info['git'] or 'unknown'}); "
        f"extra fio options: {' '.join(a.fio_option) or 'none'}; "
        f"fio files: {'its own' if a.separate_files else 'the same as pario'}; "
        f"scheduler autogroups: {'on' if info['autogroups'] else 'off'}",
    ]
    if "mpirun" in info:
        lines.append(f"MPI: {info['mpirun']}; MPI ior binary: {info['mpi_ior']}; "
                     f"mpirun -n {a.tasks} --oversubscribe {' '.join(a.mpirun_option)}")
    if "baseline" in info:
        lines.append(f"build against build: new = {info['ior']} and {a.mdtest}; "
                     f"old = {info['baseline']}/ior and mdtest")
    return lines


def notes(s, info):
    rows = s.rows
    out = []
    if any(r["table"] == "main" and r.get("pario_per_task") for r in rows):
        out.append("pario, fio's timing: pario's median computed as fio does (bytes or "
                   "transfers over the longest task's open-to-close time), and its ratio to "
                   "fio's median.")
    busy = [r for r in rows if r["table"] == "main" and r.get("fio") and
            (r.get("noise") or {}).get("others", 0) > QUIET]
    if busy and info["autogroups"] and "--thread" not in s.args.fio_option:
        out.append("NOTE: other processes used over 10% of the CPUs in some rows. fio's jobs "
                   "are processes that call setsid(), so with scheduler autogroups each job "
                   "gets a CPU share of its own against other sessions, while pario's tasks "
                   "(threads) share one: compare with --fio-option=--thread (and --nice) on "
                   "a busy machine.")
    out += [f"paired: the per-round ratios (or differences), their median with a "
            f"distribution-free 95 % interval, and their range; quiet rounds: the rounds in "
            f"which other processes used under {QUIET:.0%} of the CPUs, and the median "
            f"per-round figure over them.",
            "others/steal: share of the machine's CPU time that other processes used, and "
            "that the hypervisor stole, while that row was measured."]
    return out


def render(s, info, seconds):
    out = header(s, info, seconds) + [""]
    main = [r for r in s.rows if r["table"] == "main"]
    ab = [r for r in s.rows if r["table"] == "ab"]
    if main:
        out += [main_table(main), ""]
    if ab:
        out += ["A against B (alternating round by round; A/B is the ratio of the medians, "
                "A - B their difference; '(paired)' targets apply to the median per-round "
                "ratio):", "", ab_table(ab), ""]
    for title, text in s.sections:
        out += [f"## {title}", "", text, ""]
    out += notes(s, info) + ["", "Commands (one round; $WORK is the work directory; pario's "
                                 "figures come from its JSON output, fio's from its JSON):"]
    out += [f"  [{label}] {line}" for label, line in s.commands]
    return "\n".join(out)


def write_json(path, s, info):
    with open(path, "w") as f:
        json.dump({"machine": info, "tasks": s.args.tasks, "workloads": s.args.workloads,
                   "rows": s.rows, "sections": dict(s.sections), "commands": s.commands},
                  f, indent=1)
