"""E7.1, written with index loops: verify_step walks the draft itself instead of calling accepted_prefix."""


def accepted_prefix(draft, target_argmax):
    """Length of the leading run where draft[i] == target_argmax[i]."""
    n = 0
    while n < len(draft) and draft[n] == target_argmax[n]:
        n += 1
    return n


def verify_step(draft, target_argmax):
    """Kept draft tokens, then the target's token at the first disagreement (or its bonus token)."""
    k = len(draft)
    if len(target_argmax) != k + 1:
        raise ValueError(f"expected {k + 1} target argmaxes for {k} draft tokens, got {len(target_argmax)}")
    out = []
    for i in range(k):
        if draft[i] != target_argmax[i]:
            out.append(int(target_argmax[i]))
            return out
        out.append(int(draft[i]))
    out.append(int(target_argmax[k]))
    return out


def speculative_greedy(target_next, draft_next, start, n_tokens, k):
    """Decode n_tokens tokens after start; return them with the number of target passes."""
    tokens = []
    passes = 0
    last = start
    for _ in range(n_tokens):  # a pass emits at least one token, so n_tokens passes are enough
        if len(tokens) >= n_tokens:
            break
        proposals = []
        guess = last
        for _ in range(k):
            guess = draft_next[guess]
            proposals.append(int(guess))
        scored = [last] + proposals
        argmaxes = [int(target_next[t]) for t in scored]
        passes += 1
        tokens.extend(verify_step(proposals, argmaxes))
        last = tokens[-1]
    return tokens[:n_tokens], passes
