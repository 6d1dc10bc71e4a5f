"""integrity: the end-to-end cost of read verification, -r -R against -r.

For each shape, the files are written once (-w -k -G 42, by --ior), then
every round reads them with -r and then -r -R, by each build in turn (--ior,
then every --also) and with each --kernel (PARIO_VERIFY_KERNEL): an A/B
comparison of the builds and kernels under the same machine conditions. The
order within a round is fixed, as it always was."""

import os

from .. import pario
from ..proc import clear
from ..session import local_env

TARGET_RATIO = 0.9
SHAPES = [
    ("1 MiB transfers", ["-t", "1m", "-b", "256m", "-s", "4", "-F"]),
    ("47008-byte transfers", ["-t", "47008", "-b", "47008", "-s", "20000", "-F"]),
]


def reader(s, binary, args, label, kernel=None):
    env = dict(local_env(s.tasks), **({"PARIO_VERIFY_KERNEL": kernel} if kernel else {}))

    def once():
        rows = s.ior_cmd([binary] + args, env, label, s.tasks)
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
        kernels = s.args.kernel or [None]
        for i, build in enumerate(builds):  # keyed by position: --also may repeat a path
            variants.append((f"{i} -r", reader(s, build, ["-r"] + common, f"integrity {name}: -r")))
            for k in kernels:
                variants.append((f"{i} -r -R {k}", reader(s, build, ["-r", "-R"] + common,
                                                          f"integrity {name}: -r -R", k)))
        values, noise = s.alternate(f"integrity {name}", variants, rotate=False)
        std = f"PARIO_TASKS={s.tasks} ior {' '.join(shape)} -l {s.args.packet}"
        for i, build in enumerate(builds):
            for k in kernels:
                mode = f"{build} (kernel {k})" if k else build
                s.ab_row(std, mode, "read MiB/s", "bw", ("-r -R", values[f"{i} -r -R {k}"]["bw"]),
                         ("-r", values[f"{i} -r"]["bw"]), noise, TARGET_RATIO)
    clear(d)
    os.rmdir(d)
