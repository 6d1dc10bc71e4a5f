"""syscalls: strace -f -y of one 1m and one 4k write and read per tool: the
pwrite64/pread64 calls on the test files (one per transfer expected), all
calls on the files, all calls."""

import os
import re
import shutil

from ..proc import KIB, MIB, BenchError, clear, log, run_cmd, size_str

CASES = [("1m", MIB, 256 * MIB, True), ("4k", 4 * KIB, 64 * MIB, False)]


def count_syscalls(lines, directory):
    """Counts the calls in `strace -f -y` output: in all, and those whose
    arguments name a file under `directory` (by path or through an fd)."""
    total, on_files = {}, {}
    start = re.compile(r"^\d+\s+(\w+)\(")
    for line in lines:
        m = start.match(line)
        if not m:
            continue  # "<... resumed>" halves, signals, exits
        name = m.group(1)
        total[name] = total.get(name, 0) + 1
        if directory in line:
            on_files[name] = on_files.get(name, 0) + 1
    return {"total": sum(total.values()), "by_call": total, "on_files": on_files}


def commands(s, d, xfer, block, fsync, access):
    """pario's and fio's commands for one case; the files a read needs are
    written first."""
    base = ["-t", size_str(xfer), "-b", size_str(block), "-F"] + \
        (["-e"] if fsync else []) + ["-o", os.path.join(d, "testFile")]
    fio = ["fio", "--name=bench", f"--directory={d}", f"--bs={size_str(xfer)}",
           f"--size={size_str(block)}", f"--numjobs={s.tasks}", "--ioengine=psync",
           "--group_reporting", "--output-format=json"]
    fio += ["--fsync_on_close=1"] if fsync else []
    env = {"PARIO_TASKS": str(s.tasks)}
    if access == "write":
        return [s.args.ior, "-w"] + base, fio + ["--rw=write", "--fallocate=none"]
    run_cmd([s.args.ior, "-w", "-k"] + base, env=env)
    run_cmd(fio + ["--rw=write"])
    return [s.args.ior, "-r", "-k"] + base, fio + ["--rw=read"]


def trace(s, tool, cmd, d, label):
    path = s.path(f"strace-{tool}.txt")
    full = ["strace", "-f", "-y", "-qq", "-o", path] + cmd
    env = {"PARIO_TASKS": str(s.tasks)}
    s.note_cmd(label, full, env if tool == "pario" else None)
    run_cmd(full, env=env, cwd=s.work, what="strace")
    with open(path) as f:
        counts = count_syscalls(f, d)
    os.remove(path)
    return counts


def run(s):
    if not shutil.which("strace"):
        raise BenchError("syscalls: strace is missing (apt-get install strace)")
    d = s.path("strace")
    for name, xfer, block, fsync in CASES:
        for access in ("write", "read"):
            log(f"[syscalls] {name} {access}")
            clear(d)
            p_cmd, f_cmd = commands(s, d, xfer, block, fsync, access)
            counts = {tool: trace(s, tool, cmd, d, f"syscalls {name} {access} ({tool})")
                      for tool, cmd in (("pario", p_cmd), ("fio", f_cmd))}
            transfers = s.tasks * block // xfer
            call = "pwrite64" if access == "write" else "pread64"

            def text(c):
                return (f"{c['on_files'].get(call, 0)} {call}, "
                        f"{sum(c['on_files'].values())} on files, {c['total']} in all")
            s.rows.append({
                "table": "main", "workload": f"strace {name} {access}", "mode": "-",
                "metric": "syscalls", "kind": "raw", "pario_text": text(counts["pario"]),
                "fio_text": text(counts["fio"]), "target": f"{call} = {transfers}",
                "ok": counts["pario"]["on_files"].get(call, 0) == transfers, "counts": counts,
            })
    clear(d)
