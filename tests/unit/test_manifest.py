"""Unit tests of course/manifest.py: loading exercise folders, and pointing every mistake at its line.

Broken exercises are copies of the fixture course (tests/fixtures/course/exercises) in tmp_path with one edit,
so each test shows which mistake produces which message, and the platform's tests do not depend on the course's
content. Every edit asserts that its text occurred exactly once, and every expected line number is found in the
edited file by its text: an edit that silently did nothing, or a line counted by hand, would leave a test that
cannot fail or one that breaks for no reason.
"""
from __future__ import annotations

import dataclasses
import shutil
import sys
import textwrap
from pathlib import Path

from types import SimpleNamespace

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from course import manifest  # noqa: E402
from course.manifest import ManifestError  # noqa: E402

FIXTURES = REPO / "tests" / "fixtures" / "course" / "exercises"
LESSON = FIXTURES / "t1-2"
TESTS_FILE = "tests/test_stats.py"


def copy_fixture(root: Path, source: str = "t1-2", slug: str | None = None, ident: str | None = None) -> Path:
    """A copy of a fixture exercise under `root` (renamed to `slug`/`ident` when given)."""
    folder = root / (slug or source)
    shutil.copytree(FIXTURES / source, folder, ignore=shutil.ignore_patterns("__pycache__"))
    if ident:
        original = manifest.load(FIXTURES / source).id
        edit(folder / "exercise.toml", f'id = "{original}"', f'id = "{ident}"')
    return folder


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"fixture edit: {old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def append(path: Path, text: str) -> None:
    path.write_text(path.read_text(encoding="utf-8") + text, encoding="utf-8")


def line_of(path: Path, needle: str) -> int:
    """The one line of `path` that contains `needle` (fails when there are none or several)."""
    found = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]
    assert len(found) == 1, f"{needle!r} is on lines {found} of {path.name}"
    return found[0]


def at(path: Path, needle: str) -> str:
    """`path:line` as messages spell it, for the line holding `needle`."""
    return f"{manifest.rel(path)}:{line_of(path, needle)}"


def load_error(folder: Path) -> str:
    with pytest.raises(ManifestError) as info:
        manifest.load(folder)
    return str(info.value)


def test_the_check_order_is_direct_requirements_first_then_the_others_nearest_first():
    """One order for `ol check` and the page (the bundle's checkOrder): X requires A and B, A requires C."""
    def node(id_: str, *requires: str) -> SimpleNamespace:
        return SimpleNamespace(id=id_, requires=list(requires), manifest=Path(f"{id_}.toml"))
    diamond = {n.id: n for n in [node("X", "A", "B"), node("A", "C"), node("B"), node("C")]}
    assert [d.id for d in manifest.check_order(diamond["X"], diamond)] == ["A", "B", "C"]
    chain = {n.id: n for n in [node("X", "A"), node("A", "B"), node("B", "C"), node("C")]}
    assert [d.id for d in manifest.check_order(chain["X"], chain)] == ["A", "B", "C"]
    # M07.6 requires M07.1, which requires M06.3: M07.1 is named before M06.3.
    course = {n.id: n for n in [node("M07.6", "M07.1"), node("M07.1", "M06.3"), node("M06.3")]}
    assert [d.id for d in manifest.check_order(course["M07.6"], course)] == ["M07.1", "M06.3"]


# --- the fixture course as loaded --------------------------------------------------------------------------------------

def test_the_fixture_course_loads():
    exercises = manifest.load_all(FIXTURES)
    assert sorted(e.id for e in exercises.values()) == ["T01.1", "T01.2", "T1.2"]
    assert {e.id: e.kind for e in exercises.values()} == {"T01.1": "module", "T01.2": "module", "T1.2": "lesson"}
    by_id = {e.id: e for e in exercises.values()}
    assert [e.id for e in manifest.dependency_order(by_id["T01.2"], by_id)] == ["T01.1"]
    assert sorted(e.id for e in exercises.values() if e.milestone == "MS-T1") == ["T01.1", "T01.2"]
    assert [u.id for u in by_id["T01.1"].used_by] == ["T02.9"]  # not written: allowed
    assert all(u.how for u in by_id["T01.1"].used_by)


