"""E7.5 The speed-up. Write the five functions below; Ctrl/Cmd+Enter runs the hidden tests."""
import math


def step_time(k, t_verify, t_draft):
    """The time of one speculative step: k draft passes and one verify pass."""
    pass


def expected_tokens(a, k):
    """E[N], the expected number of tokens one step emits: a^0 + a^1 + ... + a^k."""
    pass


def throughput(a, k, t_verify, t_draft):
    """Expected tokens per unit of time: E[N] divided by the step time."""
    pass


def speed_up(a, k, t_verify, t_draft, t_target):
    """Speculative throughput over the target's own 1 / t_target."""
    pass


def best_k(a, t_verify, t_draft, t_target, k_max=10):
    """The k in 1..k_max with the largest speed-up (the smaller k on a tie), or 0 when none beats 1x."""
    pass
