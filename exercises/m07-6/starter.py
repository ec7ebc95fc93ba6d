"""M07.6 rejection sampling and residual distributions: the acceptance test of speculative decoding, exactly.

Read contract/rejection.pyi (every error rule) and spec/sampling.md (which uniforms each function consumes).
Sums are left-to-right float64 loops over ascending ids, never np.sum.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tinyllm.prob.sampling import UniformSource, sample_categorical


def rejection_accept(p_x: float, q_x: float, u: float) -> bool:
    """True when u < p_x / q_x, strictly.

    ValueError: p_x negative or not finite; q_x not finite or <= 0; u not in [0, 1).
    """
    raise NotImplementedError


def acceptance_probability(p: ArrayLike, q: ArrayLike) -> float:
    """alpha = sum of min(p_i, q_i), as a left-to-right float64 loop over ascending ids.

    ValueError: p or q not a distribution, or different shapes.
    """
    raise NotImplementedError


def residual_distribution(p: ArrayLike, q: ArrayLike) -> NDArray[np.float64]:
    """max(0, p - q) / Z with Z its left-to-right sum; when Z is exactly 0, a new array equal to p.

    ValueError: p or q not a distribution, or different shapes.
    """
    raise NotImplementedError


def speculative_step(p: ArrayLike, q: ArrayLike, x: int, u_accept: float,
                     u_resample: float) -> tuple[int, bool]:
    """(x, True) when rejection_accept(p[x], q[x], u_accept); otherwise
    (sample_categorical(residual_distribution(p, q), u_resample), False). u_resample is only looked at on a
    rejection.

    ValueError: p or q not a distribution, or different shapes; x not an id in [0, n); q[x] = 0; u_accept not in
    [0, 1).
    """
    raise NotImplementedError


def rejection_sample(p: ArrayLike, q: ArrayLike, m: float, rng: UniformSource,
                     max_tries: int = 10000) -> tuple[int, int]:
    """Von Neumann's sampler; returns (x, tries). Each try: x = sample_categorical(q, rng.uniform()), then accept
    when rng.uniform() < p[x] / (m * q[x]). Check every argument before the first draw.

    ValueError: p or q not a distribution, or different shapes; m < 1 or not finite; p[i] > m * q[i] for some i;
    max_tries < 1. RuntimeError: no acceptance within max_tries tries.
    """
    raise NotImplementedError
