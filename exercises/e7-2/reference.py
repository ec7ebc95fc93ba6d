"""E7.2 the acceptance rule: how likely the target is to keep a drafted token, and how much it keeps overall."""
import numpy as np


def acceptance_probability(p_x, q_x):
    """min(1, p_x / q_x): the chance that the target keeps a token x the draft proposed."""
    p_x, q_x = float(p_x), float(q_x)
    if not (0.0 <= p_x <= 1.0 and 0.0 <= q_x <= 1.0):
        raise ValueError(f"probabilities must lie in [0, 1], got p_x = {p_x} and q_x = {q_x}")
    if q_x == 0.0:
        raise ValueError("q_x is 0: the draft never proposes a token it gives no probability")
    return min(1.0, p_x / q_x)


def kept_mass(p, q):
    """Per token, the chance it is proposed and kept: q_x * min(1, p_x / q_x), which is min(p_x, q_x)."""
    return np.minimum(np.asarray(p, dtype=float), np.asarray(q, dtype=float))


def acceptance_rate(p, q):
    """alpha = sum over tokens of min(p_x, q_x): the chance that one drafted token is kept."""
    return float(kept_mass(p, q).sum())


def tv_distance(p, q):
    """Total variation distance, half the sum of |p_x - q_x|."""
    return 0.5 * float(np.abs(np.asarray(p, dtype=float) - np.asarray(q, dtype=float)).sum())


def measured_acceptance_rate(p, q, trials, seed):
    """The fraction of `trials` proposals x ~ q that survive the acceptance test, with a generator seeded by `seed`."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    rng = np.random.default_rng(seed)
    proposals = rng.choice(len(q), size=trials, p=q)
    u = rng.random(trials)
    kept = u < np.minimum(1.0, p[proposals] / q[proposals])  # q > 0 at every proposal: it was drawn from q
    return float(kept.mean())
