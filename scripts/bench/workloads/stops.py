"""stops: how long a run takes to stop cleanly after a signal (issue 13's
target: within 5 s), and what it leaves. Each case starts a long run, waits
`--stop-after` seconds, sends SIGINT (or SIGKILLs one MPI rank), and times
the end of the process; the work directory must then be empty (the killed
rank's file excepted)."""

import os
import signal
import subprocess
import time

from ..proc import BenchError, clear, log
from ..session import local_env
from .mpi import mpi_env, mpirun, need_mpi

TARGET_S = 5.0


def entries(d):
    return sum(len(files) + len(dirs) for _, dirs, files in os.walk(d))


def rank_pid(rank, marker):
    """The pid of MPI rank `rank` of the run whose command line holds `marker`."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if marker.encode() not in f.read():
                    continue
            with open(f"/proc/{pid}/environ", "rb") as f:
                if f"OMPI_COMM_WORLD_RANK={rank}".encode() in f.read().split(b"\0"):
                    return int(pid)
        except OSError:
            continue
    raise BenchError(f"no rank {rank} running {marker}")


def one(s, label, cmd, env, d, kill_rank=None):
    clear(d)
    s.note_cmd(f"stops: {label}", cmd, env)
    full_env = dict(os.environ)
    full_env.update({k: v for k, v in env.items() if v is not None})
    for k in [k for k, v in env.items() if v is None]:
        full_env.pop(k, None)
    p = subprocess.Popen(cmd, env=full_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(s.args.stop_after)
    if p.poll() is not None:
        raise BenchError(f"stops: {label} ended before the signal")
    at_signal = entries(d)
    start = time.monotonic()
    if kill_rank is None:
        p.send_signal(signal.SIGINT)
    else:
        os.kill(rank_pid(kill_rank, d), signal.SIGKILL)
    status = p.wait()
    took = time.monotonic() - start
    left = entries(d)
    clear(d)
    log(f"  {label}: {at_signal} entries at the signal, exit {status}, {took:.2f} s, {left} left")
    return (label, at_signal, status, took, left)


def run(s):
    d = s.path("stops")
    os.makedirs(d, exist_ok=True)
    n = s.tasks
    ior = [s.args.ior, "-w", "-t", "1m", "-b", "4g", "-F", "-o", os.path.join(d, "t")]
    mdtest = [s.args.mdtest, "-n", "500000", "-F", "-d", os.path.join(d, "m")]
    rows = [
        one(s, f"PARIO_TASKS={n} ior -w -t 1m -b 4g -F", ior, local_env(n), d),
        one(s, "PARIO_TASKS=1 mdtest -n 500000 -F", mdtest, local_env(1), d),
    ]
    try:
        need_mpi(s)
        mpi_ior = [s.args.mpi_ior] + ior[1:]
        rows.append(one(s, f"mpirun -n {n} ior -w -t 1m -b 4g -F", mpirun(s, mpi_ior),
                        mpi_env(), d))
        rows.append(one(s, f"same, rank {n - 1} SIGKILLed", mpirun(s, mpi_ior), mpi_env(), d,
                        kill_rank=n - 1))
    except BenchError as e:
        log(f"  stops: MPI cases skipped: {e}")
    os.rmdir(d)
    lines = ["| run | entries at the signal | exit | seconds to stop | entries left | met |",
             "| --- | --- | --- | --- | --- | --- |"]
    for label, at, status, took, left in rows:
        killed = "SIGKILLed" in label
        ok = took <= TARGET_S and left == (1 if killed else 0)
        lines.append(f"| {label} | {at} | {status} | {took:.2f} | {left} | "
                     f"{'yes' if ok else 'NO'} |")
        s.rows.append({"table": "stops", "workload": label, "value": took, "ok": ok})
    s.sections.append(("stops: seconds from the signal to the end of the process",
                       "\n".join(lines) + "\n"))
