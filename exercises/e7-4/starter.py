"""E7.4 Tokens per step. Write the three functions below; Ctrl/Cmd+Enter runs the hidden tests."""
import numpy as np


def expected_tokens(a, k):
    """E[N] for acceptance probability a and k drafted tokens; k + 1 at a = 1. ValueError for a bad a or k."""
    pass


def length_distribution(a, k):
    """numpy array of P(N = n) for n = 1 .. k + 1 (index n - 1)."""
    pass


def simulate_tokens(a, k, steps, seed):
    """Integer array of the tokens each of `steps` passes yields, from np.random.default_rng(seed)."""
    pass
