"""E7.6 a speculative decoder on bigram models: draft k tokens with Q, score them with one pass of P, keep the
longest accepted prefix, then emit one more token from the target (a replacement or the bonus)."""
import numpy as np


def _model(M, name):
    """M as a float array, after checking that it is a square table whose rows are distributions."""
    M = np.asarray(M, dtype=float)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"{name} must be a V x V table, got shape {M.shape}")
    if np.any(M < 0) or not np.allclose(M.sum(axis=1), 1.0, rtol=0, atol=1e-9):
        raise ValueError(f"every row of {name} must be a distribution summing to 1, got sums {M.sum(axis=1)}")
    return M


def residual(p, q):
    """max(0, p - q) normalised: where a replacement comes from. p itself when q covers all of p."""
    p = np.asarray(p, dtype=float)
    gap = np.maximum(p - np.asarray(q, dtype=float), 0.0)
    mass = gap.sum()
    if mass == 0.0:
        return p
    return gap / mass


def acceptance(p, q, token):
    """The chance of keeping a drafted token: min(1, p/q) at that token."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    if q[token] == 0:  # never drafted from this row; only a row mix-up asks, and 0/0 must not read as "keep"
        return 0.0
    return float(min(1.0, p[token] / q[token]))


def _draw(row, rng):
    return int(rng.choice(len(row), p=row))


def draft_tokens(Q, last, k, rng):
    """k tokens from the draft model, each drawn from the row of the token before it."""
    Q = np.asarray(Q, dtype=float)
    drafts = []
    for _ in range(k):
        last = _draw(Q[last], rng)
        drafts.append(last)
    return drafts


def verify(P, Q, last, drafts, rng):
    """The tokens one step emits: the accepted drafts, then a replacement from the residual or the bonus."""
    P, Q = np.asarray(P, dtype=float), np.asarray(Q, dtype=float)
    contexts = [last, *drafts]  # draft i is scored in the row of the token before it: one pass, k + 1 rows
    emitted = []
    for context, d in zip(contexts, drafts):
        p, q = P[context], Q[context]
        if rng.random() < acceptance(p, q, d):
            emitted.append(d)
        else:
            emitted.append(_draw(residual(p, q), rng))
            return emitted
    emitted.append(_draw(P[contexts[-1]], rng))  # every draft kept: the last row gives a bonus token
    return emitted


def speculative_generate(P, Q, start, n_tokens, k, rng):
    """n_tokens tokens after `start` distributed as sampling from P, and the number of target passes used."""
    P, Q = _model(P, "P"), _model(Q, "Q")
    if P.shape != Q.shape:
        raise ValueError(f"P and Q must have the same shape, got {P.shape} and {Q.shape}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    tokens, passes, last = [], 0, start
    while len(tokens) < n_tokens:
        emitted = verify(P, Q, last, draft_tokens(Q, last, k, rng), rng)
        passes += 1
        tokens.extend(emitted)
        last = emitted[-1]
    return tokens[:n_tokens], passes


def target_generate(P, start, n_tokens, rng):
    """Plain sampling from P, one target pass per token: (tokens, n_tokens)."""
    P = _model(P, "P")
    tokens, last = [], start
    for _ in range(n_tokens):
        last = _draw(P[last], rng)
        tokens.append(last)
    return tokens, n_tokens
