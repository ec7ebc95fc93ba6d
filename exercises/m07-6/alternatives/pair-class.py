"""M07.6 around one checked pair: every function that takes p and q builds a _Pair, which checks both once and
knows alpha and the residual. The ratio p_x / q_x and its checks are one helper, used by all three acceptance
tests; sums are itertools.accumulate (left to right); rejection_sample takes its uniforms from a generator of
(u1, u2) pairs."""
from __future__ import annotations

import math
import operator
from itertools import accumulate

import numpy as np

from tinyllm.prob.sampling import UniformSource, sample_categorical

SUM_TOL = 1e-9


def _entries(name, v):
    """The entries of a distribution as Python floats; ValueError when v is not one."""
    arr = np.asarray(v, dtype=np.float64)
    if arr.shape != (arr.size,) or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector, got shape {arr.shape}")
    values = arr.tolist()
    if not all(math.isfinite(v) for v in values):
        raise ValueError(f"{name} has an entry that is not finite")
    if any(v < 0.0 for v in values):
        raise ValueError(f"{name} has a negative entry")
    total = list(accumulate(values))[-1]
    if abs(total - 1.0) > SUM_TOL:
        raise ValueError(f"{name} sums to {total!r}, not 1")
    return values


class _Pair:
    """A target p and a draft q, both checked, of the same length."""

    def __init__(self, p, q):
        self.p = _entries("p", p)
        self.q = _entries("q", q)
        if len(self.p) != len(self.q):
            raise ValueError(f"p and q must have the same length, got {len(self.p)} and {len(self.q)}")

    def alpha(self):
        return list(accumulate(min(a, b) for a, b in zip(self.p, self.q)))[-1]

    def residual(self):
        """max(0, p - q) / Z, or None when Z is exactly 0."""
        gaps = [max(a - b, 0.0) for a, b in zip(self.p, self.q)]
        z = list(accumulate(gaps))[-1]
        if z == 0.0:
            return None
        return [g / z for g in gaps]


def _ratio(p_x, q_x):
    """p_x / q_x, after checking that q_x is finite and > 0 and p_x finite and >= 0."""
    if not (q_x > 0.0 and q_x != math.inf):
        raise ValueError(f"q_x = {q_x!r}: a draft needs a finite q_x > 0")
    if not (p_x >= 0.0 and p_x != math.inf):
        raise ValueError(f"p_x = {p_x!r} is not a finite probability")
    return p_x / q_x


def _in_unit(name, u):
    if not 0.0 <= u < 1.0:
        raise ValueError(f"{name} = {u!r} is not a uniform in [0, 1)")
    return u


def rejection_accept(p_x, q_x, u):
    r = _ratio(p_x, q_x)
    return _in_unit("u", u) < r


def acceptance_probability(p, q):
    return _Pair(p, q).alpha()


def residual_distribution(p, q):
    pair = _Pair(p, q)
    res = pair.residual()
    return np.array(pair.p if res is None else res)


def speculative_step(p, q, x, u_accept, u_resample):
    pair = _Pair(p, q)
    try:
        x = operator.index(x)
    except TypeError:
        raise ValueError(f"x must be an integer id, got {x!r}") from None
    if x not in range(len(pair.p)):
        raise ValueError(f"x = {x} is not an id of the vocabulary")
    if pair.q[x] == 0.0:
        raise ValueError(f"q[{x}] = 0: x = {x} cannot have been drafted")
    if _in_unit("u_accept", u_accept) < _ratio(pair.p[x], pair.q[x]):
        return x, True
    res = pair.residual()
    return sample_categorical(pair.p if res is None else res, u_resample), False


def _uniform_pairs(rng, count):
    """count pairs (u1, u2), drawn u1 first: two uniforms per try."""
    for _ in range(count):
        u1 = rng.uniform()
        u2 = rng.uniform()
        yield u1, u2


def rejection_sample(p, q, m, rng, max_tries=10000):
    pair = _Pair(p, q)
    if not m >= 1.0 or math.isinf(m):
        raise ValueError(f"m = {m!r} must be a finite number >= 1")
    if operator.index(max_tries) < 1:
        raise ValueError(f"max_tries = {max_tries} must be at least 1")
    over = [i for i, (a, b) in enumerate(zip(pair.p, pair.q)) if a > m * b]
    if over:
        raise ValueError(f"m = {m!r} is not an envelope: p[{over[0]}] > m * q[{over[0]}]")
    for tries, (u1, u2) in enumerate(_uniform_pairs(rng, max_tries), start=1):
        x = sample_categorical(pair.q, u1)
        if u2 < _ratio(pair.p[x], m * pair.q[x]):
            return x, tries
    raise RuntimeError(f"no proposal accepted in {max_tries} tries")
