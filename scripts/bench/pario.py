"""pario's figures, read from its JSON output (ior -O summaryFormat=JSON,
mdtest --summaryFormat=JSON: the document on stdout, log lines on stderr) and
from ior's per-task CSV."""

import csv
import json

from .proc import MIB, BenchError

IOR_JSON = ["-O", "summaryFormat=JSON"]
MDTEST_JSON = ["--summaryFormat=JSON"]
MDTEST_PHASES = ["File creation", "File stat", "File read", "File removal"]
# The key of a Results entry that holds each metric.
FIGURE = {"bw": "bwMiB", "iops": "iops"}


def document(stdout, what, tasks=None):
    """The JSON document a run printed, checked for an error and, when
    `tasks` is given, for the number of tasks that ran."""
    try:
        doc = json.loads(stdout)
    except json.JSONDecodeError as e:
        raise BenchError(f"{what}: no JSON document on stdout ({e}):\n{stdout[-3000:]}")
    if doc.get("error"):
        raise BenchError(f"{what}: {doc['error']}")
    ran = doc.get("pario", {}).get("tasks")
    if tasks is not None and ran != tasks:
        raise BenchError(f"{what}: expected {tasks} tasks, the document says {ran}")
    return doc


def ior_results(doc, what):
    """The Results entries of an ior document, by access:
    {"write": [entry, ...], "read": [...]}; each entry has bwMiB, iops,
    wrRdTime, bytes, transfers, tasks, ..."""
    rows = {}
    for test in doc["tests"]:
        for r in test["Results"]:
            rows.setdefault(r["access"], []).append(r)
    if not rows:
        raise BenchError(f"{what}: no write or read result in the JSON document")
    return rows


def one(rows, access, what):
    """The one entry of `access`."""
    if len(rows.get(access, [])) != 1:
        raise BenchError(f"{what}: expected one {access} result, got {rows.get(access)}")
    return rows[access][0]


def one_each(rows, key, what):
    """{"write": figure, "read": figure} of a run that wrote and read once."""
    return {access: one(rows, access, what)[key] for access in ("write", "read")}


def transfers_per_task_s(entry):
    """Transfers per second per task over the phase's wr/rd time (DUMMY)."""
    return entry["transfers"] / entry["tasks"] / entry["wrRdTime"]


def mdtest_rates(doc, what):
    """The rates (ops/s) of the four file phases, one dict per iteration of
    the document's only test."""
    tests = doc["tests"]
    if len(tests) != 1:
        raise BenchError(f"{what}: expected one test, got {len(tests)}")
    rates = []
    for it in tests[0]["iterations"]:
        phases = {p["operation"]: p["rate"] for p in it["phases"]}
        missing = [p for p in MDTEST_PHASES if p not in phases]
        if missing:
            raise BenchError(f"{what}: iteration {it['iteration']} lacks {missing}")
        rates.append({p: phases[p] for p in MDTEST_PHASES})
    return rates


def rank_csv_figure(csv_path, access, metric, tasks, expected_bytes):
    """pario's figure computed as fio computes its group figure: all bytes
    (or transfers) over the longest task's own open-to-close time, rather
    than over the span from the first task's open to the last one's close
    (-O saveRankPerformanceDetailsCSV)."""
    with open(csv_path) as f:
        rows = [r for r in csv.DictReader(f) if r["access"] == access]
    if len(rows) != tasks:
        raise BenchError(f"{csv_path}: expected {tasks} {access} rows, got {len(rows)}")
    longest = max(float(r["close_end"]) - float(r["open_start"]) for r in rows)
    moved = sum(int(r["bytes"]) for r in rows)
    if moved != expected_bytes:
        raise BenchError(f"pario {access} moved {moved} bytes, expected {expected_bytes}")
    if metric == "bw":
        return moved / MIB / longest
    return sum(int(r["transfers"]) for r in rows) / longest
