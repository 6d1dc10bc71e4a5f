"""dlio: dlio_benchmark's writes against ior writing the same bytes in the
same number of files (issues 39 and 40), --tasks ranks as threads, wall
clock of each whole command (start-up included, removal of the files not:
every side keeps its files, removed between runs), so that neither tool's
own timer is trusted:

  generation  workload=unet3d_datagen, 16 npz files of one 64 MiB sample
              (record_length_bytes 64 MiB, no spread: 64 MiB + 498 bytes
              each) against ior -w -F -t 4m -b 64m -m -k -i 16/TASKS (each
              task a new file per iteration); target 0.8
  checkpoint  workload=llama3_8b shrunk (5 layers, hidden 1024, FFN 3584,
              vocabulary 1001: ZeRO 3, a model and an optimizer file per
              rank), one checkpoint written with fsync, against ior -w -F
              -e -m -k -i 2 -t 1m with -b the mean file size (rounded down
              to 1 MiB; the bytes are the checkpoint's within 0.1 %); the
              figure: the bytes each side wrote over its wall clock;
              target 0.95"""

import os
import shutil
import time

from ..proc import MIB, BenchError, clear, run_cmd
from ..session import local_env

GEN_TARGET = 0.8
CKPT_TARGET = 0.95
GEN_FILES = 16
GEN_BYTES = 64 * MIB
CKPT_MODEL = ["++workload.model.num_layers=5", "++workload.model.transformer.hidden_size=1024",
              "++workload.model.transformer.ffn_hidden_size=3584",
              "++workload.model.transformer.vocab_size=1001",
              "++workload.model.transformer.num_attention_heads=8",
              "++workload.model.transformer.num_kv_heads=2"]


def binary(s, name):
    path = os.path.join(os.path.dirname(s.args.ior), name)
    if not os.access(path, os.X_OK):
        raise BenchError(f"no {name} at {path} (build it: cargo build --release --bins)")
    return path


def timed(s, cmd, label, tasks):
    """Runs cmd with PARIO_TASKS=tasks; its wall-clock seconds."""
    env = local_env(tasks)
    s.note_cmd(label, cmd, env)
    start = time.perf_counter()
    run_cmd(cmd, env=env, cwd=s.work, what=label)
    return time.perf_counter() - start


def tree_bytes(directory):
    """(files, bytes) under directory."""
    files = total = 0
    for root, _, names in os.walk(directory):
        for n in names:
            files += 1
            total += os.stat(os.path.join(root, n)).st_size
    return files, total


def side(s, name, cmd, data, tasks, expect_files):
    """A variant of s.alternate: runs cmd into a fresh `data`, MiB/s of what
    it left there over the wall clock, then removes it."""
    def once():
        clear(data)
        seconds = timed(s, cmd, f"dlio {name}", tasks)
        files, total = tree_bytes(data)
        if files != expect_files:
            raise BenchError(f"{name}: expected {expect_files} files in {data}, found {files}")
        clear(data)
        return {"rate": total / MIB / seconds, "bytes": total}
    return (name, once)


def compare(s, what, workload, pario, ior, target):
    values, noise = s.alternate(what, [pario, ior])
    a, b = [(name, values[name]["rate"]) for name, _ in (pario, ior)]
    s.ab_row(workload, "write", "MiB/s", "bw", a, b, noise, target, judge="paired")


def generation(s):
    data, hydra = s.path("dlio", "gen"), s.path("dlio", "hydra")
    tasks = s.tasks
    dlio = [binary(s, "dlio_benchmark"), "workload=unet3d_datagen",
            f"++workload.dataset.data_folder={data}",
            f"++workload.dataset.num_files_train={GEN_FILES}",
            f"++workload.dataset.record_length_bytes={GEN_BYTES}",
            "++workload.dataset.record_length_bytes_stdev=0",
            "++workload.dataset.num_samples_per_file=1", f"++hydra.run.dir={hydra}"]
    ior = [s.args.ior, "-w", "-F", "-t", "4m", "-b", "64m", "-m", "-k",
           "-i", str(GEN_FILES // tasks), "-o", os.path.join(data, "file")]
    compare(s, "dlio generation", f"dlio_benchmark workload=unet3d_datagen, {GEN_FILES} npz "
            f"files of 64 MiB vs ior -w -F -m -i {GEN_FILES // tasks}, {tasks} tasks",
            side(s, "dlio generation", dlio, data, tasks, GEN_FILES),
            side(s, "ior -w", ior, data, tasks, GEN_FILES), GEN_TARGET)


def checkpoint(s):
    data, hydra = s.path("dlio", "ckpt"), s.path("dlio", "hydra")
    tasks = s.tasks
    dlio = [binary(s, "dlio_benchmark"), "workload=llama3_8b", *CKPT_MODEL,
            f"++workload.checkpoint.checkpoint_folder={data}",
            "++workload.checkpoint.num_checkpoints_write=1",
            "++workload.checkpoint.num_checkpoints_read=0",
            "++workload.checkpoint.time_between_checkpoints=0",
            "pario.keep_checkpoints=true", f"++hydra.run.dir={hydra}"]
    # One run to learn the files' count and sizes.
    clear(data)
    timed(s, dlio, "dlio checkpoint (sizes)", tasks)
    files, total = tree_bytes(data)
    clear(data)
    per_task = files // tasks
    block = total // files // MIB * MIB
    ior = [s.args.ior, "-w", "-F", "-e", "-t", "1m", "-b", str(block), "-m", "-k",
           "-i", str(per_task), "-o", os.path.join(data, "file")]
    compare(s, "dlio checkpoint", f"dlio_benchmark workload=llama3_8b shrunk: {files} files, "
            f"{total / MIB:.0f} MiB, fsync vs ior -w -F -e -m -i {per_task} -b "
            f"{block // MIB}m, {tasks} tasks",
            side(s, "dlio checkpoint", dlio, data, tasks, files),
            side(s, "ior -w -e", ior, data, tasks, files), CKPT_TARGET)


def run(s):
    try:
        generation(s)
        checkpoint(s)
    finally:
        shutil.rmtree(s.path("dlio"), ignore_errors=True)
