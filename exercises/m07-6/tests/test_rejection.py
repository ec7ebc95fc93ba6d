"""Hidden tests of M07.6 (rejection sampling and residual distributions).

"Enumerated" tests are exact. They feed scripted uniforms on grids chosen so that every case carries an exact
weight, and add the weights up as Fractions:
- the acceptance uniform u runs over the left ends k/G of G equal cells, with G a common denominator of every
  acceptance ratio below 1; then #{k : k/G < r} = r G exactly, so the grid accepts with probability min(1, r),
  as a continuous uniform would (and u = r itself, which a `<=` would accept, is on the grid);
- a uniform that selects an id from a CDF (u' for the residual, the proposal's u for q) runs over the midpoints
  (j + 1/2)/G' of G' cells, with G' a common denominator of the CDF's boundaries (for u', of the CDFs of p and q
  too, so that resampling from the wrong distribution cannot hide): no midpoint is within float rounding of a
  boundary, and each id gets exactly its probability.
With p and q in eighths, every ratio and boundary is a small fraction, and k/G, (j + 1/2)/G' and p_x/q_x are
correctly rounded floats of those fractions, so equal fractions compare equal as floats.

The two seeded tests draw their uniforms from numpy's seeded generator, in blocks, rather than from M06.3's PCG32
in pure Python: the draws are just as fixed (multiples of 2^-53 in [0, 1), like PCG32's), and the learner's wait
goes to their own code, not to the tests' generator (in the browser PCG32 took 0.3 s of this suite's 1 s). The
contract pins every draw, so every correct solution sees the very same counts; their thresholds are justified
next to them.
"""
import math
import random
from fractions import Fraction
from math import lcm

import numpy as np
import pytest

from checker.calls import calls
from checker.stats import chi_square_pvalue
from tinyllm.prob import rejection as sol

P_HAND = [0.5, 0.25, 0.25, 0.0]  # section 3: the target
Q_HAND = [0.25, 0.5, 0.0, 0.25]  # section 3: the draft
LAST_UNIFORM = 1.0 - 2.0 ** -53  # the largest uniform PCG32 returns


class Script:
    """A UniformSource that returns the given uniforms in order and counts how many were drawn."""

    def __init__(self, values, repeat=False):
        self.values, self.repeat, self.drawn = list(values), repeat, 0

    def uniform(self):
        if self.drawn >= len(self.values) and not self.repeat:
            raise AssertionError(f"drew uniform number {self.drawn + 1}, but this case provides only "
                                 f"{len(self.values)}: each try draws exactly two uniforms")
        value = self.values[self.drawn % len(self.values)]
        self.drawn += 1
        return value


class Untouchable:
    """A u_resample that fails the test the moment it is used in any way."""

    def _touched(self, *args, **kwargs):
        raise AssertionError("u_resample was looked at although the draft was kept")

    __float__ = __int__ = __index__ = __bool__ = __array__ = _touched
    __lt__ = __le__ = __gt__ = __ge__ = __eq__ = __ne__ = _touched
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _touched
    __hash__ = None

    def __repr__(self):
        return "<untouchable u_resample>"


def exact(values):
    return [Fraction(v) for v in values]


def denominator(fractions):
    """Least common denominator of the given Fractions."""
    return lcm(1, *(f.denominator for f in fractions))


def left_ends(den):
    return [(k / den, Fraction(1, den)) for k in range(den)]


def midpoints(den):
    return [((2 * j + 1) / (2 * den), Fraction(1, den)) for j in range(den)]


def cdf(fractions):
    out, total = [], Fraction(0)
    for f in fractions:
        total += f
        out.append(total)
    return out


def exact_residual(p, q):
    gaps = [max(Fraction(0), a - b) for a, b in zip(exact(p), exact(q))]
    z = sum(gaps)
    return [g / z for g in gaps] if z else exact(p)


def step(p, q, x, u, u_resample):
    return checked_step(sol.speculative_step(p, q, x, u, u_resample))


def checked_step(got):
    assert isinstance(got, tuple) and len(got) == 2, f"speculative_step should return (token, accepted), got {got!r}"
    token, accepted = got
    assert isinstance(token, (int, np.integer)) and not isinstance(token, bool), (
        f"the token should be an int, got {token!r}")
    assert accepted in (True, False), f"accepted should be a bool, got {accepted!r}"
    return int(token), bool(accepted)