def test_the_fixture_lesson_as_loaded():
    ex = manifest.load(LESSON)
    assert (ex.id, ex.kind, ex.time_limit, ex.page) == ("T1.2", "lesson", 10.0, "t1/fixture-lesson.md")
    assert ex.module == "fixture.lessons.stats"
    assert ex.import_path == "fixture/lessons/stats.py"
    assert ex.test_names()[:2] == ["test_normalise_of_example", "test_normalise_sums_to_one"]
    assert len(ex.catalogue) == 5 and len(ex.mutants) == 3
    normalised = ex.prompts[0]
    assert (normalised.id, normalised.answer, normalised.index) == ("normalised", (0.25, 0.25, 0.5), 0)
    assert [f.answer for f in ex.prompts[0].feedback] == [(0.5, 0.5, 1.0)]
    assert [c.id for c in ex.choices] == ["predict", "check"]
    assert ex.choices[1].shows_prediction == "predict"
    assert [o.correct for o in ex.choices[1].options] == [True, False]
    with pytest.raises(dataclasses.FrozenInstanceError):
        ex.title = "changed"  # type: ignore[misc]


def test_find_accepts_ids_and_slugs_in_any_case():
    exercises = manifest.load_all(FIXTURES)
    for key in ("T01.1", "t01.1", "t01-1", " T01-1 "):
        assert manifest.find(key, exercises).slug == "t01-1"
    with pytest.raises(KeyError, match="unknown exercise 'Z9.9' \\(known: T01.1, T01.2, T1.2\\)"):
        manifest.find("Z9.9", exercises)


def test_test_definitions_gives_each_def_line():
    tests = LESSON / TESTS_FILE
    defined = manifest.test_definitions(tests)
    assert set(defined) == set(manifest.load(LESSON).test_names())
    assert defined["test_mean_of_example"] == line_of(tests, "def test_mean_of_example(")


# --- field_lines and locate: where a field is written ------------------------------------------------------------------

def test_field_lines_numbers_tables_and_arrays_of_tables():
    text = textwrap.dedent('''\
        id = "X1.1"
        [code]
        path = "python/x.py"
        [[prompts]]
        id = "a"
        [[prompts.feedback]]
        answer = 1
        [[prompts]]
        id = "b"
        [[prompts.feedback]]
        answer = 2
        [[prompts.feedback]]
        answer = 3
        [[tests]]
        name = "test_x"
    ''')
    lines = manifest.field_lines(text)
    assert lines["id"] == 1 and lines["code"] == 2 and lines["code.path"] == 3
    assert lines["prompts"] == lines["prompts[0]"] == 4 and lines["prompts[1]"] == 8
    assert lines["prompts[0].feedback[0].answer"] == 7
    assert lines["prompts[1].feedback[0].answer"] == 11 and lines["prompts[1].feedback[1].answer"] == 13
    assert lines["tests[0].name"] == 15


def test_field_lines_skips_what_multi_line_values_contain():
    text = textwrap.dedent('''\
        explain = """
        id = "not a key"
        [[not.a.table]]
        """
        feedback = \'\'\'
        answer = 4\'\'\'
        quoted = "a \\" [x] # not a comment"
        answers = [
            [1],
            {id = "inline"},
        ]
        id = "real"
        escaped = """ends with an escaped quote \\"""" # a comment
        after = 1
        "quoted.key" = 2
        dotted.key = 3
    ''')
    lines = manifest.field_lines(text)
    assert lines["id"] == 12, "a key inside a multi-line string or array is not a key"
    assert "not.a.table" not in lines and "answer" not in lines
    assert lines["after"] == 14, "a basic string may end with an escaped quote before its delimiter"
    assert lines["quoted.key"] == 15 and lines["dotted.key"] == 16


