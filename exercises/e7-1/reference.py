"""E7.1 draft and verify: one step of greedy speculative decoding, and a whole decoder on toy bigram models."""
import numpy as np


def accepted_prefix(draft, target_argmax):
    """How many leading draft tokens equal the target's argmax at their own position: 0 to k."""
    n = 0
    for proposed, wanted in zip(draft, target_argmax):
        if proposed != wanted:
            break
        n += 1
    return n


def verify_step(draft, target_argmax):
    """The tokens one greedy verification emits: the agreeing prefix of the draft, then one token of the target."""
    if len(target_argmax) != len(draft) + 1:
        raise ValueError(f"the target scores k + 1 = {len(draft) + 1} positions for k = {len(draft)} draft "
                         f"tokens, but target_argmax has {len(target_argmax)}")
    n = accepted_prefix(draft, target_argmax)
    # target_argmax[n] is the target's choice at the first disagreement, or its bonus token when all k agree.
    return [int(t) for t in draft[:n]] + [int(target_argmax[n])]


def speculative_greedy(target_next, draft_next, start, n_tokens, k):
    """Greedy speculative decoding of bigram models: (the n_tokens tokens after start, target passes used)."""
    target_next = np.asarray(target_next)
    draft_next = np.asarray(draft_next)
    tokens, passes = [], 0
    last = int(start)
    # Every step emits at least one token, so n_tokens passes always suffice: the bound costs a correct decoder
    # nothing and keeps a faulty step that emits nothing from looping for ever.
    while len(tokens) < n_tokens and passes < n_tokens:
        draft, context = [], last
        for _ in range(k):
            context = int(draft_next[context])
            draft.append(context)
        # One target pass scores k + 1 positions: after the text so far, then after each draft token.
        target_argmax = [int(target_next[t]) for t in [last] + draft]
        passes += 1
        tokens += verify_step(draft, target_argmax)
        last = tokens[-1]
    return tokens[:n_tokens], passes
