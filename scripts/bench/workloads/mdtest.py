"""mdtest: pario's mdtest against a minimal loop making the same system calls
(mdloop.c, compiled here with gcc), with 1 and --tasks tasks.

The two alternate round by round on the same file system (the loop first in
even rounds), so machine noise hits both alike. The statistic is the paired
ratio: pario / loop within each round (each run's median iteration), whose
median over the rounds comes with a distribution-free 95 % interval."""

import os
import statistics

from ..machine import children_cpu_seconds
from ..pario import MDTEST_PHASES as PHASES
from ..proc import run_cmd
from ..table import markdown_table

TARGET_RATIO = 0.95
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mdloop.c")


def compile_loop(s):
    binary = s.path("mdloop")
    run_cmd(["gcc", "-O2", "-pthread", "-o", binary, SOURCE], what="gcc mdloop.c")
    return binary


def loop_rates(s, binary, tasks):
    a = s.args
    out, _ = run_cmd([binary, s.path("c"), str(tasks), str(a.items), str(a.iterations)],
                     cwd=s.work, what="mdloop")
    return [dict(zip(PHASES, map(float, line.split()))) for line in out.splitlines()
            if line.strip()]


def side(runs, ops, fn):
    """A variant for Session.alternate: runs fn (-> rates per iteration),
    keeps every run's rates and CPU time per operation (µs) in `runs`, and
    returns the median iteration's rate of each phase."""
    def once():
        before = children_cpu_seconds()
        rates = fn()
        runs.append({"rates": rates, "cpu_us": (children_cpu_seconds() - before) / ops * 1e6})
        return {p: statistics.median(r[p] for r in rates) for p in PHASES}
    return once


def measure(s, loop, tasks):
    a = s.args
    md = ["-n", str(a.items), "-F", "-i", str(a.iterations), "-d", s.path("p")]
    ops = 4 * tasks * a.items * a.iterations
    runs = {"loop": [], "pario": []}
    variants = [
        ("loop", side(runs["loop"], ops, lambda: loop_rates(s, loop, tasks))),
        ("pario", side(runs["pario"], ops, lambda: s.mdtest(md, tasks, f"mdtest {tasks} task(s)"))),
    ]
    values, noise = s.alternate(f"mdtest {tasks} task(s)", variants)
    for name in runs:
        del runs[name][:s.warmup]
    for p in PHASES:
        s.ab_row(f"PARIO_TASKS={tasks} mdtest -n {a.items} -F", p, "ops/s", "ops",
                 ("pario", values["pario"][p]), ("loop", values["loop"][p]), noise,
                 TARGET_RATIO, judge="paired", table="mdtest", tasks=tasks)
    return runs


def run(s):
    loop = compile_loop(s)
    results = {tasks: measure(s, loop, tasks) for tasks in s.args.mdtest_tasks}
    s.sections.append(("mdtest: pario against a minimal system-call loop", report(s, results)))


def samples(runs, phase):
    return [r[phase] for one in runs for r in one["rates"]]


def report(s, results):
    a = s.args
    return "\n".join([
        f"Workload: `mdtest -n {a.items} -F -i {a.iterations}` against mdloop.c (the same "
        "system calls on the same names at the same depth, DIR/test-dir.I-0/mdtest_tree.0/, "
        "phases between barriers), alternating round by round. Rates in operations per "
        "second over all iterations of all rounds: the median, the best and the slowest.", "",
        rates_table(results), "",
        "Paired ratios pario / loop (each run's median iteration): the median over the "
        f"rounds, its 95 % interval, and the share of rounds at least {TARGET_RATIO}:", "",
        paired_table(s), "",
        "CPU time (user + system) of each whole run per operation, median over runs "
        "(pario's includes its start-up, tree and output):", "",
        cpu_table(results)])


def rates_table(results):
    lines = []
    for tasks, runs in results.items():
        for p in PHASES:
            lo, pa = samples(runs["loop"], p), samples(runs["pario"], p)
            lm, pm, lb, pb = statistics.median(lo), statistics.median(pa), max(lo), max(pa)
            lines.append([str(tasks), p, f"{lm:,.0f}", f"{pm:,.0f}", f"{pm / lm:.3f}",
                          f"{lb:,.0f}", f"{pb:,.0f}", f"{pb / lb:.3f}", f"{min(lo):,.0f}",
                          f"{min(pa):,.0f}"])
    return markdown_table(["tasks", "phase", "loop median", "pario median", "ratio",
                           "loop best", "pario best", "ratio", "loop slowest",
                           "pario slowest"], lines)


def cpu_table(results):
    lines = []
    for tasks, runs in results.items():
        lo, pa = (statistics.median(r["cpu_us"] for r in runs[k]) for k in ("loop", "pario"))
        lines.append([str(tasks), f"{lo:.3f}", f"{pa:.3f}", f"{pa / lo:.3f}"])
    return markdown_table(["tasks", "loop (µs/op)", "pario (µs/op)", "pario / loop"], lines)


def paired_table(s):
    lines = []
    for r in (r for r in s.rows if r.get("table") == "mdtest"):
        p = r["paired"]
        share = sum(v >= TARGET_RATIO for v in p["values"]) / len(p["values"])
        lines.append([str(r["tasks"]), r["mode"], f"{p['median']:.3f}",
                      f"{p['interval'][0]:.3f} - {p['interval'][1]:.3f}", f"{share:.0%}",
                      "yes" if r["ok"] else "NO"])
    return markdown_table(["tasks", "phase", "median ratio", "95 % interval",
                           f"rounds >= {TARGET_RATIO}", "target met"], lines)