def test_locate_falls_back_to_the_table_then_line_1():
    lines = manifest.field_lines('id = "X"\n\n[[prompts]]\nid = "a"\nused_by = [{id = "L8.6", how = "x"}]\n')
    assert manifest.locate(lines, "prompts[0].id") == 4
    assert manifest.locate(lines, "prompts[0].answer") == 3, "an absent key: its table's header"
    assert manifest.locate(lines, "prompts[0].used_by[0].id") == 5, "an inline table: its key's line"
    assert manifest.locate(lines, "kind") == 1
    assert manifest.locate(lines, "choices[2].options[1].key") == 1


# --- broken manifests: each problem at its line ----------------------------------------------------------------------

def test_an_unedited_copy_loads(tmp_path):
    """The baseline of every test below: the copy itself is fine, so each failure comes from its one edit."""
    assert manifest.load(copy_fixture(tmp_path)).test_names() == manifest.load(LESSON).test_names()


def test_missing_id(tmp_path):
    folder = copy_fixture(tmp_path)
    edit(folder / "exercise.toml", 'id = "T1.2"\n', "")
    assert load_error(folder) == f"{manifest.rel(folder / 'exercise.toml')}:1: id: missing"


def test_id_not_matching_the_folder(tmp_path):
    folder = copy_fixture(tmp_path)
    edit(folder / "exercise.toml", 'id = "T1.2"', 'id = "T1.3"')
    toml = folder / "exercise.toml"
    where = at(toml, 'id = "T1.3')
    assert load_error(folder).startswith(f"{where}: id: 'T1.3' does not match the folder name 't1-2'")


def test_bad_kind(tmp_path):
    folder = copy_fixture(tmp_path)
    edit(folder / "exercise.toml", 'kind = "lesson"', 'kind = "quiz"')
    toml = folder / "exercise.toml"
    where = at(toml, 'kind = "quiz')
    assert load_error(folder) == f"{where}: kind: expected one of ('lesson', 'module'), got 'quiz'"


def test_bad_time_limit_points_at_it(tmp_path):
    folder = copy_fixture(tmp_path)
    edit(folder / "exercise.toml", "time_limit = 10", "time_limit = 0")
    toml = folder / "exercise.toml"
    assert load_error(folder) == f"{at(toml, 'time_limit = ')}: time_limit: must be between 0 and 300 seconds"


