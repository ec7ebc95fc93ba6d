"""E7.5 with plain loops: E[N] by a running power of a, the speed-up as a ratio of two rates, and best_k by
walking k upwards and moving only on a clear gain (a relative margin of 1e-9)."""


def _positive(name, value):
    if value <= 0:
        raise ValueError(f"{name} must be greater than 0, got {value}")


def step_time(k, t_verify, t_draft):
    _positive("t_verify", t_verify)
    _positive("t_draft", t_draft)
    if k < 0:
        raise ValueError("k must be 0 or more")
    return t_verify + k * t_draft


def expected_tokens(a, k):
    if a < 0 or a > 1:
        raise ValueError(f"a is a probability, so it must be between 0 and 1, got {a}")
    if k < 0:
        raise ValueError("k must be 0 or more")
    total, term = 0.0, 1.0
    for _ in range(k + 1):
        total += term
        term *= a
    return total


def throughput(a, k, t_verify, t_draft):
    return expected_tokens(a, k) / step_time(k, t_verify, t_draft)


def speed_up(a, k, t_verify, t_draft, t_target):
    _positive("t_target", t_target)
    rate_alone = 1 / t_target
    return throughput(a, k, t_verify, t_draft) / rate_alone


def best_k(a, t_verify, t_draft, t_target, k_max=10):
    choice, top = 0, 1.0
    for k in range(1, k_max + 1):
        s = speed_up(a, k, t_verify, t_draft, t_target)
        if s > top * (1 + 1e-9):
            choice, top = k, s
    return choice