def speculative_law(p, q, wide=True):
    """Exact law of speculative_step over x ~ q, u on a left-end grid, u' on a midpoint grid.

    Returns (P(output = t) for every t, P(accepted)) as Fractions. With wide=False the u' grid resolves only the
    residual's CDF: enough for the acceptance rate, which does not depend on u'.
    """
    fp, fq = exact(p), exact(q)
    ratios = [a / b for a, b in zip(fp, fq) if b > 0 and a < b]
    us = left_ends(denominator(ratios))
    # u' resolves the CDFs of p and q as well as the residual's, so that resampling from the wrong one shows.
    resamples = midpoints(denominator(cdf(exact_residual(p, q)) + (cdf(fp) + cdf(fq) if wide else [])))
    law, accepted = [Fraction(0)] * len(p), Fraction(0)
    cases = [(x, weight * wu * wu2, (p, q, x, u, u2)) for x, weight in enumerate(fq) if weight != 0
             for u, wu in us for u2, wu2 in resamples]
    # every step of the enumeration in one call of checker.calls (one crossing on the separated path)
    for (x, w, _), got in zip(cases, calls(sol.speculative_step, [args for _, _, args in cases])):
        token, kept = checked_step(got)
        law[token] += w
        if kept:
            accepted += w
            assert token == x, f"speculative_step reported accepted = True but returned {token}, not x = {x}"
    return law, accepted


def eighths(rng, n):
    counts = [0] * n
    for _ in range(8):
        counts[rng.randrange(n)] += 1
    return [c / 8 for c in counts]


def random_pairs(seed, count, n):
    rng = random.Random(seed)
    return [(eighths(rng, n), eighths(rng, n)) for _ in range(count)]


def random_distribution(rng, n, zeros=0):
    weights = [rng.random() for _ in range(n)]
    for i in rng.sample(range(n), zeros):
        weights[i] = 0.0
    total = math.fsum(weights)  # correctly rounded: the same on every Python (sum() changed in 3.12)
    return [w / total for w in weights]


def fmt(values):
    return "[" + ", ".join(str(v) for v in values) + "]"


def test_hand_example():
    expected = [(0, True, "r = 2"), (1, False, "r = 1/2"), (3, False, "r = 0")]
    for x, keeps_at_075, what in expected:
        got = sol.rejection_accept(P_HAND[x], Q_HAND[x], 0.75)
        assert bool(got) is keeps_at_075, f"id {x} ({what}) with u = 0.75: expected {keeps_at_075}, got {got}"
    assert sol.rejection_accept(0.25, 0.5, 0.25), "id 1 (r = 1/2) is kept with u = 0.25"
    alpha = sol.acceptance_probability(P_HAND, Q_HAND)
    assert alpha == 0.5, f"alpha = min(1/2, 1/4) + min(1/4, 1/2) + 0 + 0 = 1/2, got {alpha!r}"
    res = np.asarray(sol.residual_distribution(P_HAND, Q_HAND), dtype=float)
    assert res.tolist() == [0.5, 0.0, 0.5, 0.0], f"the residual of section 3 is [1/2, 0, 1/2, 0], got {res.tolist()}"
    got = step(P_HAND, Q_HAND, 1, 0.75, 0.75)
    assert got == (2, False), ("section 3's draw: x = 1, u = 0.75 >= 1/2 rejects it, and u' = 0.75 walks the "
                               f"residual's CDF [0.5, 0.5, 1, 1] to id 2; expected (2, False), got {got}")
    got = step(P_HAND, Q_HAND, 1, 0.75, 0.25)
    assert got == (0, False), f"x = 1 rejected, u' = 0.25 falls in the residual's first step: (0, False), got {got}"


def test_hand_example_output_is_p():
    law, accepted = speculative_law(P_HAND, Q_HAND)
    want = exact(P_HAND)
    assert law == want, (f"enumerated exactly, section 3's output distribution should be p = {fmt(want)}, "
                         f"got {fmt(law)}")
    assert accepted == Fraction(1, 2), f"the draft is kept with probability alpha = 1/2, got {accepted}"


def test_accept_is_strict():
    assert not sol.rejection_accept(0.25, 0.5, 0.5), "u = r = 1/2 must reject: accept only when u < r"
    assert sol.rejection_accept(0.25, 0.5, math.nextafter(0.5, 0.0)), "u just below r = 1/2 must accept"
    assert not sol.rejection_accept(0.0, 0.25, 0.0), "p_x = 0 must never be accepted, not even with u = 0"
    assert not sol.rejection_accept(0.0, 1.0, 0.0), "p_x = 0 must never be accepted, not even with u = 0"
    got = step([0.0, 1.0], [0.5, 0.5], 0, 0.0, 0.0)
    assert got == (1, False), f"a draft the target gives p = 0 is rejected even at u = 0; expected (1, False), got {got}"
    # Non-dyadic ratios: u is compared with the float64 quotient p_x / q_x itself. 0.45 / 0.6 is exactly 0.75 in
    # float64, but 0.75 * 0.6 rounds below 0.45 (so u * q_x < p_x accepts at u = r); just below 0.3 / 0.7, the
    # product u * 0.7 rounds up to 0.3 (so u * q_x < p_x rejects there).
    assert not sol.rejection_accept(0.45, 0.6, 0.75), (
        "p_x = 0.45, q_x = 0.6: r = p_x / q_x is exactly 0.75 in float64, so u = 0.75 = r must reject: compare u "
        "with the quotient p_x / q_x (u * q_x < p_x rounds differently)")
    r = 0.3 / 0.7
    u = math.nextafter(r, 0.0)
    assert sol.rejection_accept(0.3, 0.7, u), (
        f"p_x = 0.3, q_x = 0.7: u = {u!r} is just below r = p_x / q_x = {r!r}, so it must accept: compare u with the "
        "quotient p_x / q_x (u * q_x < p_x rounds differently)")


