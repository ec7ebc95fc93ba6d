"""Hidden tests of E7.5. Each assertion message is what the learner reads.

Nothing here is random: the model is a formula, so every check is against a number worked out by hand (or by
the formula written out in this file) with a relative tolerance of 1e-9. The tie cases of `best_k` are chosen so
that the last bit of the computed speed-ups decides them when a solution compares without a tolerance: with the
costs 10.8, 0.9 and 9 the speed-up at k = 3 comes out one rounding step above k = 2's, in every way of computing
it that we tried (a loop, a generator sum, the closed form, numpy), although both are exactly 1.25.
"""
import math

import pytest

import tinyllm.lessons.the_speed_up as sol
from checker.calls import calls

REL = 1e-9

# The chapter's worked example, in milliseconds: verify 12, draft 1, the target alone 10 per token.
T_VERIFY, T_DRAFT, T_TARGET = 12.0, 1.0, 10.0


def number(value, what):
    assert value is not None, f"{what} returned None: is the function written yet?"
    assert isinstance(value, (int, float)) or hasattr(value, "__float__"), f"{what} should return a number, got {value!r}"
    return float(value)


def integer(value, what):
    assert value is not None, f"{what} returned None: is the function written yet?"
    assert float(value) == int(value), f"{what} should return a whole number of draft tokens, got {value!r}"
    return int(value)


def close(got, want):
    return math.isclose(got, want, rel_tol=REL, abs_tol=1e-12)


def model_speed_up(a, k, t_verify, t_draft, t_target):
    """The test's own copy of the model, for the property tests."""
    return sum(a**i for i in range(k + 1)) / (t_verify + k * t_draft) * t_target


def test_step_time():
    cases = [  # k, t_verify, t_draft, the step time
        (4, 12.0, 1.0, 16.0),
        (1, 12.0, 1.0, 13.0),
        (6, 0.012, 0.001, 0.018),
        (3, 20.0, 2.5, 27.5),
        (0, 12.0, 1.0, 12.0),
    ]
    for k, t_verify, t_draft, want in cases:
        got = number(sol.step_time(k, t_verify, t_draft), f"step_time({k}, {t_verify}, {t_draft})")
        assert close(got, want), (f"step_time({k}, {t_verify}, {t_draft}) should be {want}: one verify pass plus "
                                  f"{k} draft passes of {t_draft} each; got {got}")


def test_expected_tokens_worked_example():
    cases = [  # a, k, E[N]
        (0.8, 4, 3.3616),
        (0.5, 2, 1.75),
        (0.9, 1, 1.9),
        (0.8, 0, 1.0),
        (0.0, 5, 1.0),
    ]
    for a, k, want in cases:
        got = number(sol.expected_tokens(a, k), f"expected_tokens({a}, {k})")
        assert close(got, want), (f"expected_tokens({a}, {k}) should be {want}, the sum of a**i for i = 0..{k} "
                                  f"(i = 0 is the token the target adds itself); got {got}")


def test_expected_tokens_perfect_draft():
    for k in (0, 1, 4, 10):
        got = number(sol.expected_tokens(1.0, k), f"expected_tokens(1.0, {k})")
        assert close(got, k + 1), (f"with a = 1 every draft is accepted, so a step of k = {k} emits {k + 1} tokens; "
                                   f"got {got}")


def test_expected_tokens_matches_the_closed_form():
    grid = [(a, k) for a in (0.1, 0.3, 0.6, 0.75, 0.95, 0.999) for k in (1, 2, 5, 9)]
    got = [number(x, "expected_tokens") for x in calls(sol.expected_tokens, grid)]
    for i, (a, k) in enumerate(grid):
        want = (1 - a ** (k + 1)) / (1 - a)
        assert math.isclose(got[i], want, rel_tol=1e-8), (
            f"expected_tokens({a}, {k}) should equal (1 - a^(k+1)) / (1 - a) = {want:.6f}; got {got[i]}")