def test_catalogue_test_missing_from_the_test_file(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    append(toml, '\n[[tests]]\nname = "test_not_written"\nkind = "unit"\nchecks = "x"\nwhy = "y"\n')
    assert load_error(folder) == (f"{at(toml, 'test_not_written')}: tests[5].name: in the catalogue but not "
                                  f"defined in {manifest.rel(folder / TESTS_FILE)}: test_not_written")


def test_test_in_the_file_missing_from_the_catalogue(tmp_path):
    folder = copy_fixture(tmp_path)
    tests = folder / TESTS_FILE
    append(tests, "\n\ndef test_extra():\n    pass\n")
    assert load_error(folder) == (f"{at(tests, 'def test_extra(')}: test_extra is defined here but missing from "
                                  f"the catalogue ([[tests]] in {manifest.rel(folder / 'exercise.toml')})")


def test_every_catalogue_mismatch_is_one_line(tmp_path):
    folder = copy_fixture(tmp_path)
    toml, tests = folder / "exercise.toml", folder / TESTS_FILE
    edit(toml, 'name = "test_mean_of_one_value"', 'name = "test_mean_of_a_single_value"')
    append(tests, "\n\ndef test_extra():\n    pass\n")
    with pytest.raises(ManifestError) as info:
        manifest.load(folder)
    assert info.value.lines == [
        f"{at(toml, 'test_mean_of_a_single_value')}: tests[3].name: in the catalogue but not defined in "
        f"{manifest.rel(tests)}: test_mean_of_a_single_value",
        f"{at(tests, 'def test_mean_of_one_value(')}: test_mean_of_one_value is defined here but missing from the "
        f"catalogue ([[tests]] in {manifest.rel(toml)})",
        f"{at(tests, 'def test_extra(')}: test_extra is defined here but missing from the catalogue ([[tests]] in "
        f"{manifest.rel(toml)})",
    ]


def test_prompt_answer_that_is_not_a_number(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, "answer = [0.25, 0.25, 0.5]", 'answer = "one"')
    where = at(toml, 'answer = "one"')
    assert load_error(folder).startswith(f"{where}: prompts[0].answer: expected a number")


def test_feedback_answer_that_is_not_a_number(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, "answer = 4\nmessage", "answer = true\nmessage")
    assert load_error(folder).startswith(f"{at(toml, 'answer = true')}: prompts[1].feedback[0].answer: "
                                         "expected a number")


def test_choice_with_two_correct_options(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'text = "Different numbers every time"\n', 'text = "Different numbers every time"\ncorrect = true\n')
    header = line_of(toml, 'id = "predict"') + 3  # the first [[choices.options]] of choices[0]
    assert toml.read_text().splitlines()[header - 1] == "[[choices.options]]"
    assert load_error(folder) == (f"{manifest.rel(toml)}:{header}: choices[0].options: "
                                  "exactly one option must have correct = true")


def test_shows_prediction_naming_no_predict_question(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'shows_prediction = "predict"', 'shows_prediction = "guess"')
    assert load_error(folder) == (f"{at(toml, 'shows_prediction = ')}: choices[1].shows_prediction: "
                                  "no predict question with id 'guess'")


def line_of_all(path: Path, needle: str) -> list[int]:
    return [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if needle in line]


def test_duplicate_prompt_ids_point_at_the_second(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'id = "check"', 'id = "mean"')
    first, second = line_of_all(toml, 'id = "mean"')
    assert load_error(folder) == f"{manifest.rel(toml)}:{second}: prompts: duplicate prompt ids: mean"


def test_unknown_top_level_field(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'title = "Fixture lesson"\n', 'title = "Fixture lesson"\ncolour = "blue"\n')
    assert load_error(folder).startswith(f"{at(toml, 'colour = ')}: colour: unknown field (allowed: ")


def test_unknown_nested_field_names_its_table(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'id = "mean"\n', 'id = "mean"\nanswr = 1\n')
    assert load_error(folder).startswith(f"{at(toml, 'answr = ')}: prompts[1].answr: unknown field")


def test_a_missing_file_points_at_its_field(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'starter = "starter.py"', 'starter = "begin.py"')
    assert load_error(folder) == (f"{at(toml, 'starter = ')}: code.starter: file not found: "
                                  f"{manifest.rel(folder / 'begin.py')}")


def test_mutant_whose_fails_is_not_in_the_catalogue(tmp_path):
    folder = copy_fixture(tmp_path)
    mutant = folder / "mutants" / "normalise-by-max.toml"
    edit(mutant, 'fails = "test_normalise_of_example"', 'fails = "test_normalise_is_wrong"')
    assert load_error(folder) == (f"{at(mutant, 'fails = ')}: fails: "
                                  "'test_normalise_is_wrong' is not a test of this exercise's catalogue")


def test_invalid_toml_names_the_file_and_line(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'kind = "lesson"', "kind = lesson")
    assert load_error(folder).startswith(f"{at(toml, 'kind = lesson')}: invalid TOML: Invalid value (at line ")


def test_an_unterminated_string_points_where_it_opens(tmp_path):
    """tomllib says only "at end of document"; the line where the string began is where to look."""
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, 'explain = "(2 + 4 + 9) / 3 = **5**."', 'explain = """(2 + 4 + 9) / 3 = **5**."')
    assert load_error(folder) == (f"{at(toml, '(2 + 4 + 9) / 3')}: invalid TOML: Unterminated string "
                                  "(at end of document)")


