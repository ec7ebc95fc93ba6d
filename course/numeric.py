"""The one rule for grading a numeric answer, as the page grades a learner's (web/src/page/numeric.js `close` is the
same rule in JavaScript) and as validation proves an author's `answer` against the reference's value.

A value is right when it is within `tolerance` of the target, relative for targets larger than 1:

    |value - target| <= max(tolerance, FLOOR) * max(1, |target|)

FLOOR lets a tolerance of 0 still forgive the last bits of a float sum (0.1 + 0.2 for 0.3). A target that is not
finite is matched only by itself, and NaN by nothing. The golden cases (tests/fixtures/numeric/cases.json) are
read by the Python and the JavaScript tests alike, so the two cannot drift apart.
"""
from __future__ import annotations

import math

FLOOR = 1e-12


def close(value: float, target: float, tolerance: float) -> bool:
    """Whether `value` counts as `target` under `tolerance` (module docstring)."""
    if not math.isfinite(target):
        return value == target
    return abs(value - target) <= max(tolerance, FLOOR) * max(1.0, abs(target))


def all_close(values: list[float], targets: tuple[float, ...] | list[float], tolerance: float) -> bool:
    """Every value counts as its target, and there are as many of each."""
    return len(values) == len(targets) and all(close(v, t, tolerance) for v, t in zip(values, targets))
