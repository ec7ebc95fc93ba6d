"""Hidden tests of M07.1 (categorical sampling by the inverse CDF).

The sampler is pinned exactly: for a given p and u there is one right id, so nearly every test is a table of
(p, u) -> id. The one statistical test draws 20000 seeded uniforms from numpy's generator in one call (PCG32 in
pure Python would make the learner wait for the test's own generator); because the answer for each uniform is
pinned, every correct solution sees the same counts (chi-square 4.6 on 4 degrees of freedom, p-value 0.33, for
the seed used), and the threshold p = 1e-6 only has to reject wrong samplers: comparing u with p[i]
instead of the running sum, or shifting every id by one, gives statistics above 13000 (p-values that underflow
to 0).
"""
import math
import random

import numpy as np
import pytest

from checker.calls import calls
from checker.stats import chi_square_pvalue
from tinyllm.prob import sampling
from tinyllm.prob.sampling import sample_categorical
from tinyllm.rand.pcg32 import PCG32

LAST_UNIFORM = 1.0 - 2.0 ** -53  # the largest uniform PCG32 can return


def draw(p, u):
    got = sample_categorical(p, u)
    assert got is not None, f"sample_categorical({p}, {u!r}) returned None"
    return got


def below(x):
    """The float just below x."""
    return math.nextafter(x, -math.inf)


def left_to_right(p):
    total, out = 0.0, []
    for value in p:
        total += value
        out.append(total)
    return out


def test_walks_the_cdf():
    p = [0.5, 0.25, 0.25, 0.0]  # cumulative [0.5, 0.75, 1.0, 1.0]
    for u, want in [(0.0, 0), (0.25, 0), (below(0.5), 0), (0.6, 1), (below(0.75), 1), (0.8, 2), (LAST_UNIFORM, 2)]:
        got = draw(p, u)
        assert got == want, f"p = {p}, u = {u!r}: the CDF {left_to_right(p)} first exceeds u at id {want}, not {got}"
    for u in (0.0, 0.5, LAST_UNIFORM):
        assert draw([1.0], u) == 0, "a one-id distribution always gives id 0"


def test_boundaries_are_strict():
    p = [0.5, 0.25, 0.25, 0.0]
    for u, want in [(0.5, 1), (0.75, 2)]:
        got = draw(p, u)
        assert got == want, (f"p = {p}, u = {u}: u equals the cumulative sum of ids 0..{want - 1}, which does not "
                             f"exceed it, so the answer is id {want}, not {got}")
    p = [0.0, 0.5, 0.0, 0.5]
    got = draw(p, 0.0)
    assert got == 1, f"p = {p}, u = 0: id 0 has probability 0 and must never be drawn, got {got}"
    got = draw(p, 0.5)
    assert got == 3, f"p = {p}, u = 0.5: id 2 has probability 0 and must never be drawn, got {got}"


def test_cumulative_sum_is_left_to_right():
    rng = random.Random(20240607)
    weights = [rng.random() for _ in range(10)]
    scale = math.fsum(weights)  # correctly rounded: the same on every Python (sum() changed in 3.12)
    p = [w / scale for w in weights]
    cdf = left_to_right(p)
    # This p is chosen so that a correctly rounded (fsum) or renormalised cumulative sum differs from the
    # left-to-right one at some boundary: only the left-to-right loop passes every case below.
    assert cdf[-1] != 1.0 and any(c != math.fsum(p[: i + 1]) for i, c in enumerate(cdf)), "test data broken"
    for i, c in enumerate(cdf[:-1]):
        got = draw(p, c)
        assert got == i + 1, (f"u = {c!r} is exactly p[0] + ... + p[{i}] summed left to right in float64, so the "
                              f"answer is id {i + 1}, got {got}: is the cumulative sum a plain left-to-right loop?")
        got = draw(p, below(c))
        assert got == i, (f"u = {below(c)!r} is just below p[0] + ... + p[{i}] (left to right, float64), so the answer "
                          f"is id {i}, got {got}: is the cumulative sum a plain left-to-right loop?")
    # A float32 p is summed in float64 too. These entries are exact in float32 and sum to exactly 1 in float64,
    # but a float32 running sum rounds 0.75 + 2**-26 back to 0.75, so u = 0.75 would fall past id 1.
    p32 = np.array([0.75, 2.0 ** -26, 0.25 - 2.0 ** -26], dtype=np.float32)
    got = draw(p32, 0.75)
    assert got == 1, (f"p = np.array({p32.tolist()}, dtype=np.float32), u = 0.75: converted to float64 and summed left "
                      f"to right, the CDF is {left_to_right(p32.tolist())}, so the answer is id 1, got {got}: a float32 "
                      f"p must be summed in float64 too, not in float32")