def test_invalid_toml_in_a_mutant(tmp_path):
    folder = copy_fixture(tmp_path)
    mutant = folder / "mutants" / "sample-ignores-p.toml"
    edit(mutant, 'fails = "test_sample_matches_p"', 'fails = "test_sample_matches_p')
    assert load_error(folder).startswith(f"{at(mutant, 'fails = ')}: invalid TOML: ")


def test_requires_naming_an_unknown_exercise(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, "requires = []", 'requires = ["Z9.9"]')
    with pytest.raises(ManifestError) as info:
        manifest.load_all(tmp_path)
    assert str(info.value) == f"{at(toml, 'requires = ')}: requires[0]: no exercise with id 'Z9.9'"


def test_dependency_cycle(tmp_path):
    first = copy_fixture(tmp_path, "t01-1")
    copy_fixture(tmp_path, "t01-2")
    edit(first / "exercise.toml", "requires = []", 'requires = ["T01.2"]')
    with pytest.raises(ManifestError) as info:
        manifest.load_all(tmp_path)
    assert str(info.value) == (f"{at(first / 'exercise.toml', 'requires = ')}: requires: dependency cycle "
                               "T01.1 -> T01.2 -> T01.1")


def test_an_exercise_requiring_itself_is_a_cycle(tmp_path):
    folder = copy_fixture(tmp_path)
    edit(folder / "exercise.toml", "requires = []", 'requires = ["T1.2"]')
    with pytest.raises(ManifestError, match="requires: dependency cycle T1.2 -> T1.2$"):
        manifest.load_all(tmp_path)


def test_load_all_can_collect_every_problem(tmp_path):
    """The validator reports every broken exercise at once and still loads the others; an exercise that needs
    a broken one is left out with a line saying so."""
    base = copy_fixture(tmp_path, "t01-1")
    nxt = copy_fixture(tmp_path, "t01-2")
    lesson = copy_fixture(tmp_path)
    edit(base / "exercise.toml", 'kind = "module"', 'kind = "mod"')
    errors: list[str] = []
    found = manifest.load_all(tmp_path, errors)
    kind = at(base / "exercise.toml", 'kind = "mod"')
    assert sorted(found) == [lesson.name]
    assert errors == [
        f"{kind}: kind: expected one of ('lesson', 'module'), got 'mod'",
        f"{at(nxt / 'exercise.toml', 'requires = ')}: requires[0]: T01.1 did not load, so T01.2 is not validated "
        "either",
    ]
    with pytest.raises(ManifestError, match="kind: expected one of"):
        manifest.load_all(tmp_path)  # without a list: the first problem is raised, as everywhere else


# --- the course around an exercise: milestone and used_by ------------------------------------------------------------

USED_BY = '\n[[used_by]]\nid = "L8.6"\nhow = "builds on it"\n'


def test_milestone_and_used_by_load(tmp_path):
    folder = copy_fixture(tmp_path)
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
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, "requires = []", f"requires = []\nmilestone = {value}")
    assert load_error(folder) == f"{at(toml, 'milestone = ')}: {problem}"


@pytest.mark.parametrize("old, new, problem, needle", [
    ('how = "builds on it"\n', "", "used_by[0].how: missing", "[[used_by]]"),
    ('how = "builds on it"\n', 'how = ""\n', "used_by[0].how: must not be empty", 'how = ""'),
    ('id = "L8.6"', 'id = "L 8.6"', "used_by[0].id: expected an exercise id like 'L8.6', got 'L 8.6'", "L 8.6"),
    ('id = "L8.6"', 'id = "T1.2"', "used_by[0].id: T1.2 cannot be used by itself", 'id = "T1.2"\nhow'),
    ('id = "L8.6"', 'id = "L8.6"\ntitle = "x"', "used_by[0].title: unknown field (allowed: how, id)", 'title = "x"'),
])
def test_bad_used_by_entry(tmp_path, old, new, problem, needle):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    append(toml, USED_BY)
    edit(toml, old, new)
    text = toml.read_text()
    line = text[:text.rindex(needle)].count("\n") + 1  # the last occurrence: the appended table
    assert load_error(folder) == f"{manifest.rel(toml)}:{line}: {problem}"


