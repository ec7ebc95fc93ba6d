"""Which known mistake a failed check looks like: the learner's failure compared with the mutants', test by test.

Every mutant of an exercise is a known wrong solution with the pitfall it stands for, and a hidden test it must
fail (its `fails`, here `test`). Validation runs the whole hidden suite on each one and keeps how it fails, its
fingerprint (`fingerprint`): for every test that did not pass, its name, its outcome and its case
(checker/messages.py `case`: the hidden test's lines on the way to the exception, the iteration of the test's own
loops, the exception's type). None of that quotes the learner's values, so a learner whose code makes the mistake
a mutant makes fails that mutant's test in the same way, whatever numbers their messages show.

The evidence is read test by test (`diagnose`):

1. A mutant is a candidate when the learner's code fails the mutant's own test exactly as the mutant does (the
   same outcome and case). That test is where the author put the mistake's symptom; the rest of the mutant's
   failures depend on how the reference is built (the reference's sampler calls its acceptance test, so a wrong
   acceptance test fails the sampler's tests too), which a learner's own structure need not share. A learner's
   failures elsewhere therefore neither make nor hide a diagnosis.
2. Between candidates of different pitfalls, the tests on which they disagree decide: each candidate scores the
   tests where the learner's code did what it did, and the pitfalls with the best score are kept.
3. Evidence that fits more pitfalls than `limit` names none: naming some could leave out the learner's. Evidence
   that fits several names them all, as one of several ("pitfall 2 or 5"), never one as if it were certain.
   Pitfalls whose mutants fail every test alike (`same`: validation records them) are one piece of evidence:
   naming one names the others.

No diagnosis is made when the check did not reach the tests' verdicts (the code did not import, the tests could
not be collected, the machinery was changed), when it passed, or when a time limit or Stop ended a test: where
that lands depends on the machine, not on the mistake. tests/unit/test_diagnosis.py and the corpus of
alternative solutions (authoring/corpus.py) measure how often it is right, wrong and silent.

A known mistake, as the build ships it (tools/bundle.py in the exercise bundle, tools/ol_wheel.py beside each
exercise of the `ol` wheel):

    {"mutant": "s01", "pitfall": "accepting on u <= r: ...", "number": 1 | None, "fingerprint": [str, ...],
     "test": "test_accept_is_strict", "same": [{"pitfall": str, "number": int | None}, ...]}

`number` is the page's numbered pitfall the text starts with ("1. accepting on ..."), which the page's pitfalls
table anchors as `#pitfall-1`. Standard library only: this file ships to the browser with the judge.
"""
from __future__ import annotations

import re
from typing import Iterable, Mapping, Sequence

LIMIT = 3  # pitfalls named at most; evidence that fits more names none
NUMBERED = re.compile(r"^\s*(\d+)\.\s+(.*)$", re.S)
PASSED = "passed"


def ended_by_time_limit(test: Mapping) -> bool:
    """Whether a time limit ended this test (the judge's case says so): its failure says nothing about the code."""
    return str(test.get("case", "")).endswith("timeout")


def fingerprint(result: Mapping) -> list[str] | None:
    """How a check failed, as a sorted list of `name outcome case` for every test that did not pass; None when
    the check cannot be diagnosed (module docstring)."""
    if result.get("phase") != "tests" or result.get("status") != "failed":
        return None
    tests = result.get("tests") or []
    failed = [t for t in tests if isinstance(t, Mapping) and t.get("outcome") != "passed"]
    if not failed or any(ended_by_time_limit(t) for t in failed):
        return None
    return sorted(f"{t.get('name')} {t.get('outcome')} {t.get('case', '-')}" for t in failed)


def signatures(prints: Iterable[str]) -> dict[str, str]:
    """A fingerprint as test name -> `outcome case` (a test that is not there passed)."""
    found = {}
    for row in prints:
        name, _, rest = str(row).partition(" ")
        found[name] = rest
    return found


def split_pitfall(text: str) -> tuple[int | None, str]:
    """(the page's pitfall number, the text without it): "3. the residual ..." -> (3, "the residual ...")."""
    found = NUMBERED.match(text)
    return (int(found.group(1)), found.group(2).strip()) if found else (None, text.strip())


