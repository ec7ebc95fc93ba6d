"""E7.4 tokens per step: how many tokens one target pass yields when each of k drafted tokens is accepted
independently with the same probability a (the chapter's constant-acceptance model)."""
import numpy as np


def _checked(a, k):
    """(a, k) as (float, int), or a ValueError that says which one is out of range."""
    a = float(a)
    if not 0.0 <= a <= 1.0:
        raise ValueError(f"a is an acceptance probability, so it must lie in [0, 1]; got {a}")
    if k < 0 or int(k) != k:
        raise ValueError(f"k counts drafted tokens, so it must be a whole number 0 or more; got {k}")
    return a, int(k)


def expected_tokens(a, k):
    """E[N] = 1 + a + a^2 + ... + a^k: the target's own token plus each draft prefix that survives."""
    a, k = _checked(a, k)
    # The sum itself rather than (1 - a^(k+1)) / (1 - a): it is k + 1 at a = 1 instead of 0 / 0.
    return float(np.sum(a ** np.arange(k + 1)))


def length_distribution(a, k):
    """P(N = n) for n = 1 .. k + 1 (index n - 1): a^(n-1) (1 - a), and a^k for the last length."""
    a, k = _checked(a, k)
    probs = a ** np.arange(k + 1) * (1.0 - a)
    probs[k] = a ** k  # all k drafts accepted: the cap keeps the whole tail of the geometric law
    return probs


def simulate_tokens(a, k, steps, seed):
    """Tokens yielded by each of `steps` simulated target passes, drafts accepted independently with prob. a."""
    a, k = _checked(a, k)
    rng = np.random.default_rng(seed)
    accepted = rng.random((steps, k)) < a               # one verdict per drafted position
    prefix = np.cumprod(accepted, axis=1).sum(axis=1)   # the run of acceptances before the first rejection
    return prefix.astype(np.int64) + 1                  # plus the one token the target adds itself
