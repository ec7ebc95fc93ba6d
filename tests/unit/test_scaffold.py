"""`make new` (authoring/scaffold.py) on a throw-away course: what it writes validates, shows up, and refusals write nothing.

The course is built in tmp_path from nothing but a config, a home page and one chapter definition, so these tests
depend on no content of the real course.
"""
from __future__ import annotations

import sys
from pathlib import Path

import markdown
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import mdwidgets  # noqa: E402
from course import chapters, manifest  # noqa: E402
from authoring import pages, scaffold  # noqa: E402

CONFIG = f"""\
site_name: scaffold test
docs_dir: docs
theme:
  name: material
  custom_dir: {REPO / "overrides"}
hooks:
  - {REPO / "tools" / "mkdocs_hooks.py"}
markdown_extensions:
  - tables
  - mdwidgets: {{errors: log}}
nav:
  - Home: index.md
  - "T5 A chapter":
      - "Chapter overview": t5/index.md
  - "Modules":
      - "Module map": modules.md
"""


@pytest.fixture()
def course(tmp_path) -> Path:
    (tmp_path / "docs" / "t5").mkdir(parents=True)
    (tmp_path / "exercises" / "chapters").mkdir(parents=True)
    (tmp_path / "mkdocs.yml").write_text(CONFIG)
    (tmp_path / "docs" / "index.md").write_text("# Home\n")
    (tmp_path / "docs" / "modules.md").write_text("# Modules\n")
    (tmp_path / "docs" / "t5" / "index.md").write_text("# T5\n\n/// chapter | T5\n///\n")
    (tmp_path / "exercises" / "chapters" / "t5.toml").write_text(
        'id = "T5"\ntitle = "A chapter"\npage = "t5/index.md"\nlessons = ["T5.1", "T5.2"]\n')
    mdwidgets.reset_cache()
    yield tmp_path
    mdwidgets.reset_cache()


def new(course: Path, *args: str) -> int:
    return scaffold.main([*args, "--config", str(course / "mkdocs.yml")])


def tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def convert(course: Path, page: str) -> str:
    mdwidgets.reset_cache()
    text = (course / "docs" / page).read_text()
    mdwidgets.set_source(f"docs/{page}", text)
    md = markdown.Markdown(extensions=["mdwidgets"],
                           extension_configs={"mdwidgets": {"exercises": str(course / "exercises")}})
    return md.convert(text)


def test_a_planned_lesson_is_written_validated_and_listed(course, capsys):
    assert new(course, "--id", "T5.2", "--kind", "lesson", "--title", "Second steps") == 0
    out = capsys.readouterr().out
    assert "T5.2 validates" in out
    folder = course / "exercises" / "t5-2"
    for name in ("exercise.toml", "starter.py", "reference.py", "tests/test_second_steps.py",
                 "mutants/drops-first.toml"):
        assert (folder / name).is_file(), name
    ex = manifest.load(folder)
    assert (ex.kind, ex.page, ex.learner_path) == ("lesson", "t5/second-steps.md",
                                                   "python/tinyllm/lessons/second_steps.py")
    nav = (course / "mkdocs.yml").read_text()
    assert '      - "Chapter overview": t5/index.md\n      - "T5.2 Second steps": t5/second-steps.md\n' in nav
    assert "lessons = [\"T5.1\", \"T5.2\"]" in (course / "exercises" / "chapters" / "t5.toml").read_text()
    assert pages.check(course / "mkdocs.yml") == []
    overview = convert(course, "t5/index.md")
    assert 'href="second-steps.md">T5.2 Second steps</a>' in overview
    assert "Lesson 1</span>: <span class=\"tl-lesson-state\">not yet written" in overview
    page = convert(course, "t5/second-steps.md")
    assert "<strong>T5.2</strong> · Lesson 2 of 2 · " in page
    # Every part a lesson has (a predict-first question and its reveal, a numeric prompt, the code cell, a check
    # question, the pitfalls table), each a widget that renders, so the author replaces examples, not structure.
    for marker in ('data-kind="predict"', 'data-after="predict"', 'data-prompt="scaled"', 'data-kind="check"',
                   'id="pitfall-1"', 'data-kind="exercise"'):
        assert marker in page, marker
    assert "tl-widget-error" not in page


