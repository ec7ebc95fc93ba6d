"""Hidden tests of E7.4. Each assertion message is what the learner reads.

The simulation is judged by its statistics and by reproducibility (same seed, same counts), never by the order in
which it draws from its generator: one uniform per drafted position, a geometric draw or an inverse CDF all pass.
Thresholds: the mean must lie within Z_MAX = 5 standard errors of E[N] (a correct simulation misses about once in
1.7 million seeds) and the histogram must pass a chi-square test at p > 1e-6. The values each seed gives the
reference, and what the mistakes the tests exist for give, are written next to each test.
"""
import math
from fractions import Fraction

import numpy as np
import pytest

import tinyllm.lessons.tokens_per_step as sol
from checker.stats import chi_square_pvalue

Z_MAX = 5.0
ALPHA = 1e-6


def exact_sum(a, k):
    """1 + a + ... + a^k in exact rational arithmetic, rounded once: the yardstick near a = 1."""
    x = Fraction(a)
    return float(sum(x ** i for i in range(k + 1)))


def law(a, k):
    """The test's own P(N = n), n = 1 .. k + 1."""
    probs = [a ** (n - 1) * (1 - a) for n in range(1, k + 1)] + [a ** k]
    return np.array(probs)


def number(value, what):
    assert value is not None, f"{what} returned None"
    got = float(value)
    assert math.isfinite(got), f"{what} returned {got}, not a finite number"
    return got


def vector(value, n, what):
    assert value is not None, f"{what} returned None"
    arr = np.asarray(value, dtype=float)
    assert arr.shape == (n,), (f"{what} should return {n} probabilities, one for each n = 1 .. {n}; "
                               f"got shape {arr.shape}")
    assert np.all(np.isfinite(arr)), f"{what} returned a NaN or infinity: {arr.tolist()}"
    return arr


def counts(value, steps, what):
    assert value is not None, f"{what} returned None"
    arr = np.asarray(value)
    assert arr.shape == (steps,), f"{what} should return one count per step, {steps} in all; got shape {arr.shape}"
    assert np.issubdtype(arr.dtype, np.integer), f"{what} should return whole numbers (an integer array), got {arr.dtype}"
    return arr.astype(np.int64)


def test_expected_tokens_worked_examples():
    for a, k, want in [(0.8, 4, 3.3616), (0.5, 3, 1.875), (0.8, 8, 4.32891136), (0.3, 1, 1.3)]:
        got = number(sol.expected_tokens(a, k), f"expected_tokens({a}, {k})")
        assert math.isclose(got, want, rel_tol=1e-9), f"expected_tokens({a}, {k}) should be {want}, got {got}"


def test_expected_tokens_at_a_equal_one():
    for k in [0, 1, 4, 10]:
        got = number(sol.expected_tokens(1.0, k), f"expected_tokens(1.0, {k})")
        assert math.isclose(got, k + 1, rel_tol=1e-12), (
            f"expected_tokens(1.0, {k}): every draft is accepted and the target adds one more, so it is {k + 1}; "
            f"got {got}")


def test_expected_tokens_near_one():
    # Closed forms guarded only at a == 1 are within 1e-8 of the sum here; rounding a up to 1 is not.
    for a in [1 - 1e-4, 1 - 1e-8, 1 - 1e-12]:
        for k in [1, 4, 16]:
            want = exact_sum(a, k)
            got = number(sol.expected_tokens(a, k), f"expected_tokens({a!r}, {k})")
            assert math.isclose(got, want, rel_tol=1e-6), (
                f"expected_tokens({a!r}, {k}) should be 1 + a + ... + a^{k} = {want!r}, got {got!r}")


def test_expected_tokens_without_drafts_or_acceptance():
    for a, k, what in [(0.0, 4, "a = 0"), (0.0, 1, "a = 0"), (0.6, 0, "k = 0"), (1.0, 0, "k = 0")]:
        got = number(sol.expected_tokens(a, k), f"expected_tokens({a}, {k})")
        assert math.isclose(got, 1.0, rel_tol=1e-12), (
            f"expected_tokens({a}, {k}) ({what}): no draft survives, but the pass still yields the target's own "
            f"token, so it is 1; got {got}")


