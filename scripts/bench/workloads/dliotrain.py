"""dlio-train: the client's cost of a training run (issue 39), pario's
dlio_benchmark against DLIO's (PyPI 2.0.0 in DLIO_VENV, default
/work/scratch/dlio-venv/venv; skipped when absent), 1 rank, on --dir
(default /dev/shm: the storage is not the limit), MLPerf Storage v2.0's
h100 shapes at their real sample sizes, file counts shrunk:

  unet3d     npz, 1 sample a file (~140 MiB), batch 7, 4 readers, 0.323 s
  resnet50   tfrecord, 1251 samples a file (~112 KiB), batch 400, 8
             readers, 0.224 s
  cosmoflow  tfrecord, 1 sample a file (~2.7 MiB), batch 1, 4 readers,
             3.5 ms

pario generates each dataset once (both tools read the same files). Each
side trains twice per round, a short run then a long one (steps of one
epoch, or whole epochs: SHAPES); CPU
time (user + sys of the process and the children it waited for, from
wait4, which load disturbs less than wall clock) per step is the
difference over the difference of steps, so start-up cancels (for the
tf.data shapes, which read ahead as far as the machine lets them: the CPU
difference over the difference of bytes read, /proc's rchar, times a
step's bytes). DLIO_TRAIN_SHAPES=resnet50,... picks shapes. Also: peak
RSS (the sum over the process tree, sampled every 50 ms: DLIO's readers
are processes; and wait4's largest single process), DLIO's AU and
samples/s from summary.json. Accelerators one core sustains: the step's
compute time over its CPU per step. Targets: pario >= 5x DLIO's for
resnet50 and cosmoflow, >= DLIO's for unet3d; pario's RSS < 100 MiB
besides its prefetch buffers (the figure shown is the whole RSS)."""

import json
import os
import shutil
import subprocess
import time

from .. import stats
from ..proc import MIB, BenchError, clear, log
from ..table import markdown_table

VENV = os.environ.get("DLIO_VENV", "/work/scratch/dlio-venv/venv")
COMMON = ["++workload.workflow.checkpoint=False"]
# name: (workload, files, short, long, steps of one, compute s, target over
# DLIO). Run lengths in steps of the first epoch for the tf.data shapes,
# whose pipeline reads ahead as far as the machine lets it (so their CPU
# per step is CPU per byte read, times a step's bytes), in whole epochs for
# unet3d, whose 8 batches read ahead would take a whole shrunk epoch (3
# steps of 21 files) either way.
BATCH = {"unet3d": 7, "resnet50": 400, "cosmoflow": 1}
SAMPLES = {"unet3d": 1, "resnet50": 1251, "cosmoflow": 1}
SHAPES = {
    "unet3d": ("unet3d_h100", 21, 1, 4, 3, 0.323, 1.0),
    "resnet50": ("resnet50_h100", 16, 2, 48, 1, 0.224, 5.0),
    "cosmoflow": ("cosmoflow_h100", 600, 20, 580, 1, 0.0035, 5.0),
}


def binary(s, name):
    path = os.path.join(os.path.dirname(s.args.ior), name)
    if not os.access(path, os.X_OK):
        raise BenchError(f"no {name} at {path} (build it: cargo build --release --bins)")
    return path


