#!/usr/bin/env python3
"""Benchmark pario's mdtest against a minimal loop making the same system calls.

For each task count (1 and 2 by default) the script alternates, round after
round, between

  * a C program compiled here with gcc: N threads, each creating
    (open O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, close), stat'ing (stat),
    reading (open O_RDONLY|O_CLOEXEC, close: mdtest's read with -e 0) and
    removing (unlink) its files `file.mdtest.<t>.<k>` in one shared
    directory, phases separated by barriers and timed by thread 0 from the
    barrier before a phase to the barrier after it, as mdtest does;
  * `mdtest -n N -F -d DIR` (pario, threads), whose per-iteration rates are
    read from its JSON output.

Both run on the same file system (/dev/shm by default) in the same rounds, so
machine noise hits both alike. The script prints a Markdown report (median
rates over all iterations of all rounds, and pario / loop ratios) and, with
--output, writes it to a file.

Usage: scripts/bench_mdtest.py [--items 10000] [--rounds 7] [--iterations 3]
                               [--tasks 1,2] [--dir /dev/shm] [--output F]
Stdlib only; needs gcc and a release build (built here with cargo).
"""

import argparse
import json
import math
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile

LOOP_C = r"""
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int ntasks, iterations;
static long nitems;
static const char *root;
static char mid[4200], dir[4300];
static pthread_barrier_t bar;
static double t0[4], t1[4];
static volatile int failed;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Writes k in decimal at p, NUL-terminated. */
static void put(char *p, long k) {
    char d[24];
    int n = 0;
    do { d[n++] = '0' + k % 10; k /= 10; } while (k);
    while (n) *p++ = d[--n];
    *p = 0;
}

static void fail(const char *what, const char *path) {
    fprintf(stderr, "%s %s: %s\n", what, path, strerror(errno));
    failed = 1;
}

/* Thread 0 makes the iteration's directories (mdtest's layout, so that path
   walks cost the same: DIR/test-dir.I-0/mdtest_tree.0). */
static void make_dirs(int it) {
    snprintf(mid, sizeof mid, "%s/test-dir.%d-0", root, it);
    snprintf(dir, sizeof dir, "%s/mdtest_tree.0", mid);
    if (mkdir(mid, 0775) != 0) fail("mkdir", mid);
    else if (mkdir(dir, 0775) != 0) fail("mkdir", dir);
}

static void remove_dirs(void) {
    if (rmdir(dir) != 0) fail("rmdir", dir);
    else if (rmdir(mid) != 0) fail("rmdir", mid);
}

/* Each thread lives through every iteration, as an mdtest task does: a
   thread started afresh for each iteration would let the scheduler place it
   away from the CPU still freeing the last iteration's files. */
static void *task(void *arg) {
    long r = (long)arg;
    char path[4400];
    for (int it = 0; it < iterations; it++) {
        if (r == 0 && !failed) make_dirs(it);
        pthread_barrier_wait(&bar);
        if (failed) return NULL;
        int len = snprintf(path, sizeof path, "%s/file.mdtest.%ld.", dir, r);
        for (int phase = 0; phase < 4; phase++) {
            pthread_barrier_wait(&bar);
            if (r == 0) t0[phase] = now();
            for (long k = 0; k < nitems && !failed; k++) {
                put(path + len, k);
                struct stat st;
                int fd;
                switch (phase) {
                case 0:
                    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0664);
                    if (fd < 0) fail("create", path); else close(fd);
                    break;
                case 1:
                    if (stat(path, &st) != 0) fail("stat", path);
                    break;
                case 2:
                    fd = open(path, O_RDONLY | O_CLOEXEC);
                    if (fd < 0) fail("open", path); else close(fd);
                    break;
                case 3:
                    if (unlink(path) != 0) fail("unlink", path);
                    break;
                }
            }
            pthread_barrier_wait(&bar);
            if (r == 0) t1[phase] = now();
        }
        if (r == 0) {
            if (!failed) remove_dirs();
            double total = (double)ntasks * nitems;
            if (!failed)
                printf("%.3f %.3f %.3f %.3f\n", total / (t1[0] - t0[0]),
                       total / (t1[1] - t0[1]), total / (t1[2] - t0[2]),
                       total / (t1[3] - t0[3]));
        }
        /* A failure is seen by every thread behind the next iteration's
           first barrier. */
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s DIR TASKS ITEMS ITERATIONS\n", argv[0]);
        return 2;
    }
    root = argv[1];
    ntasks = atoi(argv[2]);
    nitems = atol(argv[3]);
    iterations = atoi(argv[4]);
    if (mkdir(root, 0775) != 0 && errno != EEXIST) { fail("mkdir", root); return 1; }
    pthread_barrier_init(&bar, NULL, ntasks);
    pthread_t th[ntasks];
    for (long r = 0; r < ntasks; r++) pthread_create(&th[r], NULL, task, (void *)r);
    for (long r = 0; r < ntasks; r++) pthread_join(th[r], NULL);
    pthread_barrier_destroy(&bar);
    return failed ? 1 : 0;
}
"""

