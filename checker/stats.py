"""Small, dependency-free statistics for hidden tests (they run on CPython and in Pyodide alike).

Statistical tests are seeded, so each one is deterministic for a given solution; the thresholds bound how often
a *correct* solution that consumes its generator differently could fail by bad luck.
"""
from __future__ import annotations

import math
from typing import Sequence


def _lower_series(a: float, x: float) -> float:
    """Regularised lower incomplete gamma P(a, x) by its power series (good for x < a + 1)."""
    term = total = 1.0 / a
    n = a
    for _ in range(10_000):
        n += 1.0
        term *= x / n
        total += term
        if abs(term) < abs(total) * 1e-15:
            break
    return total * math.exp(-x + a * math.log(x) - math.lgamma(a))


def _upper_fraction(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) by Lentz's continued fraction (good for x >= a + 1)."""
    tiny = 1e-300
    b = x + 1.0 - a
    c = 1.0 / tiny
    d = 1.0 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - math.lgamma(a)) * h


def chi2_sf(stat: float, dof: int) -> float:
    """P(X >= stat) for X chi-square with `dof` degrees of freedom."""
    if stat <= 0:
        return 1.0
    a, x = dof / 2.0, stat / 2.0
    return 1.0 - _lower_series(a, x) if x < a + 1.0 else _upper_fraction(a, x)


def chi_square(counts: Sequence[float], probs: Sequence[float]) -> tuple[float, int]:
    """Pearson's statistic of observed `counts` against `probs`, and its degrees of freedom.

    Cells with probability 0 are left out of the statistic; a count in such a cell is an impossible outcome,
    which the caller should test for directly, since no p-value expresses "never".
    """
    total = float(sum(counts))
    stat, cells = 0.0, 0
    for c, p in zip(counts, probs):
        if p > 0:
            expected = total * p
            stat += (c - expected) ** 2 / expected
            cells += 1
    return stat, max(cells - 1, 1)


def chi_square_pvalue(counts: Sequence[float], probs: Sequence[float]) -> float:
    """p-value of a goodness-of-fit test of `counts` against `probs`."""
    stat, dof = chi_square(counts, probs)
    return chi2_sf(stat, dof)
