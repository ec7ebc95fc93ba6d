"""PCG32 (M06.3) as small pure functions over Python integers; the class only holds the state and the increment.

Written from the page: one LCG step, the XSH RR output of an old state, a 32-bit right rotation, and the
argument checks, each a function of its own.
"""
from __future__ import annotations

import operator

_MULT = 6364136223846793005
_M64 = 0xFFFF_FFFF_FFFF_FFFF
_M32 = 0xFFFF_FFFF


def _advance(state: int, inc: int) -> int:
    """One LCG step: state * MULT + inc, modulo 2**64."""
    return (state * _MULT + inc) & _M64


def _rotr32(value: int, amount: int) -> int:
    """A 32-bit value rotated right by amount (0 to 31)."""
    return ((value >> amount) | (value << (32 - amount))) & _M32


def _output(old: int) -> int:
    """XSH RR: xorshift the high bits down to 32, then rotate right by the state's top five bits."""
    xorshifted = ((old ^ (old >> 18)) >> 27) & _M32
    return _rotr32(xorshifted, old >> 59)


def _checked(value, name: str, bound: int) -> int:
    """value as an int in [0, bound): TypeError when it is not an integer, ValueError when out of range."""
    value = operator.index(value)
    if value < 0 or value >= bound:
        raise ValueError(f"{name} must be in [0, {bound}), got {value}")
    return value


class PCG32:
    def __init__(self, seed, stream=54):
        stream = _checked(stream, "stream", 2**63)
        seed = _checked(seed, "seed", 2**64)
        self.inc = 2 * stream + 1
        self.state = _advance(_advance(0, self.inc) + seed, self.inc)

    def next_u32(self) -> int:
        old = self.state
        self.state = _advance(old, self.inc)
        return _output(old)

    def uniform(self) -> float:
        high = self.next_u32() >> 5
        low = self.next_u32() >> 6
        return ((high << 26) | low) * 2.0**-53