PHASES = ["File creation", "File stat", "File read", "File removal"]


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run_loop(binary, workdir, tasks, items, iterations):
    out = subprocess.run(
        [binary, os.path.join(workdir, "c"), str(tasks), str(items), str(iterations)],
        check=True, capture_output=True, text=True,
    ).stdout
    rows = []
    for line in out.split("\n"):
        if line.strip():
            rows.append(dict(zip(PHASES, map(float, line.split()))))
    return rows


def run_pario(mdtest, workdir, tasks, items, iterations):
    env = dict(os.environ, PARIO_TASKS=str(tasks))
    out = subprocess.run(
        [mdtest, "-n", str(items), "-F", "-i", str(iterations),
         "-d", os.path.join(workdir, "p"), "--summaryFormat=JSON"],
        check=True, capture_output=True, text=True, env=env,
    ).stdout
    doc = json.loads(out)
    rows = []
    for it in doc["tests"][0]["iterations"]:
        rows.append({p["operation"]: p["rate"] for p in it["phases"]})
    return rows


def median_interval(values, confidence=0.95):
    """A distribution-free confidence interval for the median of `values`
    (sorted): the widest symmetric pair of order statistics whose coverage,
    from the binomial(n, 1/2), is at least `confidence`."""
    n = len(values)
    if n < 6:
        return values[0], values[-1]
    # P(X < k) for X ~ B(n, 1/2); the interval [x_(k), x_(n-k+1)] (1-based)
    # covers the median with probability 1 - 2 P(X < k).
    k, below = 0, 0.0
    while True:
        nxt = below + math.comb(n, k) / 2**n
        if 1 - 2 * nxt < confidence:
            break
        below = nxt
        k += 1
    k = max(k, 1)
    return values[k - 1], values[n - k]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--items", type=int, default=10000, help="files per task (-n)")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--iterations", type=int, default=3, help="iterations per run (-i)")
    ap.add_argument("--tasks", default="1,2")
    ap.add_argument("--dir", default="/dev/shm")
    ap.add_argument("--output", help="write the Markdown report here too")
    ap.add_argument("--mdtest", help="pario's mdtest binary (default: build it)")
    args = ap.parse_args()

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    build = tempfile.mkdtemp(prefix="bench-mdtest-")
    try:
        loop = os.path.join(build, "mdloop")
        src = loop + ".c"
        with open(src, "w") as f:
            f.write(LOOP_C)
        subprocess.run(["gcc", "-O2", "-pthread", "-o", loop, src], check=True)
        mdtest = args.mdtest
        if not mdtest:
            subprocess.run(["cargo", "build", "--release", "--bin", "mdtest", "-q"],
                           cwd=root, check=True)
            target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
            mdtest = os.path.join(target, "release", "mdtest")
        work = tempfile.mkdtemp(prefix="bench-mdtest-", dir=args.dir)
        try:
            report = measure(args, loop, mdtest, work)
        finally:
            shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(build, ignore_errors=True)
    print(report)
    if args.output:
        with open(args.output, "w") as f:
            f.write(report)


