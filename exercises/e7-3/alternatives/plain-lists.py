"""E7.3 with plain Python lists and loops; numpy only for the seeded generator. Each function does its own
arithmetic, token by token, as the lesson's table does."""
import numpy as np


def _floats(v):
    return [float(x) for x in v]


def residual(p, q):
    p, q = _floats(p), _floats(q)
    gaps = []
    for a, b in zip(p, q):
        gaps.append(a - b if a > b else 0.0)
    z = sum(gaps)
    if z == 0:
        return p
    return [g / z for g in gaps]


def rejection_probability(p, q):
    kept = 0.0
    for a, b in zip(_floats(p), _floats(q)):
        kept += min(a, b)
    return 1.0 - kept


def exact_distribution(p, q):
    p, q = _floats(p), _floats(q)
    reject = rejection_probability(p, q)
    res = residual(p, q)
    out = []
    for i in range(len(p)):
        accepted = q[i] * min(1.0, p[i] / q[i]) if q[i] > 0 else 0.0
        out.append(accepted + reject * res[i])
    return out


def naive_distribution(p, q):
    p, q = _floats(p), _floats(q)
    reject = rejection_probability(p, q)
    out = []
    for i in range(len(p)):
        accepted = q[i] * min(1.0, p[i] / q[i]) if q[i] > 0 else 0.0
        out.append(accepted + reject * p[i])
    return out


def _pick(rng, weights):
    """Inverse CDF with one uniform; the last id with weight > 0 if rounding leaves u past the total."""
    u = rng.random()
    total = 0.0
    for i, w in enumerate(weights):
        total += w
        if u < total:
            return i
    return max(i for i, w in enumerate(weights) if w > 0)


def speculative_step(p, q, rng):
    p, q = _floats(p), _floats(q)
    x = _pick(rng, q)
    if rng.random() < p[x] / q[x]:
        return x
    return _pick(rng, residual(p, q))


def _naive_step(p, q, rng):
    p, q = _floats(p), _floats(q)
    x = _pick(rng, q)
    if rng.random() < p[x] / q[x]:
        return x
    return _pick(rng, p)


def empirical(p, q, trials, seed, method="exact"):
    if method not in ("exact", "naive"):
        raise ValueError(f"unknown method {method!r}")
    rng = np.random.default_rng(seed)
    counts = [0] * len(p)
    for _ in range(trials):
        if method == "exact":
            token = speculative_step(p, q, rng)
        else:
            token = _naive_step(p, q, rng)
        counts[token] += 1
    return [c / trials for c in counts]