def test_accept_always_when_target_dominates():
    for p_x, q_x in [(0.5, 0.25), (0.25, 0.25), (0.1, 0.1), (0.3, 0.1), (1.0, 1e-300)]:
        for u in (0.0, 0.5, 0.75, 0.9, LAST_UNIFORM):
            assert sol.rejection_accept(p_x, q_x, u), (
                f"p_x = {p_x}, q_x = {q_x}: r = {p_x / q_x:g} >= 1, so every u < 1 accepts, but u = {u!r} rejected")
    got = step(P_HAND, Q_HAND, 0, LAST_UNIFORM, 0.5)
    assert got == (0, True), f"id 0 of section 3 has r = 2 and is always kept; got {got}"


def test_accept_rejects_bad_arguments():
    cases = [(0.25, 0.0, 0.5, "q_x = 0"), (0.25, -0.5, 0.5, "q_x < 0"), (0.25, math.nan, 0.5, "q_x = NaN"),
             (0.25, 0.5, 1.0, "u = 1"), (0.25, 0.5, -1e-300, "u < 0"), (0.25, 0.5, math.nan, "u = NaN"),
             (0.25, 0.5, 1.5, "u > 1"), (-0.25, 0.5, 0.5, "p_x < 0"), (-0.25, 0.5, 0.9, "p_x < 0"),
             (math.nan, 0.5, 0.5, "p_x = NaN"), (math.inf, 0.5, 0.5, "p_x infinite"),
             (0.25, math.inf, 0.5, "q_x infinite"), (0.5, 0.25, 1.0, "u = 1 with r = 2"),
             (0.5, 0.25, math.nan, "u = NaN with r = 2"), (0.0, 0.5, -0.5, "u < 0 with p_x = 0")]
    for p_x, q_x, u, what in cases:
        with pytest.raises(ValueError) as info:
            got = sol.rejection_accept(p_x, q_x, u)
            raise AssertionError(f"rejection_accept({p_x!r}, {q_x!r}, {u!r}) ({what}) should raise ValueError, "
                                 f"but it returned {got!r}")
        assert str(info.value), f"the ValueError for {what} should say what is wrong"


def test_acceptance_rate_matches_acceptance_probability():
    pairs = [(P_HAND, Q_HAND)] + random_pairs(7, 8, 5)
    for p, q in pairs:
        _, accepted = speculative_law(p, q, wide=False)
        want = sum(min(a, b) for a, b in zip(exact(p), exact(q)))
        assert accepted == want, (f"p = {p}, q = {q}: the enumerated acceptance rate is {accepted}, but it must be "
                                  f"sum(min(p, q)) = {want}")
        alpha = sol.acceptance_probability(p, q)
        assert alpha == float(want), f"p = {p}, q = {q}: acceptance_probability should be {float(want)}, got {alpha!r}"


def test_residual_is_a_distribution():
    rng = random.Random(11)
    for trial in range(40):
        n = rng.randrange(2, 9)
        p = random_distribution(rng, n, zeros=rng.randrange(n))
        q = random_distribution(rng, n, zeros=rng.randrange(n))
        res = np.asarray(sol.residual_distribution(p, q), dtype=float)
        assert res.shape == (n,), f"the residual should have shape ({n},), got {res.shape}"
        assert np.all(np.isfinite(res)) and np.all(res >= 0), f"the residual has a negative or NaN entry: {res}"
        total = 0.0
        for r in res.tolist():
            total += r
        assert abs(total - 1.0) <= 1e-12, f"the residual should sum to 1, sums to {total!r}"
        alpha = sol.acceptance_probability(p, q)
        z = 1.0 - alpha
        for i, (a, b) in enumerate(zip(p, q)):
            if a <= b:
                assert res[i] == 0.0, f"p[{i}] = {a} <= q[{i}] = {b}: the draft covers this id, residual must be 0"
            else:
                assert math.isclose(res[i], (a - b) / z, rel_tol=1e-9), (
                    f"residual[{i}] should be max(0, p - q)[{i}] / Z with Z = 1 - alpha = {z}: "
                    f"expected {(a - b) / z}, got {res[i]}")