def measure(args, loop, mdtest, work):
    tasks_list = [int(t) for t in args.tasks.split(",")]
    results = {}
    for tasks in tasks_list:
        samples = {"loop": {p: [] for p in PHASES}, "pario": {p: [] for p in PHASES}}
        # pario / loop within each round: both ran seconds apart, so the
        # machine's slow drifts cancel out of these.
        paired = {p: [] for p in PHASES}
        cpu = {"loop": [], "pario": []}
        for r in range(args.rounds):
            # Alternate which goes first, so neither always runs on a warmer
            # (or more fragmented) file system.
            order = [("loop", run_loop), ("pario", run_pario)]
            if r % 2:
                order.reverse()
            this_round = {}
            for name, fn in order:
                bin_ = loop if name == "loop" else mdtest
                before = cpu_seconds()
                rows = fn(bin_, work, tasks, args.items, args.iterations)
                ops = 4 * tasks * args.items * args.iterations
                cpu[name].append((cpu_seconds() - before) / ops * 1e6)
                this_round[name] = rows
                for row in rows:
                    for p in PHASES:
                        samples[name][p].append(row[p])
            for p in PHASES:
                paired[p].append(
                    statistics.median(row[p] for row in this_round["pario"])
                    / statistics.median(row[p] for row in this_round["loop"]))
            print(f"tasks {tasks}: round {r + 1}/{args.rounds} done", file=sys.stderr)
        results[tasks] = (samples, cpu, paired)

    lines = []
    lines.append("# mdtest: pario against a minimal system-call loop\n")
    lines.append(
        f"`scripts/bench_mdtest.py --items {args.items} --rounds {args.rounds} "
        f"--iterations {args.iterations} --tasks {args.tasks} --dir {args.dir}`\n")
    lines.append(
        f"Machine: {platform.node()}, {os.cpu_count()} CPUs, Linux {platform.release()}; "
        f"file system: {args.dir}.\n")
    lines.append(
        "Workload: `mdtest -n %d -F` (each task creates, stats, opens-and-closes "
        "(`-e 0`) and removes %d empty files in one shared directory). The loop is a "
        "C program (gcc -O2, threads) making exactly those system calls "
        "(open O_CREAT|O_EXCL|O_CLOEXEC + close, stat, open O_RDONLY + close, unlink) "
        "with the same file names at the same depth (DIR/test-dir.I-0/mdtest_tree.0/), "
        "phases between barriers. Both ran alternately in "
        "the same rounds, %d iterations each; rates in operations per second: the "
        "median and the best iteration of each, and pario / loop.\n"
        % (args.items, args.items, args.rounds * args.iterations))
    lines.append("| tasks | phase | loop median | pario median | ratio | loop best | pario best | ratio |")
    lines.append("|---:|---|---:|---:|---:|---:|---:|---:|")
    for tasks, (samples, _, _) in results.items():
        for p in PHASES:
            lo, pa = samples["loop"][p], samples["pario"][p]
            lm, pm = statistics.median(lo), statistics.median(pa)
            lb, pb = max(lo), max(pa)
            lines.append(f"| {tasks} | {p} | {lm:,.0f} | {pm:,.0f} | {pm / lm:.3f} "
                         f"| {lb:,.0f} | {pb:,.0f} | {pb / lb:.3f} |")
    lines.append("")
    lines.append(
        "Paired ratios: pario / loop within each round (each run's median iteration), "
        "so that what drifts between rounds cancels out. The median over the %d rounds, "
        "with a distribution-free 95 %% confidence interval for that median "
        "(order statistics of the binomial), and the share of rounds in which pario "
        "was at least 0.95 of the loop:\n" % args.rounds)
    lines.append("| tasks | phase | median ratio | 95 % interval | rounds >= 0.95 |")
    lines.append("|---:|---|---:|---|---:|")
    for tasks, (_, _, paired) in results.items():
        for p in PHASES:
            ratios = sorted(paired[p])
            low, high = median_interval(ratios)
            share = sum(r >= 0.95 for r in ratios) / len(ratios)
            lines.append(f"| {tasks} | {p} | {statistics.median(ratios):.3f} "
                         f"| {low:.3f} - {high:.3f} | {share:.0%} |")
    lines.append("")
    lines.append("Slowest iteration (ops/s):\n")
    lines.append("| tasks | phase | loop | pario |")
    lines.append("|---:|---|---:|---:|")
    for tasks, (samples, _, _) in results.items():
        for p in PHASES:
            lines.append(f"| {tasks} | {p} | {min(samples['loop'][p]):,.0f} "
                         f"| {min(samples['pario'][p]):,.0f} |")
    lines.append("")
    lines.append("CPU time (user + system) of each whole run per operation, median over "
                 "runs: the cost of an operation without the waiting that other load on the "
                 "machine adds to wall-clock rates (pario's includes its start-up, tree "
                 "and output):\n")
    lines.append("| tasks | loop (µs/op) | pario (µs/op) | pario / loop |")
    lines.append("|---:|---:|---:|---:|")
    for tasks, (_, cpu, _) in results.items():
        lo, pa = statistics.median(cpu["loop"]), statistics.median(cpu["pario"])
        lines.append(f"| {tasks} | {lo:.3f} | {pa:.3f} | {pa / lo:.3f} |")
    lines.append("")
    lines.append(f"Load average at the end: {os.getloadavg()[0]:.2f} "
                 f"(other work on the machine adds noise to both alike).")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
