"""Unit tests of checker/manifest.py (loading exercise folders) and checker/validate.py (proving them consistent).

Broken exercises are copies of the real exercises/e7-3 in tmp_path with one edit to their TOML, so each test
shows which mistake produces which message. Every edit asserts that its text occurred exactly once: an edit
that silently did nothing would leave a test that cannot fail.
"""
from __future__ import annotations

import dataclasses
import json
import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from checker import manifest, validate  # noqa: E402
from checker.manifest import ManifestError  # noqa: E402

E73 = REPO / "exercises" / "e7-3"
TESTS_FILE = "tests/test_rejection_correction.py"


def copy_e73(root: Path, slug: str = "e7-3", ident: str = "E7.3") -> Path:
    folder = root / slug
    shutil.copytree(E73, folder, ignore=shutil.ignore_patterns("__pycache__"))
    if ident != "E7.3":
        edit(folder / "exercise.toml", 'id = "E7.3"', f'id = "{ident}"')
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"fixture edit: {old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def load_error(folder: Path) -> str:
    with pytest.raises(ManifestError) as info:
        manifest.load(folder)
    return str(info.value)


def toml_of(folder: Path) -> str:
    """The manifest path as messages spell it (relative to the repo when inside it, else absolute)."""
    return manifest.rel(folder / "exercise.toml")


# --- the real exercises ------------------------------------------------------------------------------------------

def test_the_real_exercises_load():
    exercises = manifest.load_all()
    assert "e7-3" in exercises
    for slug, ex in exercises.items():
        assert ex.slug == slug == ex.folder.name
        assert ex.id.lower().replace(".", "-") == slug
        assert ex.starter.is_file() and ex.reference.is_file() and ex.tests_file.is_file()
        assert len(ex.mutants) == len(list((ex.folder / "mutants").glob("*.toml")))
        by_id = {e.id: e for e in exercises.values()}
        assert all(r in by_id for r in ex.requires)
        assert ex not in manifest.dependency_order(ex, by_id)


def test_e73_as_loaded():
    ex = manifest.load_all()["e7-3"]
    assert (ex.id, ex.kind, ex.time_limit) == ("E7.3", "lesson", 20.0)
    assert ex.module == "tinyllm.lessons.rejection_correction"
    assert ex.import_path == "tinyllm/lessons/rejection_correction.py"
    assert ex.test_names()[:2] == ["test_residual_of_lesson_example", "test_residual_is_normalised"]
    assert len(ex.catalogue) == 13
    residual = ex.prompts[0]
    assert (residual.id, residual.answer, residual.index) == ("residual", (1.0, 0.0, 0.0), 0)
    assert [f.answer for f in ex.prompts[1].feedback] == [(0.375,), (0.25,)]
    assert [c.id for c in ex.choices] == ["predict", "check"]
    assert ex.choices[1].shows_prediction == "predict"
    assert [o.correct for o in ex.choices[1].options] == [False, True]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.title = "changed"  # type: ignore[misc]


def test_dependency_order_of_a_module_with_requirements():
    exercises = manifest.load_all()
    by_id = {e.id: e for e in exercises.values()}
    assert exercises["m07-1"].requires == ("M06.3",)
    assert [e.slug for e in manifest.dependency_order(exercises["m07-1"], by_id)] == ["m06-3"]


def test_find_accepts_ids_and_slugs_in_any_case():
    exercises = manifest.load_all()
    for key in ("E7.3", "e7.3", "e7-3", " E7-3 "):
        assert manifest.find(key, exercises).slug == "e7-3"
    with pytest.raises(KeyError, match="unknown exercise 'Z9.9' \\(known: .*E7.3"):
        manifest.find("Z9.9", exercises)


# --- broken manifests --------------------------------------------------------------------------------------------

def test_an_unedited_copy_loads(tmp_path):
    """The baseline of every test below: the copy itself is fine, so each failure comes from its one edit."""
    assert manifest.load(copy_e73(tmp_path)).test_names() == manifest.load(E73).test_names()


