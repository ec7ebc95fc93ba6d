"""M06.3 PCG32: O'Neill's pcg32 generator (XSH RR 64/32) and 53-bit uniforms built from it.

Every random choice of the course flows from this one generator, so its outputs are pinned bit for bit: the same
seed and stream give the same numbers here, in the browser and in the Rust port. Python integers are unbounded,
so every 64-bit and 32-bit operation is masked explicitly.
"""
from __future__ import annotations

import operator

MULTIPLIER = 6364136223846793005  # the 64-bit LCG multiplier of the PCG paper and pcg_basic.c
MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
DEFAULT_STREAM = 54  # the stream of the pcg32 demo program (initseq 54)


class PCG32:
    """A pcg32 generator: 64-bit LCG state, 32-bit outputs by xorshift-high then random rotation."""

    def __init__(self, seed: int, stream: int = DEFAULT_STREAM) -> None:
        """Seed like pcg32_srandom_r(initstate=seed, initseq=stream).

        seed must be an integer in [0, 2**64) and stream one in [0, 2**63) (the increment is 2 * stream + 1, so
        a 64th bit of stream would be lost). Anything else raises TypeError (not an integer) or ValueError.
        """
        seed, stream = operator.index(seed), operator.index(stream)
        if not 0 <= seed <= MASK64:
            raise ValueError(f"seed must be in [0, 2**64), got {seed}")
        if not 0 <= stream < 1 << 63:
            raise ValueError(f"stream must be in [0, 2**63), got {stream}")
        self._inc = (stream << 1) | 1  # odd, so the LCG has full period 2**64
        self._state = 0
        self._step()
        self._state = (self._state + seed) & MASK64
        self._step()

    def _step(self) -> None:
        self._state = (self._state * MULTIPLIER + self._inc) & MASK64

    def next_u32(self) -> int:
        """The next 32-bit output, an int in [0, 2**32). The output is computed from the state before the step."""
        old = self._state
        self._state = (old * MULTIPLIER + self._inc) & MASK64
        xorshifted = (((old >> 18) ^ old) >> 27) & MASK32
        rot = old >> 59
        return ((xorshifted >> rot) | (xorshifted << ((-rot) & 31))) & MASK32

    def uniform(self) -> float:
        """The next uniform in [0, 1): a multiple of 2**-53 built from two outputs, a first, b second.

        The top 27 bits of a and the top 26 bits of b form a 53-bit integer (a >> 5) * 2**26 + (b >> 6), which is
        exact in a float64; dividing by 2**53 is exact too.
        """
        a = self.next_u32() >> 5
        b = self.next_u32() >> 6
        return (a * 67108864 + b) / 9007199254740992.0
