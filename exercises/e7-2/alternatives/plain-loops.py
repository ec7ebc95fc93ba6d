"""E7.2 with plain Python lists and loops, token by token as the lesson's table goes; numpy only for the seeded
generator. The simulation proposes and tests one token at a time."""
import numpy as np


def acceptance_probability(p_x, q_x):
    for name, value in (("p_x", p_x), ("q_x", q_x)):
        if value < 0 or value > 1:
            raise ValueError(f"{name} = {value} is not a probability")
    if q_x <= 0:
        raise ValueError("the draft gives this token no probability, so it can never propose it")
    ratio = p_x / q_x
    if ratio > 1:
        ratio = 1.0
    return ratio


def kept_mass(p, q):
    out = []
    for a, b in zip(p, q):
        out.append(float(a) if a < b else float(b))
    return out


def acceptance_rate(p, q):
    total = 0.0
    for a, b in zip(p, q):
        total += min(a, b)
    return total


def tv_distance(p, q):
    total = 0.0
    for a, b in zip(p, q):
        total += abs(a - b)
    return total / 2


def _propose(dist, u):
    """Inverse CDF: the first token whose running total passes u (the last token with mass if rounding runs out)."""
    running = 0.0
    for token, mass in enumerate(dist):
        running += mass
        if u < running:
            return token
    return max(t for t, m in enumerate(dist) if m > 0)


def measured_acceptance_rate(p, q, trials, seed):
    rng = np.random.default_rng(seed)
    kept = 0
    for _ in range(trials):
        x = _propose(q, rng.random())
        if rng.random() < p[x] / q[x]:
            kept += 1
    return kept / trials
