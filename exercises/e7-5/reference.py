"""E7.5 the speed-up: what one draft-and-verify step costs, what it yields, and the draft length worth using."""
import math


def _check_times(**times):
    for name, value in times.items():
        if not value > 0:
            raise ValueError(f"{name} must be a positive time, got {value!r}")


def _check_k(k):
    if k < 0:
        raise ValueError(f"k counts draft tokens, so it cannot be negative; got {k!r}")


def step_time(k, t_verify, t_draft):
    """One speculative step: k draft passes, one after another, then one verify pass of the target."""
    _check_times(t_verify=t_verify, t_draft=t_draft)
    _check_k(k)
    return t_verify + k * t_draft


def expected_tokens(a, k):
    """E[N] = a^0 + a^1 + ... + a^k: the target's own token plus each draft that survives its predecessors."""
    if not 0 <= a <= 1:
        raise ValueError(f"the acceptance probability a must lie in [0, 1], got {a!r}")
    _check_k(k)
    # The finite sum, not the closed form (1 - a^(k+1)) / (1 - a), which divides by zero at a = 1.
    return sum(a**i for i in range(k + 1))


def throughput(a, k, t_verify, t_draft):
    """Tokens per unit of time: E[N] over the time of one step (tokens per second when the times are seconds)."""
    return expected_tokens(a, k) / step_time(k, t_verify, t_draft)


def speed_up(a, k, t_verify, t_draft, t_target):
    """Speculative throughput divided by the target's own, 1 / t_target: a ratio without units."""
    _check_times(t_target=t_target)
    return throughput(a, k, t_verify, t_draft) * t_target


def best_k(a, t_verify, t_draft, t_target, k_max=10):
    """The k in 1..k_max with the largest speed-up, the smallest such k on a tie, or 0 if none beats 1x."""
    best, best_gain = 0, 1.0  # k = 0 stands for "do not speculate": the target alone, exactly 1x
    for k in range(1, k_max + 1):
        gain = speed_up(a, k, t_verify, t_draft, t_target)
        # Only a clear win counts: speed-ups equal up to rounding are a tie, and a tie keeps the smaller k.
        if gain > best_gain and not math.isclose(gain, best_gain):
            best, best_gain = k, gain
    return best
