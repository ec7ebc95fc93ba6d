"""M07.6 written from the page with Python lists: every function reads p and q into lists of floats and does its
own arithmetic. speculative_step and rejection_sample compare u < p/q inline instead of calling rejection_accept,
and the residual is built, and normalised, by an explicit loop."""
from __future__ import annotations

import math

import numpy as np

from tinyllm.prob.sampling import UniformSource, sample_categorical

TOL = 1e-9


def _read(name, v):
    """v as a list of float64 values, after checking that it is a distribution."""
    a = np.asarray(v, dtype=np.float64)
    if a.ndim != 1:
        raise ValueError(f"{name} must be a vector, got {a.ndim} dimensions")
    if len(a) == 0:
        raise ValueError(f"{name} is empty")
    values = a.tolist()
    s = 0.0
    for i in range(len(values)):
        if math.isnan(values[i]) or math.isinf(values[i]):
            raise ValueError(f"{name}[{i}] is {values[i]}")
        if values[i] < 0:
            raise ValueError(f"{name}[{i}] = {values[i]} is negative")
        s += values[i]
    if s < 1.0 - TOL or s > 1.0 + TOL:
        raise ValueError(f"{name} sums to {s!r}, not 1")
    return values


def _read_both(p, q):
    pv = _read("p", p)
    qv = _read("q", q)
    if len(pv) != len(qv):
        raise ValueError(f"p has {len(pv)} entries but q has {len(qv)}")
    return pv, qv


def _residual(pv, qv):
    """max(0, p - q) / Z as a list, or None when Z is exactly 0 (p == q)."""
    out = []
    z = 0.0
    for a, b in zip(pv, qv):
        g = a - b if a > b else 0.0
        out.append(g)
        z += g
    if z == 0.0:
        return None
    for i in range(len(out)):
        out[i] /= z
    return out


def rejection_accept(p_x, q_x, u):
    if not 0.0 <= u < 1.0:
        raise ValueError(f"u = {u!r} is not in [0, 1)")
    if math.isnan(p_x) or math.isinf(p_x) or p_x < 0.0:
        raise ValueError(f"p_x = {p_x!r} is not a probability")
    if math.isnan(q_x) or math.isinf(q_x) or q_x <= 0.0:
        raise ValueError(f"q_x = {q_x!r}: a draft needs a finite q_x > 0")
    return u < p_x / q_x


def acceptance_probability(p, q):
    pv, qv = _read_both(p, q)
    alpha = 0.0
    for i in range(len(pv)):
        alpha += min(pv[i], qv[i])
    return alpha


def residual_distribution(p, q):
    pv, qv = _read_both(p, q)
    res = _residual(pv, qv)
    return np.array(pv if res is None else res, dtype=np.float64)


def speculative_step(p, q, x, u_accept, u_resample):
    pv, qv = _read_both(p, q)
    if not isinstance(x, (int, np.integer)):
        raise ValueError(f"x must be a token id, got {x!r}")
    x = int(x)
    if x < 0 or x >= len(pv):
        raise ValueError(f"x = {x} is not an id of a vocabulary of {len(pv)}")
    if qv[x] == 0.0:
        raise ValueError(f"q[{x}] = 0: the draft cannot have proposed x = {x}")
    if not 0.0 <= u_accept < 1.0:
        raise ValueError(f"u_accept = {u_accept!r} is not in [0, 1)")
    if u_accept < pv[x] / qv[x]:
        return x, True
    res = _residual(pv, qv)
    return sample_categorical(pv if res is None else res, u_resample), False


def rejection_sample(p, q, m, rng, max_tries=10000):
    if math.isnan(m) or math.isinf(m) or m < 1.0:
        raise ValueError(f"m = {m!r} must be a finite number >= 1")
    if max_tries < 1:
        raise ValueError(f"max_tries = {max_tries} must be at least 1")
    pv, qv = _read_both(p, q)
    for i in range(len(pv)):
        if pv[i] > m * qv[i]:
            raise ValueError(f"m = {m!r} is not an envelope: p[{i}] > m * q[{i}]")
    tries = 0
    while tries < max_tries:
        x = sample_categorical(qv, rng.uniform())
        u2 = rng.uniform()
        if u2 < pv[x] / (m * qv[x]):
            return x, tries + 1
        tries += 1
    raise RuntimeError(f"nothing accepted in {max_tries} tries")