def known(name: str, pitfall: str, prints: Sequence[str], test: str = "", core: Sequence[str] = (),
          same: Sequence[Mapping] = ()) -> dict:
    """A known mistake as the build ships it, from a mutant's name, pitfall text, fingerprint, the test it must
    fail, its core tests (those that examine the code the mistake is in, course/known.py `core_tests`), and the
    pitfalls of the mutants that fail every test exactly alike (`same_evidence`)."""
    number, text = split_pitfall(pitfall)
    return {"mutant": name, "pitfall": text, "number": number, "fingerprint": list(prints), "test": test,
            "core": list(core), "same": [dict(s) for s in same]}


def same_evidence(mutants: Sequence[tuple[str, str, Sequence[str] | None]]) -> dict[str, list[dict]]:
    """For each mutant (name, pitfall text, fingerprint), the other pitfalls whose mutants fail every test exactly
    as it does: the evidence cannot tell them apart, so a diagnosis that names one names them all."""
    found: dict[str, list[dict]] = {}
    for name, pitfall, prints in mutants:
        mine = _pitfall_key(*split_pitfall(pitfall))
        others = []
        for other, text, theirs in mutants:
            number, plain = split_pitfall(text)
            if other != name and prints and theirs == prints and _pitfall_key(number, plain) != mine \
                    and {"pitfall": plain, "number": number} not in others:
                others.append({"pitfall": plain, "number": number})
        found[name] = others
    return found


def _pitfall_key(number: int | None, text: str) -> object:
    return number if number is not None else text


def diagnose(result: Mapping, mistakes: Iterable[Mapping], limit: int = LIMIT) -> list[dict]:
    """The known pitfalls the result's failure fits (module docstring), one entry per pitfall, the best fitting
    first; [] when there is no evidence, or it fits more than `limit` pitfalls:
    [{"pitfall": text, "number": N | None, "mutants": [name, ...], "also": [other texts of that pitfall]}]."""
    prints = fingerprint(result)
    if not prints:
        return []
    mine = signatures(prints)
    known = [m for m in mistakes if isinstance(m, Mapping)]
    # The learner's failures that say something: those some mutant shares, and any on a test some mutant is made
    # to fail. A pitfall is named only if its mutants fail them all alike.
    symptoms = set(prints)
    pitfalls: dict[object, list[Mapping]] = {}
    for m in known:
        pitfalls.setdefault(_pitfall_key(m.get("number"), m.get("pitfall", "")), []).append(m)
    found: dict[object, dict] = {}
    for group in pitfalls.values():
        fitting = [m for m in group if _fits(m, mine)]
        explained = set().union(*(m.get("fingerprint") or () for m in group))
        if fitting and symptoms <= explained:
            for m in fitting:
                _add(found, m.get("pitfall", ""), m.get("number"), m.get("mutant", ""))
                for other in m.get("same") or ():
                    _add(found, other.get("pitfall", ""), other.get("number"), None)
    if len(found) > limit:
        return []
    return sorted(found.values(), key=lambda e: (-len(e["mutants"]), e["number"] is None, e["number"] or 0))


def _fits(mistake: Mapping, mine: Mapping[str, str]) -> bool:
    """The learner's code fails the mutant's own test as the mutant does, and does on each of the mutant's core
    tests (those that examine the code the mistake is in) what the mutant does there. Without a named test (known mistakes shipped by an
    older build): every test alike."""
    theirs = signatures(mistake.get("fingerprint") or ())
    test = mistake.get("test")
    if not test:
        return bool(theirs) and theirs == dict(mine)
    if test not in theirs:
        return False
    return all(mine.get(t, PASSED) == theirs.get(t, PASSED) for t in mistake.get("core") or ())


def _add(found: dict, pitfall: str, number: int | None, mutant: str | None) -> None:
    entry = found.setdefault(_pitfall_key(number, pitfall),
                             {"pitfall": pitfall, "number": number, "mutants": [], "also": []})
    if mutant:
        entry["mutants"].append(mutant)
    if pitfall != entry["pitfall"] and pitfall not in entry["also"]:
        entry["also"].append(pitfall)


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
