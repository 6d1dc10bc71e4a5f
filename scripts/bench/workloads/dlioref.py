"""dlio-ref: pario's checkpoint against the real DLIO's (issue 40): DLIO's
mlperf_storage_v2.0 branch from its source (DLIO_SRC, default
/work/ref/dlio-m, first on PYTHONPATH) run by the python of DLIO_VENV
(default /work/scratch/dlio-venv/venv: torch) under mpirun -n TASKS
--oversubscribe, against pario's dlio_benchmark with PARIO_TASKS=TASKS
(skipped, with a line saying why, without either or without mpirun).

The same command line for every side: workload=llama3_8b (pario's copy of
MLPerf Storage's file, given to DLIO with --config-dir) shrunk as the dlio
mode's checkpoint but with LAYERS layers (16: ~2.9 GiB, ZeRO 3, a model and
an optimizer file per rank), one checkpoint written then read, no pause,
checkpoint_folder on --dir. Sides, rotating round by round:

  pario as DLIO  pario.checkpoint_fsync=dlio pario.checkpoint_duration=dlio:
                 no fsync, rank 0's duration, as the branch does; target:
                 >= DLIO's save figures (paired)
  pario          its defaults for the save (fsync per file, the slowest
                 rank's duration); for information
  DLIO           the branch (torch.save; never fsyncs, rank 0's duration)

pario's sides keep the page cache before the load (pario.checkpoint_cache=
keep: DLIO reads what it just wrote from memory too) and keep the files
(pario.keep_checkpoints=true). Figures, each tool's own: the save's GB/s of
summary.json (save_checkpoint_io_mean_GB_per_second; DLIO's GB is 2^30
bytes), and checkpoint_size_GB over the save's span across every rank's
<rank>_per_epoch_stats.json (the earliest start to the latest end of
save_ckpt1); the same two for the load, for information. Each run's files
(names and byte sizes) must equal the first run's, and so must its
checkpoint_size_GB: the sides write the same checkpoint."""

import json
import os
import shutil
from datetime import datetime

from .. import stats
from ..proc import BenchError, clear, log, run_cmd
from ..session import local_env
from ..table import markdown_table
from .dlio import CKPT_MODEL, binary
from .dliotrain import VENV
from .mpi import mpi_env, mpirun

SRC = os.environ.get("DLIO_SRC", "/work/ref/dlio-m")
LAYERS = int(os.environ.get("DLIO_REF_LAYERS", "16"))
TARGET = 1.0
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
WORKLOAD = os.path.join(REPO, "src", "dlio", "workloads", "mlperf", "llama3_8b.yaml")
AS_DLIO = ["pario.checkpoint_fsync=dlio", "pario.checkpoint_duration=dlio"]
PARIO_KEEP = ["pario.keep_checkpoints=true", "pario.checkpoint_cache=keep"]
GIB = 1 << 30


def missing():
    """Why DLIO cannot run here, or None."""
    python = os.path.join(VENV, "bin", "python")
    if not os.access(python, os.X_OK):
        return f"no python at {python} (DLIO_VENV)"
    if not os.path.isfile(os.path.join(SRC, "dlio_benchmark", "main.py")):
        return f"no dlio_benchmark/main.py under {SRC} (DLIO_SRC)"
    if not shutil.which("mpirun"):
        return "no mpirun"
    return None


def model():
    out = [o for o in CKPT_MODEL if not o.startswith("++workload.model.num_layers=")]
    return [f"++workload.model.num_layers={LAYERS}"] + out


def arguments(s):
    """The command line every side gets, after its program."""
    return ["workload=llama3_8b", *model(),
            f"++workload.checkpoint.checkpoint_folder={s.path('dlioref', 'ckpt')}",
            "++workload.checkpoint.num_checkpoints_write=1",
            "++workload.checkpoint.num_checkpoints_read=1",
            "++workload.checkpoint.time_between_checkpoints=0",
            f"++hydra.run.dir={s.path('dlioref', 'hydra')}",
            f"--config-dir={s.path('dlioref', 'configs')}"]


def commands(s):
    """(name, command, environment) of each side."""
    pario = [binary(s, "dlio_benchmark")] + arguments(s)
    dlio = mpirun(s, [os.path.join(VENV, "bin", "python"), "-m", "dlio_benchmark.main"]
                  + arguments(s))
    return [("pario as DLIO", pario + AS_DLIO + PARIO_KEEP, local_env(s.tasks)),
            ("pario", pario + PARIO_KEEP, local_env(s.tasks)),
            ("DLIO", dlio, {**mpi_env(), "PYTHONPATH": SRC})]


def listing(directory):
    """{path under directory: bytes} of every file."""
    out = {}
    for root, _, names in os.walk(directory):
        for n in names:
            path = os.path.join(root, n)
            out[os.path.relpath(path, directory)] = os.stat(path).st_size
    return out


