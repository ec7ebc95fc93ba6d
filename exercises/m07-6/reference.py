"""M07.6 rejection sampling and residual distributions: the acceptance test of speculative decoding, exactly.

Sums are left-to-right float64 loops over ascending ids and every uniform is consumed in a fixed order (see
spec/sampling.md), so the Rust port (L10.8) accepts and rejects the same drafts for the same seed.
"""
from __future__ import annotations

import math
import operator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tinyllm.prob.sampling import UniformSource, sample_categorical

SUM_TOLERANCE = 1e-9  # how far the left-to-right sum of a distribution may be from 1


def _check_uniform(name: str, u: float) -> float:
    if not 0.0 <= u < 1.0:  # NaN fails this too
        raise ValueError(f"{name} must be a uniform in [0, 1), got {u!r}")
    return float(u)


def _distribution(name: str, v: ArrayLike) -> NDArray[np.float64]:
    """v as a float64 array (no copy when it already is one), or ValueError if it is not a distribution."""
    arr = np.asarray(v, dtype=np.float64)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D vector, got shape {arr.shape}")
    total = 0.0
    for i, value in enumerate(arr.tolist()):
        if not math.isfinite(value):
            raise ValueError(f"{name}[{i}] = {value} is not finite")
        if value < 0.0:
            raise ValueError(f"{name}[{i}] = {value} is negative")
        total += value
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise ValueError(f"{name} sums to {total!r}, not 1 (tolerance {SUM_TOLERANCE})")
    return arr


def _pair(p: ArrayLike, q: ArrayLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    p_arr, q_arr = _distribution("p", p), _distribution("q", q)
    if p_arr.shape != q_arr.shape:
        raise ValueError(f"p and q must have the same shape, got {p_arr.shape} and {q_arr.shape}")
    return p_arr, q_arr


def _residual(pv: list[float], qv: list[float]) -> list[float] | None:
    """max(0, p - q) divided by its left-to-right sum; None when that sum is exactly 0."""
    gaps = [a - b if a > b else 0.0 for a, b in zip(pv, qv)]
    total = 0.0
    for g in gaps:
        total += g
    if total == 0.0:
        return None
    return [g / total for g in gaps]


def rejection_accept(p_x: float, q_x: float, u: float) -> bool:
    """True when u < p_x / q_x (strictly), which happens with probability min(1, p_x / q_x).

    Raises ValueError when p_x is negative or not finite, q_x is not a finite positive number, or u is not in
    [0, 1).
    """
    if not (math.isfinite(p_x) and p_x >= 0.0):
        raise ValueError(f"p_x must be a finite probability >= 0, got {p_x!r}")
    if not (math.isfinite(q_x) and q_x > 0.0):
        raise ValueError(f"q_x must be finite and > 0 (a draft with q_x = 0 cannot be proposed), got {q_x!r}")
    u = _check_uniform("u", u)
    return u < float(p_x) / float(q_x)


def acceptance_probability(p: ArrayLike, q: ArrayLike) -> float:
    """alpha = sum of min(p_i, q_i), a left-to-right float64 loop; equals 1 - TV(p, q)."""
    p_arr, q_arr = _pair(p, q)
    total = 0.0
    for a, b in zip(p_arr.tolist(), q_arr.tolist()):
        total += a if a < b else b
    return total


def residual_distribution(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """max(0, p - q) normalised by its left-to-right sum Z; a new array equal to p when Z is exactly 0."""
    p_arr, q_arr = _pair(p, q)
    res = _residual(p_arr.tolist(), q_arr.tolist())
    if res is None:
        return p_arr.copy()  # never the caller's object: they may edit their p later
    return np.array(res, dtype=np.float64)


def speculative_step(p: ArrayLike, q: ArrayLike, x: int, u_accept: float,
                     u_resample: float) -> tuple[int, bool]:
    """Verify draft x ~ q against the target p: (x, True) if kept, else (a draw from the residual, False).

    x is kept when rejection_accept(p[x], q[x], u_accept). Only on a rejection is u_resample looked at, as
    sample_categorical(residual_distribution(p, q), u_resample). Raises ValueError for p or q not distributions
    of the same shape, x not an id of the vocabulary or with q[x] = 0, or u_accept not in [0, 1).
    """
    p_arr, q_arr = _pair(p, q)
    pv, qv = p_arr.tolist(), q_arr.tolist()
    try:
        x = operator.index(x)
    except TypeError:
        raise ValueError(f"x must be an integer token id, got {x!r}") from None
    if not 0 <= x < len(pv):
        raise ValueError(f"x = {x} is outside the vocabulary [0, {len(pv)})")
    if qv[x] == 0.0:
        raise ValueError(f"x = {x} has q[x] = 0: the draft cannot have proposed it")
    if rejection_accept(pv[x], qv[x], u_accept):
        return x, True
    res = _residual(pv, qv)
    return sample_categorical(pv if res is None else res, u_resample), False


def rejection_sample(p: ArrayLike, q: ArrayLike, m: float, rng: UniformSource,
                     max_tries: int = 10000) -> tuple[int, int]:
    """Von Neumann's sampler: returns (x, tries) with x distributed as p, proposing from q under the envelope m.

    Each try draws exactly two uniforms from rng: the proposal's first, x = sample_categorical(q, u1), then the
    acceptance's, keeping x when u2 < p[x] / (m q[x]). All arguments are checked before the first draw.
    Raises ValueError for p or q not distributions of the same shape, m < 1 or not finite, an envelope that
    fails (p[i] > m q[i] for some id i), or max_tries < 1; RuntimeError when no try in max_tries is accepted.
    """
    p_arr, q_arr = _pair(p, q)
    if not (math.isfinite(m) and m >= 1.0):
        raise ValueError(f"the envelope m must be a finite number >= 1, got {m!r}")
    max_tries = operator.index(max_tries)
    if max_tries < 1:
        raise ValueError(f"max_tries must be at least 1, got {max_tries}")
    pv, qv = p_arr.tolist(), q_arr.tolist()
    for i, (a, b) in enumerate(zip(pv, qv)):
        if a > m * b:
            raise ValueError(f"m = {m!r} is not an envelope: p[{i}] = {a!r} > m * q[{i}] = {m * b!r}")
    for tries in range(1, max_tries + 1):
        x = sample_categorical(q_arr, rng.uniform())
        if rejection_accept(pv[x], m * qv[x], rng.uniform()):
            return x, tries
    raise RuntimeError(f"no proposal accepted in {max_tries} tries")
