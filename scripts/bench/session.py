"""One benchmark run: the options, the work directory, pario's commands, the
alternation of the sides round by round, and the rows of the report."""

import os

from . import pario, stats
from .machine import QUIET, CpuMeter, quiet_rounds, wait_idle
from .proc import BenchError, files_in, log, run_cmd

# Rounds and warm-up rounds when --rounds / --warmup are not given.
ROUNDS = {"integrity": 9, "mdtest": 7, "mdworkbench": 7, "build": 15}
WARMUP = {"mdtest": 0}


def local_env(tasks):
    """The environment of a local run: PARIO_TASKS, and no fake nodes."""
    return {"PARIO_TASKS": str(tasks), "IOR_FAKE_NODES": None, "IOR_FAKE_TASK_PER_NODES": None}


class Session:
    def __init__(self, args, work):
        self.args = args
        self.work = work
        self.tasks = args.tasks
        self.workload = None  # the one being measured
        self.rows = []  # every figure, for the tables, --json and --check
        self.sections = []  # (title, Markdown) of workloads with reports of their own
        self.commands = []  # (label, command line) as run

    @property
    def rounds(self):
        if self.args.rounds:
            return self.args.rounds
        return 3 if self.args.quick else ROUNDS.get(self.workload, 5)

    @property
    def warmup(self):
        if self.args.warmup is not None:
            return self.args.warmup
        return WARMUP.get(self.workload, 1)

    def path(self, *parts):
        return os.path.join(self.work, *parts)

    def settle(self, what):
        """With --wait-idle, waits for the other processes to calm down."""
        if self.args.wait_idle <= 0:
            return
        waited, share = wait_idle(self.args.wait_idle)
        if share >= QUIET:
            log(f"[{what}] machine still busy after {waited:.0f} s "
                f"(others {share * 100:.0f}%); measuring anyway")

    def note_cmd(self, label, cmd, env=None):
        prefix = " ".join(f"{k}={v}" for k, v in (env or {}).items() if v is not None)
        line = (prefix + " " if prefix else "") + " ".join(cmd)
        line = line.replace(self.work, "$WORK")
        if (label, line) not in self.commands:
            self.commands.append((label, line))

    # -- pario ------------------------------------------------------------------

    def ior_cmd(self, cmd, env, label, tasks):
        """Runs an ior command line (local, or under mpirun) with JSON output,
        checks that it ran `tasks` tasks, returns its results by access."""
        cmd = cmd + pario.IOR_JSON
        self.note_cmd(label, cmd, env)
        out, _ = run_cmd(cmd, env=env, cwd=self.work, what=label)
        return pario.ior_results(pario.document(out, label, tasks), label)

    def ior(self, args, tasks=None, label="pario ior", binary=None):
        """PARIO_TASKS=tasks ior ARGS (default: --tasks, --ior)."""
        tasks = tasks or self.tasks
        return self.ior_cmd([binary or self.args.ior] + args, local_env(tasks), label, tasks)

    def mdtest(self, args, tasks, label, binary=None):
        """PARIO_TASKS=tasks mdtest ARGS: the file phases' rates per iteration."""
        cmd = [binary or self.args.mdtest] + args + pario.MDTEST_JSON
        env = local_env(tasks)
        self.note_cmd(label, cmd, env)
        out, _ = run_cmd(cmd, env=env, cwd=self.work, what=label)
        return pario.mdtest_rates(pario.document(out, label, tasks), label)

    def expect_files(self, directory, size, what):
        """The tool left exactly one file of `size` bytes per task; their inodes."""
        files = files_in(directory)
        sizes = [os.stat(f).st_size for f in files]
        if len(files) != self.tasks or any(s != size for s in sizes):
            raise BenchError(f"{what}: expected {self.tasks} files of {size} bytes in "
                             f"{directory}, found {list(zip(files, sizes))}")
        return {f: os.stat(f).st_ino for f in files}

    # -- alternation ------------------------------------------------------------

    def alternate(self, what, variants, rounds=None, warmup=None, rotate=True):
        """Runs each variant (name, fn) `warmup` times untimed, then `rounds`
        rounds; with `rotate`, each variant goes first in turn (with two: the
        first in even rounds, the second in odd ones). fn() returns
        {key: value}. Returns {name: {key: [value per round]}} and the noise:
        the shares of the CPUs that other processes used ("others") and the
        hypervisor stole ("steal") over the whole measurement, and the
        others' share in each round ("per_round")."""
        rounds = self.rounds if rounds is None else rounds
        warmup = self.warmup if warmup is None else warmup
        log(f"[{what}] {rounds} rounds")
        self.settle(what)
        meter = CpuMeter()
        for _ in range(warmup):
            for _, fn in variants:
                fn()
        values = {name: {} for name, _ in variants}
        round_others = []
        for i in range(rounds):
            round_meter = CpuMeter()
            k = i % len(variants) if rotate else 0
            for name, fn in variants[k:] + variants[:k]:
                for key, v in fn().items():
                    values[name].setdefault(key, []).append(v)
            round_others.append(round_meter.stop()["others"])
        noise = meter.stop()
        noise["per_round"] = round_others
        return values, noise

    def ab_row(self, workload, mode, metric, kind, a, b, noise, target=None,
               diff=False, judge="medians", **extra):
        """A row of the A-against-B table. a, b: (name, [value per round]).
        The target applies to the ratio of the medians (A/B >= target) or,
        with diff, their difference (A - B <= target); with judge="paired",
        to the median of the per-round ratios. target None: for information.
        `extra` goes into the row (table="mdtest": not in the A/B table)."""
        c = stats.compare(a[1], b[1], diff, quiet_rounds(noise))
        value = c["of_medians"] if judge == "medians" else c["paired"]["median"]
        if target is None:
            ok, target_text = True, "-"
        elif diff:
            ok, target_text = value <= target, f"<= {target:.2f} s"
        else:
            ok, target_text = value >= target, f">= {target:.2f}"
        if target is not None and judge == "paired":
            target_text += " (paired)"
        self.rows.append({
            "table": "ab", "workload": workload, "mode": mode, "metric": metric,
            "kind": kind, "a": a[0], "b": b[0], "a_stats": c["a"], "b_stats": c["b"],
            "compare": "A - B" if diff else "A/B", "value": c["of_medians"],
            "paired": c["paired"], "quiet": c["quiet"], "target": target_text,
            "ok": ok, "noise": noise, **extra,
        })