def test_rounding_fallback():
    p = [0.1] * 10 + [0.0, 0.0]  # summed left to right the total is 1 - 2**-53, not 1
    assert left_to_right(p)[-1] == LAST_UNIFORM
    got = draw(p, LAST_UNIFORM)
    assert got == 9, (f"u = 1 - 2**-53 is not below the total {left_to_right(p)[-1]!r}: the answer is the last id "
                      f"with non-zero probability, 9, got {got}")
    got = draw(p, below(LAST_UNIFORM))
    assert got == 9, f"u just below the total is still id 9, got {got}"


def test_seeded_draws_match_p():
    p = [0.05, 0.2, 0.0, 0.35, 0.1, 0.3]
    counts = [0] * len(p)
    us = np.random.default_rng(7071).random(20000).tolist()
    for u, got in zip(us, calls(sample_categorical, [(p, u) for u in us])):  # 20000 draws, one crossing
        assert got is not None, f"sample_categorical({p}, {u!r}) returned None"
        counts[got] += 1
    assert counts[2] == 0, f"id 2 has probability 0 but was drawn {counts[2]} times"
    pvalue = chi_square_pvalue(counts, p)
    assert pvalue > 1e-6, (f"20000 seeded draws gave frequencies {[c / 20000 for c in counts]}, "
                           f"not p = {p} (chi-square p-value {pvalue:.1e})")


@pytest.mark.parametrize("u", [-0.5, -1e-300, 1.0, 1.5, math.nan, math.inf, -math.inf])
def test_rejects_bad_u(u):
    with pytest.raises(ValueError) as info:
        sample_categorical([0.5, 0.5], u)
    assert str(info.value), "the ValueError should say what is wrong"


@pytest.mark.parametrize("p", [
    [], [[0.5, 0.5]], np.array(1.0), [0.5, -0.1, 0.6], [math.nan, 1.0], [math.inf, 0.0], [0.5, 0.4],
    [0.5, 0.5 + 2e-9], [1.0 + 1e-8], [0.3, 0.3],
], ids=["empty", "2-D", "0-D", "negative", "nan", "inf", "sums-to-0.9", "sums-to-1+2e-9", "sums-to-1+1e-8",
        "sums-to-0.6"])
def test_rejects_bad_p(p):
    shown = f"np.array({p.tolist()!r}) (a 0-d array)" if isinstance(p, np.ndarray) else repr(p)
    with pytest.raises(ValueError) as info:
        got = sample_categorical(p, 0.5)
        raise AssertionError(f"sample_categorical({shown}, 0.5) should raise ValueError: p is not a distribution (a "
                             f"non-empty 1-D vector of finite entries >= 0 summing to 1 within 1e-9), it returned {got!r}")
    assert str(info.value), "the ValueError should say what is wrong"


def test_contract_types():
    p = np.array([0.25, 0.25, 0.5 + 5e-10])  # sums to 1 within 1e-9: a distribution
    before = p.copy()
    got = draw(p, 0.3)
    assert isinstance(got, int) and not isinstance(got, bool), (
        f"sample_categorical should return a Python int, got {type(got).__name__}")
    assert got == 1
    assert np.array_equal(p, before), "sample_categorical must not modify the caller's p"
    assert draw((0.5, 0.5), 0.5) == 1 and draw(np.array([0.5, 0.5], dtype=np.float32), 0.25) == 0, (
        "tuples and float32 arrays are array-likes too")
    assert isinstance(PCG32(1, 2), sampling.UniformSource), "PCG32 has uniform(), so it is a UniformSource"
    assert not isinstance(object(), sampling.UniformSource), "an object without uniform() is not a UniformSource"
