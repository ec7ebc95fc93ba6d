"""E7.1 Draft and verify. Write the three functions below; Ctrl/Cmd+Enter runs the hidden tests."""
import numpy as np


def accepted_prefix(draft, target_argmax):
    """How many leading draft tokens equal the target's argmax at the same position (0 to k)."""
    pass


def verify_step(draft, target_argmax):
    """The emitted tokens, draft[:n] + [target_argmax[n]]; ValueError unless len(target_argmax) == len(draft) + 1."""
    pass


def speculative_greedy(target_next, draft_next, start, n_tokens, k):
    """Greedy speculative decoding of bigram models: return (the n_tokens tokens after start, target passes)."""
    pass