def test_a_lesson_the_chapter_does_not_list_is_appended_and_placed_after_the_previous(course):
    assert new(course, "--id", "T5.1", "--kind", "lesson", "--title", "First", "--no-validate") == 0
    assert new(course, "--id", "T5.4", "--kind", "lesson", "--title", "Fourth", "--no-validate") == 0
    text = (course / "exercises" / "chapters" / "t5.toml").read_text()
    assert 'lessons = ["T5.1", "T5.2", "T5.4"]' in text
    nav = (course / "mkdocs.yml").read_text()
    assert nav.index("t5/first.md") < nav.index("t5/fourth.md") < nav.index('"Modules"')
    assert chapters.load_chapters(course / "exercises", manifest.load_all(course / "exercises"))["T5"].number(
        "T5.4") == 3


def test_a_lesson_of_a_new_chapter_creates_the_chapter(course):
    assert new(course, "--id", "T6.1", "--kind", "lesson", "--title", "Opening") == 0
    defined = chapters.load_chapters(course / "exercises", manifest.load_all(course / "exercises"))
    assert defined["T6"].lessons == ("T6.1",) and defined["T6"].page == "t6/index.md"
    nav = (course / "mkdocs.yml").read_text()
    assert nav.index('"T6 Chapter T6"') < nav.index('"Modules"')
    assert pages.check(course / "mkdocs.yml") == []


def test_modules_with_a_requirement_appear_on_the_module_map(course):
    assert new(course, "--id", "T01.1", "--kind", "module", "--title", "Base", "--milestone", "MS-T9") == 0
    assert new(course, "--id", "T01.2", "--kind", "module", "--title", "Next", "--requires", "T01.1") == 0
    assert manifest.load(course / "exercises" / "t01-2").requires == ("T01.1",)
    nav = (course / "mkdocs.yml").read_text()
    assert nav.index("modules.md") < nav.index("t01/base.md") < nav.index("t01/next.md")
    (course / "docs" / "modules.md").write_text("# Modules\n\n/// module-map | MS-T9\n///\n")
    html = convert(course, "modules.md")
    assert 'data-node="T01.1"' in html and 'data-node="T01.2"' in html
    assert "needs T01.1" in html


@pytest.mark.parametrize("args, message", [
    (["--id", "t5_2", "--kind", "lesson", "--title", "X"], "make new: ID 't5_2' is malformed"),
    (["--id", "T5.2", "--kind", "lesson", "--title", "X", "--chapter", "T7"], "make new: CHAPTER T7 does not match"),
    (["--id", "T01.1", "--kind", "module", "--title", "X", "--requires", "T99.9"],
     "make new: unknown requirement 'T99.9'"),
    (["--id", "T01.1", "--kind", "module", "--title", "X", "--milestone", "P6"], "make new: MILESTONE 'P6' is malformed"),
    (["--id", "T5.2", "--kind", "lesson", "--title", "  "], "make new: TITLE is empty"),
])
def test_refusals_are_one_line_and_write_nothing(course, capsys, args, message):
    before = tree(course)
    assert new(course, *args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and "\n" not in err, err
    assert tree(course) == before


def test_an_existing_id_is_refused(course, capsys):
    assert new(course, "--id", "T5.1", "--kind", "lesson", "--title", "First", "--no-validate") == 0
    capsys.readouterr()
    before = tree(course)
    assert new(course, "--id", "T5.1", "--kind", "lesson", "--title", "Again") == 2
    assert capsys.readouterr().err.strip().startswith("make new: T5.1 exists already")
    assert tree(course) == before


def test_the_scaffolded_starter_fails_and_reference_passes(course):
    from authoring import validate

    assert new(course, "--id", "T5.1", "--kind", "lesson", "--title", "First", "--no-validate") == 0
    ex = manifest.load(course / "exercises" / "t5-1")
    reports, errors = validate.validate_all(["T5.1"], root=course / "exercises")
    assert errors == []
    outcomes = reports[0].outcomes
    assert set(outcomes["reference"].values()) == {"passed"}
    assert "passed" not in set(outcomes["starter"].values())
    assert outcomes["mutant:drops-first"] == {ex.mutants[0].fails: "failed"}
    # The corpus: the alternative passes, its injected mistake fails; the prompt agrees with the reference.
    assert set(outcomes["alternative:loop"].values()) == {"passed"}
    assert outcomes["injected:loop/drops-first"] == {"status": "failed"}
    assert "prompt:scaled" in outcomes
    assert ex.mutants[0].pitfall.startswith("1. ")


def test_a_scaffolded_module_names_no_pitfall_row_and_has_no_lesson_questions(course):
    assert new(course, "--id", "T01.1", "--kind", "module", "--title", "Base") == 0
    ex = manifest.load(course / "exercises" / "t01-1")
    assert not ex.prompts and not ex.choices and not ex.mutants[0].pitfall[0].isdigit()

