"""Markdown tables of the rows a run collected."""


def fmt(v, kind):
    if v is None:
        return "-"
    if kind == "bw":
        return f"{v:.0f}"
    if kind == "iops":
        return f"{v / 1e3:.0f}k"
    if kind == "rate":
        return f"{v / 1e6:.1f}M"
    if kind == "ops":
        return f"{v:,.0f}"
    if kind == "kib":
        return f"{v / 1024:.2f} MiB"
    if kind == "s":
        return f"{v:.4f} s"
    return f"{v:g}"


def fmt_stat(s, kind):
    """median [min-max]"""
    if s is None:
        return "-"
    return f"{fmt(s['median'], kind)} [{fmt(s['min'], kind)}-{fmt(s['max'], kind)}]"


def fmt_paired(p, num):
    """The per-round figures: median [95 % interval], and min-max."""
    if p is None:
        return "-", "-"
    low, high = p["interval"]
    return (f"{num(p['median'])} [{num(low)}, {num(high)}]",
            f"{num(p['min'])} to {num(p['max'])}")


def fmt_quiet(q, num):
    return "0" if q is None else f"{len(q['values'])}, {num(q['median'])}"


def fmt_noise(noise):
    if noise is None:
        return "-"
    return f"{noise['others'] * 100:.0f}%/{noise['steal'] * 100:.0f}%"


def markdown_table(head, lines):
    widths = [max([len(h)] + [len(line[i]) for line in lines]) for i, h in enumerate(head)]

    def row(cells):
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    out = [row(head), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    return "\n".join(out + [row(line) for line in lines])


def ratio(v):
    return f"{v:.3f}"


def main_table(rows):
    """pario against fio, and pario's own figures (DUMMY, memory, ...)."""
    head = ["workload", "mode", "metric", "pario med [min-max]", "fio med [min-max]",
            "pario/fio", "paired: median [95 % interval]", "paired min-max", "target",
            "ok", "quiet rounds: n, ratio", "pario, fio's timing", "others/steal"]
    lines = []
    for r in rows:
        k = r["kind"]
        pario = r.get("pario_text") or fmt_stat(r.get("pario"), k)
        fio = r.get("fio_text") or fmt_stat(r.get("fio"), k)
        of_medians = "-" if r.get("ratio") is None else ratio(r["ratio"])
        paired, spread = fmt_paired(r.get("paired"), ratio)
        quiet = "-" if r.get("paired") is None else fmt_quiet(r.get("quiet"), ratio)
        pt = r.get("pario_per_task")
        pt = "-" if pt is None else f"{fmt(pt['median'], k)} ({ratio(r['ratio_per_task'])})"
        lines.append([r["workload"], r["mode"], r["metric"], pario, fio, of_medians, paired,
                      spread, r["target"], "yes" if r["ok"] else "NO", quiet, pt,
                      fmt_noise(r.get("noise"))])
    return markdown_table(head, lines)


def ab_table(rows):
    """A against B (mpi, mpiio, fixedcost, latency, build)."""
    head = ["workload", "mode", "metric", "A", "A med [min-max]", "B", "B med [min-max]",
            "A/B or A-B", "paired: median [95 % interval]", "paired min-max", "target",
            "ok", "quiet rounds: n, median", "others/steal"]
    lines = []
    for r in rows:
        k = r["kind"]
        if r["compare"] == "A - B":
            def num(v):
                return f"{v:+.4f} s"
        else:
            num = ratio
        paired, spread = fmt_paired(r["paired"], num)
        lines.append([r["workload"], r["mode"], r["metric"], r["a"], fmt_stat(r["a_stats"], k),
                      r["b"], fmt_stat(r["b_stats"], k), num(r["value"]), paired, spread,
                      r["target"], "yes" if r["ok"] else "NO", fmt_quiet(r["quiet"], num),
                      fmt_noise(r["noise"])])
    return markdown_table(head, lines)
