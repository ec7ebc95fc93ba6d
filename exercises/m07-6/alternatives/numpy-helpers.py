"""M07.6 with numpy arrays and small helpers that call each other: speculative_step goes through rejection_accept,
residual_distribution and sample_categorical; rejection_sample through rejection_accept with m * q[x]. The sums
are np.cumsum's last entry, a left-to-right running sum (spec/sampling.md allows it)."""
from __future__ import annotations

import math

import numpy as np

from tinyllm.prob.sampling import UniformSource, sample_categorical

TOLERANCE = 1e-9


def _fail(message):
    raise ValueError(message)


def _uniform(u, name):
    if not (u >= 0.0 and u < 1.0):
        _fail(f"{name} must be in [0, 1), got {u!r}")


def _dist(v, name):
    arr = np.asarray(v, dtype=np.float64)
    if arr.ndim != 1 or arr.shape[0] == 0:
        _fail(f"{name} must be a non-empty vector, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        _fail(f"{name} has a NaN or infinite entry")
    if np.any(arr < 0.0):
        _fail(f"{name} has a negative entry")
    total = np.cumsum(arr)[-1]
    if abs(total - 1.0) > TOLERANCE:
        _fail(f"{name} sums to {total!r}, not 1")
    return arr


def _dists(p, q):
    pa, qa = _dist(p, "p"), _dist(q, "q")
    if pa.shape != qa.shape:
        _fail(f"p and q differ in shape: {pa.shape} and {qa.shape}")
    return pa, qa


def rejection_accept(p_x, q_x, u):
    if not math.isfinite(q_x) or q_x <= 0.0:
        _fail(f"q_x must be finite and > 0, got {q_x!r}")
    _uniform(u, "u")
    if not math.isfinite(p_x) or p_x < 0.0:
        _fail(f"p_x must be finite and >= 0, got {p_x!r}")
    return bool(u < p_x / q_x)


def acceptance_probability(p, q):
    pa, qa = _dists(p, q)
    return float(np.cumsum(np.minimum(pa, qa))[-1])


def residual_distribution(p, q):
    pa, qa = _dists(p, q)
    gaps = np.where(pa > qa, pa - qa, 0.0)
    z = np.cumsum(gaps)[-1]
    if z == 0.0:
        return pa.copy()
    return gaps / z


def speculative_step(p, q, x, u_accept, u_resample):
    pa, qa = _dists(p, q)
    if not isinstance(x, (int, np.integer)):
        _fail(f"x must be an integer id, got {x!r}")
    n = pa.shape[0]
    if not 0 <= x < n:
        _fail(f"x = {x} is outside [0, {n})")
    if qa[x] == 0.0:
        _fail(f"q[{x}] = 0, so x = {x} cannot be a draft")
    if rejection_accept(pa[x], qa[x], u_accept):
        return int(x), True
    return sample_categorical(residual_distribution(pa, qa), u_resample), False


def rejection_sample(p, q, m, rng, max_tries=10000):
    pa, qa = _dists(p, q)
    if not (m >= 1.0 and m != math.inf):
        _fail(f"m must be a finite number >= 1, got {m!r}")
    if max_tries < 1:
        _fail(f"max_tries must be >= 1, got {max_tries}")
    bad = np.flatnonzero(pa > m * qa)
    if bad.size:
        _fail(f"m = {m!r} is not an envelope: p[{bad[0]}] > m * q[{bad[0]}]")
    for attempt in range(max_tries):
        x = sample_categorical(qa, rng.uniform())
        if rejection_accept(pa[x], m * qa[x], rng.uniform()):
            return x, attempt + 1
    raise RuntimeError(f"no proposal accepted in {max_tries} tries")
