"""Unit tests of authoring/careful.py, the careful learners, on the fixture course.

T01.2 of the fixture course has one: careful/new-list-first.toml reads its page's sentence on `scale` and makes
the new list first, then scales it in place; it passes. Tests that plant a mistake copy the fixture course (its
exercises and pages) to tmp_path first; expected line numbers are found in the edited files by their text.
"""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from authoring import careful, pages, validate
from course import known, manifest
from course.manifest import rel
from tools import ol_wheel

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "course"
LEARNER = "careful/new-list-first.toml"
SENTENCE = "`scale(xs, k)` returns a new list, every value of `xs` multiplied by `k`, and leaves `xs` as it was."


def copy_course(tmp_path: Path) -> Path:
    root = tmp_path / "course"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def t01_2(root: Path) -> manifest.Exercise:
    return manifest.load_all(root / "exercises")["t01-2"]


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"fixture edit: {old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def at(path: Path, needle: str) -> str:
    """`path:line` of the one line of `path` that starts with `needle`."""
    found = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith(needle)]
    assert len(found) == 1, f"{needle!r} starts lines {found} of {path.name}"
    return f"{rel(path)}:{found[0]}"


def test_the_fixture_careful_learner_loads_and_reads_its_page():
    ex = t01_2(FIXTURE)
    [learner], problems = careful.load(ex)
    assert problems == []
    assert (learner.name, learner.base, learner.reads) == ("new-list-first", "reference", SENTENCE)
    code = careful.source(ex, learner)
    assert "out[i] *= k" in code and "return [x * k for x in xs]" not in code
    page = FIXTURE / "docs" / ex.page
    assert careful.reads_errors(ex, page, page.read_text(encoding="utf-8")) == []
    assert careful.load(manifest.load_all(FIXTURE / "exercises")["t1-2"]) == ([], []), "none without careful/"


def test_validation_runs_them_and_leaves_them_out_of_the_wheel(tmp_path):
    """Validation judges each careful learner on the whole suite (so editing one makes its cached result stale);
    the ol wheel leaves them out."""
    root = copy_course(tmp_path)
    exercises = manifest.load_all(root / "exercises")
    before = known.content_hash(exercises["t01-2"], exercises)
    (report,), errors = validate.validate_all(["T01.2"], root=root / "exercises", runs=1, jobs=1)
    assert errors == []
    assert report.outcomes["careful:new-list-first"] == {
        "test_clamped_total": "passed", "test_scale": "passed", "test_scale_by_zero": "passed"}
    edit(root / "exercises" / "t01-2" / LEARNER, "in place", "in place, one by one")
    exercises = manifest.load_all(root / "exercises")
    assert known.content_hash(exercises["t01-2"], exercises) != before
    assert not [name for name in ol_wheel.course_files(root / "exercises") if "/careful/" in name]


def test_a_careful_learner_that_fails_says_the_page_needs_a_sentence(tmp_path):
    """A page that never says `scale` returns a list: the careful learner returns the values it was asked for as a
    tuple, and the hidden tests, which compare with a list, fail it. Validation blames the page."""
    root = copy_course(tmp_path)
    vague = "`scale(xs, k)` gives every value of `xs` multiplied by `k`."
    edit(root / "docs" / "t01" / "next.md", SENTENCE, vague)
    path = root / "exercises" / "t01-2" / "careful" / "values-as-a-tuple.toml"
    path.write_text(f'reads = "{vague}"\ndescription = "returns the values as a tuple: the page names no type"\n\n'
                    '[[edit]]\nfind = "    return [x * k for x in xs]"\nreplace = "    return tuple(x * k for x in xs)"\n',
                    encoding="utf-8")
    (root / "exercises" / "t01-2" / LEARNER).unlink()
    _, errors = validate.validate_all(["T01.2"], root=root / "exercises", runs=1, jobs=1)
    assert [e.split(": ", 1)[0] for e in errors] == [at(path, "reads =")] * 2, errors
    assert errors[0].startswith(f"{at(path, 'reads =')}: careful learner values-as-a-tuple fails test_scale "
                                f"(scale([1, 2, 3], 2) gave (2, 4, 6), expected [2, 4, 6]): it takes t01/next.md's "
                                f"words '{vague}' literally (returns the values as a tuple: the page names no type), "
                                f"so the page needs a sentence saying what test_scale pins (or the test is wrong)")
    assert "fails test_scale_by_zero" in errors[1]


def test_a_sentence_no_longer_on_the_page_is_named(tmp_path):
    root = copy_course(tmp_path)
    page = root / "docs" / "t01" / "next.md"
    ex = t01_2(root)
    wrapped = SENTENCE.replace(" every value", "\nevery value")
    edit(page, SENTENCE, wrapped)
    assert careful.reads_errors(ex, page, page.read_text(encoding="utf-8")) == [], "line breaks do not matter"
    edit(page, wrapped, SENTENCE.replace("leaves `xs` as it was", "never changes `xs`"))
    path = root / "exercises" / "t01-2" / LEARNER
    assert careful.reads_errors(ex, page, page.read_text(encoding="utf-8")) == [
        f"{at(path, 'reads =')}: reads: {SENTENCE!r} is not on {rel(page)}: the page changed since this careful "
        f"learner read it; read it again and write the code as its words now say"]
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("../../../", f"{REPO}/"))
    assert [e for e in pages.structure_errors(pages.course_of(config), None) if "careful" in e], \
        "the page checks run it"


@pytest.mark.parametrize("what", ["unknown field", "no edit", "find absent", "unknown base", "does not compile",
                                  "stray file"])
def test_a_malformed_careful_learner_is_one_line_at_its_place(tmp_path, what):
    root = copy_course(tmp_path)
    folder = root / "exercises" / "t01-2" / "careful"
    path = folder / "new-list-first.toml"
    if what == "unknown field":
        edit(path, "description =", "fails = 1\ndescription =")
        want = f"{at(path, 'fails =')}: fails: unknown field (allowed: base, description, edit, reads)"
    elif what == "no edit":
        path.write_text('reads = "x"\ndescription = "y"\n', encoding="utf-8")
        want = (f"{rel(path)}:1: edit: a careful learner needs at least one [[edit]]: it is the base as the page's "
                f"words would have it")
    elif what == "find absent":
        edit(path, 'find = "    return [x * k', 'find = "    return [x * 2')
        want = (f"{at(path, 'find =')}: edit[0].find occurs 0 times in "
                f"{rel(root / 'exercises' / 't01-2' / 'reference.py')} (needs exactly 1)")
    elif what == "unknown base":
        edit(path, "description =", 'base = "loops"\ndescription =')
        want = (f"{at(path, 'base =')}: base: 'loops' is neither \"reference\" nor an alternative "
                f"({rel(folder.parent / 'alternatives' / 'loops.py')} does not exist)")
    elif what == "does not compile":
        edit(path, "        out[i] *= k", "        out[i] *=")
        want = f"{at(path, 'replace =')}: careful learner new-list-first does not compile: invalid syntax at line"
    else:
        (folder / "notes.md").write_text("why\n", encoding="utf-8")
        want = f"{rel(folder / 'notes.md')}:1: not a careful learner: careful/ holds <name>.toml files, kebab-case"
    ex = t01_2(root)
    found, problems = careful.load(ex)
    if not problems:
        with pytest.raises(manifest.ManifestError) as info:
            careful.source(ex, found[0])
        problems = info.value.lines
    assert problems[0].startswith(want), problems
