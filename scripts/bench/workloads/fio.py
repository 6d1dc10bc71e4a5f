"""bw and iops: pario's ior against Debian's fio, in three modes."""

import json
import os
import shutil

from .. import pario, stats
from ..machine import quiet_rounds
from ..proc import KIB, MIB, BenchError, clear, files_in, run_cmd, size_str

TARGET_BW_RATIO = 0.97
TARGET_IOPS_RATIO = 0.95
MODES = ("write/fresh", "write/overwrite", "read")


def bw(s):
    segments = 1 if s.args.quick else 4
    compare(s, "bw", MIB, 256 * MIB, segments, True, "bw", TARGET_BW_RATIO)


def iops(s):
    compare(s, "iops", 4 * KIB, s.args.iops_block, 1, False, "iops", TARGET_IOPS_RATIO)


def parse_fio(text, ddir):
    """fio's --output-format=json with --group_reporting: the ddir stats."""
    start = text.find("{")
    if start < 0:
        raise BenchError("no JSON in fio's output:\n" + text[-3000:])
    job = json.loads(text[start:])["jobs"][0]
    if job.get("error"):
        raise BenchError(f"fio job error {job['error']}")
    d = job[ddir]
    return {"bw": d["bw_bytes"] / MIB, "iops": d["iops"], "io_bytes": d["io_bytes"]}


def fio(s, files, rw, bs, size, extra, label):
    """fio, psync, one job per task with --group_reporting. `files` is either
    a directory (fio names one file per job in it) or the list of the jobs'
    files."""
    cmd = ["fio", f"--rw={rw}", f"--bs={size_str(bs)}", f"--size={size_str(size)}",
           "--ioengine=psync", "--group_reporting", "--output-format=json"]
    cmd += extra + s.args.fio_option
    if isinstance(files, str):
        cmd += ["--name=bench", f"--directory={files}", f"--numjobs={s.tasks}"]
    else:
        # Options before the first --name are global; one job per file.
        for i, f in enumerate(files):
            cmd += [f"--name=bench{i}", f"--filename={f}"]
    s.note_cmd(label, cmd)
    out, _ = run_cmd(cmd, cwd=s.work, what="fio")
    return parse_fio(out, "write" if rw == "write" else "read")