def test_throughput():
    cases = [  # a, k, t_verify, t_draft, tokens per unit of time
        (0.8, 4, 0.012, 0.001, 210.1),
        (0.8, 4, 12.0, 1.0, 0.2101),
        (0.5, 2, 12.0, 1.0, 0.125),
        (1.0, 3, 0.012, 0.001, 4 / 0.015),
    ]
    for a, k, t_verify, t_draft, want in cases:
        got = number(sol.throughput(a, k, t_verify, t_draft), f"throughput({a}, {k}, {t_verify}, {t_draft})")
        assert close(got, want), (f"throughput({a}, {k}, {t_verify}, {t_draft}) should be {want:.6g} tokens per "
                                  f"unit of time: E[N] over the step time; got {got}")


def test_speed_up_worked_example():
    cases = [  # a, k, t_verify, t_draft, t_target, speed-up
        (0.8, 4, 12.0, 1.0, 10.0, 2.101),
        (0.8, 4, 0.012, 0.001, 0.010, 2.101),
        (0.8, 6, 12.0, 1.0, 10.0, 3.951424 / 1.8),
        (0.5, 3, 12.0, 1.0, 10.0, 1.25),
        (0.6, 2, 20.0, 2.0, 25.0, 1.96 / 24 * 25),
    ]
    for a, k, t_verify, t_draft, t_target, want in cases:
        got = number(sol.speed_up(a, k, t_verify, t_draft, t_target),
                     f"speed_up({a}, {k}, {t_verify}, {t_draft}, {t_target})")
        assert close(got, want), (
            f"speed_up({a}, {k}, {t_verify}, {t_draft}, {t_target}) should be {want:.5g}: the throughput times "
            f"t_target, since the target alone makes 1 / t_target tokens per unit of time; got {got}")


def test_speed_up_perfect_and_useless_drafts():
    for k in (1, 4, 10):
        got = number(sol.speed_up(1.0, k, 12.0, 1.0, 10.0), f"speed_up(1.0, {k}, 12, 1, 10)")
        want = (k + 1) * 10.0 / (12.0 + k)
        assert close(got, want), (f"with a = 1 a step emits k + 1 = {k + 1} tokens in {12 + k} ms, so the "
                                  f"speed-up is {want:.6g}; got {got}")
        got = number(sol.speed_up(0.0, k, 12.0, 1.0, 10.0), f"speed_up(0.0, {k}, 12, 1, 10)")
        want = 10.0 / (12.0 + k)
        assert close(got, want), (f"with a = 0 every draft is rejected and a step emits 1 token in {12 + k} ms: "
                                  f"a speed-up of {want:.6g}, a slow-down; got {got}")


def test_speed_up_rises_with_a():
    alphas = (0.0, 0.2, 0.4, 0.6, 0.8, 0.9, 1.0)
    for k in (1, 3, 6, 10):
        got = [number(x, "speed_up") for x in calls(sol.speed_up, [(a, k, 12.0, 1.0, 10.0) for a in alphas])]
        for i in range(1, len(alphas)):
            assert got[i] > got[i - 1], (
                f"at k = {k} a better draft should always help: speed_up at a = {alphas[i]} is {got[i]}, "
                f"not above the {got[i - 1]} at a = {alphas[i - 1]}")


def test_best_k_worked_costs():
    cases = [  # a, k_max, best k at verify 12 ms, draft 1 ms, target 10 ms
        (0.8, 10, 6),
        (0.7, 10, 4),
        (0.6, 10, 3),
        (0.9, 12, 11),
    ]
    for a, k_max, want in cases:
        got = integer(sol.best_k(a, T_VERIFY, T_DRAFT, T_TARGET, k_max), f"best_k({a}, 12, 1, 10, {k_max})")
        assert got == want, (f"best_k({a}, 12, 1, 10, {k_max}) should be {want}, the k with the largest "
                             f"speed-up; got {got}")


def test_best_k_can_pick_k_max():
    cases = [  # a, k_max: the speed-up still rises at k_max, so k_max is the answer
        (1.0, 10),
        (1.0, 3),
        (0.9, 10),
        (0.8, 1),
    ]
    for a, k_max in cases:
        got = integer(sol.best_k(a, T_VERIFY, T_DRAFT, T_TARGET, k_max), f"best_k({a}, 12, 1, 10, {k_max})")
        assert got == k_max, (f"best_k({a}, 12, 1, 10, {k_max}) should be {k_max}: the speed-up still rises at "
                              f"k = {k_max}, so every k from 1 to k_max inclusive must be tried; got {got}")


