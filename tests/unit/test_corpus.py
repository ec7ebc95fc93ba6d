"""Unit tests of authoring/corpus.py, the diagnosis corpus, on the fixture course.

T01.2 of the fixture course has a corpus: alternatives/inlined.py (clamp written with ifs, scale with map), one
injected mistake mirroring the mutant no-clamp, and scale-in-place skipped in SKIPPED.md. Tests that plant a
mistake copy the fixture course to tmp_path first; expected line numbers are found in the edited files by their
text. Tests that go through `run` judge in child processes, as `python -m authoring.corpus` does.
"""
from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from authoring import corpus, validate  # noqa: E402
from checker import diagnosis  # noqa: E402
from course import known, manifest  # noqa: E402
from course.manifest import rel  # noqa: E402
from tools import ol_wheel  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "course" / "exercises"
ALTERNATIVE = "alternatives/inlined.py"
MISTAKE = "alternatives/inlined/no-clamp.toml"


def copy_course(tmp_path: Path) -> Path:
    root = tmp_path / "exercises"
    shutil.copytree(FIXTURES, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def load(root: Path, slug: str = "t01-2") -> corpus.Corpus:
    return corpus.load(manifest.load_all(root)[slug])


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"fixture edit: {old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def at(path: Path, needle: str) -> str:
    """`path:line` of the one line of `path` that contains `needle`."""
    found = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    assert len(found) == 1, f"{needle!r} is on lines {found} of {path.name}"
    return f"{rel(path)}:{found[0]}"


# --- loading ---------------------------------------------------------------------------------------------------------

def test_the_fixture_corpus_loads():
    loaded = load(FIXTURES)
    assert loaded.errors == []
    assert [a.name for a in loaded.alternatives] == ["inlined"]
    [mistake] = loaded.injected
    assert (mistake.alternative, mistake.name, mistake.mirrors.name) == ("inlined", "no-clamp", "no-clamp")
    assert mistake.expected == (None, "lo and hi are ignored"), "an unnumbered pitfall is expected by its text"
    assert "return t" in corpus.apply_edits(loaded.alternatives[0], mistake)
    assert list(loaded.skipped) == ["inlined"] and list(loaded.skipped["inlined"]) == ["scale-in-place"]
    assert load(FIXTURES, "t01-1").alternatives == [], "an exercise without alternatives/ has an empty corpus"


def test_a_numbered_pitfall_is_expected_by_number_and_must_be_injected(tmp_path):
    root = copy_course(tmp_path)
    folder = root / "t01-1" / "alternatives"
    (folder / "ifs").mkdir(parents=True)
    (folder / "ifs.py").write_text(
        "def total(xs):\n    out = 0.0\n    for x in xs:\n        out = out + float(x)\n    return out\n\n\n"
        "def clamp(x, lo, hi):\n    return lo if x < lo else hi if x > hi else x\n", encoding="utf-8")
    (folder / "ifs" / "SKIPPED.md").write_text("- total-by-fsum: a test of the coverage rules\n", encoding="utf-8")
    problems = load(root, "t01-1").errors
    assert problems == [f"{rel(folder / 'ifs')}: mutants neither injected nor listed in SKIPPED.md: clamp-swapped",
                        f"{rel(folder / 'ifs')}: page pitfall 1 is not injected (mirror a mutant of it, like "
                        f"clamp-swapped)"]
    (folder / "ifs" / "swapped.toml").write_text(
        'description = "the bounds swapped"\nmirrors = "clamp-swapped"\n\n[[edit]]\n'
        'find = "lo if x < lo else hi if x > hi"\nreplace = "hi if x < lo else lo if x > hi"\n', encoding="utf-8")
    loaded = load(root, "t01-1")
    assert loaded.errors == []
    assert loaded.injected[0].expected == (1, "min and max swapped: max(min(x, lo), hi) is always hi")


@pytest.mark.parametrize("what", ["invalid TOML", "unknown field", "unknown mirrors", "find absent", "find twice",
                                  "no edit", "does not compile"])
def test_a_malformed_mistake_is_one_line_at_its_place(tmp_path, what):
    root = copy_course(tmp_path)
    path = root / "t01-2" / MISTAKE
    if what == "invalid TOML":
        edit(path, 'mirrors = "no-clamp"', 'mirrors = "no-clamp')
        want = f"{at(path, 'mirrors =')}: invalid TOML: "
    elif what == "unknown field":
        edit(path, 'mirrors = "no-clamp"', 'mirrors = "no-clamp"\nfails = "test_clamped_total"')
        want = f"{at(path, 'fails =')}: fails: unknown field (allowed: description, edit, mirrors)"
    elif what == "unknown mirrors":
        edit(path, 'mirrors = "no-clamp"', 'mirrors = "no-such"')
        want = (f"{at(path, 'mirrors =')}: mirrors: 'no-such' is not a mutant of t01-2 (mutants: no-clamp, "
                f"scale-in-place)")
    elif what == "find absent":
        edit(path, "    if t < lo:", "    if t <= lo:")
        want = f"{at(path, 'find =')}: edit[0].find occurs 0 times in {rel(root / 't01-2' / ALTERNATIVE)} (needs exactly 1)"
    elif what == "find twice":
        path.write_text('description = "x"\nmirrors = "no-clamp"\n\n[[edit]]\nfind = "return"\nreplace = "return"\n')
        want = f"{at(path, 'find =')}: edit[0].find occurs 4 times in {rel(root / 't01-2' / ALTERNATIVE)} (needs exactly 1)"
    elif what == "no edit":
        path.write_text('description = "x"\nmirrors = "no-clamp"\n', encoding="utf-8")
        want = f"{rel(path)}:1: edit: an injected mistake needs at least one [[edit]]"
    else:
        edit(path, 'replace = ""', 'replace = "    if t <\\n"')
        want = f"{at(path, 'replace =')}: the edited inlined.py does not compile: invalid syntax at its line 7"
    loaded = load(root)
    assert loaded.injected == []
    assert loaded.errors[0].startswith(want), loaded.errors
    # what did not load is not counted as injected: its mutant is then neither injected nor skipped
    assert loaded.errors[1:] == [f"{rel(path.parent)}: mutants neither injected nor listed in SKIPPED.md: no-clamp"]


def test_other_mistakes_in_the_corpus_folder(tmp_path):
    root = copy_course(tmp_path)
    folder = root / "t01-2" / "alternatives"
    skipped = folder / "inlined" / "SKIPPED.md"
    skipped.write_text("- scale-in-place: fine\n- nothing-like-it: a stranger\njust prose\n", encoding="utf-8")
    (folder / "orphan").mkdir()
    (folder / "notes.txt").write_text("stray\n", encoding="utf-8")
    (folder / "broken.py").write_text("def scale(xs, k):\n    return [x * k for x in xs\n", encoding="utf-8")
    assert load(root).errors == [
        f"{rel(folder / 'broken.py')}:2: the alternative does not compile: '[' was never closed",
        f"{rel(folder / 'inlined' / 'SKIPPED.md')}:2: 'nothing-like-it' is not a mutant of this exercise",
        f"{rel(folder / 'inlined' / 'SKIPPED.md')}:3: expected `- <mutant>: why it cannot exist here`",
        f"{rel(folder / 'notes.txt')}: not part of a corpus (alternatives/<alt>.py, and <alt>/*.toml and "
        f"<alt>/SKIPPED.md beside it)",
        f"{rel(folder / 'orphan')}: a folder of injected mistakes without its alternative {rel(folder / 'orphan.py')}",
    ]
    skipped.write_text("- scale-in-place: fine\n- no-clamp: but it is injected\n", encoding="utf-8")
    assert load(root).errors[-1] == f"{rel(skipped)}:1: no-clamp is injected, so it cannot be skipped too"


def test_the_corpus_is_validated_and_not_shipped(tmp_path):
    """Validation proves the corpus (an alternative that fails, an injected mistake that survives: errors), so
    editing it makes validation's cached result stale; the ol wheel leaves it out."""
    root = copy_course(tmp_path)
    exercises = manifest.load_all(root)
    before = known.content_hash(exercises["t01-2"], exercises)
    (report,), errors = validate.validate_all(["T01.2"], root=root, runs=1, jobs=1)
    assert errors == [] and any(k.startswith("injected:") for k in report.outcomes)
    assert all(v == {"status": "failed"} for k, v in report.outcomes.items() if k.startswith("injected:"))
    edit(root / "t01-2" / ALTERNATIVE, "    return t\n", "    return t  # edited\n")
    exercises = manifest.load_all(root)
    assert known.content_hash(exercises["t01-2"], exercises) != before
    assert not [name for name in ol_wheel.course_files(root) if "/alternatives/" in name]


def test_validation_refuses_a_failing_alternative_and_a_surviving_mistake(tmp_path):
    """The gate can fail both ways: an alternative that fails a hidden test, and an injected mistake the hidden
    tests no longer catch, each an error at its file."""
    root = copy_course(tmp_path / "a")
    edit(root / "t01-2" / ALTERNATIVE, "    return list(map(lambda x: x * k, xs))", "    return xs")
    _, errors = validate.validate_all(["T01.2"], root=root, runs=1, jobs=1)
    assert any("alternative inlined fails test_scale_by_zero" in e for e in errors), errors
    root = copy_course(tmp_path / "b")
    edit(root / "t01-2" / MISTAKE, 'replace = ""', 'replace = """    if t < lo:\n        return lo\n    if t > hi:\n'
                                                   '        return hi\n"""')
    _, errors = validate.validate_all(["T01.2"], root=root, runs=1, jobs=1)
    assert [e for e in errors if "survives" in e and e.startswith(rel(root / "t01-2" / MISTAKE))], errors


# --- judging ---------------------------------------------------------------------------------------------------------

def test_the_corpus_is_judged_like_the_mutants():
    """The alternative passes, the injected mistake fails, with the judge's whole result (every test's outcome
    and the case of each failure, as checker/diagnosis.py reads them) and its expected pitfall; the mutants,
    judged alongside, give the known mistakes today's diagnosis compares it with."""
    exercises = manifest.load_all(FIXTURES)
    ex = exercises["t01-2"]
    outcome = corpus.run([ex], exercises, jobs=2, with_mutants=True)["t01-2"]
    assert outcome.problems == []
    [record] = outcome.records
    assert (record.alternative, record.name, record.mirrors) == ("inlined", "no-clamp", "no-clamp")
    assert (record.number, record.pitfall) == (None, "lo and hi are ignored")
    assert record.result["status"] == "failed" and record.result["phase"] == "tests"
    outcomes = {t["name"]: t["outcome"] for t in record.result["tests"]}
    assert outcomes == {"test_clamped_total": "failed", "test_scale": "passed", "test_scale_by_zero": "passed"}
    assert [t["case"] for t in record.result["tests"] if t["outcome"] != "passed"][0].endswith("AssertionError")
    assert sorted(outcome.mutants) == ["no-clamp", "scale-in-place"]
    mistakes, source = corpus.known_mistakes(ex, exercises, outcome, cache=None)
    assert source == "mutants judged here" and [m["mutant"] for m in mistakes] == ["no-clamp", "scale-in-place"]
    [(same, found, verdict)] = corpus.diagnose(outcome, mistakes)
    assert same is record and verdict == "right" and found[0]["mutants"] == ["no-clamp"]
    assert corpus.verdict(record, []) == "silent"
    assert corpus.verdict(record, [{"pitfall": "another", "number": None, "mutants": ["x"], "also": []}]) == "wrong"
    numbered = corpus.Record("x", "a", "m", "s01", 3, "the residual", {})
    assert corpus.verdict(numbered, [diagnosis.known("s05", "3. |p - q|", ["t failed c"])]) == "right", \
        "a numbered pitfall is right whichever of its mutants is named"


def test_an_alternative_that_fails_and_a_mistake_that_survives_are_problems(tmp_path):
    root = copy_course(tmp_path)
    alternative = root / "t01-2" / ALTERNATIVE
    edit(alternative, "    return list(map(lambda x: x * k, xs))", "    return list(map(lambda x: x + k, xs))")
    edit(root / "t01-2" / MISTAKE, 'replace = ""', 'replace = """    if t < lo:\n        return lo\n    if t > hi:\n'
                                                   '        return hi\n    t = t + 0\n"""')
    exercises = manifest.load_all(root)
    outcome = corpus.run([exercises["t01-2"]], exercises, jobs=1)["t01-2"]
    tests = root / "t01-2" / "tests" / "test_next.py"
    assert outcome.problems == [
        f"{at(tests, 'assert got == [2, 4, 6]')}: alternative inlined fails test_scale: scale([1, 2, 3], 2) gave "
        f"[3, 4, 5], expected [2, 4, 6]",
        f"{at(tests, 'assert got == [0, 0]')}: alternative inlined fails test_scale_by_zero: scale([1.5, -2], 0) "
        f"gave [1.5, -2], expected [0, 0]",
    ], "the injected mistake fails only because its alternative does: no survivor"
    edit(alternative, "    return list(map(lambda x: x + k, xs))", "    return list(map(lambda x: x * k, xs))")
    outcome = corpus.run([manifest.load_all(root)["t01-2"]], exercises, jobs=1)["t01-2"]
    path = root / "t01-2" / MISTAKE
    assert outcome.problems == [f"{at(path, '[[edit]]')}: injected mistake inlined/no-clamp survives: every hidden "
                                f"test passes on it (returns the total without the two bounds checks)"]


def test_the_command_line(tmp_path, capsys):
    out = tmp_path / "corpus.json"
    code = corpus.main(["--root", str(FIXTURES), "--diagnose", "--json", str(out), "--jobs", "2",
                        "--cache", str(tmp_path / "no-cache")])
    printed = capsys.readouterr().out
    assert code == 0, printed
    assert "| exercise | alternatives | injected | failing (must be all) | skipped | problems | wall time |" in printed
    assert "| T01.2 | inlined | 1 | 1/1 | 1 | 0 |" in printed
    assert "| exercise / alternative | injected | right | right, alone | wrong | silent |" in printed
    assert "| T01.2 inlined | 1 | 1 (100%) | 1 | 0 (0%) | 0 (0%) |" in printed
    assert "| **all** | 1 | 1 (100%) | 1 | 0 (0%) | 0 (0%) |" in printed
    [item] = json.loads(out.read_text(encoding="utf-8"))
    assert item["expected"] == {"number": None, "pitfall": "lo and hi are ignored"} and item["verdict"] == "right"
    assert item["result"]["status"] == "failed" and item["diagnosis"][0]["mutants"] == ["no-clamp"]
    assert corpus.main(["--root", str(FIXTURES), "T9.9"]) == 2
    assert "unknown exercise 'T9.9'" in capsys.readouterr().err
