"""mdworkbench: pario's md-workbench (-D 10 -I 1000 -P 1000 -R 3 by default,
--mdw-data-sets, --mdw-objects, --mdw-precreate, --mdw-iterations) against a
minimal loop making the same system calls in the same order on the same
names (mdwloop.c, compiled here with gcc), and pario with its per-operation
timing on (the default) and off (--recordLatency=0), with 1 and --tasks
tasks (--mdw-tasks).

The sides alternate round by round (each goes first in turn) on the same
directory, so machine noise hits them alike. Each run's figure is the median
of its -R benchmark phases' rates (md-workbench's: objects read x 4 over the
slowest task's time). The statistic is the paired ratio within each round,
whose median over the rounds comes with a distribution-free 95 % interval.
A pario that refuses --recordLatency=0 is measured without that side."""

import os
import statistics
import subprocess

from ..machine import children_cpu_seconds
from ..pario import document
from ..proc import BenchError, environment, log, run_cmd
from ..session import local_env
from ..table import markdown_table

TARGET_RATIO = 0.95
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mdwloop.c")
OBJECT_SIZE = 3901  # md-workbench's -S default, which mdwloop.c has built in
OFF = ["--recordLatency=0"]
# Sides: (name, label in the tables).
SIDES = [("loop", "loop"), ("pario", "pario"), ("pario-off", "pario, timing off")]


def shape(a):
    """{"D": .., "I": .., "P": .., "R": ..} from the options."""
    return {"D": a.mdw_data_sets, "I": a.mdw_objects, "P": a.mdw_precreate,
            "R": a.mdw_iterations}


def shape_text(a):
    return " ".join(f"-{k} {v}" for k, v in shape(a).items())


def compile_loop(s):
    binary = s.path("mdwloop")
    run_cmd(["gcc", "-O2", "-pthread", "-o", binary, SOURCE], what="gcc mdwloop.c")
    return binary


def pario_cmd(s, directory, dims, extra):
    """md-workbench on DIRECTORY/p; -G 7: a fixed data offset, not a random one."""
    return [s.args.md_workbench, "-o", os.path.join(directory, "p"), "-D", str(dims["D"]),
            "-I", str(dims["I"]), "-P", str(dims["P"]), "-R", str(dims["R"]), "-G", "7",
            "--summaryFormat=JSON"] + extra


def expect_empty(directory, what):
    left = os.listdir(directory)
    if left:
        raise BenchError(f"{what} left {sorted(left)[:5]} in {directory}")


def timing_off_available(s):
    """Whether pario's md-workbench takes --recordLatency=0: a run of one
    object with it; a refusal naming the option means no."""
    d = s.path("mdw-probe")
    os.makedirs(d, exist_ok=True)
    cmd = pario_cmd(s, d, {"D": 1, "I": 1, "P": 1, "R": 1}, OFF)
    p = subprocess.run(cmd, env=environment(local_env(1)), cwd=s.work, capture_output=True,
                       text=True)
    if p.returncode == 0:
        document(p.stdout, "md-workbench --recordLatency=0 probe", 1)
        expect_empty(d, "md-workbench --recordLatency=0 probe")
        os.rmdir(d)
        return True
    if "recordLatency" in p.stdout + p.stderr:
        said = ((p.stderr or p.stdout).strip().splitlines() or [""])[-1]
        log(f"[mdworkbench] {s.args.md_workbench} refuses --recordLatency=0 (exit "
            f"{p.returncode}: {said}); measuring without timing off")
        run_cmd(pario_cmd(s, d, {"D": 1, "I": 1, "P": 1, "R": 1}, []), env=local_env(1),
                cwd=s.work, what="md-workbench probe")
        expect_empty(d, "md-workbench probe")
        os.rmdir(d)
        return False
    raise BenchError(f"md-workbench probe failed (exit {p.returncode}): {' '.join(cmd)}\n"
                     f"--- stdout ---\n{p.stdout[-3000:]}\n--- stderr ---\n{p.stderr[-3000:]}")


def loop_rates(s, binary, directory, tasks):
    """The loop's benchmark phases' rates (ops/s)."""
    dims = shape(s.args)
    cmd = [binary, directory, str(tasks)] + [str(dims[k]) for k in "DIPR"]
    s.note_cmd(f"mdwloop {tasks} task(s)", cmd)
    out, _ = run_cmd(cmd, cwd=s.work, what="mdwloop")
    rates = [float(line.split()[0]) for line in out.splitlines() if line.strip()]
    if len(rates) != dims["R"]:
        raise BenchError(f"mdwloop: expected {dims['R']} benchmark phases, got:\n{out}")
    return rates


def pario_rates(s, directory, tasks, extra, label):
    """pario's benchmark phases' rates (ops/s), checked: -R phases, each
    having read every object without an error."""
    dims = shape(s.args)
    cmd = pario_cmd(s, directory, dims, extra)
    env = local_env(tasks)
    s.note_cmd(label, cmd, env)
    out, _ = run_cmd(cmd, env=env, cwd=s.work, what=label)
    phases = [p for p in document(out, label, tasks)["phases"] if p["phase"] == "benchmark"]
    if len(phases) != dims["R"]:
        raise BenchError(f"{label}: expected {dims['R']} benchmark phases, got {len(phases)}")
    objects = tasks * dims["D"] * dims["I"]
    for p in phases:
        errors = {k: v for k, v in p.get("errors", {}).items() if v}
        if errors or p["objs_read"] != objects:
            raise BenchError(f"{label}: a benchmark phase read {p['objs_read']} of {objects} "
                             f"objects, errors {errors}")
    return [p["rate"] for p in phases]


