"""The known mistake a failing check looks like (checker/diagnosis.py), and how a test's failure is described in
terms learner code cannot change (checker/messages.py `case`).

The diagnosis measured on the course itself (leave-one-out, the corpus) is the content tier's:
tests/content/test_course_diagnosis.py.
"""
from __future__ import annotations

import sys
import textwrap
from pathlib import Path


REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from checker import diagnosis, judge

LEARNER = "tinyllm/y.py"
TESTS = {"test_cases.py": textwrap.dedent('''
    import pytest
    import tinyllm.y as sol


    def check_pair(a, b):
        got = sol.scale(a, b)
        assert got == a * b, f"scale({a}, {b}) should be {a * b}, got {got}"


    def test_scale():
        for a, what in [(1, "one"), (2, "two"), (-3, "negative")]:
            got = sol.scale(a, 10)
            assert got == 10 * a, f"{what}: expected {10 * a}, got {got}"


    def test_pairs():
        check_pair(2, 3)
        check_pair(0, 5)


    def test_refuses():
        for bad in (None, "x"):
            with pytest.raises(TypeError):
                sol.scale(bad, 1)


    def test_listed():
        got = [sol.scale(a, 2) for a in (4, 5)]
        assert got == [8, 10]
''')}
NAMES = ["test_scale", "test_pairs", "test_refuses", "test_listed"]
GOOD = "def scale(a, b):\n    if not isinstance(a, int):\n        raise TypeError('a')\n    return a * b\n"


def check(tmp_path: Path, source: str) -> dict:
    return judge.check(tests=TESTS, files={LEARNER: source}, learner=LEARNER, workdir=str(tmp_path), names=NAMES,
                       time_limit=5)


def cases(result: dict) -> dict[str, str]:
    return {t["name"]: t.get("case") for t in result["tests"] if t["outcome"] != "passed"}


def test_a_case_names_the_sub_case_not_the_learners_values(tmp_path):
    off_by_one = check(tmp_path, GOOD.replace("return a * b", "return a * b + 1"))
    off_by_two = check(tmp_path, GOOD.replace("return a * b", "return a * b + 2"))
    assert off_by_one["tests"][0]["message"] != off_by_two["tests"][0]["message"], "the messages quote the values"
    assert cases(off_by_one) == cases(off_by_two), "but the cases are the same"
    line = TESTS["test_cases.py"].splitlines().index("        assert got == 10 * a, f\"{what}: expected {10 * a}, "
                                                     "got {got}\"") + 1
    assert cases(off_by_one)["test_scale"] == f"{line}[a=1, what='one'] AssertionError", "the loop's iteration"
    only_negative = check(tmp_path, GOOD.replace("return a * b", "return a * b if a >= 0 else 0"))
    assert cases(only_negative)["test_scale"] == f"{line}[a=-3, what='negative'] AssertionError"


def test_a_case_follows_helpers_and_comprehensions_and_says_what_was_raised(tmp_path):
    zero = check(tmp_path, GOOD.replace("return a * b", "return a * b if a else 1"))
    lines = TESTS["test_cases.py"].splitlines()
    helper = lines.index("    assert got == a * b, f\"scale({a}, {b}) should be {a * b}, got {got}\"") + 1
    second_call = lines.index("    check_pair(0, 5)") + 1
    assert cases(zero)["test_pairs"] == f"{second_call}>{helper} AssertionError", "which call of the helper"
    crash = check(tmp_path, GOOD.replace("return a * b", "return 1 // (a - 4) * a * b"))
    listed = lines.index("    got = [sol.scale(a, 2) for a in (4, 5)]") + 1
    # Python 3.11 gives the comprehension a frame of its own at the same line; 3.12 inlines it: one step either way.
    assert cases(crash)["test_listed"] == f"{listed}[a=4] ZeroDivisionError"
    lax = check(tmp_path, "def scale(a, b):\n    return a * b\n")
    refuses = lines.index("        with pytest.raises(TypeError):") + 1
    # None * 1 raises TypeError by itself; "x" * 1 does not: the sub-case is the string, and pytest's Failed.
    assert cases(lax)["test_refuses"] == f"{refuses}[bad='x'] Failed"