def test_inline_used_by_errors_point_at_the_key(tmp_path):
    folder = copy_fixture(tmp_path, "t01-1")
    toml = folder / "exercise.toml"
    edit(toml, 'used_by = [{id = "T02.9"', 'used_by = [{id = "T 02.9"')
    assert load_error(folder) == (f"{at(toml, 'used_by = ')}: used_by[0].id: expected an exercise id like 'L8.6', "
                                  "got 'T 02.9'")


def test_used_by_listed_twice(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    append(toml, USED_BY + USED_BY)
    assert load_error(folder) == f"{manifest.rel(toml)}:{line_of_all(toml, '[[used_by]]')[0]}: used_by: listed twice: L8.6"


def test_used_by_must_be_an_array_of_tables(tmp_path):
    folder = copy_fixture(tmp_path)
    toml = folder / "exercise.toml"
    edit(toml, "requires = []", 'requires = []\nused_by = "L8.6"')
    assert load_error(folder) == f"{at(toml, 'used_by = ')}: used_by: expected an array of tables ([[...]])"


def test_used_by_a_written_exercise_that_does_not_require_it(tmp_path):
    base = copy_fixture(tmp_path, "t01-1")
    lesson = copy_fixture(tmp_path)
    edit(base / "exercise.toml", 'id = "T02.9"', 'id = "T1.2"')
    with pytest.raises(ManifestError) as info:
        manifest.load_all(tmp_path)
    assert str(info.value) == (f"{at(base / 'exercise.toml', 'used_by = ')}: used_by[0].id: T1.2 exists but does "
                               "not list T01.1 in its requires")
    edit(lesson / "exercise.toml", "requires = []", 'requires = ["T01.1"]')
    assert [u.id for u in manifest.load_all(tmp_path)["t01-1"].used_by] == ["T1.2"]


def test_an_unchanged_folder_is_not_read_again_and_a_changed_one_is(tmp_path):
    folder = tmp_path / "t1-2"
    shutil.copytree(FIXTURES / "t1-2", folder)
    first = manifest.load(folder)
    assert manifest.load(folder) is first
    toml = folder / "exercise.toml"
    toml.write_text(toml.read_text().replace(f'title = "{first.title}"', 'title = "Renamed"'))
    again = manifest.load(folder)
    assert again is not first and again.title == "Renamed"
    (folder / "exercise.toml").write_text("id = ")
    with pytest.raises(ManifestError):
        manifest.load(folder)


def test_a_loaded_exercise_is_kept_on_disk_for_the_next_process(tmp_path, monkeypatch):
    """A second process (here: an emptied in-memory memo) takes the exercise from the disk cache, unless a file
    of the folder changed or the stored copy is unreadable."""
    folder = tmp_path / "t1-2"
    shutil.copytree(FIXTURES / "t1-2", folder, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setenv("TL_VALIDATE_CACHE", str(tmp_path / "cache"))
    first = manifest.load(folder)
    real = manifest._load
    monkeypatch.setattr(manifest, "_LOADED", {})
    monkeypatch.setattr(manifest, "_load", lambda f: pytest.fail("read again"))
    assert manifest.load(folder) == first
    (stored,) = (tmp_path / "cache" / "manifests").glob("*.pickle")
    stored.write_bytes(b"not a pickle")
    monkeypatch.setattr(manifest, "_LOADED", {})
    loads = []
    monkeypatch.setattr(manifest, "_load", lambda f: loads.append(f) or real(f))
    assert manifest.load(folder) == first and len(loads) == 1, "an unreadable copy: the folder is read"
    (folder / "exercise.toml").write_text((folder / "exercise.toml").read_text().replace('title = "', 'title = "New '))
    monkeypatch.setattr(manifest, "_LOADED", {})
    assert manifest.load(folder).title.startswith("New ") and len(loads) == 2