def test_expected_tokens_each_draft_adds_a_power():
    for a in [0.25, 0.7, 0.9]:
        for k in [0, 2, 5]:
            now = number(sol.expected_tokens(a, k), f"expected_tokens({a}, {k})")
            more = number(sol.expected_tokens(a, k + 1), f"expected_tokens({a}, {k + 1})")
            assert math.isclose(more - now, a ** (k + 1), rel_tol=1e-9, abs_tol=1e-12), (
                f"a draft more should add a^(k+1) = {a ** (k + 1):.6g} (that draft survives only if all before "
                f"it do); from k = {k} to {k + 1} at a = {a} it adds {more - now:.6g}")
            assert now < 1 / (1 - a), f"expected_tokens({a}, {k}) = {now} should stay below 1 / (1 - a)"


def test_length_distribution_worked_example():
    got = vector(sol.length_distribution(0.8, 4), 5, "length_distribution(0.8, 4)")
    want = [0.2, 0.16, 0.128, 0.1024, 0.4096]
    assert np.allclose(got, want, rtol=0, atol=1e-12), (
        f"length_distribution(0.8, 4) should be {want} (index n - 1 holds P(N = n)), got {got.tolist()}")


def test_length_distribution_sums_to_one():
    for a, k in [(0.8, 4), (0.5, 3), (0.95, 8), (0.3, 1), (0.6, 12)]:
        got = vector(sol.length_distribution(a, k), k + 1, f"length_distribution({a}, {k})")
        assert np.all(got >= 0), f"length_distribution({a}, {k}) has a negative entry: {got.tolist()}"
        assert math.isclose(got.sum(), 1.0, rel_tol=1e-9), (
            f"length_distribution({a}, {k}) sums to {got.sum():.6g}, not 1: every pass yields between 1 and "
            f"{k + 1} tokens")


def test_length_distribution_mean_is_expected_tokens():
    for a, k in [(0.8, 4), (0.5, 3), (0.95, 8), (0.3, 1)]:
        got = vector(sol.length_distribution(a, k), k + 1, f"length_distribution({a}, {k})")
        mean = float(np.dot(np.arange(1, k + 2), got))
        want = exact_sum(a, k)
        assert math.isclose(mean, want, rel_tol=1e-9), (
            f"the mean of length_distribution({a}, {k}), sum of n P(N = n), should be E[N] = {want:.6g}, "
            f"got {mean:.6g}")


def test_length_distribution_edges():
    for a, k, want, what in [(0.0, 3, [1, 0, 0, 0], "a = 0: the first draft is always rejected"),
                             (1.0, 3, [0, 0, 0, 1], "a = 1: every draft is accepted"),
                             (0.7, 0, [1], "k = 0: nothing is drafted")]:
        got = vector(sol.length_distribution(a, k), k + 1, f"length_distribution({a}, {k})")
        assert np.allclose(got, want, rtol=0, atol=1e-12), (
            f"length_distribution({a}, {k}) ({what}) should be {want}, got {got.tolist()}")


def test_simulate_values_in_range():
    for a, k in [(0.8, 4), (0.5, 0), (0.0, 3), (1.0, 3)]:
        got = counts(sol.simulate_tokens(a, k, 500, 7), 500, f"simulate_tokens({a}, {k}, 500, 7)")
        low, high = int(got.min()), int(got.max())
        assert 1 <= low and high <= k + 1, (
            f"simulate_tokens({a}, {k}, ...): a pass yields between 1 and k + 1 = {k + 1} tokens, "
            f"got values from {low} to {high}")
        if a in (0.0, 1.0):
            want, what = (1, "1 token, the target's own") if a == 0.0 else (k + 1, f"{k + 1} tokens")
            assert low == high == want, (
                f"simulate_tokens({a}, {k}, ...): with a = {a} every pass yields exactly {what}; "
                f"got values from {low} to {high}")


