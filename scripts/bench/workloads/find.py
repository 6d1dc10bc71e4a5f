"""find: io500's built-in parallel find (examples/find.rs on local tasks)
against a minimal parallel walk making the same system calls (findloop.c,
threads sharing one queue of directories), on an mdtest-easy + mdtest-hard
tree of --find-files files made by pario's mdtest, 1 and --tasks tasks.
The figure is entries scanned per second; the target: the median paired
ratio pario / loop >= 0.95."""

import os

from ..proc import run_cmd
from ..session import local_env
from ..table import markdown_table

TARGET_RATIO = 0.95
SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "findloop.c")


def make_tree(s, files):
    """The timestamp file, then mdtest-easy (empty files, a directory per
    task) and mdtest-hard (3901 bytes, one directory), half the files each."""
    os.makedirs(s.path("tree"), exist_ok=True)
    stamp = s.path("timestampfile")
    open(stamp, "w").close()
    per_task = max(1, files // 4)
    easy = ["-C", "-n", str(per_task), "-u", "-L", "-F", "-N", "1", "-d", s.path("tree", "mdtest-easy")]
    hard = ["-C", "-n", str(per_task), "-t", "-w", "3901", "-F", "-N", "1",
            "-d", s.path("tree", "mdtest-hard")]
    for args in (easy, hard):
        run_cmd([s.args.mdtest] + args, env=local_env(2), cwd=s.work, what="mdtest tree")
    return stamp


def rate(out, what):
    scanned, found, seconds = out.split()
    if int(found) == 0:
        raise RuntimeError(f"{what}: found nothing")
    return {"rate": int(scanned) / float(seconds), "scanned": int(scanned)}


def run(s):
    loop = s.path("findloop")
    run_cmd(["gcc", "-O2", "-pthread", "-o", loop, SOURCE], what="gcc findloop.c")
    example = os.path.join(os.path.dirname(s.args.ior), "examples", "find")
    stamp = make_tree(s, s.args.find_files)
    root = s.path("tree")
    lines = []
    for tasks in sorted({1, s.tasks}):
        variants = [
            ("loop", lambda: rate(run_cmd([loop, root, str(tasks), stamp], cwd=s.work,
                                          what="findloop")[0], "findloop")),
            ("pario", lambda: rate(run_cmd([example, root, str(tasks), stamp], cwd=s.work,
                                           what="find")[0], "pario find")),
        ]
        s.note_cmd(f"find {tasks} task(s)", [example, "$WORK/tree", str(tasks), stamp])
        values, noise = s.alternate(f"find {tasks} task(s)", variants)
        s.ab_row(f"find, {tasks} task(s), {s.args.find_files} files", "scanned/s", "entries/s",
                 "ops", ("pario", values["pario"]["rate"]), ("loop", values["loop"]["rate"]),
                 noise, TARGET_RATIO, judge="paired")
        scanned = values["pario"]["scanned"][0]
        lines.append([str(tasks), str(scanned)])
    s.sections.append(("find: io500's find against a minimal parallel walk",
                       "Entries scanned per run:\n\n" +
                       markdown_table(["tasks", "entries"], lines)))
