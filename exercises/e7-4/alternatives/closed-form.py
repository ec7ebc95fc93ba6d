"""E7.4 written from the formulas on the page: the closed form for E[N] (with a = 1 handled apart), the length
law as a list, and a simulation that walks each pass draft by draft."""
import numpy as np


def _validate(a, k):
    if a < 0 or a > 1:
        raise ValueError(f"a must be between 0 and 1, got {a}")
    if k < 0 or k != int(k):
        raise ValueError(f"k must be a non-negative integer, got {k}")


def expected_tokens(a, k):
    _validate(a, k)
    if a == 1:
        return float(k + 1)
    return (1 - a ** (k + 1)) / (1 - a)


def length_distribution(a, k):
    _validate(a, k)
    k = int(k)
    probs = [a ** (n - 1) * (1 - a) for n in range(1, k + 1)]
    probs.append(a ** k)
    return np.array(probs)


def simulate_tokens(a, k, steps, seed):
    _validate(a, k)
    rng = np.random.default_rng(seed)
    out = np.zeros(steps, dtype=np.int64)
    for s in range(steps):
        tokens = 1
        for _ in range(int(k)):
            if rng.random() >= a:
                break
            tokens += 1
        out[s] = tokens
    return out
