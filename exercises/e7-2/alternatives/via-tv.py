"""E7.2 written from the other side: the total variation distance first, the acceptance rate as 1 - TV, the kept
mass as q times the capped ratio (a division guarded where q = 0), and a vectorised simulation that draws all the
uniforms first and maps the proposals through q's cumulative sum."""
import numpy as np


def acceptance_probability(p_x, q_x):
    p_x, q_x = float(p_x), float(q_x)
    if q_x <= 0.0:
        raise ValueError(f"q_x = {q_x}: a draft cannot propose a token it gives no probability")
    if not 0.0 <= p_x <= 1.0 or q_x > 1.0:
        raise ValueError(f"p_x = {p_x}, q_x = {q_x}: probabilities lie between 0 and 1")
    return float(np.minimum(1.0, p_x / q_x))


def kept_mass(p, q):
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    ratio = np.divide(p, q, out=np.zeros_like(p), where=q > 0)
    return q * np.minimum(1.0, ratio)


def tv_distance(p, q):
    diff = np.asarray(p, dtype=float) - np.asarray(q, dtype=float)
    return float(np.sum(np.abs(diff)) / 2.0)


def acceptance_rate(p, q):
    return 1.0 - tv_distance(p, q)


def measured_acceptance_rate(p, q, trials, seed):
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    rng = np.random.default_rng(seed)
    draws = rng.random((2, trials))
    cdf = np.cumsum(q)
    x = np.searchsorted(cdf, draws[0] * cdf[-1], side="right")
    accept = draws[1] * q[x] < p[x]
    return np.count_nonzero(accept) / trials