def test_residual_when_p_equals_q():
    for p in (np.array([0.25, 0.0, 0.5, 0.25]), np.array([0.1, 0.2, 0.7])):
        for q in (p, p.copy(), p.tolist()):
            res = sol.residual_distribution(p, q)
            assert isinstance(res, np.ndarray), f"residual_distribution should return an ndarray, got {type(res)}"
            assert res.tolist() == p.tolist(), f"p == q: Z = 0 and the residual is p itself, got {res.tolist()}"
            assert res is not p and not np.shares_memory(res, p), (
                "p == q: return a new array equal to p, never the caller's own array")
            before = p.copy()
            res[0] = 0.75
            assert np.array_equal(p, before), "editing the returned residual changed the caller's p"
    res = sol.residual_distribution([0.5, 0.5], [0.5, 0.5])
    assert np.asarray(res).tolist() == [0.5, 0.5], f"lists work too: expected [0.5, 0.5], got {res}"
    for p in ([0, 1, 0], np.array([0.25, 0.75], dtype=np.float32)):
        res = sol.residual_distribution(p, p)
        assert isinstance(res, np.ndarray) and res.dtype == np.float64, (
            f"p = q = {p!r}: the residual is a new float64 array equal to p, whatever p's own type; got {res!r}")
        assert res.tolist() == np.asarray(p, dtype=np.float64).tolist(), f"p = q = {p!r}: expected p, got {res!r}"
    # Only Z exactly 0 means p == q. Here q is p nudged by a few ulps: Z = 2**-54, tiny but not 0, so the
    # residual is max(0, p - q) / Z = [1, 0]. Id 1 has r = 0.75 / 0.7500000000000001 = 1 - 2**-53, which the
    # largest uniform does not beat: a rejection, and the replacement comes from that residual.
    p, q = [0.25, 0.75], [0.25 - 2.0 ** -54, 0.75 + 2.0 ** -53]
    res = np.asarray(sol.residual_distribution(p, q), dtype=float).tolist()
    assert res == [1.0, 0.0], (f"p = {p}, q = {q}: p != q, Z = max(0, p - q) summed = 2**-54 is not 0, so the "
                               f"residual is max(0, p - q) / Z = [1.0, 0.0], not p; got {res}")
    got = step(p, q, 1, LAST_UNIFORM, 0.5)
    assert got == (0, False), (f"p = {p}, q = {q}, x = 1, u = 1 - 2**-53 (not below r = 1 - 2**-53), u' = 0.5: "
                               f"rejected, and the residual [1, 0] gives id 0; expected (0, False), got {got}")


def test_residual_disjoint_supports_is_p():
    for p, q in [([0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.25, 0.75]), ([0.0, 0.125, 0.875], [1.0, 0.0, 0.0])]:
        alpha = sol.acceptance_probability(p, q)
        assert alpha == 0.0, f"p = {p} and q = {q} share no id: alpha = 0, got {alpha!r}"
        res = np.asarray(sol.residual_distribution(p, q), dtype=float)
        assert res.tolist() == p, f"with alpha = 0 the residual is p itself, {p}; got {res.tolist()}"
        law, accepted = speculative_law(p, q)
        assert accepted == 0 and law == exact(p), (
            f"every draft is rejected and the residual gives p exactly: expected {fmt(exact(p))}, got {fmt(law)}")
    p, q = [0.1, 0.2, 0.7, 0.0], [0.0, 0.0, 0.0, 1.0]
    res = np.asarray(sol.residual_distribution(p, q), dtype=float)
    assert np.allclose(res, p, rtol=1e-15, atol=0), f"disjoint supports: residual should be p = {p}, got {res}"
    # This p sums, left to right, to Z = 1 + 2**-52, so the residual p / Z has a CDF ending at 1 - 2**-52, below
    # the largest uniform: sample_categorical's fallback gives the last id with residual > 0, id 3.
    p, q = [0.2, 0.4, 0.3, 0.1, 0.0], [0.0, 0.0, 0.0, 0.0, 1.0]
    got = step(p, q, 4, 0.5, LAST_UNIFORM)
    assert got == (3, False), (
        f"p = {p}, q = {q}: x = 4 has p = 0 and is rejected; the residual p / Z (Z = 1 + 2**-52 left to right) has "
        f"a CDF ending at 1 - 2**-52, so u' = 1 - 2**-53 is past it and sample_categorical falls back to the last "
        f"id with residual > 0: expected (3, False), got {got}")


