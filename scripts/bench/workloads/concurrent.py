"""concurrent: a group run alone by `pario concurrent` (a file of one line,
`100% ior ARGS` or `100% mdtest ARGS`) against the same command run plainly
on the same tasks (issue 28). The group runs on a communicator split off
for it, with its text going to a file: neither may cost anything measurable.
Figures: the group's own report in `pario concurrent --json` against the
plain run's JSON document; the target applies to the paired ratios."""

import json
import os
import shutil
import statistics

from .. import pario
from ..proc import BenchError, MIB, clear, run_cmd, size_str
from ..session import local_env

TARGET_RATIO = 0.98


def pario_binary(s):
    """`pario`, next to --ior."""
    binary = os.path.join(os.path.dirname(s.args.ior), "pario")
    if not os.access(binary, os.X_OK):
        raise BenchError(f"no pario binary at {binary} (build it: cargo build --release --bins)")
    return binary


def group_report(s, tool, args, label):
    """PARIO_TASKS=--tasks pario concurrent --json J FILE, FILE holding the
    one line `100% TOOL ARGS`: the group's own report (its tool's JSON)."""
    spec, doc = s.path("concurrent", "group.txt"), s.path("concurrent", "group.json")
    with open(spec, "w") as f:
        f.write(f"100% {tool} {' '.join(args)}\n")
    cmd = [pario_binary(s), "concurrent", "--json", doc, spec]
    env = local_env(s.tasks)
    s.note_cmd(label, cmd + [f"# {spec}: 100% {tool} {' '.join(args)}"], env)
    run_cmd(cmd, env=env, cwd=s.work, what=label)
    with open(doc) as f:
        report = json.load(f)
    os.remove(doc)
    groups = report.get("groups", [])
    if len(groups) != 1 or groups[0].get("error") or groups[0].get("tasks") != s.tasks:
        raise BenchError(f"{label}: expected one group of {s.tasks} tasks that ran, got "
                         f"{json.dumps(groups)[:2000]}")
    return groups[0]["report"]


def entry_key(name):
    return lambda entry: entry[name]


def write_read(metric, kind, name):
    """The write and read figures `name` of every Results entry."""
    return {a: (a, metric, kind, entry_key(name)) for a in ("write", "read")}


def ior_shapes(s):
    """(name, ior args, {mode: (access, metric, table kind, figure of a
    Results entry)})."""
    bw, iops = s.path("concurrent", "bw", "file"), s.path("concurrent", "iops", "file")
    dummy = s.path("concurrent", "dummy", "file")
    block = size_str(s.args.iops_block)
    return [
        ("ior -t 1m -b 256m -F -e", ["-t", "1m", "-b", "256m", "-F", "-e", "-o", bw],
         write_read("MiB/s", "bw", "bwMiB")),
        (f"ior -t 4k -b {block} -F", ["-t", "4k", "-b", block, "-F", "-o", iops],
         write_read("IOPS", "iops", "iops")),
        ("ior -a DUMMY -t 8 -b 64m -w",
         ["-a", "DUMMY", "-t", "8", "-b", size_str(64 * MIB), "-w", "-o", dummy],
         {"write": ("write", "transfers/s/task", "rate", pario.transfers_per_task_s)}),
    ]


def ior_shape(s, name, args, modes):
    def figures(rows, what):
        return {m: fig(pario.one(rows, access, what)) for m, (access, _, _, fig) in modes.items()}

    def grouped():
        label = f"concurrent: 100% {name}"
        doc = group_report(s, "ior", args, label)
        return figures(pario.ior_results(doc, label), label)

    def plain():
        return figures(s.ior(args, label=f"plain {name}"), f"plain {name}")

    compare(s, name, [("concurrent", grouped), ("plain", plain)],
            {m: (metric, kind) for m, (_, metric, kind, _) in modes.items()})


def mdtest_shape(s):
    args = ["-n", str(s.args.items), "-F", "-d", s.path("concurrent", "md")]
    name = f"mdtest -n {s.args.items} -F"

    def median_iteration(rates):
        return {p: statistics.median(r[p] for r in rates) for p in pario.MDTEST_PHASES}

    def grouped():
        label = f"concurrent: 100% {name}"
        return median_iteration(pario.mdtest_rates(group_report(s, "mdtest", args, label), label))

    def plain():
        return median_iteration(s.mdtest(args, s.tasks, f"plain {name}"))

    compare(s, name, [("concurrent", grouped), ("plain", plain)],
            {p: ("ops/s", "ops") for p in pario.MDTEST_PHASES})


def compare(s, name, variants, metrics):
    values, noise = s.alternate(f"concurrent {name}, {s.tasks} task(s)", variants)
    for mode, (metric, kind) in metrics.items():
        a, b = [(v, values[v][mode]) for v, _ in variants]
        s.ab_row(f"PARIO_TASKS={s.tasks} pario concurrent (100% {name}) vs {name}", mode,
                 metric, kind, a, b, noise, TARGET_RATIO, judge="paired")


def run(s):
    d = s.path("concurrent")
    clear(d)
    for sub in ("bw", "iops", "dummy", "md"):
        os.makedirs(os.path.join(d, sub))
    for name, args, modes in ior_shapes(s):
        ior_shape(s, name, args, modes)
    mdtest_shape(s)
    shutil.rmtree(d)
