"""E7.1 with numpy: the first mismatch by flatnonzero, and the emitted tokens read off the target's argmaxes."""
import numpy as np


def accepted_prefix(draft, target_argmax):
    """Index of the first position where draft and target differ, or k when none does."""
    k = len(draft)
    differs = np.asarray(draft, dtype=np.int64) != np.asarray(target_argmax[:k], dtype=np.int64)
    where = np.flatnonzero(differs)
    return int(where[0]) if where.size else k


def verify_step(draft, target_argmax):
    """The target's argmaxes up to and including the first disagreement: kept draft tokens equal them."""
    if len(target_argmax) - len(draft) != 1:
        raise ValueError("target_argmax must have exactly one entry more than draft (k + 1 scored positions)")
    n = accepted_prefix(draft, target_argmax)
    return [int(t) for t in target_argmax[:n + 1]]


def speculative_greedy(target_next, draft_next, start, n_tokens, k):
    """(tokens, target passes) of greedy speculative decoding with bigram tables."""
    target_next = np.asarray(target_next)
    draft_next = np.asarray(draft_next)
    out = [int(start)]
    last = int(start)
    passes = 0
    while len(out) - 1 < n_tokens and passes < n_tokens:
        draft = [int(draft_next[last])] if k else []
        while len(draft) < k:
            draft.append(int(draft_next[draft[-1]]))
        argmaxes = target_next[np.array([last] + draft, dtype=np.int64)]
        out += verify_step(draft, argmaxes.tolist())
        passes += 1
        last = out[-1]
    return out[1:n_tokens + 1], passes