def test_residual_sum_is_ascending():
    # Seed 35 gives 16-id p and q whose gaps and minima sum differently left to right than pairwise (np.sum)
    # or correctly rounded (math.fsum): only a left-to-right loop gives the normaliser and alpha checked here.
    rng = random.Random(35)
    p, q = random_distribution(rng, 16), random_distribution(rng, 16)
    gaps = [a - b if a > b else 0.0 for a, b in zip(p, q)]
    z = 0.0
    for g in gaps:
        z += g
    alpha = 0.0
    for a, b in zip(p, q):
        alpha += min(a, b)
    assert z != math.fsum(gaps) and alpha != math.fsum(min(a, b) for a, b in zip(p, q)), "test data broken"
    want = [g / z for g in gaps]
    res = np.asarray(sol.residual_distribution(p, q), dtype=float).tolist()
    diff = [i for i, (a, b) in enumerate(zip(res, want)) if a != b]
    assert not diff, (f"residual[{diff[0]}] = {res[diff[0]]!r}, expected {want[diff[0]]!r}: the normaliser Z must be "
                      f"summed left to right over ascending ids (expected Z = {z!r})")
    got = sol.acceptance_probability(p, q)
    assert got == alpha, f"alpha must be summed left to right over ascending ids: expected {alpha!r}, got {got!r}"
    # float32 input is converted to float64 before any sum. These entries are exact in float32 and sum to 1 in
    # float64, but float32 additions round alpha = 0.5 + 2**-26 and Z = 0.25 + (0.25 - 2**-26) to 0.5.
    p32 = np.array([0.75, 2.0 ** -26, 0.25 - 2.0 ** -26], dtype=np.float32)
    q32 = np.array([0.5, 0.5, 0.0], dtype=np.float32)
    shown = f"p = np.array({p32.tolist()}, dtype=np.float32), q = np.array({q32.tolist()}, dtype=np.float32)"
    got = sol.acceptance_probability(p32, q32)
    got = float(got) if isinstance(got, (float, np.floating)) else got  # np.float32 == float compares in float32
    assert got == 0.5 + 2.0 ** -26, (f"{shown}: in float64, alpha = 0.5 + 2**-26 = {0.5 + 2.0 ** -26!r}, got {got!r}: "
                                     "float32 input must be summed in float64 too")
    z = 0.5 - 2.0 ** -26
    want = [0.25 / z, 0.0, (0.25 - 2.0 ** -26) / z]
    res = np.asarray(sol.residual_distribution(p32, q32), dtype=float).tolist()
    assert res == want, (f"{shown}: in float64, Z = 0.5 - 2**-26 and the residual is {want}, got {res}: float32 "
                         "input must be summed in float64 too")


def test_shapes_and_distributions_are_checked():
    good = [0.5, 0.5]
    bad = [([0.5, 0.25, 0.25], [0.25, 0.25, 0.25, 0.25], "p and q of different shapes"),
           ([[0.5, 0.5]], [[0.5, 0.5]], "2-D p and q"), ([], [], "empty p and q"),
           (np.array(1.0), np.array(1.0), "0-d p and q (bare numbers, not vectors)"),
           ([1.5, -0.5], good, "a negative entry in p"), (good, [1.5, -0.5], "a negative entry in q"),
           ([math.nan, 1.0], good, "NaN in p"), (good, [1.0, math.nan], "NaN in q"),
           ([math.inf, 0.0], good, "an infinite entry in p"), ([0.5, 0.4], good, "p summing to 0.9"),
           (good, [0.5, 0.5 + 2e-9], "q summing to 1 + 2e-9"), ([0.5, 0.5 + 1e-8], good, "p summing to 1 + 1e-8")]
    calls = [("acceptance_probability", lambda p, q: sol.acceptance_probability(p, q)),
             ("residual_distribution", lambda p, q: sol.residual_distribution(p, q)),
             ("speculative_step", lambda p, q: sol.speculative_step(p, q, 0, 0.5, 0.5)),
             ("rejection_sample", lambda p, q: sol.rejection_sample(p, q, 4.0, Script([0.5, 0.1], repeat=True)))]
    for name, call in calls:
        for p, q, what in bad:
            with pytest.raises(ValueError) as info:
                got = call(p, q)
                raise AssertionError(f"{name} with {what} should raise ValueError, but it returned {got!r}")
            assert str(info.value), f"{name} with {what}: the ValueError should say what is wrong"
        call([0.5, 0.5 + 5e-10], [0.5 - 5e-10, 0.5])  # within 1e-9 of 1: distributions, accepted