def spans(hydra, tasks, what):
    """{key: seconds from the earliest rank's start to the latest's end} of
    save_ckpt1 and load_ckpt1, from every rank's per-epoch stats."""
    ranks = []
    for r in range(tasks):
        path = os.path.join(hydra, f"{r}_per_epoch_stats.json")
        try:
            with open(path) as f:
                ranks.append(json.load(f)["1"])
        except (OSError, ValueError, KeyError) as e:
            raise BenchError(f"{what}: no per-epoch stats of rank {r} ({path}: {e})")
    out = {}
    for key in ("save_ckpt1", "load_ckpt1"):
        start = min(datetime.fromisoformat(r[key]["start"]) for r in ranks)
        end = max(datetime.fromisoformat(r[key]["end"]) for r in ranks)
        out[key] = (end - start).total_seconds()
    return out


class Sides:
    """The runs, and the checkpoint every run must leave (the first one's)."""

    def __init__(self, s):
        self.s = s
        self.first = None  # (side, files, checkpoint_size_GB)

    def check(self, name, files, size):
        if self.first is None:
            self.first = (name, files, size)
            return
        side, want, want_size = self.first
        if files != want:
            diff = sorted(set(files.items()) ^ set(want.items()))
            raise BenchError(f"{name} left other files than {side}: {diff[:6]}")
        if abs(size - want_size) > 1e-9 * want_size:
            raise BenchError(f"{name}: checkpoint_size_GB {size} against {side}'s {want_size}")

    def run(self, name, cmd, env):
        s = self.s
        data, hydra = s.path("dlioref", "ckpt"), s.path("dlioref", "hydra")
        clear(data)
        clear(hydra)
        s.note_cmd(f"dlio-ref {name}", cmd, env)
        run_cmd(cmd, env=env, cwd=s.work, what=f"dlio-ref {name}")
        with open(os.path.join(hydra, "summary.json")) as f:
            metric = json.load(f).get("metric", {})
        size = metric.get("checkpoint_size_GB")
        if not size:
            raise BenchError(f"dlio-ref {name}: no checkpoint_size_GB in {hydra}/summary.json")
        files = listing(data)
        self.check(name, files, size)
        span = spans(hydra, s.tasks, f"dlio-ref {name}")
        clear(data)
        shutil.rmtree(hydra, ignore_errors=True)
        out = {"save": metric["save_checkpoint_io_mean_GB_per_second"],
               "save_span": size / span["save_ckpt1"],
               "save_s": metric["save_checkpoint_duration_mean_seconds"],
               "load": metric["load_checkpoint_io_mean_GB_per_second"],
               "load_span": size / span["load_ckpt1"], "size": size, "files": len(files)}
        log(f"[dlio-ref] {name}: " + ", ".join(f"{k} {v:.3f}" for k, v in out.items()))
        return out

    def variant(self, name, cmd, env):
        return (name, lambda: self.run(name, cmd, env))


def rows(s, values, noise, sides):
    """The A/B rows: each pario side against DLIO, save (and load) figures."""
    size, files = values["DLIO"]["size"][0], values["DLIO"]["files"][0]
    workload = (f"llama3_8b shrunk ({LAYERS} layers, {size:.2f} GiB in {files} files), "
                f"{s.tasks} ranks")
    for name in sides[:2]:
        target = TARGET if name == "pario as DLIO" else None
        for key, mode, what in (("save", "save", "reported"), ("save_span", "save", "span"),
                                ("load", "load", "reported"), ("load_span", "load", "span")):
            a = [v * 1024 for v in values[name][key]]
            b = [v * 1024 for v in values["DLIO"][key]]
            s.ab_row(workload, mode, f"MiB/s ({what})", "bw", (name, a), ("DLIO", b), noise,
                     target if mode == "save" else None, judge="paired")


def section(s, values, sides):
    """Each side's medians in DLIO's units."""
    def med(name, key):
        return stats.summary(values[name][key])["median"]
    lines = []
    for name in sides:
        lines.append([name, f"{med(name, 'save'):.3f}", f"{med(name, 'save_span'):.3f}",
                      f"{med(name, 'save_s'):.3f}", f"{med(name, 'load'):.3f}",
                      f"{med(name, 'load_span'):.3f}",
                      f"{med(name, 'save') / med('DLIO', 'save'):.3f}"])
    s.sections.append((
        f"dlio-ref: checkpoint of llama3_8b shrunk to {LAYERS} layers, {s.tasks} ranks, "
        f"{s.rounds} rounds, medians (GB/s = GiB/s, DLIO's unit)",
        markdown_table(["side", "save GB/s (reported)", "save GB/s (span)", "save s",
                        "load GB/s (reported)", "load GB/s (span)",
                        "save reported / DLIO's"], lines)))


def run(s):
    why = missing()
    if why:
        log(f"[dlio-ref] skipped: {why}")
        s.sections.append(("dlio-ref: skipped", why))
        return
    try:
        configs = s.path("dlioref", "configs", "workload")
        os.makedirs(configs)
        shutil.copy(WORKLOAD, configs)
        sides = Sides(s)
        variants = [sides.variant(*c) for c in commands(s)]
        names = [name for name, _ in variants]
        values, noise = s.alternate("dlio-ref", variants)
        rows(s, values, noise, names)
        section(s, values, names)
    finally:
        shutil.rmtree(s.path("dlioref"), ignore_errors=True)
