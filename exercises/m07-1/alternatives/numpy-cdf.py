"""M07.1 with numpy: check a float64 copy of p, build the CDF with np.cumsum (a left-to-right running sum, which
the spec allows), and find the id with np.searchsorted."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

TOL = 1e-9


@runtime_checkable
class UniformSource(Protocol):
    def uniform(self) -> float:
        ...


def _validated(p):
    """A float64 copy of p and its CDF, or ValueError when p is not a distribution."""
    probs = np.array(p, dtype=np.float64)
    if probs.ndim != 1 or probs.size == 0:
        raise ValueError(f"p must be a non-empty 1-D vector, got shape {probs.shape}")
    if not np.isfinite(probs).all():
        raise ValueError("p has an entry that is NaN or infinite")
    if (probs < 0).any():
        raise ValueError("p has a negative entry")
    cdf = np.cumsum(probs)
    if abs(cdf[-1] - 1.0) > TOL:
        raise ValueError(f"p sums to {cdf[-1]!r}, not 1")
    return probs, cdf


def sample_categorical(p, u):
    probs, cdf = _validated(p)
    if not (0.0 <= u < 1.0):
        raise ValueError(f"u = {u!r} is not in [0, 1)")
    i = int(np.searchsorted(cdf, u, side="right"))
    if i == len(cdf):  # u at or past the rounded total: the last id that can come out
        i = int(np.flatnonzero(probs)[-1])
    return i
