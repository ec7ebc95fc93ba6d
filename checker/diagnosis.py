"""Which known mistake a failed check looks like: the learner's failure compared with the mutants'.

Every mutant of an exercise is a known wrong solution with the pitfall it stands for. Validation runs the whole
hidden suite on each one and keeps how it fails, its fingerprint (`fingerprint`): for every test that did not
pass, its name, its outcome and its case (checker/messages.py `case`: the hidden test's lines on the way to the
exception, the iteration of the test's own loops, the exception's type). None of that quotes the learner's
values, so a learner whose code makes the mistake a mutant makes fails in exactly the same way, whatever numbers
their messages show. `diagnose` matches exactly: a partial match (the mutant's failures a subset of the
learner's) was measured and named the wrong pitfall far more often than the right one (tests/unit/
test_diagnosis.py prints the leave-one-out table), so it is not offered.

No diagnosis is made when the check did not reach the tests' verdicts (the code did not import, the tests could
not be collected, the machinery was changed), when it passed, or when a time limit or Stop ended a test: where
that lands depends on the machine, not on the mistake.

A known mistake, as the build ships it (tools/bundle.py in the exercise bundle, tools/ol_wheel.py beside each
exercise of the `ol` wheel):

    {"mutant": "s01", "pitfall": "accepting on u <= r: ...", "number": 1 | None, "fingerprint": [str, ...]}

`number` is the page's numbered pitfall the text starts with ("1. accepting on ..."), which the page's pitfalls
table anchors as `#pitfall-1`. Standard library only: this file ships to the browser with the judge.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

LIMIT = 3  # known mistakes shown at most, best match first
NUMBERED = re.compile(r"^\s*(\d+)\.\s+(.*)$", re.S)


def fingerprint(result: Mapping) -> list[str] | None:
    """How a check failed, as a sorted list of `name outcome case` for every test that did not pass; None when
    the check cannot be diagnosed (module docstring)."""
    if result.get("phase") != "tests" or result.get("status") != "failed":
        return None
    tests = result.get("tests") or []
    failed = [t for t in tests if isinstance(t, Mapping) and t.get("outcome") != "passed"]
    if not failed or any(str(t.get("case", "")).endswith("timeout") for t in failed):
        return None
    return sorted(f"{t.get('name')} {t.get('outcome')} {t.get('case', '-')}" for t in failed)


def split_pitfall(text: str) -> tuple[int | None, str]:
    """(the page's pitfall number, the text without it): "3. the residual ..." -> (3, "the residual ...")."""
    found = NUMBERED.match(text)
    return (int(found.group(1)), found.group(2).strip()) if found else (None, text.strip())


def known(name: str, pitfall: str, prints: Sequence[str]) -> dict:
    """A known mistake as the build ships it, from a mutant's name, pitfall text and fingerprint."""
    number, text = split_pitfall(pitfall)
    return {"mutant": name, "pitfall": text, "number": number, "fingerprint": list(prints)}


def diagnose(result: Mapping, mistakes: Iterable[Mapping], limit: int = LIMIT) -> list[dict]:
    """The known mistakes whose fingerprint equals the result's, one entry per pitfall (mutants that stand for
    the same numbered pitfall are one entry), the most common first; none when more than `limit` pitfalls match
    (naming some of them could leave out the learner's):
    [{"pitfall": text, "number": N | None, "mutants": [name, ...], "also": [other texts of that pitfall]}]."""
    mine = fingerprint(result)
    if not mine:
        return []
    found: dict[object, dict] = {}
    for m in mistakes:
        if not isinstance(m, Mapping) or list(m.get("fingerprint") or ()) != mine:
            continue
        key = m.get("number") or m.get("pitfall")
        entry = found.setdefault(key, {"pitfall": m.get("pitfall", ""), "number": m.get("number"),
                                       "mutants": [], "also": []})
        entry["mutants"].append(m.get("mutant", ""))
        if m.get("pitfall") != entry["pitfall"] and m.get("pitfall") not in entry["also"]:
            entry["also"].append(m.get("pitfall"))
    if len(found) > limit:  # naming three of them could leave out the learner's: too ambiguous to help
        return []
    return sorted(found.values(), key=lambda e: (-len(e["mutants"]), e["number"] is None, e["number"] or 0))


def collisions(mistakes: Iterable[Mapping]) -> list[tuple[str, str]]:
    """Pairs of mutants (by name) that fail exactly alike but stand for different pitfalls: a learner making
    either mistake is shown both. Validation warns of each pair an author has not accepted (`alike`)."""
    items = [m for m in mistakes if m.get("fingerprint")]
    pairs = []
    for i, a in enumerate(items):
        for b in items[i + 1:]:
            same_pitfall = (a.get("number") is not None and a.get("number") == b.get("number")) \
                or a.get("pitfall") == b.get("pitfall")
            if a["fingerprint"] == b["fingerprint"] and not same_pitfall:
                pairs.append((a["mutant"], b["mutant"]))
    return pairs