def test_speculative_output_is_exactly_p():
    pairs = random_pairs(2024, 16, 5)
    pairs += [([0.125, 0.375, 0.5], [0.125, 0.375, 0.5]),  # p == q: always accepted
              ([0.0, 0.0, 1.0], [0.375, 0.5, 0.125]),      # a point mass, mostly drafted wrongly
              ([0.125] * 8, [1.0] + [0.0] * 7)]            # a point-mass draft of a uniform target
    for p, q in pairs:
        law, _ = speculative_law(p, q)
        assert law == exact(p), (f"p = {p}, q = {q}: enumerated exactly, speculative_step outputs "
                                 f"{fmt(law)} instead of p")


def test_speculative_chi_square():
    p = [0.3, 0.25, 0.2, 0.15, 0.1, 0.0]
    q = [0.1, 0.4, 0.05, 0.15, 0.0, 0.3]
    cum, total = [], 0.0
    for value in q:
        total += value
        cum.append(total)
    draws = np.random.default_rng(20240611).random((20000, 3))
    # the draft: inverse CDF of q, the first id with u < cum[id] (cum[-1] is exactly 1)
    drafts = np.searchsorted(cum, draws[:, 0], side="right").tolist()
    counts = [0] * len(p)
    steps = [(p, q, x, u_accept, u_resample)
             for x, u_accept, u_resample in zip(drafts, draws[:, 1].tolist(), draws[:, 2].tolist())]
    for token, _ in calls(sol.speculative_step, steps):
        counts[token] += 1
    # Every correct solution emits the same tokens for these uniforms: chi-square 0.35 on 4 degrees of freedom,
    # p-value 0.99. Under a correct sampler a p-value below 1e-6 has probability 1e-6 over seeds, so the
    # threshold costs nothing, while the bugs this test is for give statistics from 977 (resampling with
    # u_accept) to 8600 (keeping rejected drafts): p-values below 1e-200.
    assert counts[5] == 0, f"id 5 has p = 0 but was emitted {counts[5]} times"
    pvalue = chi_square_pvalue(counts, p)
    assert pvalue > 1e-6, (f"20000 seeded steps emitted frequencies {[c / 20000 for c in counts]}, not p = {p} "
                           f"(chi-square p-value {pvalue:.1e})")


def test_speculative_accepts_without_resampling():
    cases = [(P_HAND, Q_HAND, 1, 0.25), (P_HAND, Q_HAND, 0, LAST_UNIFORM), (P_HAND, Q_HAND, 0, 0.0),
             ([0.2, 0.3, 0.5], [0.2, 0.3, 0.5], 2, 0.9)]
    for p, q, x, u in cases:
        for u_resample in (Untouchable(), 1.5, -1.0, math.nan):
            got = step(p, q, x, u, u_resample)
            assert got == (x, True), (f"x = {x} with u = {u} is kept, so the answer is ({x}, True) whatever "
                                      f"u_resample is ({u_resample!r}); got {got}")


def test_speculative_rejects_bad_drafts():
    for x in (-1, -4, 4, 10):
        with pytest.raises(ValueError):
            got = sol.speculative_step(P_HAND, Q_HAND, x, 0.5, 0.5)
            raise AssertionError(f"section 3's p and q have ids 0 to 3: x = {x} should raise ValueError (negative ids "
                                 f"do not wrap around), but speculative_step returned {got!r}")
    with pytest.raises(ValueError):  # q[2] = 0: the draft cannot have proposed id 2
        got = sol.speculative_step(P_HAND, Q_HAND, 2, 0.5, 0.5)
        raise AssertionError(f"section 3's q gives id 2 probability 0, so the draft cannot have proposed x = 2: "
                             f"ValueError expected, but speculative_step returned {got!r}")
    for x, u in [(x, u) for x in (1, 0) for u in (1.0, -0.5, math.nan)]:  # id 1 has r = 1/2, id 0 has r = 2
        with pytest.raises(ValueError):
            got = sol.speculative_step(P_HAND, Q_HAND, x, u, 0.5)
            raise AssertionError(f"section 3's p and q, x = {x}, u_accept = {u!r}: u_accept outside [0, 1) must "
                                 f"raise ValueError whatever r is, but speculative_step returned {got!r}")
    for u2 in (1.0, -0.5, math.nan):  # x = 1 with u = 0.75 >= r = 1/2 is rejected, so u' is used
        with pytest.raises(ValueError):
            got = sol.speculative_step(P_HAND, Q_HAND, 1, 0.75, u2)
            raise AssertionError(f"section 3's p and q, x = 1, u_accept = 0.75 rejects, so u_resample = {u2!r} is "
                                 f"used and must raise ValueError (it is not in [0, 1)), but got {got!r}")
    got = step(P_HAND, Q_HAND, np.int64(1), 0.25, 0.5)
    assert got == (1, True), f"numpy integer ids are ids too: expected (1, True), got {got}"


