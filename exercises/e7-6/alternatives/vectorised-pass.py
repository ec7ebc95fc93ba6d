"""E7.6 written around the target's single pass: verify gathers the k + 1 rows at once, draws all k acceptance
uniforms in one call and finds the first rejection with numpy. Tokens are drawn by inverting the cumulative sum."""
import numpy as np


def _pick(row, u):
    """The token whose cumulative-probability interval holds u * total (inverse CDF)."""
    cdf = np.cumsum(row)
    return min(int(np.searchsorted(cdf, u * cdf[-1], side="right")), len(row) - 1)


def residual(p, q):
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    gap = np.clip(p - q, 0.0, None)
    total = gap.sum()
    return gap / total if total > 0 else p


def acceptance(p, q, token):
    p, q = np.asarray(p, dtype=np.float64), np.asarray(q, dtype=np.float64)
    return float(np.minimum(1.0, p[token] / q[token]))


def draft_tokens(Q, last, k, rng):
    Q = np.asarray(Q, dtype=np.float64)
    out = np.empty(k, dtype=np.int64)
    prev = last
    for i, u in enumerate(rng.random(k)):
        prev = _pick(Q[prev], u)
        out[i] = prev
    return out.tolist()


def verify(P, Q, last, drafts, rng):
    P, Q = np.asarray(P, dtype=np.float64), np.asarray(Q, dtype=np.float64)
    drafts = np.asarray(drafts, dtype=np.int64)
    k = len(drafts)
    ctx = np.concatenate(([last], drafts))          # the k + 1 positions of the one target pass
    p_rows, q_rows = P[ctx], Q[ctx]                   # (k + 1) x V each
    p_draft = p_rows[np.arange(k), drafts]
    q_draft = q_rows[np.arange(k), drafts]
    keep = rng.random(k) * q_draft < p_draft          # u < p/q without dividing
    n_kept = k if keep.all() else int(np.argmin(keep))
    kept = drafts[:n_kept].tolist()
    if n_kept == k:
        return kept + [_pick(p_rows[k], rng.random())]
    fix = residual(p_rows[n_kept], q_rows[n_kept])
    return kept + [_pick(fix, rng.random())]


def _check(M, name):
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] != M.shape[1]:
        raise ValueError(f"{name} should be square, not {M.shape}")
    if not np.all(np.abs(M.sum(axis=1) - 1.0) < 1e-8):
        raise ValueError(f"the rows of {name} should sum to 1")
    return M


def speculative_generate(P, Q, start, n_tokens, k, rng):
    if k < 1:
        raise ValueError("k should be 1 or more")
    P, Q = _check(P, "P"), _check(Q, "Q")
    if P.shape != Q.shape:
        raise ValueError("P and Q should have the same shape")
    out = []
    passes = 0
    context = start
    while len(out) < n_tokens:
        step = verify(P, Q, context, draft_tokens(Q, context, k, rng), rng)
        out += step
        context = step[-1]
        passes += 1
    del out[n_tokens:]
    return out, passes


def target_generate(P, start, n_tokens, rng):
    P = _check(P, "P")
    out = []
    context = start
    for u in rng.random(n_tokens):
        context = _pick(P[context], u)
        out.append(context)
    return out, len(out)