def test_simulate_mean_matches_expected_tokens():
    # Reference z for these seeds: +2.06, +0.71, -0.50. Leaving out the target's own token gives z = -58 on the
    # first case; not stopping at the first rejection, z = +39; accepting with probability 1 - a passes the first
    # case (a = 0.5 cannot tell a from 1 - a: z = -0.62) and gives z = -83 on the second.
    steps = 4000
    for a, k, seed in [(0.5, 3, 11), (0.8, 4, 12), (0.95, 8, 13)]:
        got = counts(sol.simulate_tokens(a, k, steps, seed), steps, f"simulate_tokens({a}, {k}, {steps}, {seed})")
        probs = law(a, k)
        n = np.arange(1, k + 2)
        mean = float(np.dot(n, probs))
        sd = math.sqrt(float(np.dot(n ** 2, probs)) - mean ** 2)
        z = (got.mean() - mean) / (sd / math.sqrt(steps))
        assert abs(z) < Z_MAX, (
            f"simulate_tokens({a}, {k}, {steps}, {seed}) averages {got.mean():.4f} tokens per pass, but E[N] is "
            f"{mean:.4f} ({z:+.1f} standard errors away)")


def test_simulate_matches_length_distribution():
    # Reference p-values for these seeds: 0.041, 0.81, 0.21. Not stopping at the first rejection gives a binomial
    # count instead (p-value below 1e-300 on the first case); accepting with probability 1 - a passes the first
    # case (p-value 0.044) and fails the second below 1e-300.
    steps = 4000
    for a, k, seed in [(0.5, 3, 21), (0.8, 4, 22), (0.95, 8, 23)]:
        got = counts(sol.simulate_tokens(a, k, steps, seed), steps, f"simulate_tokens({a}, {k}, {steps}, {seed})")
        assert 1 <= got.min() and got.max() <= k + 1, f"simulate_tokens({a}, {k}, ...) gave a count outside 1 .. {k + 1}"
        seen = np.bincount(got - 1, minlength=k + 1)
        probs = law(a, k)
        pvalue = chi_square_pvalue(seen, probs)
        assert pvalue > ALPHA, (
            f"simulate_tokens({a}, {k}, {steps}, {seed}): the share of passes yielding n = 1 .. {k + 1} tokens is "
            f"{np.round(seen / steps, 3).tolist()}, expected {np.round(probs, 3).tolist()} "
            f"(chi-square p-value {pvalue:.1e})")


def test_simulate_is_reproducible():
    # 300 passes: two correct runs with different seeds agree everywhere with probability far below 1e-50.
    first = counts(sol.simulate_tokens(0.8, 4, 300, 1234), 300, "simulate_tokens(0.8, 4, 300, 1234)")
    for _ in range(2):
        again = counts(sol.simulate_tokens(0.8, 4, 300, 1234), 300, "simulate_tokens(0.8, 4, 300, 1234)")
        assert np.array_equal(first, again), "the same seed must give the same counts"
    others = [counts(sol.simulate_tokens(0.8, 4, 300, s), 300, "simulate_tokens") for s in (1, 2)]
    assert any(not np.array_equal(first, o) for o in others), "different seeds should give different runs"


def test_rejects_bad_arguments():
    for a, k, what in [(-0.1, 4, "a below 0"), (1.5, 4, "a above 1"), (0.8, -1, "k negative"),
                       (0.8, 2.5, "k not a whole number")]:
        for name, extra in [("expected_tokens", ()), ("length_distribution", ()), ("simulate_tokens", (10, 0))]:
            call = f"{name}({', '.join(repr(v) for v in (a, k, *extra))})"
            with pytest.raises(ValueError) as info:
                got = getattr(sol, name)(a, k, *extra)
                raise AssertionError(f"{call} ({what}) should raise ValueError, but it returned {str(got)[:60]}")
            assert str(info.value), f"the ValueError of {name} for {what} should say what is wrong"