def rejection_first_try_law(p, q, m):
    """Exact law of one try of rejection_sample: P(returns x on try 1) for each x, from scripted uniforms."""
    fp, fq, fm = exact(p), exact(q), Fraction(m)
    proposals = midpoints(denominator(cdf(fq)))
    accepts = left_ends(denominator([a / (fm * b) for a, b in zip(fp, fq) if b > 0]))
    law = [Fraction(0)] * len(p)
    for u1, w1 in proposals:
        for u2, w2 in accepts:
            script = Script([u1, u2])
            try:
                x, tries = sol.rejection_sample(p, q, m, script, max_tries=1)
            except RuntimeError:
                x = None
            assert script.drawn == 2, f"one try must draw exactly two uniforms, drew {script.drawn}"
            if x is not None:
                assert tries == 1, f"accepted on the first try, so tries = 1, got {tries}"
                law[int(x)] += w1 * w2
    return law


def test_rejection_sample_first_try_enumerated():
    cases = [([0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.25, 0.25], 2.0),
             ([0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.25, 0.25], 2.5),
             ([0.375, 0.125, 0.5], [0.25, 0.5, 0.25], 2.0),
             ([0.0, 0.5, 0.5], [0.125, 0.375, 0.5], 3.0),
             ([0.25, 0.75], [0.25, 0.75], 1.0)]
    for p, q, m in cases:
        law = rejection_first_try_law(p, q, m)
        want = [Fraction(a) / Fraction(m) for a in p]
        assert law == want, (f"p = {p}, q = {q}, m = {m}: one try should return x with probability p_x / m = "
                             f"{fmt(want)}, got {fmt(law)}")


def test_rejection_sample_tries_are_geometric():
    p, q, m = [0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.25, 0.25], 3.0
    # numpy's generator is a UniformSource (uniform() with no arguments is its next double in [0, 1)); it crosses to
    # learner code by its state, so that 3000 samples cost one crossing on the separated path, not 18,000
    gen = np.random.default_rng(31415)
    n = 3000
    total = 0
    for x, tries in calls(sol.rejection_sample, [(p, q, m, gen)] * n):
        assert isinstance(tries, (int, np.integer)) and tries >= 1, f"tries should be an int >= 1, got {tries!r}"
        assert p[int(x)] > 0, f"rejection_sample returned id {x}, which has p = 0"
        total += int(tries)
    mean = total / n
    # Tries are geometric with success 1/m: mean m = 3, variance m(m - 1) = 6, so the mean of 3000 has standard
    # error sqrt(6 / 3000) ~ 0.045. Four of them (0.18) fail a correct sampler for under 1e-4 of seeds (this one
    # gives 3.005), while ignoring m (1.307 here) or counting tries from 0 (2.005) misses by over 20 of them.
    se = math.sqrt(m * (m - 1) / n)
    assert abs(mean - m) < 4 * se, (f"with envelope m = {m} the mean number of tries should be {m} "
                                    f"(within {4 * se:.3f}), got {mean:.3f}")


def test_rejection_sample_draw_order():
    p, q, m = [0.5, 0.25, 0.25, 0.0], [0.25, 0.25, 0.25, 0.25], 2.0  # acceptance ratios [1, 1/2, 1/2, 0]
    # try 1: 0.80 proposes id 3, 0.10 is not below 0; try 2: 0.25 proposes id 1 (q's CDF is exactly 0.25 there,
    # so id 0 is passed), 0.60 is not below 1/2; try 3: 0.55 proposes id 2, 0.40 < 1/2 accepts.
    script = Script([0.80, 0.10, 0.25, 0.60, 0.55, 0.40])
    got = tuple(sol.rejection_sample(p, q, m, script))
    assert got == (2, 3), ("uniforms 0.80, 0.10, 0.25, 0.60, 0.55, 0.40 taken as (proposal, acceptance) pairs "
                           f"give id 2 on try 3; got {got}")
    assert script.drawn == 6, f"three tries draw exactly six uniforms, drew {script.drawn}"
    script = Script([0.30, 0.20])
    got = tuple(sol.rejection_sample(p, q, m, script))
    assert got == (1, 1) and script.drawn == 2, f"0.30 proposes id 1, 0.20 < 1/2 keeps it: (1, 1), got {got}"
    # The proposal is sample_categorical(q, u1), fallback included: ten ids of 0.1 then two zeros sum, left to
    # right, to 1 - 2**-53, so u1 = 1 - 2**-53 proposes id 9, the last id with q > 0 (p == q, m = 1 keeps it).
    q10 = [0.1] * 10 + [0.0, 0.0]
    try:
        got = tuple(sol.rejection_sample(q10, q10, 1.0, Script([LAST_UNIFORM, 0.5])))
    except (ValueError, IndexError) as exc:
        got = f"{type(exc).__name__}: {exc}"
    assert got == (9, 1), ("q = p = ten ids of 0.1 then two zeros, m = 1: q's CDF (left to right) ends at 1 - 2**-53, "
                           "so u1 = 1 - 2**-53 proposes id 9, the last id with q > 0 (sample_categorical's fallback), "
                           f"and u2 = 0.5 keeps it: expected (9, 1), got {got}")
    # The acceptance ratio is p[x] / (m * q[x]), the product first: here m * q[0] = 0.8999999999999999 and the ratio
    # is 0.11111111111111113, while p[0] / m / q[0] and p[0] / q[0] / m round to 0.11111111111111112.
    p, q, m = [0.1, 0.9], [0.3, 0.7], 3.0
    u2 = p[0] / m / q[0]
    assert u2 < p[0] / (m * q[0]) and u2 == p[0] / q[0] / m, "test data broken"
    try:
        got = tuple(sol.rejection_sample(p, q, m, Script([0.1, u2]), max_tries=1))
    except RuntimeError:
        got = "RuntimeError: the try was rejected"
    assert got == (0, 1), (f"p = {p}, q = {q}, m = 3: u1 = 0.1 proposes id 0, and u2 = {u2!r} is below p[0] / (m * q[0]) "
                           f"= 0.1 / 0.8999999999999999 = {p[0] / (m * q[0])!r} (compute m * q[x] first), so the "
                           f"first try keeps id 0: expected (0, 1), got {got}")