def test_missing_id(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", 'id = "E7.3"\n', "")
    assert load_error(folder) == f"{toml_of(folder)}: id: missing"


def test_id_not_matching_the_folder(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", 'id = "E7.3"', 'id = "E7.4"')
    assert load_error(folder).startswith(f"{toml_of(folder)}: id: 'E7.4' does not match the folder name 'e7-3'")


def test_bad_kind(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", 'kind = "lesson"', 'kind = "quiz"')
    assert load_error(folder) == (f"{toml_of(folder)}: kind: expected one of ('lesson', 'module'), got 'quiz'")


def test_catalogue_test_missing_from_the_test_file(tmp_path):
    folder = copy_e73(tmp_path)
    with (folder / "exercise.toml").open("a", encoding="utf-8") as fh:
        fh.write('\n[[tests]]\nname = "test_not_written"\nkind = "unit"\nchecks = "x"\nwhy = "y"\n')
    message = load_error(folder)
    assert message.startswith(f"{toml_of(folder)}: tests: in the catalogue but not defined in ")
    assert message.endswith("test_rejection_correction.py: test_not_written")


def test_test_in_the_file_missing_from_the_catalogue(tmp_path):
    folder = copy_e73(tmp_path)
    with (folder / TESTS_FILE).open("a", encoding="utf-8") as fh:
        fh.write("\n\ndef test_extra():\n    pass\n")
    message = load_error(folder)
    assert message.startswith(f"{toml_of(folder)}: tests: defined in ")
    assert message.endswith("test_rejection_correction.py but missing from the catalogue: test_extra")


def test_prompt_answer_that_is_not_a_number(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", "answer = [1, 0, 0]", 'answer = "one"')
    assert load_error(folder).startswith(f"{toml_of(folder)}: prompts[0].answer: expected a number")


def test_feedback_answer_that_is_not_a_number(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", "answer = 0.375\nmessage", "answer = true\nmessage")
    assert load_error(folder).startswith(f"{toml_of(folder)}: prompts[1].feedback[0].answer: expected a number")


def test_choice_with_two_correct_options(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", 'text = "No"\nfeedback = "A common',
         'text = "No"\ncorrect = true\nfeedback = "A common')
    assert load_error(folder) == (f"{toml_of(folder)}: choices[0].options: "
                                  "exactly one option must have correct = true")


def test_unknown_top_level_field(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", 'title = "Rejection correction"\n',
         'title = "Rejection correction"\ncolour = "blue"\n')
    assert load_error(folder).startswith(f"{toml_of(folder)}: colour: unknown field (allowed: ")


def test_unknown_nested_field_names_its_table(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", 'id = "total-naive"\n', 'id = "total-naive"\nanswr = 1\n')
    assert load_error(folder).startswith(f"{toml_of(folder)}: prompts[2].answr: unknown field")


def test_mutant_whose_fails_is_not_in_the_catalogue(tmp_path):
    folder = copy_e73(tmp_path)
    mutant = folder / "mutants" / "naive-is-exact.toml"
    edit(mutant, 'fails = "test_naive_distribution_of_lesson_example"', 'fails = "test_naive_is_wrong"')
    assert load_error(folder) == (f"{manifest.rel(mutant)}: fails: "
                                  "'test_naive_is_wrong' is not a test of this exercise's catalogue")


def test_invalid_toml_names_the_file(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", 'kind = "lesson"', "kind = lesson")
    assert load_error(folder).startswith(f"{toml_of(folder)}: invalid TOML: ")


def test_requires_naming_an_unknown_exercise(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", "requires = []", 'requires = ["Z9.9"]')
    with pytest.raises(ManifestError) as info:
        manifest.load_all(tmp_path)
    assert str(info.value) == f"{toml_of(folder)}: requires[0]: no exercise with id 'Z9.9'"


def test_dependency_cycle(tmp_path):
    first = copy_e73(tmp_path)
    second = copy_e73(tmp_path, "e7-4", "E7.4")
    edit(first / "exercise.toml", "requires = []", 'requires = ["E7.4"]')
    edit(second / "exercise.toml", "requires = []", 'requires = ["E7.3"]')
    with pytest.raises(ManifestError) as info:
        manifest.load_all(tmp_path)
    assert str(info.value) == f"{toml_of(first)}: requires: dependency cycle E7.3 -> E7.4 -> E7.3"


def test_an_exercise_requiring_itself_is_a_cycle(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", "requires = []", 'requires = ["E7.3"]')
    with pytest.raises(ManifestError, match="requires: dependency cycle E7.3 -> E7.3$"):
        manifest.load_all(tmp_path)


def test_a_chain_without_cycle_loads(tmp_path):
    first = copy_e73(tmp_path)
    copy_e73(tmp_path, "e7-4", "E7.4")
    edit(first / "exercise.toml", "requires = []", 'requires = ["E7.4"]')
    loaded = manifest.load_all(tmp_path)
    by_id = {e.id: e for e in loaded.values()}
    assert [e.slug for e in manifest.dependency_order(loaded["e7-3"], by_id)] == ["e7-4"]


# --- validate: mutants -------------------------------------------------------------------------------------------

REFERENCE = (E73 / "reference.py").read_text(encoding="utf-8")
TWICE = "    if rng.random() < min(1.0, p[x] / q[x]):\n        return x\n"


def write_mutant(path: Path, *finds: str, description: str = "a deliberate mistake") -> manifest.Mutant:
    edits = "".join(f'\n[[edit]]\nfind = {json.dumps(find)}\nreplace = "    pass"\n' for find in finds)
    path.write_text(f'fails = "test_residual_of_lesson_example"\ndescription = "{description}"\n{edits}',
                    encoding="utf-8")
    return manifest.load_mutant(path, {"test_residual_of_lesson_example"})


def find_lines(path: Path) -> list[int]:
    return [n for n, line in enumerate(path.read_text().splitlines(), 1) if line.startswith("find = ")]


def test_apply_mutant_when_find_does_not_occur(tmp_path):
    path = tmp_path / "absent.toml"
    mutant = write_mutant(path, "    return gap / mass", "    return nothing_like_this")
    with pytest.raises(ManifestError) as info:
        validate.apply_mutant(REFERENCE, mutant)
    assert str(info.value) == (f"{manifest.rel(path)}:{find_lines(path)[1]}: edit[1].find occurs 0 times in the "
                               "reference (needs exactly 1)")


def test_apply_mutant_when_find_occurs_twice(tmp_path):
    assert REFERENCE.count(TWICE) == 2
    path = tmp_path / "twice.toml"
    mutant = write_mutant(path, TWICE)
    with pytest.raises(ManifestError) as info:
        validate.apply_mutant(REFERENCE, mutant)
    assert str(info.value) == (f"{manifest.rel(path)}:{find_lines(path)[0]}: edit[0].find occurs 2 times in the "
                               "reference (needs exactly 1)")


def test_apply_mutant_applies_every_edit():
    mutant = manifest.load_mutant(E73 / "mutants" / "naive-is-exact.toml",
                                  {"test_naive_distribution_of_lesson_example"})
    edited = validate.apply_mutant(REFERENCE, mutant)
    assert edited != REFERENCE
    assert edited == REFERENCE.replace(mutant.edits[0].find, mutant.edits[0].replace)


def test_apply_mutant_line_is_the_find_key_even_when_the_description_says_find(tmp_path):
    path = tmp_path / "wordy.toml"
    mutant = write_mutant(path, "    return nothing_like_this", description="does not find the residual")
    with pytest.raises(ManifestError) as info:
        validate.apply_mutant(REFERENCE, mutant)
    assert str(info.value).startswith(f"{manifest.rel(path)}:{find_lines(path)[0]}: edit[0]")


# --- validate(): whole exercises ---------------------------------------------------------------------------------

def line_containing(path: Path, needle: str) -> int:
    [number] = [n for n, line in enumerate(path.read_text().splitlines(), 1) if needle in line]
    return number


@pytest.fixture(scope="module")
def weak_copy(tmp_path_factory):
    """E7.3 with a mutant that only rewrites a docstring, one whose find is wrong, and a wrong prompt answer."""
    folder = copy_e73(tmp_path_factory.mktemp("weak"))
    for old in (folder / "mutants").glob("*.toml"):
        old.unlink()
    (folder / "mutants" / "docstring-only.toml").write_text(textwrap.dedent('''\
        fails = "test_rejection_probability"
        description = "changes nothing but a docstring"

        [[edit]]
        find = """    \\"\\"\\"1 - sum(min(p, q)): the chance that the drafted token is turned down.\\"\\"\\""""
        replace = """    \\"\\"\\"Rewritten docstring, same behaviour.\\"\\"\\""""
    '''), encoding="utf-8")
    (folder / "mutants" / "stale-find.toml").write_text(textwrap.dedent('''\
        fails = "test_rejection_probability"
        description = "written against an older reference"

        [[edit]]
        find = "    return 1.0 - sum(min(a, b) for a, b in zip(p, q))"
        replace = "    return 0.0"
    '''), encoding="utf-8")
    edit(folder / "exercise.toml", 'id = "total-corrected"\nanswer = 0.5', 'id = "total-corrected"\nanswer = 0.6')
    ex = manifest.load(folder)
    return folder, validate.validate(ex, {ex.slug: ex})


def test_validate_reports_a_surviving_mutant(weak_copy):
    folder, report = weak_copy
    path = folder / "mutants" / "docstring-only.toml"
    survives = [e for e in report.errors if "survives" in e]
    assert survives == [f"{manifest.rel(path)}:1: mutant docstring-only survives: test_rejection_probability "
                        "passes on it (changes nothing but a docstring)"]
    assert report.outcomes["mutant:docstring-only"] == {"test_rejection_probability": "passed"}


def test_validate_reports_a_mutant_that_does_not_apply(weak_copy):
    folder, report = weak_copy
    path = folder / "mutants" / "stale-find.toml"
    expected = f"{manifest.rel(path)}:{find_lines(path)[0]}: edit[0].find occurs 0 times in the reference"
    assert expected + " (needs exactly 1)" in report.errors


def test_validate_reports_a_wrong_prompt_answer_with_its_line(weak_copy):
    folder, report = weak_copy
    toml = folder / "exercise.toml"
    line = line_containing(toml, 'id = "total-corrected"')
    wrong = [e for e in report.errors if "prompts[" in e]
    assert len(wrong) == 1
    assert wrong[0].startswith(f"{manifest.rel(toml)}:{line}: prompts[1].answer: the page says [0.6] but the "
                               "reference computes exact_distribution(P, Q)[0] = ")
    assert wrong[0].endswith("0.5)") or wrong[0].endswith("0.5")  # numpy's repr: np.float64(0.5)


def test_validate_passes_the_reference_and_fails_the_starter(weak_copy):
    _, report = weak_copy
    assert set(report.outcomes["reference"].values()) == {"passed"}
    assert "failed" in report.outcomes["starter"].values() or "error" in report.outcomes["starter"].values()
    assert len(report.errors) == 3, report.errors  # the three planted problems, nothing else


def test_validate_reports_a_reference_that_fails(tmp_path):
    folder = copy_e73(tmp_path)
    for old in (folder / "mutants").glob("*.toml"):
        old.unlink()
    reference = folder / "reference.py"
    edit(reference, "    return gap / mass\n", "    return gap\n")  # an assertion in a test fails
    edit(reference, "(p, dtype=float), np.asarray(q, dtype=float)).sum())",
         "(p, dtype=float), np.asarray(q, dtype=float)).summ())")  # an exception in the reference
    ex = manifest.load(folder)
    report = validate.validate(ex, {ex.slug: ex})
    assert report.outcomes["reference"]["test_residual_of_lesson_example"] == "failed"
    assert report.outcomes["reference"]["test_rejection_probability"] == "error"

    tests_file = folder / TESTS_FILE
    [failed] = [e for e in report.errors if "fails test_residual_of_lesson_example:" in e]
    where = re.match(rf"{re.escape(manifest.rel(tests_file))}:(\d+): the reference fails ", failed)
    assert where, failed
    source = tests_file.read_text().splitlines()
    start = next(n for n, line in enumerate(source, 1) if line.startswith("def test_residual_of_lesson_example("))
    end = next(n for n, line in enumerate(source, 1) if n > start and line.startswith("def "))
    assert start < int(where.group(1)) < end, "the line must be inside the failing test"

    line = line_containing(reference, ".summ()")
    [raised] = [e for e in report.errors if "fails test_rejection_probability:" in e]
    assert raised.startswith(f"{manifest.rel(reference)}:{line}: the reference fails test_rejection_probability: "
                             "AttributeError: ")


# --- the course around an exercise: milestone and used_by ------------------------------------------------------------

USED_BY = '\n[[used_by]]\nid = "L8.6"\nhow = "builds on it"\n'


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_pass_6_modules_and_what_uses_m07_6():
    exercises = manifest.load_all()
    assert sorted(e.id for e in exercises.values() if e.milestone == "MS-P6") == ["M06.3", "M07.1", "M07.6"]
    assert exercises["e7-3"].milestone == "" and exercises["e7-3"].used_by == ()
    assert [u.id for u in exercises["m07-6"].used_by] == ["L8.6", "L10.8"]
    assert all(u.how for u in exercises["m07-6"].used_by)


def test_milestone_and_used_by_load(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", "requires = []", 'requires = []\nmilestone = "MS-P6"')
    append(folder / "exercise.toml", USED_BY)
    ex = manifest.load(folder)
    assert ex.milestone == "MS-P6"
    assert ex.used_by == (manifest.UsedBy("L8.6", "builds on it"),)


@pytest.mark.parametrize("value, problem", [
    ('"P6"', "milestone: expected a milestone id like 'MS-P6', got 'P6'"),
    ('"ms-p6"', "milestone: expected a milestone id like 'MS-P6', got 'ms-p6'"),
    ("6", 'milestone: expected a milestone id like "MS-P6", got 6'),
])
def test_bad_milestone(tmp_path, value, problem):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", "requires = []", f"requires = []\nmilestone = {value}")
    assert load_error(folder) == f"{toml_of(folder)}: {problem}"


@pytest.mark.parametrize("old, new, problem", [
    ('how = "builds on it"\n', "", "used_by[0].how: missing"),
    ('how = "builds on it"\n', 'how = ""\n', "used_by[0].how: must not be empty"),
    ('id = "L8.6"', 'id = "L 8.6"', "used_by[0].id: expected an exercise id like 'L8.6', got 'L 8.6'"),
    ('id = "L8.6"', 'id = "E7.3"', "used_by[0].id: E7.3 cannot be used by itself"),
    ('id = "L8.6"', 'id = "L8.6"\ntitle = "x"', "used_by[0].title: unknown field (allowed: how, id)"),
])
def test_bad_used_by_entry(tmp_path, old, new, problem):
    folder = copy_e73(tmp_path)
    append(folder / "exercise.toml", USED_BY)
    edit(folder / "exercise.toml", old, new)
    assert load_error(folder) == f"{toml_of(folder)}: {problem}"


def test_used_by_listed_twice(tmp_path):
    folder = copy_e73(tmp_path)
    append(folder / "exercise.toml", USED_BY + USED_BY)
    assert load_error(folder) == f"{toml_of(folder)}: used_by: listed twice: L8.6"


def test_used_by_must_be_an_array_of_tables(tmp_path):
    folder = copy_e73(tmp_path)
    edit(folder / "exercise.toml", "requires = []", 'requires = []\nused_by = "L8.6"')
    assert load_error(folder) == f"{toml_of(folder)}: used_by: expected an array of tables ([[...]])"


def test_used_by_a_written_exercise_that_does_not_require_it(tmp_path):
    first = copy_e73(tmp_path)
    second = copy_e73(tmp_path, "e7-4", "E7.4")
    append(first / "exercise.toml", USED_BY.replace("L8.6", "E7.4"))
    with pytest.raises(ManifestError) as info:
        manifest.load_all(tmp_path)
    assert str(info.value) == f"{toml_of(first)}: used_by[0].id: E7.4 exists but does not list E7.3 in its requires"
    edit(second / "exercise.toml", "requires = []", 'requires = ["E7.3"]')
    assert [u.id for u in manifest.load_all(tmp_path)["e7-3"].used_by] == ["E7.4"]
