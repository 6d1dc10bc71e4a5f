"""integrity: the end-to-end cost of read verification, -r -R against -r.

For each shape, the files are written once (-w -k -G 42, by --ior), then
every round reads them with -r and then -r -R, by each build in turn (--ior,
then every --also): an A/B comparison of the builds under the same machine
conditions. The order within a round is fixed, as it always was."""

import os

from .. import pario
from ..proc import clear

TARGET_RATIO = 0.9
SHAPES = [
    ("1 MiB transfers", ["-t", "1m", "-b", "256m", "-s", "4", "-F"]),
    ("47008-byte transfers", ["-t", "47008", "-b", "47008", "-s", "20000", "-F"]),
]


def reader(s, binary, args, label):
    def once():
        rows = s.ior(args, label=label, binary=binary)
        return {"bw": pario.one(rows, "read", label)["bwMiB"]}
    return once


def run(s):
    d = s.path("integrity")
    builds = [s.args.ior] + s.args.also
    for name, shape in SHAPES:
        clear(d)
        common = shape + ["-l", s.args.packet, "-G", "42", "-k", "-o", os.path.join(d, "f")]
        s.ior(["-w"] + common, label=f"integrity {name}: write (untimed)")
        variants = []
        for i, build in enumerate(builds):  # keyed by position: --also may repeat a path
            variants.append((f"{i} -r", reader(s, build, ["-r"] + common, f"integrity {name}: -r")))
            variants.append((f"{i} -r -R", reader(s, build, ["-r", "-R"] + common,
                                                  f"integrity {name}: -r -R")))
        values, noise = s.alternate(f"integrity {name}", variants, rotate=False)
        std = f"PARIO_TASKS={s.tasks} ior {' '.join(shape)} -l {s.args.packet}"
        for i, build in enumerate(builds):
            s.ab_row(std, build, "read MiB/s", "bw", ("-r -R", values[f"{i} -r -R"]["bw"]),
                     ("-r", values[f"{i} -r"]["bw"]), noise, TARGET_RATIO)
    clear(d)
    os.rmdir(d)
