"""E7.6 A speculative decoder. Write the functions below; Ctrl/Cmd+Enter runs the hidden tests.

P (the target) and Q (the draft) are V x V numpy arrays: row t is the distribution of the token after token t.
`rng` is a numpy Generator (np.random.default_rng(seed)): draw every random number from it.
"""
import numpy as np


def residual(p, q):
    """max(0, p - q) divided by its sum; p itself when that sum is 0 (p == q)."""
    pass


def acceptance(p, q, token):
    """The probability of keeping a drafted token: min(1, p[token] / q[token])."""
    pass


def draft_tokens(Q, last, k, rng):
    """k tokens drawn one after another from Q, each from the row of the token before it (the first from Q[last])."""
    pass


def verify(P, Q, last, drafts, rng):
    """The tokens one step emits: the kept drafts, then a replacement from the residual or, if all were kept, a bonus."""
    pass


def speculative_generate(P, Q, start, n_tokens, k, rng):
    """Exactly n_tokens tokens after `start` and the number of target passes: (tokens, target_passes)."""
    pass


def target_generate(P, start, n_tokens, rng):
    """Plain sampling from P, one target pass per token: (tokens, n_tokens)."""
    pass
