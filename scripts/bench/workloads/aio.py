"""aio: pario's -a AIO (io_uring) against fio's io_uring engine and pario's
POSIX backend, alternating round by round:
- 4 KiB random reads with O_DIRECT, --tasks files of --aio-size on the
  machine's disk (--aio-dir, not tmpfs), queue depth 32, --aio-seconds each:
  targets AIO >= 0.95 x fio and >= 1.8 x POSIX;
- on /dev/shm without O_DIRECT, 4 KiB writes at queue depth 1: AIO >= 0.95 x
  POSIX (the ring must not cost more than the call it replaces)."""

import os
import shutil
import tempfile

from .. import pario
from ..proc import run_cmd
from .fio import parse_fio

DEPTH = 32


def run(s):
    a = s.args
    work = tempfile.mkdtemp(prefix="pario-aio-", dir=a.aio_dir)
    try:
        random_reads(s, work)
        sequential(s, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    depth_one(s)


def random_reads(s, work):
    a = s.args
    base = os.path.join(work, "f")
    size = a.aio_size
    s.ior(["-a", "POSIX", "-t", "1m", "-b", size, "-F", "-w", "-k", "-o", base],
          label="aio: make the files")
    files = [f"{base}.{rank:08d}" for rank in range(s.tasks)]
    secs = str(a.aio_seconds)
    common = ["--posix.odirect", "-z", "-t", "4k", "-b", size, "-F", "-r", "-k", "-D", secs,
              "-o", base]

    def ior(api, extra):
        rows = s.ior(["-a", api] + extra + common, label=f"aio: {api} random reads")
        return {"iops": pario.one(rows, "read", api)["iops"]}

    def fio():
        cmd = ["fio", "--rw=randread", "--bs=4k", "--ioengine=io_uring", f"--iodepth={DEPTH}",
               "--direct=1", f"--runtime={secs}", "--time_based", "--group_reporting",
               "--output-format=json", f"--size={size}"]
        for i, f in enumerate(files):
            cmd += [f"--name=j{i}", f"--filename={f}"]
        s.note_cmd("aio: fio io_uring", cmd)
        out, _ = run_cmd(cmd, cwd=work, what="fio")
        return {"iops": parse_fio(out, "read")["iops"]}

    variants = [
        ("AIO", lambda: ior("AIO", [f"--aio.max-pending={DEPTH}", "--aio.granularity=8"])),
        ("fio", fio),
        ("POSIX", lambda: ior("POSIX", [])),
    ]
    values, noise = s.alternate("aio random reads", variants)
    name = f"4k random reads, O_DIRECT, {s.tasks} tasks, depth {DEPTH}"
    s.ab_row(name, "AIO / fio io_uring", "IOPS", "ops", ("AIO", values["AIO"]["iops"]),
             ("fio", values["fio"]["iops"]), noise, 0.95, judge="paired")
    s.ab_row(name, "AIO / POSIX", "IOPS", "ops", ("AIO", values["AIO"]["iops"]),
             ("POSIX", values["POSIX"]["iops"]), noise, 1.8, judge="paired")


def sequential(s, work):
    """1 MiB sequential writes with -e (fsync at the end) and reads, O_DIRECT,
    depth 8, on the files random_reads made: AIO against fio's io_uring. Both
    overwrite the files (pario's -E: without it ior removes a file before
    writing it, and a fresh file's allocating writes are another workload:
    the kernel hands them to io_uring's workers one at a time)."""
    a = s.args
    base = os.path.join(work, "f")
    files = [f"{base}.{rank:08d}" for rank in range(s.tasks)]
    size = a.aio_size

    def ior(access):
        flags = ["-w", "-e", "-E"] if access == "write" else ["-r"]
        args = ["-a", "AIO", "--posix.odirect", "--aio.max-pending=8", "--aio.granularity=8",
                "-t", "1m", "-b", size, "-F", "-k", "-o", base] + flags
        rows = s.ior(args, label=f"aio: AIO sequential {access}")
        return {"bw": pario.one(rows, access, "AIO")["bwMiB"]}

    def fio(access):
        cmd = ["fio", f"--rw={access}", "--bs=1m", "--ioengine=io_uring", "--iodepth=8",
               "--direct=1", f"--size={size}", "--group_reporting", "--output-format=json"]
        cmd += ["--fsync_on_close=1"] if access == "write" else []
        for i, f in enumerate(files):
            cmd += [f"--name=j{i}", f"--filename={f}"]
        s.note_cmd(f"aio: fio io_uring sequential {access}", cmd)
        out, _ = run_cmd(cmd, cwd=work, what="fio")
        return {"bw": parse_fio(out, access)["bw"]}

    for access in ("write", "read"):
        variants = [("AIO", lambda: ior(access)), ("fio", lambda: fio(access))]
        values, noise = s.alternate(f"aio sequential {access}", variants)
        s.ab_row(f"1 MiB sequential {access}, O_DIRECT, {s.tasks} tasks, depth 8",
                 "AIO / fio io_uring", "MiB/s", "bw", ("AIO", values["AIO"]["bw"]),
                 ("fio", values["fio"]["bw"]), noise, 0.95, judge="paired")


def depth_one(s):
    out = s.path("aio1", "f")
    os.makedirs(os.path.dirname(out), exist_ok=True)
    common = ["-t", "4k", "-b", "256m", "-F", "-w", "-o", out]

    def ior(api, extra):
        rows = s.ior(["-a", api] + extra + common, label=f"aio: {api} depth 1")
        return {"iops": pario.one(rows, "write", api)["iops"]}

    variants = [("AIO", lambda: ior("AIO", ["--aio.max-pending=1", "--aio.granularity=1"])),
                ("POSIX", lambda: ior("POSIX", []))]
    values, noise = s.alternate("aio depth 1", variants)
    s.ab_row(f"4k writes, /dev/shm, {s.tasks} tasks, depth 1", "AIO / POSIX", "IOPS", "ops",
             ("AIO", values["AIO"]["iops"]), ("POSIX", values["POSIX"]["iops"]), noise, 0.95,
             judge="paired")
