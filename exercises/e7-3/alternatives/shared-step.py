"""E7.3 vectorised, with one sampling step shared by both methods: the distribution that replaces a rejected
draft is passed in. The kept mass q * min(1, p / q) is written as min(p, q), which needs no division."""
import numpy as np


def _vec(x):
    return np.asarray(x, dtype=np.float64)


def residual(p, q):
    p, q = _vec(p), _vec(q)
    d = p - q
    d[d < 0] = 0.0
    total = d.sum()
    return d / total if total > 0 else p.copy()


def rejection_probability(p, q):
    """1 - sum(min(p, q)), which is the total variation distance: half the L1 distance."""
    return float(np.abs(_vec(p) - _vec(q)).sum()) / 2


def exact_distribution(p, q):
    p, q = _vec(p), _vec(q)
    return np.minimum(p, q) + rejection_probability(p, q) * residual(p, q)


def naive_distribution(p, q):
    p, q = _vec(p), _vec(q)
    return np.minimum(p, q) + rejection_probability(p, q) * p


def _step(p, q, rng, replacement):
    p, q = _vec(p), _vec(q)
    cq = np.cumsum(q)
    x = min(int(np.searchsorted(cq, rng.random() * cq[-1], side="right")), len(q) - 1)
    if rng.random() * q[x] < p[x]:
        return x
    return int(rng.choice(len(p), p=replacement(p, q)))


def speculative_step(p, q, rng):
    return _step(p, q, rng, residual)


def _target(p, q):
    return p


def empirical(p, q, trials, seed, method="exact"):
    replacements = {"exact": residual, "naive": _target}
    if method not in replacements:
        raise ValueError(f"method is 'exact' or 'naive', not {method!r}")
    rng = np.random.default_rng(seed)
    tokens = [_step(p, q, rng, replacements[method]) for _ in range(trials)]
    return np.bincount(tokens, minlength=len(p)) / trials
