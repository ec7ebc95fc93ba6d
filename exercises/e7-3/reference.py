"""E7.3 rejection correction: the residual, the exact law of one speculative step, and a sampler."""
import numpy as np


def residual(p, q):
    """The normalised positive part of p - q; p itself when the draft already covers all of p."""
    p = np.asarray(p, dtype=float)
    gap = np.maximum(p - np.asarray(q, dtype=float), 0.0)
    mass = gap.sum()
    if mass == 0.0:
        return p.copy()
    return gap / mass


def rejection_probability(p, q):
    """1 - sum(min(p, q)): the chance that the drafted token is turned down."""
    return 1.0 - float(np.minimum(np.asarray(p, dtype=float), np.asarray(q, dtype=float)).sum())


def _kept(p, q):
    """q * min(1, p / q) per token, defined as 0 where q = 0 (such a token is never drafted)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    ratio = np.divide(p, q, out=np.zeros_like(p), where=q > 0)
    return q * np.minimum(1.0, ratio)


def exact_distribution(p, q):
    """P(emit i) when a rejection is replaced by a draw from the residual: equals p."""
    return _kept(p, q) + rejection_probability(p, q) * residual(p, q)


def naive_distribution(p, q):
    """P(emit i) when a rejection is replaced by a fresh draw from p: biased towards covered tokens."""
    return _kept(p, q) + rejection_probability(p, q) * np.asarray(p, dtype=float)


def _draw(rng, weights):
    return int(rng.choice(len(weights), p=weights))


def speculative_step(p, q, rng):
    """One draft-and-verify step: propose from q, keep with min(1, p/q), else draw from the residual."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    x = _draw(rng, q)
    if rng.random() < min(1.0, p[x] / q[x]):
        return x
    return _draw(rng, residual(p, q))


def _naive_step(p, q, rng):
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    x = _draw(rng, q)
    if rng.random() < min(1.0, p[x] / q[x]):
        return x
    return _draw(rng, p)


def empirical(p, q, trials, seed, method="exact"):
    """Frequencies of the emitted tokens over `trials` seeded steps of the chosen method."""
    steps = {"exact": speculative_step, "naive": _naive_step}
    if method not in steps:
        raise ValueError(f"method must be 'exact' or 'naive', not {method!r}")
    rng = np.random.default_rng(seed)
    counts = np.zeros(len(p))
    for _ in range(trials):
        counts[steps[method](p, q, rng)] += 1
    return counts / trials