def test_a_timed_out_test_has_no_place(tmp_path):
    result = judge.check(tests=TESTS, files={LEARNER: "def scale(a, b):\n    while True:\n        pass\n"},
                         learner=LEARNER, workdir=str(tmp_path), names=["test_scale"], time_limit=0.3)
    assert result["tests"][0]["case"] == "timeout"
    assert diagnosis.fingerprint(result) is None, "where a time limit lands is the machine's, not the mistake's"


def known(name: str, pitfall: str, prints: list[str]) -> dict:
    return diagnosis.known(name, pitfall, prints)


def failed(*rows: tuple[str, str]) -> dict:
    tests = [{"name": n, "outcome": "failed", "message": "m", "case": c} for n, c in rows]
    return {"status": "failed", "phase": "tests", "tests": tests + [{"name": "ok", "outcome": "passed",
                                                                       "message": ""}]}


def test_diagnose_matches_exactly_and_groups_a_numbered_pitfall():
    mistakes = [known("s03", "3. the wrong side", ["t failed 7 AssertionError"]),
                known("s05", "3. |p - q|", ["t failed 7 AssertionError"]),
                known("other", "a sum in the wrong order", ["t failed 7 AssertionError", "u failed 9 X"]),
                known("s01", "1. u <= r", ["v failed 2 AssertionError"])]
    found = diagnosis.diagnose(failed(("t", "7 AssertionError")), mistakes)
    assert found == [{"pitfall": "the wrong side", "number": 3, "mutants": ["s03", "s05"], "also": ["|p - q|"]}]
    assert diagnosis.diagnose(failed(("t", "7 AssertionError"), ("u", "9 X")), mistakes)[0]["mutants"] == ["other"]
    # A superset of a mutant's failures is not that mutant: partial matches are not offered.
    assert diagnosis.diagnose(failed(("t", "7 AssertionError"), ("v", "2 AssertionError")), mistakes) == []
    assert diagnosis.diagnose(failed(("t", "8 AssertionError")), mistakes) == [], "another sub-case"


def test_no_diagnosis_without_a_verdict_on_the_tests():
    mistakes = [known("m", "x", ["t failed 7 AssertionError"])]
    base = failed(("t", "7 AssertionError"))
    assert diagnosis.diagnose(base, mistakes)
    for change in ({"phase": "import", "status": "error"}, {"phase": "collect", "status": "error"},
                   {"phase": "tampered", "status": "error"}, {"phase": "timeout", "status": "timeout"},
                   {"status": "passed"}):
        assert diagnosis.diagnose({**base, **change}, mistakes) == [], change


def test_at_most_three_the_commonest_first_and_none_when_more_match():
    prints = ["t failed 1 E"]
    mistakes = [known(f"m{i}", f"pitfall {i}", prints) for i in range(2)] + [known("n", "2. twice", prints),
                                                                             known("n2", "2. again", prints)]
    found = diagnosis.diagnose(failed(("t", "1 E")), mistakes)
    assert len(found) == diagnosis.LIMIT and found[0]["number"] == 2 and found[0]["mutants"] == ["n", "n2"]
    assert diagnosis.diagnose(failed(("t", "1 E")), mistakes + [known("m9", "one too many", prints)]) == [], \
        "three of four could leave out the learner's own"


def test_collisions_are_pairs_with_different_pitfalls():
    a, b = known("a", "1. one", ["x"]), known("b", "1. one, said otherwise", ["x"])
    c = known("c", "another", ["x"])
    assert diagnosis.collisions([a, b, c]) == [("a", "c"), ("b", "c")]
