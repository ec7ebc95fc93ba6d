"""E7.4 seen as a capped geometric law, all in numpy: E[N] by the closed form (a = 1 caught by np.isclose), the
lengths as one array, and each pass drawn at once as the number of tries up to the first rejection, capped at
k + 1."""
import numpy as np


def _check(a, k):
    if not (0.0 <= a <= 1.0):
        raise ValueError("the acceptance probability a must be in [0, 1]")
    if isinstance(k, float) and not k.is_integer():
        raise ValueError("k must be a whole number of drafts")
    if k < 0:
        raise ValueError("k cannot be negative")
    return int(k)


def expected_tokens(a, k):
    k = _check(a, k)
    if np.isclose(a, 1.0):
        return float(k + 1)
    return float((1.0 - np.power(a, k + 1)) / (1.0 - a))


def length_distribution(a, k):
    k = _check(a, k)
    rejected_at = (1.0 - a) * a ** np.arange(k)
    return np.append(rejected_at, a ** k)


def simulate_tokens(a, k, steps, seed):
    k = _check(a, k)
    rng = np.random.default_rng(seed)
    if a == 1.0:
        return np.full(steps, k + 1, dtype=np.int64)
    tries = rng.geometric(1.0 - a, size=steps)
    return np.minimum(tries, k + 1).astype(np.int64)
