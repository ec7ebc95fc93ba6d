"""Typed contract of tinyllm.prob.rejection (module M07.6). Draw accounting: spec/sampling.md.

Shared rules
------------
A *distribution* is a non-empty 1-D float64 vector (any array-like is converted with dtype float64) whose entries
are finite and >= 0 and whose left-to-right float64 sum is within 1e-9 of 1. Every function taking p and q
raises ValueError, with a message saying what is wrong, when either is not a distribution or when their shapes
differ. Every sum (alpha, the residual's normaliser Z) is a plain left-to-right float64 loop over ascending ids:
not np.sum (pairwise), not math.fsum, not the built-in sum() (compensated since Python 3.12).
"""
from numpy.typing import ArrayLike, NDArray
import numpy as np

from tinyllm.prob.sampling import UniformSource

def rejection_accept(p_x: float, q_x: float, u: float) -> bool:
    """Keep a draft x ~ q: True exactly when u < p_x / q_x (strict), i.e. with probability min(1, p_x / q_x).

    Raises ValueError when:
    - p_x is negative, NaN or infinite;
    - q_x is zero, negative, NaN or infinite (a draft with q_x = 0 cannot have been proposed);
    - u is not in [0, 1) (NaN included).
    """

def acceptance_probability(p: ArrayLike, q: ArrayLike) -> float:
    """alpha = min(p_0, q_0) + min(p_1, q_1) + ..., summed left to right in float64; equals 1 - TV(p, q).

    Raises ValueError when p or q is not a distribution, or their shapes differ.
    """

def residual_distribution(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """res_i = max(0, p_i - q_i) / Z with Z = sum_i max(0, p_i - q_i), summed left to right in float64.

    When Z is exactly 0 (no id has p_i > q_i, that is p == q), returns a new float64 array equal to p: never
    the caller's own object, so editing the result never changes p.
    Raises ValueError when p or q is not a distribution, or their shapes differ.
    """

def speculative_step(p: ArrayLike, q: ArrayLike, x: int, u_accept: float,
                     u_resample: float) -> tuple[int, bool]:
    """Verify one draft token x ~ q against the target p; returns (token, accepted).

    If rejection_accept(p[x], q[x], u_accept): returns (x, True) and u_resample is not looked at at all (it may
    be any object). Otherwise returns (sample_categorical(residual_distribution(p, q), u_resample), False).
    The output token is distributed exactly as p for every q.

    Raises ValueError when:
    - p or q is not a distribution, or their shapes differ;
    - x is not an id of the vocabulary, 0 <= x < n (negative ids do not wrap around);
    - q[x] = 0 (the draft could not have proposed x);
    - u_accept is not in [0, 1);
    - on a rejection only: u_resample is not in [0, 1) (raised by sample_categorical).
    """

def rejection_sample(p: ArrayLike, q: ArrayLike, m: float, rng: UniformSource,
                     max_tries: int = 10000) -> tuple[int, int]:
    """Von Neumann's rejection sampler; returns (x, tries) with x ~ p and tries >= 1 the number of tries used.

    Each try draws exactly two uniforms from rng.uniform(): first u1, proposing x = sample_categorical(q, u1);
    then u2, accepting when u2 < p[x] / (m * q[x]) (the product m * q[x] computed first). Tries are geometric
    with mean m.

    Raises ValueError, before drawing any uniform, when:
    - p or q is not a distribution, or their shapes differ;
    - m < 1, or m is NaN or infinite;
    - m is not an envelope: p[i] > m * q[i] for some id i (including ids with q[i] = 0 < p[i]);
    - max_tries < 1.
    Raises RuntimeError when none of max_tries tries is accepted (after exactly 2 * max_tries draws).
    """
