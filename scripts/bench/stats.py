"""Statistics of measurements taken in rounds: summaries, per-round (paired)
ratios or differences, and a distribution-free confidence interval for their
median."""

import math
import statistics


def summary(values):
    """The median, minimum and maximum of `values` (kept as well)."""
    values = list(values)
    return {"median": statistics.median(values), "min": min(values),
            "max": max(values), "values": values}


def median_interval(values, confidence=0.95):
    """A distribution-free confidence interval for the median of `values`:
    the narrowest symmetric pair of order statistics whose coverage, from the
    binomial(n, 1/2), is at least `confidence` (under 6 values: the range,
    which covers less)."""
    v = sorted(values)
    n = len(v)
    if n < 6:
        return v[0], v[-1]
    # [x_(k), x_(n-k+1)] (1-based) covers the median with probability
    # 1 - 2 P(X < k), X ~ B(n, 1/2): the largest k that keeps it >= confidence.
    k, below = 0, 0.0
    while True:
        below_next = below + math.comb(n, k) / 2**n
        if 1 - 2 * below_next < confidence:
            break
        below = below_next
        k += 1
    k = max(k, 1)
    return v[k - 1], v[n - k]


def paired(a, b, diff=False):
    """Per-round ratios a/b, or with `diff` differences a - b, of two sides
    measured in the same rounds."""
    if len(a) != len(b):
        raise ValueError(f"{len(a)} rounds against {len(b)}")
    return [x - y if diff else x / y for x, y in zip(a, b)]


def compare(a, b, diff=False, quiet=None):
    """Two sides measured in the same rounds: the summary of each, the ratio
    (or difference) of their medians, and the per-round figures with their
    median's 95 % interval. `quiet`: one flag per round; the per-round
    figures of the flagged rounds are summarised apart."""
    sa, sb = summary(a), summary(b)
    per_round = paired(a, b, diff)
    p = summary(per_round)
    p["interval"] = median_interval(per_round)
    calm = [x for x, q in zip(per_round, quiet or []) if q]
    return {
        "a": sa, "b": sb,
        "of_medians": sa["median"] - sb["median"] if diff else sa["median"] / sb["median"],
        "paired": p,
        "quiet": summary(calm) if calm else None,
    }