def test_rejection_sample_checks_the_envelope():
    source = Script([0.3, 0.2, 0.9, 0.1], repeat=True)
    bad = [([0.5, 0.25, 0.25], [0.25, 0.25, 0.5], 1.5, "p[0] = 0.5 > 1.5 * 0.25"),
           ([0.5, 0.5, 0.0], [0.0, 0.5, 0.5], 2.0, "p[0] = 0.5 > 2 * 0, an id q never proposes"),
           ([0.5, 0.5], [0.5, 0.5], 0.5, "m = 0.5 < 1"), ([0.5, 0.5], [0.5, 0.5], math.nan, "m = NaN"),
           ([0.5, 0.5], [0.5, 0.5], math.inf, "m infinite")]
    for p, q, m, what in bad:
        with pytest.raises(ValueError) as info:
            got = sol.rejection_sample(p, q, m, source)
            raise AssertionError(f"rejection_sample(p = {p}, q = {q}, m = {m}) ({what}) should raise ValueError, "
                                 f"but it returned {got!r}")
        assert str(info.value), f"the ValueError for {what} should say what is wrong"
    assert source.drawn == 0, "bad arguments must be rejected before any uniform is drawn"
    with pytest.raises(ValueError):
        got = sol.rejection_sample([0.5, 0.5], [0.5, 0.5], 1.0, source, max_tries=0)
        raise AssertionError(f"max_tries = 0 should raise ValueError (at least one try), but it returned {got!r}")
    got = tuple(sol.rejection_sample([0.25, 0.75], [0.25, 0.75], 1.0, Script([0.6, LAST_UNIFORM])))
    assert got == (1, 1), f"m = 1 with p == q is a valid envelope that always accepts; got {got}"
    # The envelope rule compares p_i with the float64 product m * q_i: p[0] below is exactly 3 * 0.1 =
    # 0.30000000000000004, so m = 3 is an envelope, although p[0] / q[0] rounds to 3.0000000000000004 > 3.
    p, q = [3.0 * 0.1, 0.7], [0.1, 0.9]
    try:
        got = tuple(sol.rejection_sample(p, q, 3.0, Script([0.05, 0.5])))
    except ValueError as exc:
        got = f"ValueError: {exc}"
    assert got == (0, 1), (f"p = {p}, q = {q}, m = 3: p[0] equals m * q[0] = {3.0 * 0.1!r} in float64, so m is an "
                           "envelope (compare p_i with the product m * q_i, not p_i / q_i with m: that quotient "
                           f"rounds to {p[0] / q[0]!r}); u1 = 0.05 proposes id 0 and u2 = 0.5 keeps it: expected "
                           f"(0, 1), got {got}")
    # p = [1, 0], q = [1/2, 1/2], m = 2: a uniform of 0.75 always proposes id 1, which has p = 0.
    script = Script([0.75], repeat=True)
    with pytest.raises(RuntimeError):
        sol.rejection_sample([1.0, 0.0], [0.5, 0.5], 2.0, script, max_tries=5)
    assert script.drawn == 10, f"five rejected tries draw exactly ten uniforms before RuntimeError, drew {script.drawn}"