def side(runs, objects, directory, fn):
    """A variant for Session.alternate: runs fn (-> the run's benchmark
    phases' rates) on `directory`, which it must leave empty; keeps every
    run's rates and CPU time per object (µs, the whole run) in `runs`;
    returns the median phase's rate."""
    def once():
        before = children_cpu_seconds()
        rates = fn()
        runs.append({"rates": rates, "cpu_us": (children_cpu_seconds() - before) / objects * 1e6})
        expect_empty(directory, "a run")
        return {"rate": statistics.median(rates)}
    return once


def measure(s, loop, tasks, sides):
    a, dims = s.args, shape(s.args)
    # Both sides on the same names: $WORK/mdw/p/<rank>_<d>/file-<i>.
    d = s.path("mdw")
    os.makedirs(d, exist_ok=True)
    label = f"md-workbench {tasks} task(s)"
    # Every object a task makes or touches in a run: precreate, R x I x D
    # benchmark objects, cleanup.
    objects = tasks * dims["D"] * (2 * dims["P"] + dims["R"] * dims["I"])
    fns = {
        "loop": lambda: loop_rates(s, loop, d, tasks),
        "pario": lambda: pario_rates(s, d, tasks, [], label),
        "pario-off": lambda: pario_rates(s, d, tasks, OFF, f"{label}, timing off"),
    }
    runs = {name: [] for name in sides}
    variants = [(name, side(runs[name], objects, d, fns[name])) for name in sides]
    values, noise = s.alternate(label, variants)
    for name in runs:
        del runs[name][:s.warmup]
    name = f"PARIO_TASKS={tasks} md-workbench {shape_text(a)}"
    rate = {k: values[k]["rate"] for k in sides}
    s.ab_row(name, "benchmark", "ops/s", "ops", ("pario", rate["pario"]), ("loop", rate["loop"]),
             noise, TARGET_RATIO, judge="paired", table="mdworkbench", tasks=tasks,
             against="loop")
    if "pario-off" in sides:
        s.ab_row(name, "benchmark, timing off", "ops/s", "ops", ("pario-off", rate["pario-off"]),
                 ("loop", rate["loop"]), noise, TARGET_RATIO, judge="paired",
                 table="mdworkbench", tasks=tasks, against="loop")
        s.ab_row(name, "timing on / off", "ops/s", "ops", ("pario", rate["pario"]),
                 ("pario-off", rate["pario-off"]), noise, None, judge="paired",
                 table="mdworkbench", tasks=tasks, against="pario, timing off")
    os.rmdir(d)
    return runs


def run(s):
    loop = compile_loop(s)
    sides = [name for name, _ in SIDES]
    if not timing_off_available(s):
        sides.remove("pario-off")
    results = {tasks: measure(s, loop, tasks, sides) for tasks in s.args.mdw_tasks}
    s.sections.append(("md-workbench: pario against a minimal system-call loop",
                       report(s, results, sides)))


def report(s, results, sides):
    a = s.args
    labels = dict(SIDES)
    off = ", and pario with --recordLatency=0" if "pario-off" in sides else ""
    lines = [
        f"Workload: `md-workbench {shape_text(a)}` (-S {OBJECT_SIZE}, offset 1) against "
        "mdwloop.c (the same system calls in the same order on the same names, "
        f"DIR/p/<rank>_<d>/file-<i>){off}, alternating round by round. Benchmark-phase "
        "rates in operations per second (md-workbench's: objects read x 4 / the slowest "
        "task's time) over every phase of every round: the median, the best and the "
        "slowest; CPU time (user + system) of each whole run (precreate, benchmark, "
        "cleanup; pario's includes its start-up and output) per object touched, median over "
        "runs:", "",
        rates_table(results, sides, labels), ""]
    if "pario-off" not in sides:
        lines += [f"pario, timing off: unavailable ({a.md_workbench} refuses "
                  "--recordLatency=0).", ""]
    lines += [
        "Paired ratios (each run's median phase, within each round): the median over the "
        f"rounds, its 95 % interval, and the share of rounds at least {TARGET_RATIO}:", "",
        paired_table(s)]
    return "\n".join(lines)


def rates_table(results, sides, labels):
    lines = []
    for tasks, runs in results.items():
        for name in sides:
            r = [v for one in runs[name] for v in one["rates"]]
            cpu = statistics.median(one["cpu_us"] for one in runs[name])
            lines.append([str(tasks), labels[name], f"{statistics.median(r):,.0f}",
                          f"{max(r):,.0f}", f"{min(r):,.0f}", f"{cpu:.2f}"])
    return markdown_table(["tasks", "side", "median", "best", "slowest", "CPU µs/object"],
                          lines)


def paired_table(s):
    lines = []
    for r in (r for r in s.rows if r.get("table") == "mdworkbench"):
        p = r["paired"]
        label = dict(SIDES)[r["a"]]
        if r["target"] == "-":
            share, met = "-", "-"
        else:
            share = f"{sum(v >= TARGET_RATIO for v in p['values']) / len(p['values']):.0%}"
            met = "yes" if r["ok"] else "NO"
        lines.append([str(r["tasks"]), label, r["against"], f"{p['median']:.3f}",
                      f"{p['interval'][0]:.3f} - {p['interval'][1]:.3f}",
                      f"{p['min']:.3f} - {p['max']:.3f}", share, met])
    return markdown_table(["tasks", "side", "against", "median ratio", "95 % interval",
                           "range", f"rounds >= {TARGET_RATIO}", "target met"], lines)
