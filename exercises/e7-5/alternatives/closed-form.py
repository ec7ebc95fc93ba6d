"""E7.5 with the closed form for E[N] (and its a = 1 case apart), the throughput through the time per token,
and best_k as "the first k whose speed-up is the maximum", with k = 0 worth exactly 1."""
import math


def _require(ok, message):
    if not ok:
        raise ValueError(message)


def step_time(k, t_verify, t_draft):
    _require(t_verify > 0 and t_draft > 0, "t_verify and t_draft must be positive")
    _require(k >= 0, "k must not be negative")
    return k * t_draft + t_verify


def expected_tokens(a, k):
    _require(0.0 <= a <= 1.0, "a must lie in [0, 1]")
    _require(k >= 0, "k must not be negative")
    if a == 1.0:
        return float(k + 1)
    return (1.0 - a ** (k + 1)) / (1.0 - a)


def throughput(a, k, t_verify, t_draft):
    time_per_token = step_time(k, t_verify, t_draft) / expected_tokens(a, k)
    return 1.0 / time_per_token


def speed_up(a, k, t_verify, t_draft, t_target):
    _require(t_target > 0, "t_target must be positive")
    return t_target * throughput(a, k, t_verify, t_draft)


def best_k(a, t_verify, t_draft, t_target, k_max=10):
    gains = [1.0] + [speed_up(a, k, t_verify, t_draft, t_target) for k in range(1, k_max + 1)]
    top = max(gains)
    return min(k for k, g in enumerate(gains) if math.isclose(g, top))
