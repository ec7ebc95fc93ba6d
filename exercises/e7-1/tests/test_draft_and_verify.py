"""Hidden tests of E7.1. Everything here is deterministic: the random cases come from fixed seeds, and no test
depends on how a solution loops, only on the tokens and pass counts it returns. Each assertion message is what
the learner reads."""
import math

import numpy as np
import pytest

import tinyllm.lessons.draft_and_verify as sol
from checker.calls import calls

# The lesson's trace: k = 4 draft tokens, and the target's argmax at the k + 1 positions it scores.
DRAFT = [5, 9, 2, 7]
TARGET = [5, 9, 4, 1, 3]

# The lesson's decode: an 8-token cycle for the target; the draft is wrong after tokens 3 and 6.
TARGET_NEXT = [1, 2, 3, 4, 5, 6, 7, 0]
DRAFT_NEXT = [1, 2, 3, 7, 5, 6, 2, 0]


def as_tokens(value, what):
    assert value is not None, f"{what} returned None"
    try:
        return [int(t) for t in value]
    except TypeError:
        raise AssertionError(f"{what} should return a list of token ids, got {value!r}") from None


def as_count(value, what):
    assert value is not None, f"{what} returned None"
    return int(value)


def as_decode(value, what):
    assert value is not None, f"{what} returned None"
    assert isinstance(value, (tuple, list)) and len(value) == 2, (
        f"{what} should return a pair (tokens, target_passes), got {value!r}")
    return as_tokens(value[0], what + "[0]"), as_count(value[1], what + "[1]")


def greedy_chain(target_next, start, n):
    """What the target alone says greedily: n tokens after start."""
    out, last = [], start
    for _ in range(n):
        last = int(target_next[last])
        out.append(last)
    return out


def random_steps(count, seed):
    """(draft, target_argmax) pairs over 3 token ids, so that agreements (and later agreements) are frequent."""
    rng = np.random.default_rng(seed)
    cases = []
    for k in rng.integers(0, 6, size=count):
        cases.append(([int(t) for t in rng.integers(0, 3, size=k)], [int(t) for t in rng.integers(0, 3, size=k + 1)]))
    return cases


def leading_agreements(draft, target):
    n = 0
    while n < len(draft) and draft[n] == target[n]:
        n += 1
    return n


def random_models(seed, vocab, agree):
    """A bigram target and a draft that copies each of its rows with probability `agree`, else differs there."""
    rng = np.random.default_rng(seed)
    target_next = rng.integers(0, vocab, size=vocab)
    draft_next = target_next.copy()
    wrong = rng.random(vocab) >= agree
    draft_next[wrong] = (target_next[wrong] + rng.integers(1, vocab, size=int(wrong.sum()))) % vocab
    return target_next, draft_next


def test_accepted_prefix_of_lesson_trace():
    cases = [
        ("the lesson's trace", DRAFT, TARGET, 2),
        ("every draft token agrees", DRAFT, [5, 9, 2, 7, 3], 4),
        ("the first draft token disagrees", DRAFT, [6, 1, 0, 8, 3], 0),
        ("k = 0, nothing drafted", [], [7], 0),
    ]
    for what, draft, target, want in cases:
        got = as_count(sol.accepted_prefix(draft, target), f"accepted_prefix({draft}, {target})")
        assert got == want, (f"{what}: accepted_prefix({draft}, {target}) should be {want}, got {got}. Draft "
                             f"token i is compared with target_argmax[i], the target's choice in the same context")


def test_accepted_prefix_stops_at_first_disagreement():
    cases = [
        ("a later draft token agrees again", DRAFT, [5, 9, 4, 7, 3], 2),
        ("the first disagrees, the others agree", [1, 2, 3], [0, 2, 3, 4], 0),
    ]
    for what, draft, target, want in cases:
        got = as_count(sol.accepted_prefix(draft, target), f"accepted_prefix({draft}, {target})")
        assert got == want, (f"{what}: accepted_prefix({draft}, {target}) should be {want}, got {got}. Only the "
                             f"agreeing prefix counts: a draft token after a disagreement was proposed in a context "
                             f"the target never produces")


def test_accepted_prefix_on_random_steps():
    cases = random_steps(40, 11)
    got = calls(sol.accepted_prefix, cases)
    for i, (draft, target) in enumerate(cases):
        want = leading_agreements(draft, target)
        n = as_count(got[i], f"accepted_prefix({draft}, {target})")
        assert n == want, f"accepted_prefix({draft}, {target}) should be {want}, got {n}"


def test_verify_step_of_lesson_trace():
    got = as_tokens(sol.verify_step(DRAFT, TARGET), f"verify_step({DRAFT}, {TARGET})")
    assert got == [5, 9, 4], (f"verify_step({DRAFT}, {TARGET}) should emit [5, 9, 4]: the 2 agreeing draft tokens, "
                              f"then the target's own choice 4 where the draft said 2; got {got}")


def test_verify_step_emits_one_to_k_plus_one_tokens():
    cases = [
        ("every draft token agrees: k tokens and the target's bonus token", DRAFT, [5, 9, 2, 7, 3],
         [5, 9, 2, 7, 3]),
        ("the first draft token disagrees: the target's token alone", DRAFT, [6, 1, 0, 8, 3], [6]),
        ("k = 0, nothing drafted: one plain target step", [], [7], [7]),
    ]
    for what, draft, target, want in cases:
        got = as_tokens(sol.verify_step(draft, target), f"verify_step({draft}, {target})")
        assert got == want, f"{what}: verify_step({draft}, {target}) should emit {want}, got {got}"


