"""mdworkbench: pario's md-workbench (-D 10 -I 1000 -P 1000 -R 3 by default)
against a minimal loop making the same system calls in the same order
(mdwloop.c, compiled here with gcc), and pario with its per-operation timing
on (the default) and off (--recordLatency=0), with 1 and --tasks tasks.

The sides alternate round by round; each run's figure is the median of its
benchmark phases' rates (md-workbench's: objects read x 4 / slowest task's
time). The statistic is the paired ratio within each round, whose median over
the rounds comes with a distribution-free 95 % interval."""

import os
import statistics

from ..pario import document
from ..proc import run_cmd
from ..session import local_env
from ..table import markdown_table

TARGET_RATIO = 0.95
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mdwloop.c")
SHAPE = {"D": 10, "I": 1000, "P": 1000, "R": 3}


def compile_loop(s):
    binary = s.path("mdwloop")
    run_cmd(["gcc", "-O2", "-pthread", "-o", binary, SOURCE], what="gcc mdwloop.c")
    return binary


def loop_rate(s, binary, tasks):
    d = s.path("loop")
    os.makedirs(d, exist_ok=True)
    out, _ = run_cmd([binary, d, str(tasks)] + [str(SHAPE[k]) for k in "DIPR"],
                     cwd=s.work, what="mdwloop")
    return statistics.median(float(v) for v in out.split())


def pario_rate(s, tasks, extra, label):
    binary = os.path.join(os.path.dirname(s.args.ior), "md-workbench")
    cmd = [binary, f"-o={s.path('p')}", f"-D={SHAPE['D']}", f"-I={SHAPE['I']}",
           f"-P={SHAPE['P']}", f"-R={SHAPE['R']}", "-G=7", "--summaryFormat=JSON"] + extra
    env = local_env(tasks)
    s.note_cmd(label, cmd, env)
    out, _ = run_cmd(cmd, env=env, cwd=s.work, what=label)
    doc = document(out, label, tasks)
    return statistics.median(p["rate"] for p in doc["phases"] if p["phase"] == "benchmark")


def measure(s, loop, tasks):
    on, off = f"md-workbench {tasks} task(s)", f"md-workbench {tasks} task(s), timing off"
    variants = [
        ("loop", lambda: {"rate": loop_rate(s, loop, tasks)}),
        ("pario", lambda: {"rate": pario_rate(s, tasks, [], on)}),
        ("pario-off", lambda: {"rate": pario_rate(s, tasks, ["--recordLatency=0"], off)}),
    ]
    values, noise = s.alternate(on, variants)
    shape = " ".join(f"-{k} {v}" for k, v in SHAPE.items())
    name = f"PARIO_TASKS={tasks} md-workbench {shape}"
    s.ab_row(name, "benchmark", "ops/s", "ops", ("pario", values["pario"]["rate"]),
             ("loop", values["loop"]["rate"]), noise, TARGET_RATIO, judge="paired",
             table="mdworkbench", tasks=tasks, against="loop")
    s.ab_row(name, "benchmark, timing off", "ops/s", "ops",
             ("pario-off", values["pario-off"]["rate"]), ("loop", values["loop"]["rate"]),
             noise, TARGET_RATIO, judge="paired", table="mdworkbench", tasks=tasks,
             against="loop")
    s.ab_row(name, "timing on / off", "ops/s", "ops", ("pario", values["pario"]["rate"]),
             ("pario-off", values["pario-off"]["rate"]), noise, None, judge="paired",
             table="mdworkbench", tasks=tasks, against="pario, timing off")
    return values


def run(s):
    loop = compile_loop(s)
    results = {tasks: measure(s, loop, tasks) for tasks in s.args.mdtest_tasks}
    s.sections.append(("md-workbench: pario against a minimal system-call loop",
                       report(s, results)))


def report(s, results):
    rates = []
    for tasks, v in results.items():
        med = {k: statistics.median(v[k]["rate"]) for k in v}
        rates.append([str(tasks), f"{med['loop']:,.0f}", f"{med['pario']:,.0f}",
                      f"{med['pario-off']:,.0f}"])
    rows = []
    for r in (r for r in s.rows if r.get("table") == "mdworkbench"):
        p = r["paired"]
        rows.append([str(r["tasks"]), r["mode"], r["against"], f"{p['median']:.3f}",
                     f"{p['interval'][0]:.3f} - {p['interval'][1]:.3f}",
                     "-" if r["target"] == "-" else ("yes" if r["ok"] else "NO")])
    shape = " ".join(f"-{k} {v}" for k, v in SHAPE.items())
    return "\n".join([
        f"Workload: `md-workbench {shape}` against mdwloop.c (the same system calls in the "
        "same order on the same names), alternating round by round. Benchmark-phase rates "
        "(ops/s, median of each run's phases, median over rounds):", "",
        markdown_table(["tasks", "loop", "pario", "pario, timing off"], rates), "",
        "Paired ratios within each round: the median over the rounds and its 95 % interval:",
        "", markdown_table(["tasks", "side", "against", "median ratio", "95 % interval",
                            f"target >= {TARGET_RATIO}"], rows)])
