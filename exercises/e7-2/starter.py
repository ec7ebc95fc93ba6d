"""E7.2 The acceptance rule. Write the five functions below; Ctrl/Cmd+Enter runs the hidden tests."""
import numpy as np


def acceptance_probability(p_x, q_x):
    """min(1, p_x / q_x); ValueError if q_x <= 0 or if either probability lies outside [0, 1]."""
    pass


def kept_mass(p, q):
    """Per token, the probability that it is proposed and kept: an array of min(p, q)."""
    pass


def acceptance_rate(p, q):
    """alpha: the probability that one drafted token is kept, the sum of the kept mass."""
    pass


def tv_distance(p, q):
    """The total variation distance: half the sum of |p - q|."""
    pass


def measured_acceptance_rate(p, q, trials, seed):
    """Propose `trials` tokens x ~ q with np.random.default_rng(seed), keep each with min(1, p_x / q_x); the fraction kept."""
    pass
