"""The machine: its description, the CPU time other processes take while we
measure, waiting for quiet, and running at another nice value."""

import os
import resource
import signal
import subprocess
import sys
import time

# A round is quiet when other processes used less than this share of the CPUs.
QUIET = 0.10


class CpuMeter:
    """CPU time the rest of the machine used while we measured: busy time
    from /proc/stat less our own and our children's, and the steal time."""

    def __init__(self):
        self.start = self._snapshot()

    @staticmethod
    def _snapshot():
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
        tick = os.sysconf("SC_CLK_TCK")
        user, nice, system, _idle, _iowait, irq, softirq, steal = (v + [0] * 8)[:8]
        me = resource.getrusage(resource.RUSAGE_SELF)
        kids = resource.getrusage(resource.RUSAGE_CHILDREN)
        return {
            "wall": time.monotonic(),
            "busy": (user + nice + system + irq + softirq) / tick,
            "steal": steal / tick,
            "ours": me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime,
        }

    def stop(self):
        end = self._snapshot()
        d = {k: end[k] - self.start[k] for k in end}
        capacity = d["wall"] * (os.cpu_count() or 1)
        if capacity <= 0:
            return {"others": 0.0, "steal": 0.0}
        return {"others": max(0.0, d["busy"] - d["ours"]) / capacity,
                "steal": d["steal"] / capacity}


def wait_idle(limit, threshold=QUIET):
    """Waits (up to `limit` seconds) until the rest of the machine has used
    less than `threshold` of the CPUs over one second. Returns the seconds
    waited and the last share seen."""
    waited = 0.0
    while True:
        meter = CpuMeter()
        time.sleep(1.0)
        share = meter.stop()["others"]
        waited += 1.0
        if share < threshold or waited >= limit:
            return waited, share


def quiet_rounds(noise):
    """Whether each round of a measurement was quiet."""
    return [o < QUIET for o in noise["per_round"]]


def children_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def first_line(cmd):
    try:
        out = subprocess.run(cmd, capture_output=True, text=True).stdout.strip()
    except OSError:
        return None
    return out.splitlines()[0] if out else None


def describe():
    """CPUs, memory, kernel and tool versions."""
    with open("/proc/meminfo") as f:
        mem_kib = int(f.readline().split()[1])
    cpu = None
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return {"nproc": os.cpu_count(), "cpu": cpu, "mem_total_kib": mem_kib,
            "kernel": os.uname().release, "fio": first_line(["fio", "--version"]),
            "autogroups": autogroups_enabled()}


def fs_type(path):
    """The type of the file system `path` is on."""
    best, kind = "", "?"
    with open("/proc/mounts") as f:
        for line in f:
            mnt, fstype = line.split()[1:3]
            if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) and len(mnt) >= len(best):
                best, kind = mnt, fstype
    return kind


def autogroups_enabled():
    try:
        with open("/proc/sys/kernel/sched_autogroup_enabled") as f:
            return f.read().strip() == "1"
    except OSError:
        return False


def run_niced(nice):
    """Goes on in a child in a session of its own, at `nice`: with scheduler
    autogroups (one per session), a process's nice value only weighs against
    the processes of its own session, so the new session's autogroup gets the
    nice value too. The parent forwards signals and exits as the child did."""
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if autogroups_enabled():
            try:
                with open("/proc/self/autogroup", "w") as f:
                    f.write(str(nice))
            except OSError as e:
                sys.exit(f"bench: cannot set the autogroup's nice to {nice}: {e}")
        try:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        except OSError as e:
            sys.exit(f"bench: cannot set nice {nice}: {e}")
        return

    def forward(signum, _frame):
        try:
            os.kill(pid, signum)
        except ProcessLookupError:
            pass
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, forward)
    _, status = os.waitpid(pid, 0)
    sys.exit(os.waitstatus_to_exitcode(status))
