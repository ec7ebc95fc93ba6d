"""PCG32 (M06.3) with everything inline: modular arithmetic with %, the output computed before the step."""
import math
import numbers


class PCG32:
    def __init__(self, seed, stream=54):
        if not isinstance(seed, numbers.Integral) or not isinstance(stream, numbers.Integral):
            raise TypeError(f"seed and stream must be integers, got {seed!r} and {stream!r}")
        seed, stream = int(seed), int(stream)
        if not 0 <= seed < 2**64:
            raise ValueError(f"seed {seed} is outside [0, 2**64)")
        if not 0 <= stream < 2**63:
            raise ValueError(f"stream {stream} is outside [0, 2**63)")
        self.increment = stream * 2 + 1
        s = self.increment % 2**64  # the first step, from state 0: 0 * multiplier + increment
        s = (s + seed) % 2**64
        self.s = (s * 6364136223846793005 + self.increment) % 2**64

    def next_u32(self):
        old = self.s
        x = ((old >> 18) ^ old) >> 27
        x %= 2**32
        r = old >> 59
        out = ((x >> r) | (x << ((32 - r) % 32))) % 2**32
        self.s = (old * 6364136223846793005 + self.increment) % 2**64
        return out

    def uniform(self):
        first = self.next_u32()
        second = self.next_u32()
        return math.ldexp((first >> 5) * 2**26 + (second >> 6), -53)
