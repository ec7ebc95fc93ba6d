"""E7.5 with numpy: E[N] as a sum of powers, the speed-up written out in one line, and best_k over every k at
once (E[N] for all k by a cumulative sum), the first of the near-maxima by np.isclose."""
import numpy as np


def _positive(**times):
    bad = [name for name, t in times.items() if not t > 0]
    if bad:
        raise ValueError(f"{', '.join(bad)} must be positive")


def _probability(a):
    if not 0 <= a <= 1:
        raise ValueError(f"a = {a} is not a probability")


def step_time(k, t_verify, t_draft):
    _positive(t_verify=t_verify, t_draft=t_draft)
    if k < 0:
        raise ValueError("negative k")
    return t_verify + k * t_draft


def expected_tokens(a, k):
    _probability(a)
    if k < 0:
        raise ValueError("negative k")
    return float(np.sum(float(a) ** np.arange(k + 1)))


def throughput(a, k, t_verify, t_draft):
    return expected_tokens(a, k) / step_time(k, t_verify, t_draft)


def speed_up(a, k, t_verify, t_draft, t_target):
    _positive(t_target=t_target)
    return t_target * expected_tokens(a, k) / step_time(k, t_verify, t_draft)


def best_k(a, t_verify, t_draft, t_target, k_max=10):
    _probability(a)
    _positive(t_verify=t_verify, t_draft=t_draft, t_target=t_target)
    ks = np.arange(k_max + 1)
    tokens = np.cumsum(float(a) ** ks)  # E[N] for k = 0, 1, ..., k_max
    gains = tokens * t_target / (t_verify + ks * t_draft)
    gains[0] = 1.0  # k = 0: do not speculate, the target alone
    winners = np.flatnonzero(np.isclose(gains, gains.max(), rtol=1e-9, atol=0.0))
    return int(winners[0])
