"""M07.1 categorical sampling: one uniform in, one token id out, by walking the cumulative distribution."""
from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike


@runtime_checkable
class UniformSource(Protocol):
    """Anything with uniform() -> float returning the next uniform in [0, 1), e.g. tinyllm.rand.pcg32.PCG32."""

    def uniform(self) -> float:
        """The next uniform in [0, 1)."""
        ...


def sample_categorical(p: ArrayLike, u: float) -> int:
    """The first id whose cumulative probability exceeds u: min{i : p[0] + ... + p[i] > u}.

    Accumulate the cumulative sums left to right in float64 (a plain loop over ascending ids). If rounding leaves
    u at or above the total, return the last id with non-zero probability. Return a Python int.
    Raise ValueError, saying what is wrong, when u is not in [0, 1) (NaN included) or p is not a distribution:
    not a non-empty 1-D vector, an entry negative or not finite, or a sum more than 1e-9 away from 1.
    Never modify p.
    """
    raise NotImplementedError
