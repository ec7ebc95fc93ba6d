"""M06.3 PCG32: O'Neill's pcg32 generator (XSH RR 64/32) and 53-bit uniforms built from it.

Python integers never overflow: mask every 64-bit result with & (2**64 - 1) and every 32-bit one with
& (2**32 - 1).
"""
from __future__ import annotations

MULTIPLIER = 6364136223846793005
MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
DEFAULT_STREAM = 54  # the stream of the pcg32 demo program (initseq 54)


class PCG32:
    """A pcg32 generator: 64-bit LCG state, 32-bit outputs by xorshift-high then random rotation."""

    def __init__(self, seed: int, stream: int = DEFAULT_STREAM) -> None:
        """Seed like pcg32_srandom_r(initstate=seed, initseq=stream).

        increment = 2 * stream + 1; state = 0; step; state += seed; step.
        seed must be an integer in [0, 2**64) and stream one in [0, 2**63): TypeError for a non-integer
        (use operator.index), ValueError for a value out of range.
        """
        raise NotImplementedError

    def next_u32(self) -> int:
        """The next 32-bit output in [0, 2**32), computed from the state *before* the LCG step:

        xorshifted = ((old >> 18) ^ old) >> 27, truncated to 32 bits; rot = old >> 59;
        output = xorshifted rotated right by rot.
        """
        raise NotImplementedError

    def uniform(self) -> float:
        """The next uniform in [0, 1), a multiple of 2**-53: with a = next_u32() then b = next_u32(),
        ((a >> 5) * 2**26 + (b >> 6)) / 2**53."""
        raise NotImplementedError
