"""M07.1 in plain Python: small helpers, the vector read into a list of floats, the CDF built as a list and then
searched, every loop explicit."""
import math
from typing import Protocol, runtime_checkable

import numpy as np

TOLERANCE = 1e-9


@runtime_checkable
class UniformSource(Protocol):
    def uniform(self) -> float:
        ...


def _check_u(u):
    if u >= 0.0 and u < 1.0:
        return
    raise ValueError(f"u must lie in [0, 1), got {u!r}")


def _probabilities(p):
    arr = np.asarray(p, dtype=float)
    if len(arr.shape) != 1 or arr.shape[0] == 0:
        raise ValueError(f"p must be a non-empty vector, got shape {arr.shape}")
    values = [float(x) for x in arr]
    total = 0.0
    for i in range(len(values)):
        v = values[i]
        if math.isnan(v) or math.isinf(v):
            raise ValueError(f"p[{i}] is {v}")
        if v < 0:
            raise ValueError(f"p[{i}] = {v} < 0")
        total = total + v
    if total > 1.0 + TOLERANCE or total < 1.0 - TOLERANCE:
        raise ValueError(f"p adds up to {total}, not 1")
    return values


def _running_sums(values):
    out = []
    total = 0.0
    for v in values:
        total += v
        out.append(total)
    return out


def _first_above(bounds, u):
    for i in range(len(bounds)):
        if u < bounds[i]:
            return i
    return None


def _last_possible(values):
    for i in reversed(range(len(values))):
        if values[i] > 0:
            return i


def sample_categorical(p, u):
    _check_u(u)
    values = _probabilities(p)
    cdf = _running_sums(values)
    i = _first_above(cdf, u)
    if i is None:
        i = _last_possible(values)
    return i
