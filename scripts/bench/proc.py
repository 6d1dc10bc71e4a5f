"""Running commands, sizes, and the work directory's files."""

import argparse
import os
import re
import shutil
import subprocess
import sys

KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30


class BenchError(Exception):
    """A measurement could not be taken (exit status 1)."""


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def parse_size(text):
    m = re.fullmatch(r"(\d+)([kmgKMG]?)", text.strip())
    if not m:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (e.g. 64m, 1g)")
    return int(m.group(1)) * {"": 1, "k": KIB, "m": MIB, "g": GIB}[m.group(2).lower()]


def size_str(n):
    for unit, f in (("g", GIB), ("m", MIB), ("k", KIB)):
        if n % f == 0:
            return f"{n // f}{unit}"
    return str(n)


def environment(env):
    """os.environ with `env` applied (a value of None unsets the variable)."""
    full = dict(os.environ)
    for k, v in (env or {}).items():
        if v is None:
            full.pop(k, None)
        else:
            full[k] = v
    return full


def run_cmd(cmd, env=None, cwd=None, what=None):
    """Runs a command, returns (stdout, stderr); raises BenchError on failure."""
    p = subprocess.Popen(cmd, env=environment(env), cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        stdout, stderr = p.communicate()
    except BaseException:
        # Interrupted: ask the child to stop first. fio's job processes live in
        # sessions of their own; fio stops them on SIGTERM, not on SIGKILL.
        p.terminate()
        try:
            p.communicate(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
        raise
    if p.returncode != 0:
        raise BenchError(
            f"{what or cmd[0]} failed (exit {p.returncode}): {' '.join(cmd)}\n"
            f"--- stdout ---\n{stdout[-3000:]}\n--- stderr ---\n{stderr[-3000:]}")
    return stdout, stderr


def files_in(directory):
    return sorted(os.path.join(directory, f) for f in os.listdir(directory)
                  if os.path.isfile(os.path.join(directory, f)))


def clear(directory):
    """Makes `directory` exist, empty."""
    if os.path.exists(directory):
        shutil.rmtree(directory)
    os.makedirs(directory)


def expect_no_files(directory, what):
    if files_in(directory):
        raise BenchError(f"{what} left files behind in {directory}")