class Case:
    """One workload's commands and files, for both tools.

    By default fio works on the very files pario uses (ior's names, one fio
    job per file), so both tools touch the same memory pages: on this kind of
    VM, which physical pages a file got changes its speed by up to 20 %.
    With --separate-files each tool has its own files."""

    def __init__(self, s, name, xfer, block, segments, fsync, metric):
        self.s, self.name, self.xfer, self.metric = s, name, xfer, metric
        self.per_task = block * segments
        self.expected = self.per_task * s.tasks
        self.ior_dir = s.path(name, "ior")
        self.fio_dir = s.path(name, "fio") if s.args.separate_files else self.ior_dir
        ior_file = os.path.join(self.ior_dir, "testFile")
        self.ior_args = ["-t", size_str(xfer), "-b", size_str(block)]
        self.ior_args += ["-s", str(segments)] if segments != 1 else []
        self.ior_args += ["-F"] + (["-e"] if fsync else []) + ["-o", ior_file]
        self.std = "ior " + " ".join(self.ior_args[:-2])
        self.fio_fsync = ["--fsync_on_close=1"] if fsync else []
        self.fio_files = self.fio_dir if s.args.separate_files else \
            [f"{ior_file}.{rank:08d}" for rank in range(s.tasks)]
        # Timed pario runs also save per-task times, to compute pario's
        # figure the way fio computes its own (pario.rank_csv_figure).
        self.rank_csv = s.path("ranks.csv")

    def pario(self, extra, label, timed=True):
        csv_opt = ["-O", f"saveRankPerformanceDetailsCSV={self.rank_csv}"] if timed else []
        return self.s.ior(extra + self.ior_args + csv_opt, label=f"{self.name} {label}")

    def pario_value(self, rows, access):
        """pario's figure, and the same computed with fio's timing."""
        figure = pario.one(rows, access, "pario")[pario.FIGURE[self.metric]]
        other = pario.rank_csv_figure(self.rank_csv, access, self.metric, self.s.tasks,
                                      self.expected)
        os.remove(self.rank_csv)
        return {"value": figure, "fio_timing": other}

    def fio(self, rw, extra, label):
        r = fio(self.s, self.fio_files, rw, self.xfer, self.per_task, extra,
                f"{self.name} {label}")
        if r["io_bytes"] != self.expected:
            raise BenchError(f"fio {label} moved {r['io_bytes']} bytes, "
                             f"expected {self.expected}")
        return r

    def fresh(self):
        """write/fresh: no file exists before either tool's timed write."""
        def run_pario():
            if files_in(self.ior_dir):
                raise BenchError("files exist before a fresh write")
            rows = self.pario(["-w"], "write/fresh (pario)")
            if files_in(self.ior_dir):
                raise BenchError("pario left files behind without -k")
            return self.pario_value(rows, "write")

        def run_fio():
            if files_in(self.fio_dir):
                raise BenchError("files exist before a fresh write")
            r = self.fio("write", ["--fallocate=none"] + self.fio_fsync,
                         "write/fresh (fio; files deleted after each round)")
            self.s.expect_files(self.fio_dir, self.per_task, "fio write")
            clear(self.fio_dir)
            return {"value": r[self.metric]}
        return run_pario, run_fio

    def existing(self, mode):
        """write/overwrite and read: the files are written once, untimed, by
        pario, and by fio too when it has files of its own; the tools must
        keep them (the same inodes)."""
        self.pario(["-w", "-k"], "setup (pario, untimed)", timed=False)
        ior_inodes = self.s.expect_files(self.ior_dir, self.per_task, "pario -w -k")
        if self.s.args.separate_files:
            self.fio("write", self.fio_fsync, "setup (fio, untimed)")
        fio_inodes = self.s.expect_files(self.fio_dir, self.per_task, "setup write")
        write = mode == "write/overwrite"

        def run_pario():
            extra = ["-w", "-E", "-k"] if write else ["-r", "-k"]
            rows = self.pario(extra, f"{mode} (pario)")
            if self.s.expect_files(self.ior_dir, self.per_task, "pario") != ior_inodes:
                raise BenchError(f"pario {mode} replaced the files")
            return self.pario_value(rows, "write" if write else "read")

        def run_fio():
            if write:
                r = self.fio("write", self.fio_fsync,
                             "write/overwrite (fio; files exist at full size)")
            else:
                r = self.fio("read", [], "read (fio)")
            if self.s.expect_files(self.fio_dir, self.per_task, "fio") != fio_inodes:
                raise BenchError(f"fio {mode} replaced or re-laid out the files")
            return {"value": r[self.metric]}
        return run_pario, run_fio


def compare(s, name, xfer, block, segments, fsync, metric, target):
    """One workload in the chosen modes; appends a row per mode."""
    case = Case(s, name, xfer, block, segments, fsync, metric)
    for mode in (m for m in MODES if m in s.args.modes):
        clear(case.ior_dir)
        clear(case.fio_dir)
        run_pario, run_fio = case.fresh() if mode == "write/fresh" else case.existing(mode)
        # Untimed warm-up rounds first: on a VM with free page reporting,
        # memory that sat free for a few seconds is slow to touch again.
        values, noise = s.alternate(f"{name} {mode}", [("pario", run_pario), ("fio", run_fio)])
        shutil.rmtree(s.path(name))
        p, f = values["pario"], values["fio"]
        c = stats.compare(p["value"], f["value"], quiet=quiet_rounds(noise))
        pt = stats.summary(p["fio_timing"])
        s.rows.append({
            "table": "main", "workload": case.std, "mode": mode,
            "metric": "MiB/s" if metric == "bw" else "IOPS", "kind": metric,
            "pario": c["a"], "fio": c["b"], "ratio": c["of_medians"],
            "paired": c["paired"], "quiet": c["quiet"],
            "target": f">= {target:.2f} x fio", "ok": c["of_medians"] >= target,
            "noise": noise, "pario_per_task": pt,
            "ratio_per_task": pt["median"] / c["b"]["median"],
        })
