"""M07.1 categorical sampling: one uniform in, one token id out, by walking the cumulative distribution.

The cumulative sum is a left-to-right float64 loop over ascending ids, never a pairwise or compensated sum:
the Rust port repeats the same additions, so both pick the same id for the same uniform, bit for bit.
"""
from __future__ import annotations

import math
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike

SUM_TOLERANCE = 1e-9  # how far the left-to-right sum of a distribution may be from 1


@runtime_checkable
class UniformSource(Protocol):
    """Anything with uniform() -> float returning the next uniform in [0, 1), e.g. tinyllm.rand.pcg32.PCG32."""

    def uniform(self) -> float:
        """The next uniform in [0, 1)."""
        ...


def sample_categorical(p: ArrayLike, u: float) -> int:
    """The first id whose cumulative probability exceeds u: min{i : p[0] + ... + p[i] > u}.

    The cumulative sums are accumulated left to right in float64. If rounding leaves u at or above the total,
    the answer is the last id with non-zero probability. Raises ValueError when u is not in [0, 1) or p is not
    a distribution (not a non-empty 1-D vector, an entry negative or not finite, or a sum more than 1e-9 from 1).
    """
    if not 0.0 <= u < 1.0:  # also rejects NaN, for which every comparison is False
        raise ValueError(f"u must be a uniform in [0, 1), got {u!r}")
    arr = np.asarray(p, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"p must be a non-empty 1-D vector of probabilities, got shape {arr.shape}")
    probs = arr.tolist()
    total = 0.0
    for i, value in enumerate(probs):
        if not math.isfinite(value):
            raise ValueError(f"p[{i}] = {value} is not finite")
        if value < 0.0:
            raise ValueError(f"p[{i}] = {value} is negative")
        total += value
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"p sums to {total!r}, not 1 (tolerance {SUM_TOLERANCE})")
    cumulative = 0.0
    for i, value in enumerate(probs):
        cumulative += value
        if u < cumulative:
            return i
    # Rounding left the total at or below u: fall back to the last id the distribution can produce.
    last = len(probs) - 1
    while probs[last] == 0.0:
        last -= 1
    return last