def test_best_k_when_speculation_does_not_pay():
    cases = [  # a, t_verify, t_draft, t_target: no k in 1..10 beats the target alone
        (0.3, 12.0, 3.0, 10.0),
        (0.0, 12.0, 1.0, 10.0),
        (0.5, 12.0, 1.0, 6.0),
    ]
    for a, t_verify, t_draft, t_target in cases:
        got = integer(sol.best_k(a, t_verify, t_draft, t_target, 10),
                      f"best_k({a}, {t_verify}, {t_draft}, {t_target}, 10)")
        assert got == 0, (f"best_k({a}, {t_verify}, {t_draft}, {t_target}, 10) should be 0 (do not speculate): "
                          f"no k from 1 to 10 gives a speed-up above 1x here; got {got}")


def test_best_k_ties():
    cases = [  # a, t_verify, t_draft, t_target, the answer, what makes it a tie
        (0.5, 12.0, 1.0, 10.0, 2, "k = 2 and k = 3 both give exactly 1.25x"),
        (0.5, 10.8, 0.9, 9.0, 2, "k = 2 and k = 3 both give 1.25x, equal up to rounding"),
        (0.3, 12.0, 1.0, 10.0, 0, "k = 1 gives exactly 1x, no better than not speculating"),
        (0.3, 13.2, 1.1, 11.0, 0, "k = 1 gives 1x up to rounding, no better than not speculating"),
    ]
    for a, t_verify, t_draft, t_target, want, why in cases:
        got = integer(sol.best_k(a, t_verify, t_draft, t_target, 10),
                      f"best_k({a}, {t_verify}, {t_draft}, {t_target}, 10)")
        assert got == want, (f"best_k({a}, {t_verify}, {t_draft}, {t_target}, 10) should be {want}: {why}, and a "
                             f"tie goes to the smaller k (compare with math.isclose); got {got}")


def test_best_k_is_never_beaten():
    costs = [(12.0, 1.0, 10.0), (10.0, 0.5, 10.0), (20.0, 2.0, 10.0), (11.0, 1.5, 10.0)]
    grid = [(a, *c, 8) for a in (0.2, 0.45, 0.65, 0.85, 0.97) for c in costs]
    got = [integer(x, "best_k") for x in calls(sol.best_k, grid)]
    for i, (a, t_verify, t_draft, t_target, k_max) in enumerate(grid):
        gains = {k: model_speed_up(a, k, t_verify, t_draft, t_target) for k in range(1, k_max + 1)}
        gains[0] = 1.0
        top = max(gains.values())
        want = min(k for k, g in gains.items() if math.isclose(g, top))
        assert got[i] == want, (f"best_k({a}, {t_verify}, {t_draft}, {t_target}, {k_max}) should be {want} "
                                f"(speed-up {top:.4f}); got {got[i]}, whose speed-up is "
                                f"{gains.get(got[i], float('nan')):.4f}")


def test_bad_inputs_raise():
    cases = [  # function, arguments, what is wrong
        ("step_time", (4, 0.0, 1.0), "t_verify = 0"),
        ("step_time", (4, 12.0, -1.0), "a negative t_draft"),
        ("step_time", (4, 12.0, 0.0), "t_draft = 0"),
        ("expected_tokens", (1.5, 4), "a = 1.5"),
        ("expected_tokens", (-0.1, 4), "a = -0.1"),
        ("throughput", (0.8, 4, -12.0, 1.0), "a negative t_verify"),
        ("throughput", (1.2, 4, 12.0, 1.0), "a = 1.2"),
        ("speed_up", (0.8, 4, 12.0, 1.0, 0.0), "t_target = 0"),
        ("speed_up", (0.8, 4, 12.0, 1.0, -10.0), "a negative t_target"),
        ("speed_up", (2.0, 4, 12.0, 1.0, 10.0), "a = 2"),
        ("best_k", (0.8, 12.0, 1.0, -10.0, 10), "a negative t_target"),
        ("best_k", (-0.5, 12.0, 1.0, 10.0, 10), "a = -0.5"),
    ]
    for name, args, what in cases:
        call = f"{name}{args}"
        with pytest.raises(ValueError):
            getattr(sol, name)(*args)
            pytest.fail(f"{call} has {what}: it should raise ValueError")
