"""E7.2 built on the rule itself: every other function calls acceptance_probability (a token with q = 0 is skipped,
since it is never proposed), and the simulation draws one proposal and one uniform at a time with rng.choice."""
import numpy as np


def acceptance_probability(p_x, q_x):
    if not 0 <= p_x <= 1:
        raise ValueError(f"p_x must be a probability, got {p_x}")
    if not 0 < q_x <= 1:
        raise ValueError(f"q_x must be in (0, 1]: a draft only proposes tokens it gives probability; got {q_x}")
    return min(1.0, p_x / q_x)


def kept_mass(p, q):
    return np.array([b * acceptance_probability(a, b) if b > 0 else 0.0 for a, b in zip(p, q)])


def acceptance_rate(p, q):
    return float(np.sum(kept_mass(p, q)))


def tv_distance(p, q):
    return float(np.abs(np.subtract(p, q)).sum()) / 2


def measured_acceptance_rate(p, q, trials, seed):
    rng = np.random.default_rng(seed)
    kept = 0
    for _ in range(trials):
        x = rng.choice(len(q), p=q)
        u = rng.random()
        if u < acceptance_probability(p[x], q[x]):
            kept += 1
    return kept / trials