def tree_sample(pid):
    """(resident KiB, bytes read by read calls: rchar) of pid and its
    descendants, from /proc."""
    total, rchar, todo = 0, 0, [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/status") as f:
                total += next((int(line.split()[1]) for line in f if line.startswith("VmRSS:")), 0)
            with open(f"/proc/{p}/io") as f:
                rchar += next((int(line.split()[1]) for line in f if line.startswith("rchar:")), 0)
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return total, rchar


def measured(cmd, env, cwd, label):
    """Runs cmd; (CPU seconds, peak tree RSS KiB, wait4's max RSS KiB,
    bytes read as last sampled)."""
    out = os.path.join(cwd, "out.txt")
    with open(out, "w") as f:
        p = subprocess.Popen(cmd, env={**os.environ, **env}, cwd=cwd, stdout=f,
                             stderr=subprocess.STDOUT)
    peak = read = 0
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        rss, rchar = tree_sample(p.pid)
        peak, read = max(peak, rss), max(read, rchar)
        time.sleep(0.05)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        with open(out) as f:
            raise BenchError(f"{label} failed (exit {p.returncode}): {' '.join(cmd)}\n"
                             f"{f.read()[-3000:]}")
    log(f"[dlio-train] {label}: user {ru.ru_utime:.2f} s, sys {ru.ru_stime:.2f} s")
    return ru.ru_utime + ru.ru_stime, peak, ru.ru_maxrss, read


def summary(hydra):
    with open(os.path.join(hydra, "summary.json")) as f:
        return json.load(f).get("metric", {})


def generate(s, name, data):
    workload, files = SHAPES[name][:2]
    cmd = [binary(s, "dlio_benchmark"), f"workload={workload}",
           "++workload.workflow.generate_data=True", "++workload.workflow.train=False",
           *COMMON, f"++workload.dataset.data_folder={data}",
           f"++workload.dataset.num_files_train={files}",
           f"++hydra.run.dir={s.path('dliotrain', 'gen-hydra')}"]
    env = {"PARIO_TASKS": "2"}
    s.note_cmd(f"dlio-train {name} generation", cmd, env)
    clear(data)
    subprocess.run(cmd, env={**os.environ, **env}, cwd=s.work, check=True,
                   stdout=subprocess.DEVNULL)


def bytes_per_step(name, data):
    """A step's bytes on storage: the mean sample's (framing included) times
    the batch."""
    train = os.path.join(data, "train")
    files = [os.path.join(root, n) for root, _, names in os.walk(train) for n in names]
    total = sum(os.stat(f).st_size for f in files)
    return total / (len(files) * SAMPLES[name]) * BATCH[name]


def train_cmd(exe, name, data, length, hydra):
    workload, files, _, _, per = SHAPES[name][:5]
    run = ([f"++workload.train.epochs={length}"] if per > 1 else
           ["++workload.train.epochs=1", f"++workload.train.total_training_steps={length}"])
    return [exe, f"workload={workload}", "++workload.workflow.generate_data=False",
            "++workload.workflow.train=True", *COMMON, *run,
            f"++workload.dataset.data_folder={data}",
            f"++workload.dataset.num_files_train={files}", f"++hydra.run.dir={hydra}"]


def one_round(s, tool, exe, name, data, step_bytes):
    """A round of one side: (CPU per step s, start-up CPU s, peaks, AU, samples/s)."""
    short, long, per = SHAPES[name][2:5]
    got = {}
    for steps in (short, long):
        hydra = s.path("dliotrain", f"{tool}-{steps}")
        clear(hydra)
        cmd = train_cmd(exe, name, data, steps, hydra)
        env = {"PARIO_TASKS": "1"} if tool == "pario" else {}
        s.note_cmd(f"dlio-train {name} {tool} length {steps}", cmd, env)
        cpu, peak, maxrss, read = measured(cmd, env, hydra, f"{tool} {name} {steps}")
        got[steps] = (cpu, peak, maxrss, summary(hydra), read)
        shutil.rmtree(hydra, ignore_errors=True)
    per_step = (got[long][0] - got[short][0]) / (long - short) / per
    if per == 1:
        # tf.data reads ahead as far as the machine lets it within the
        # epoch: CPU per byte read, times the bytes of a step.
        per_step = (got[long][0] - got[short][0]) / (got[long][4] - got[short][4]) * step_bytes
    metric = got[long][3]
    out = {"step": per_step, "start": got[short][0] - short * per * per_step,
           "tree": max(g[1] for g in got.values()), "maxrss": max(g[2] for g in got.values()),
           "au": metric.get("train_au_mean_percentage"),
           "sps": metric.get("train_throughput_mean_samples_per_second"),
           "cpu": {steps: round(g[0], 3) for steps, g in got.items()}}
    log(f"[dlio-train] {name} {tool}: {out}")
    return out


def sides(s):
    out = [("pario", binary(s, "dlio_benchmark"))]
    dlio = os.path.join(VENV, "bin", "dlio_benchmark")
    if os.access(dlio, os.X_OK):
        out.append(("DLIO", dlio))
    else:
        log(f"[dlio-train] no DLIO at {dlio}: pario only")
    return out


def med(rounds, key):
    values = [r[key] for r in rounds if r[key] is not None]
    return stats.summary(values)["median"] if values else None


def shape_rows(s, name, results):
    compute, target = SHAPES[name][5:7]
    lines, per_core = [], {}
    for tool, rounds in results.items():
        step = med(rounds, "step")
        per_core[tool] = compute / step if step > 0 else float("nan")
        au, sps = med(rounds, "au"), med(rounds, "sps")
        lines.append([name, tool, f"{step * 1000:.2f}", f"{med(rounds, 'start'):.2f}",
                      f"{per_core[tool]:.1f}", f"{med(rounds, 'tree') / 1024:.0f}",
                      f"{med(rounds, 'maxrss') / 1024:.0f}",
                      "-" if au is None else f"{au:.1f}", "-" if sps is None else f"{sps:.0f}"])
    ratio = per_core["pario"] / per_core["DLIO"] if "DLIO" in per_core else None
    lines[0].append("-" if ratio is None else f"{ratio:.1f}x (>= {target:g}x)")
    for line in lines[1:]:
        line.append("")
    s.rows.append({
        "table": "main", "mode": "-", "metric": "accelerators a core", "kind": "ops",
        "workload": f"dlio_benchmark {SHAPES[name][0]} training, 1 rank",
        "pario": stats.summary([r["step"] for r in results["pario"]]),
        "pario_text": f"{per_core['pario']:.1f} a core"
                      + ("" if ratio is None else f", {ratio:.1f}x DLIO's"),
        "target": f">= {target:g}x DLIO", "ok": ratio is None or ratio >= target,
        # a NaN ratio (a side's CPU per step not above 0: noise) is a miss
    })
    return lines


def run(s):
    rounds = max(1, s.rounds)
    lines = []
    try:
        for name in os.environ.get("DLIO_TRAIN_SHAPES", ",".join(SHAPES)).split(","):
            data = s.path("dliotrain", name)
            log(f"[dlio-train] {name}: generating")
            generate(s, name, data)
            step_bytes = bytes_per_step(name, data)
            results = {tool: [] for tool, _ in sides(s)}
            for i in range(rounds):
                for tool, exe in sides(s):
                    log(f"[dlio-train] {name} {tool} round {i + 1}/{rounds}")
                    results[tool].append(one_round(s, tool, exe, name, data, step_bytes))
            lines += shape_rows(s, name, results)
            shutil.rmtree(data, ignore_errors=True)
    finally:
        shutil.rmtree(s.path("dliotrain"), ignore_errors=True)
    s.sections.append((f"dlio-train: client cost per training step (1 rank, {rounds} rounds, "
                       "medians)", markdown_table(
        ["shape", "tool", "CPU/step ms", "start-up CPU s", "accelerators/core",
         "peak RSS MiB (tree)", "max RSS MiB (one process)", "AU %", "samples/s",
         "pario/DLIO"], lines)))
