"""The one rule for grading a numeric answer, as the page grades a learner's (web/src/page/numeric.js `close` is the
same rule in JavaScript) and as validation proves an author's `answer` against the reference's value.

A value is right when it is within `tolerance` of the target, relative for targets larger than 1:

    |value - target| <= max(tolerance, FLOOR) * max(1, |target|)

FLOOR lets a tolerance of 0 still forgive the last bits of a float sum (0.1 + 0.2 for 0.3). A target that is not
finite is matched only by itself, and NaN by nothing. The golden cases (tests/fixtures/numeric/cases.json) are
read by the Python and the JavaScript tests alike, so the two cannot drift apart.

A tolerance must also be wide enough for the precision a learner is asked for (AUTHORING.md, "Numeric prompts:
the precision rule"): an answer rounded to that many decimals must count. `refused` lists the roundings a
tolerance turns away, `tolerance_for` the smallest round tolerance that takes them all; authoring/pages.py holds
every prompt of a course to it.
"""
from __future__ import annotations

import math
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

FLOOR = 1e-12
DECIMALS = 2  # the precision a course accepts when its exercises/course.toml says nothing (`decimals`)


def close(value: float, target: float, tolerance: float) -> bool:
    """Whether `value` counts as `target` under `tolerance` (module docstring)."""
    if not math.isfinite(target):
        return value == target
    return abs(value - target) <= max(tolerance, FLOOR) * max(1.0, abs(target))


def all_close(values: list[float], targets: tuple[float, ...] | list[float], tolerance: float) -> bool:
    """Every value counts as its target, and there are as many of each."""
    return len(values) == len(targets) and all(close(v, t, tolerance) for v, t in zip(values, targets))


def roundings(target: float, decimals: int) -> list[float]:
    """What a learner who rounds `target` to `decimals` decimals types: half up, and half to even where the two
    differ (0.125 to 2 decimals: 0.13 or 0.12). The target is taken as written (repr), not as its binary value."""
    if not math.isfinite(target):
        return [target]
    exact, unit = Decimal(repr(target)), Decimal(1).scaleb(-decimals)
    return sorted({float(exact.quantize(unit, rounding=way)) for way in (ROUND_HALF_UP, ROUND_HALF_EVEN)})


def refused(answer: tuple[float, ...] | list[float], tolerance: float, decimals: int) -> list[tuple[float, float]]:
    """(target, typed) for each rounding of a value of `answer` to `decimals` decimals that `close` refuses."""
    return [(t, r) for t in answer for r in roundings(t, decimals) if not close(r, t, tolerance)]


def tolerance_for(answer: tuple[float, ...] | list[float], decimals: int) -> float:
    """The smallest tolerance with one significant digit (0.003, 0.006) under which every rounding of `answer`
    to `decimals` decimals counts: what to suggest to an author whose tolerance refuses one."""
    needed = max((abs(r - t) / max(1.0, abs(t)) for t in answer if math.isfinite(t)
                  for r in roundings(t, decimals)), default=0.0)
    if needed <= FLOOR:
        return 0.0
    step = 10.0 ** math.floor(math.log10(needed))
    digit = math.ceil(needed / step)
    while refused(answer, float(f"{digit * step:.1g}"), decimals):  # 0.38 - 0.375 is a hair over 0.005
        digit += 1
    return float(f"{digit * step:.1g}")
