"""E7.6 with plain Python lists and loops: the models become lists of rows, tokens are drawn by walking the
cumulative sum, and verify compares u * q < p inline instead of calling acceptance."""
import math


def _rows(M):
    return [[float(x) for x in row] for row in M]


def _sample(weights, rng):
    u = rng.random() * sum(weights)
    acc = 0.0
    for i, w in enumerate(weights):
        acc += w
        if u < acc:
            return i
    return max(i for i, w in enumerate(weights) if w > 0)


def residual(p, q):
    p = [float(x) for x in p]
    gap = [max(0.0, a - float(b)) for a, b in zip(p, q)]
    s = sum(gap)
    if s == 0:
        return p
    return [g / s for g in gap]


def acceptance(p, q, token):
    ratio = float(p[token]) / float(q[token])
    return 1.0 if ratio > 1.0 else ratio


def draft_tokens(Q, last, k, rng):
    Q = _rows(Q)
    tokens = []
    prev = last
    while len(tokens) < k:
        nxt = _sample(Q[prev], rng)
        tokens.append(nxt)
        prev = nxt
    return tokens


def verify(P, Q, last, drafts, rng):
    P, Q = _rows(P), _rows(Q)
    out = []
    prev = last
    for d in drafts:
        if rng.random() * Q[prev][d] < P[prev][d]:
            out.append(d)
            prev = d
            continue
        out.append(_sample(residual(P[prev], Q[prev]), rng))
        return out
    out.append(_sample(P[prev], rng))
    return out


def _validate(M, name):
    rows = _rows(M)
    if any(len(r) != len(rows) for r in rows):
        raise ValueError(f"{name} must be square")
    for r in rows:
        if not math.isclose(sum(r), 1.0, abs_tol=1e-9):
            raise ValueError(f"a row of {name} sums to {sum(r)}, not 1")
    return rows


def speculative_generate(P, Q, start, n_tokens, k, rng):
    P, Q = _validate(P, "P"), _validate(Q, "Q")
    if len(P) != len(Q):
        raise ValueError("P and Q must have the same vocabulary")
    if k < 1:
        raise ValueError("k must be at least 1")
    tokens = []
    passes = 0
    while len(tokens) < n_tokens:
        last = tokens[-1] if tokens else start
        emitted = verify(P, Q, last, draft_tokens(Q, last, k, rng), rng)
        passes += 1
        for t in emitted:
            if len(tokens) == n_tokens:
                break
            tokens.append(t)
    return tokens, passes


def target_generate(P, start, n_tokens, rng):
    P = _validate(P, "P")
    tokens = []
    for _ in range(n_tokens):
        tokens.append(_sample(P[tokens[-1] if tokens else start], rng))
    return tokens, n_tokens