def test_verify_step_emits_the_targets_own_choices():
    cases = random_steps(60, 12)
    got = calls(sol.verify_step, cases)
    for i, (draft, target) in enumerate(cases):
        want = target[:leading_agreements(draft, target) + 1]
        tokens = as_tokens(got[i], f"verify_step({draft}, {target})")
        assert 1 <= len(tokens) <= len(draft) + 1, (
            f"verify_step({draft}, {target}) emitted {len(tokens)} tokens; a step emits between 1 and k + 1")
        assert tokens == want, (f"verify_step({draft}, {target}) should emit {want}, got {tokens}: every token a "
                                f"step emits is the target's own argmax at that position")


def test_verify_step_rejects_wrong_length():
    cases = [
        ("k argmaxes instead of k + 1", DRAFT, TARGET[:4]),
        ("k + 2 argmaxes", DRAFT, TARGET + [0]),
        ("k = 0 with no argmax at all", [], []),
    ]
    for what, draft, target in cases:
        with pytest.raises(ValueError):
            sol.verify_step(draft, target)
            raise AssertionError(f"{what}: verify_step({draft}, {target}) should raise ValueError, since the "
                                 f"target scores exactly k + 1 positions")


def test_speculative_greedy_worked_example():
    tokens, passes = as_decode(sol.speculative_greedy(TARGET_NEXT, DRAFT_NEXT, 0, 12, 3),
                               "speculative_greedy(TARGET_NEXT, DRAFT_NEXT, 0, 12, 3)")
    want = greedy_chain(TARGET_NEXT, 0, 12)
    assert tokens == want, f"the lesson's decode should give the target's own chain {want}, got {tokens}"
    assert passes == 4, (f"the lesson's decode takes 4 target passes (steps emitting 4, 3, 4 and 1 tokens), "
                         f"got {passes}")


def test_speculative_greedy_matches_target_alone():
    cases = [(1, 6, 0.5, 2, 15), (2, 8, 0.8, 4, 30), (3, 5, 0.3, 1, 12), (4, 10, 0.9, 6, 40), (5, 7, 0.0, 3, 9)]
    for seed, vocab, agree, k, n in cases:
        target_next, draft_next = random_models(seed, vocab, agree)
        want = greedy_chain(target_next, 0, n)
        tokens, passes = as_decode(sol.speculative_greedy(target_next, draft_next, 0, n, k),
                                   f"speculative_greedy(...) on random models (seed {seed}, k = {k}, n_tokens = {n})")
        assert len(tokens) == n, f"seed {seed}: asked for n_tokens = {n} tokens, got {len(tokens)}"
        assert tokens == want, (f"seed {seed}, k = {k}: the tokens should be what the target alone says greedily, "
                                f"{want}, got {tokens}")
        assert math.ceil(n / (k + 1)) <= passes <= n, (
            f"seed {seed}, k = {k}, n_tokens = {n}: between ceil(n / (k + 1)) and n target passes, got {passes}")


def test_speculative_greedy_passes_when_draft_never_agrees():
    target_next = [3, 0, 4, 1, 2]
    draft_next = [(t + 1) % 5 for t in target_next]  # wrong after every token
    for k, n in [(1, 7), (4, 10)]:
        tokens, passes = as_decode(sol.speculative_greedy(target_next, draft_next, 0, n, k),
                                   f"speculative_greedy(..., n_tokens={n}, k={k}) with a draft that never agrees")
        assert tokens == greedy_chain(target_next, 0, n), (
            f"k = {k}: a draft that is always wrong must still give the target's own tokens, got {tokens}")
        assert passes == n, (f"k = {k}: with every first draft token rejected each step emits 1 token, so "
                             f"{n} tokens take {n} passes; got {passes}")


def test_speculative_greedy_passes_when_draft_is_the_target():
    fixed = [0, 0, 1]  # token 0 is followed by itself: the chain is 0, 0, 0, ...
    cycle = [1, 2, 3, 4, 5, 6, 0]
    cases = [("fixed point", fixed, 3, 10), ("fixed point", fixed, 4, 10), ("cycle", cycle, 3, 12),
             ("cycle", cycle, 4, 11), ("cycle", cycle, 2, 1), ("cycle", cycle, 0, 5)]
    for what, table, k, n in cases:
        tokens, passes = as_decode(sol.speculative_greedy(table, list(table), 0, n, k),
                                   f"speculative_greedy(..., n_tokens={n}, k={k}) with the draft equal to the target")
        assert tokens == greedy_chain(table, 0, n), f"{what}, k = {k}: should give the target's chain, got {tokens}"
        want = math.ceil(n / (k + 1))
        assert passes == want, (f"{what}, k = {k}, n_tokens = {n}: a perfect draft has all k tokens accepted, so "
                                f"each pass emits k + 1 = {k + 1} tokens: ceil({n} / {k + 1}) = {want} passes; "
                                f"got {passes}")


def test_speculative_greedy_edge_cases():
    got = as_decode(sol.speculative_greedy(TARGET_NEXT, DRAFT_NEXT, 0, 0, 3), "speculative_greedy(..., n_tokens=0)")
    assert got == ([], 0), f"n_tokens = 0 needs no tokens and no target pass: ([], 0), got {got}"
    got = as_decode(sol.speculative_greedy(TARGET_NEXT, DRAFT_NEXT, 5, 1, 3),
                    "speculative_greedy(..., start=5, n_tokens=1)")
    assert got == ([6], 1), f"one token after token 5 is the target's 6, in one pass: ([6], 1), got {got}"
    got = as_decode(sol.speculative_greedy(TARGET_NEXT, DRAFT_NEXT, 3, 6, 0), "speculative_greedy(..., k=0)")
    assert got == (greedy_chain(TARGET_NEXT, 3, 6), 6), (
        f"k = 0 drafts nothing: it is plain greedy decoding, one pass per token: "
        f"({greedy_chain(TARGET_NEXT, 3, 6)}, 6), got {got}")
