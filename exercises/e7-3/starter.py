import numpy as np


def residual(p, q):
    """Normalise max(0, p - q). If that is all zero (p == q), return p."""
    pass


def rejection_probability(p, q):
    """1 - sum(min(p, q))."""
    pass


def exact_distribution(p, q):
    """q * min(1, p/q) + rejection_probability * residual; tokens with q = 0 add 0 through the first term."""
    pass


def naive_distribution(p, q):
    """The WRONG variant: after a rejection, resample from p itself."""
    pass


def speculative_step(p, q, rng):
    """Draw a token from q, accept it with min(1, p/q), otherwise draw from the residual. Return the token."""
    pass


def empirical(p, q, trials, seed, method="exact"):
    """Frequencies of the emitted tokens over `trials` steps; method is "exact" or "naive"."""
    pass
