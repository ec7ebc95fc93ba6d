"""Unit tests of the course widgets (mdwidgets/course.py) and the per-page state (mdwidgets/page.py).

`/// chapter`, `/// lesson`, `/// chapter-section` and `/// module-map`, Markdown in, HTML out, on the fixture
course (tests/fixtures/course): its chapter T1 lists three lessons of which T1.2 is written, and its modules T01.1
and T01.2 count towards MS-T1. Copies in tmp_path with other ids, requirements and milestones show that the
output follows the manifests and chapter definitions rather than anything kept elsewhere.
"""
from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import markdown
import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).parent))

import mdwidgets  # noqa: E402
from course import chapters, manifest  # noqa: E402
from test_widgets import parse  # noqa: E402  (the strict HTML tree builder)
from tools import bundle  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"
CHAPTER = """
    /// chapter | T1

    The lessons, in order.
    ///
"""
MAP = """
    /// module-map | MS-T1
    Both fixture modules check **green**.
    ///
"""


@pytest.fixture(autouse=True)
def _fresh_manifests():
    mdwidgets.reset_cache()
    yield
    mdwidgets.reset_cache()


def convert(text: str, page: str = "docs/t1/index.md", exercises: Path = FIXTURE, raw: str | None = None,
            errors: str = "raise") -> markdown.Markdown:
    text = textwrap.dedent(text)
    mdwidgets.set_source(page, text, raw=raw)
    md = markdown.Markdown(extensions=["mdwidgets"],
                           extension_configs={"mdwidgets": {"exercises": str(exercises), "errors": errors}})
    md.html = md.convert(text)
    return md


def html(text: str, **kwargs) -> str:
    return convert(text, **kwargs).html


def error(text: str, exercises: Path = FIXTURE) -> str:
    with pytest.raises(mdwidgets.WidgetError) as info:
        convert("Intro.\n" + textwrap.dedent(text), "docs/x.md", exercises)
    return str(info.value)


def copy_course(root: Path) -> Path:
    """A copy of the fixture course's exercise folders and chapters, to edit."""
    shutil.copytree(FIXTURE, root / "exercises", ignore=shutil.ignore_patterns("__pycache__"))
    return root / "exercises"


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"fixture edit: {old!r} occurs {text.count(old)} times in {path.name}"
    path.write_text(text.replace(old, new), encoding="utf-8")


# --- chapter -----------------------------------------------------------------------------------------------------

def test_chapter_lists_its_lessons_written_or_planned():
    root = parse(html(CHAPTER)).one("div", "tl-chapter", data_chapter="T1")
    defined = chapters.load_chapters(FIXTURE, manifest.load_all(FIXTURE))["T1"]
    items = root.one("ol", "tl-lessons").find_all("li")
    assert [i.attrs["data-id"] for i in items] == list(defined.lessons)
    assert [i.attrs["data-lesson"] for i in items] == [str(n) for n in range(1, len(defined.lessons) + 1)]
    written = [i for i in items if "tl-unwritten" not in i.classes]
    assert [i.attrs.get("data-exercise") for i in written] == ["t1-2"]
    lesson = written[0]
    assert lesson.one("a").attrs["href"] == "fixture-lesson.md"  # relative to docs/t1/index.md
    assert lesson.text() == "Lesson 2: T1.2 Fixture lesson · not started"
    assert lesson.attrs["data-status"] == "not-started"
    assert items[0].text() == "Lesson 1: not yet written"
    assert root.one("p", "tl-chapter-count").text() == "3 lessons, 1 written so far."
    assert "The lessons, in order." in root.one("div", "tl-chapter-intro").text()
    ex = manifest.load_all(FIXTURE)["t1-2"]
    assert root.data() == {"chapter": "T1", "lessons": [{
        "slug": "t1-2", "id": "T1.2", "kind": "lesson", "prompts": [p.id for p in ex.prompts],
        "choices": [{"id": c.id, "kind": c.kind} for c in ex.choices]}]}


def test_chapter_follows_its_definition(tmp_path):
    """A lesson added to the definition, and a lesson folder written, change the overview with no page edit."""
    exercises = copy_course(tmp_path)
    edit(exercises / "chapters" / "t1.toml", '"T1.3"]', '"T1.3", "T1.4"]')
    shutil.copytree(exercises / "t1-2", exercises / "t1-3")
    edit(exercises / "t1-3" / "exercise.toml", 'id = "T1.2"', 'id = "T1.3"')
    edit(exercises / "t1-3" / "exercise.toml", 'title = "Fixture lesson"', 'title = "Third"')
    root = parse(html(CHAPTER, exercises=exercises)).one("div", "tl-chapter")
    items = root.one("ol", "tl-lessons").find_all("li")
    assert [i.attrs.get("data-exercise", "") for i in items] == ["", "t1-2", "t1-3", ""]
    assert root.one("p", "tl-chapter-count").text() == "4 lessons, 2 written so far."


def test_chapter_links_are_relative_to_the_page():
    root = parse(html(CHAPTER, page="docs/index.md"))
    assert root.one("a").attrs["href"] == "t1/fixture-lesson.md"


@pytest.mark.parametrize("text, problem", [
    ("/// chapter | T1\n    lessons: 3\n///",
     "remove the option `lessons:`: the chapter's lessons are listed in exercises/chapters/t1.toml"),
    ("/// chapter | T9\n///", "no chapter T9 (define it in exercises/chapters/t9.toml; known: T1)"),
    ("/// chapter | t1.2\n///", "expected a chapter id, like `E7`"),
])
def test_chapter_errors_name_the_page_and_line(text, problem):
    header = text.splitlines()[0]
    assert error(text) == f"docs/x.md:2: `{header}`: {problem}"


# --- chapter definitions -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("old, new, problem", [
    ('lessons = ["T1.1", "T1.2", "T1.3"]', 'lessons = ["T1.1", "T1.3"]',
     "exercises/t1-2/exercise.toml:2: id: lesson T1.2 belongs to no chapter: add 'T1.2' to `lessons`"),
    ('lessons = ["T1.1", "T1.2", "T1.3"]', 'lessons = ["T1.1", "T1.2", "T2.1"]',
     "exercises/chapters/t1.toml:5: lessons[2]: 'T2.1' is not a lesson id of T1 (like T1.1)"),
    ('lessons = ["T1.1", "T1.2", "T1.3"]', 'lessons = ["T1.1", "T1.2", "T1.1"]',
     "exercises/chapters/t1.toml:5: lessons: listed twice: T1.1"),
    ('file = "t1/notes.md"', 'file = "t1/none.md"', "exercises/chapters/t1.toml:9: shared[0].file: file not found"),
    ('id = "T1"', 'id = "T2"', "exercises/chapters/t1.toml:2: id: 'T2' does not match the file name 't1.toml'"),
    ('title = "Fixture chapter"', 'title = "Fixture chapter"\npages = 3', "exercises/chapters/t1.toml:4: pages: "
     "unknown field"),
])
def test_chapter_definition_mistakes_are_one_line_with_the_line(tmp_path, old, new, problem):
    exercises = copy_course(tmp_path)
    edit(exercises / "chapters" / "t1.toml", old, new)
    with pytest.raises(manifest.ManifestError) as info:
        chapters.load_chapters(exercises, manifest.load_all(exercises))
    message = str(info.value).replace(str(tmp_path) + "/", "")
    assert message.startswith(problem) and "\n" not in message, message


def test_a_module_listed_as_a_lesson_is_refused(tmp_path):
    exercises = copy_course(tmp_path)
    edit(exercises / "chapters" / "t1.toml", '"T1.1", "T1.2", "T1.3"', '"T1.1", "T1.2", "T1.3"')
    shutil.copytree(exercises / "t01-1", exercises / "t1-3")
    edit(exercises / "t1-3" / "exercise.toml", 'id = "T01.1"', 'id = "T1.3"')
    with pytest.raises(manifest.ManifestError, match=r"lessons\[2\]: T1.3 is an exercise of kind 'module'"):
        chapters.load_chapters(exercises, manifest.load_all(exercises))


# --- lesson header -----------------------------------------------------------------------------------------------

def test_lesson_header_is_derived_from_the_chapter():
    root = parse(html("/// lesson | T1.2\n///\n", page="docs/t1/fixture-lesson.md"))
    el = root.one("p", "tl-eyebrow")
    assert (el.attrs["data-exercise"], el.attrs["data-chapter"]) == ("t1-2", "T1")
    assert el.text() == "T1.2 · Lesson 2 of 3 · Chapter T1, Fixture chapter"
    assert el.one("a").attrs["href"] == "index.md"


@pytest.mark.parametrize("text, problem", [
    ("/// lesson | T01.1\n///", "T01.1 is a module, not a lesson"),
    ("/// lesson | T1.2\n///", "T1.2's page is t1/fixture-lesson.md (tests/fixtures/course/exercises/t1-2/"
                               "exercise.toml), not this page"),
    ("/// lesson | T1.9\n///", "unknown exercise 'T1.9' (known: T01.1, T01.2, T1.2)"),
])
def test_lesson_header_errors(text, problem):
    assert error(text) == f"docs/x.md:2: `{text.splitlines()[0]}`: {problem}"


# --- shared chapter sections -------------------------------------------------------------------------------------

def test_a_shared_section_is_rendered_in_place_with_its_own_widgets():
    md = convert("# Lesson\n\nBefore.\n\n/// chapter-section | T1 notes\n///\n\nAfter.\n",
                 page="docs/t1/fixture-lesson.md")
    root = parse(md.html)
    section = root.one("div", "tl-chapter-section", data_section="T1/notes")
    assert section.one("h2").text() == "Chapter notes"
    cell = section.one("div", "tl-cell", data_kind="example")
    assert "sum(range(5))" in cell.data()["code"]
    assert md.tl_page.sections == ["T1/notes"]
    assert md.html.index("Before.") < md.html.index("Chapter notes") < md.html.index("After.")


def test_an_error_inside_a_shared_section_names_the_shared_file(tmp_path):
    exercises = copy_course(tmp_path)
    notes = exercises / "chapters" / "t1" / "notes.md"
    edit(notes, "total = sum(range(5))", "total = sum(range(5))\nraise ValueError('broken notes')")
    line = notes.read_text().splitlines().index("raise ValueError('broken notes')") + 1
    md = convert("# Lesson\n\n/// chapter-section | T1 notes\n///\n", exercises=exercises, errors="collect")
    assert len(md.tl_page.errors) == 1
    message = md.tl_page.errors[0].replace(str(tmp_path) + "/", "")
    assert message == (f"exercises/chapters/t1/notes.md:{line}: `/// pycell`: the example fails on CPython: "
                       "ValueError: broken notes")


def test_an_unknown_shared_section():
    assert error("/// chapter-section | T1 glossary\n///") == (
        "docs/x.md:2: `/// chapter-section | T1 glossary`: T1 has no shared section 'glossary' (known: notes)")


# --- lines, front matter and collected errors ---------------------------------------------------------------------

def test_lines_count_the_front_matter_the_generator_stripped():
    raw = "---\ntitle: x\n---\n\n# Page\n\n/// numeric | T1.2 nope\nq\n///\n"
    text = raw.split("---\n", 2)[2].lstrip("\n")  # what MkDocs hands to Markdown
    with pytest.raises(mdwidgets.WidgetError) as info:
        convert(text, "docs/x.md", raw=raw)
    assert str(info.value).startswith("docs/x.md:7: `/// numeric | T1.2 nope`")
    assert raw.splitlines()[6] == "/// numeric | T1.2 nope"


def test_every_mistake_of_a_page_is_collected_and_the_rest_still_renders():
    text = ("/// numeric | T1.2 nope\nq\n///\n\n/// exercise | T1.2\nx\n///\n\n"
            "/// choice | T1.2 nope\nq\n///\n")
    md = convert(text, "docs/x.md", errors="collect")
    assert [e.split(":", 2)[1] for e in md.tl_page.errors] == ["1", "9"]
    root = parse(md.html)
    assert len(root.find_all("div", "tl-widget-error")) == 2
    assert root.one("div", "tl-cell", data_kind="exercise").attrs["data-exercise"] == "t1-2"
    assert "T1.2 has no numeric prompt 'nope'" in root.find_all("div", "tl-widget-error")[0].text()


def test_log_mode_logs_one_line_per_mistake(caplog):
    with caplog.at_level("ERROR"):
        convert("/// numeric | T1.2 nope\nq\n///\n\n/// tests | T9.9\n///\n", "docs/x.md", errors="log")
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2 and all(line.startswith("docs/x.md:") and "\n" not in line for line in lines)


# --- module map --------------------------------------------------------------------------------------------------

def test_module_map_of_the_fixture_milestone():
    root = parse(html(MAP, page="docs/modules.md")).one("div", "tl-module-map", data_milestone="MS-T1")
    items = root.one("ol", "tl-map-list").find_all("li")
    assert [i.attrs["data-node"] for i in items] == ["T01.1", "T01.2", "T02.9"]
    assert [i.attrs["data-status"] for i in items] == ["not-started"] * 2 + ["later"]
    assert items[1].one("a").attrs["href"] == "t01/next.md"
    assert "needs T01.1 · counts towards MS-T1" in items[1].text()
    assert items[2].text().startswith("T02.9 · not yet available needs T01.1 · ")
    assert root.data()["members"] == ["t01-1", "t01-2"]
    assert [n["id"] for n in root.data()["nodes"]] == ["T01.1", "T01.2"]

    svg = root.one("svg", "tl-map-svg")
    assert svg.attrs["role"] == "img"
    title = svg.one("title")
    assert svg.attrs["aria-labelledby"] == title.attrs["id"]
    assert "T01.1 → T01.2, T02.9 (not yet available)" in title.text()
    assert len(svg.find_all("line", "tl-map-edge")) == 2
    boxes = {g.attrs["data-node"]: g for g in svg.find_all("g", "tl-map-node")}
    assert list(boxes) == ["T01.1", "T01.2", "T02.9"]
    assert boxes["T02.9"].attrs["data-status"] == "later" and "data-exercise" not in boxes["T02.9"].attrs
    assert svg.one("g", "tl-map-gate").attrs["data-state"] == "closed"

    gate = root.one("div", "tl-gate")
    assert (gate.attrs["data-gate"], gate.attrs["data-state"]) == ("MS-T1", "closed")
    assert gate.one("p", "tl-gate-head").text() == "Milestone MS-T1: gate closed"
    assert "Both fixture modules check green." in gate.one("div", "tl-gate-body").text()
    assert gate.one("p", "tl-gate-count").text() == "Opens when all 2 of its modules pass: T01.1, T01.2."


def test_module_map_errors():
    assert error("/// module-map | MS-P9\n///") == \
        "docs/x.md:2: `/// module-map | MS-P9`: no exercise counts towards MS-P9 (known: MS-T1)"
    assert error("/// module-map | P6\n///") == "docs/x.md:2: `/// module-map | P6`: expected a milestone id, like `MS-P6`"


def copy_module(root: Path, ident: str, kind: str, requires: str = "[]", extra: str = "", tail: str = "") -> None:
    """A copy of the fixture module T01.1 under another id, kind and requirements (no milestone)."""
    folder = root / ident.lower().replace(".", "-")
    shutil.copytree(FIXTURE / "t01-1", folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "exercise.toml"
    text = path.read_text(encoding="utf-8")
    for old, new in (('id = "T01.1"', f'id = "{ident}"'), ('kind = "module"', f'kind = "{kind}"'),
                     ('milestone = "MS-T1"\n', ""), ("requires = []", f"requires = {requires}\n{extra}")):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    text = "\n".join(line for line in text.splitlines() if not line.startswith("used_by")) + "\n"
    path.write_text(text + tail, encoding="utf-8")


def test_module_map_follows_the_manifests(tmp_path):
    copy_module(tmp_path, "M01.1", "module", extra='milestone = "MS-T7"')
    copy_module(tmp_path, "M01.2", "module", '["M01.1"]', 'milestone = "MS-T7"',
                '\n[[used_by]]\nid = "L2.1"\nhow = "uses it"\n[[used_by]]\nid = "L3.1"\nhow = "ports it"\n')
    copy_module(tmp_path, "M00.9", "module")  # not in the milestone and not needed by it: not on the map
    root = parse(html("/// module-map | MS-T7\n///", exercises=tmp_path))
    assert [i.attrs["data-node"] for i in root.find_all("li")] == ["M01.1", "M01.2", "L2.1", "L3.1"]
    assert [i.attrs["data-status"] for i in root.find_all("li")] == ["not-started"] * 2 + ["later"] * 2

    # Once L2.1 is written (requiring M01.2), it is on the map as a live exercise, not "not yet available".
    mdwidgets.reset_cache()
    copy_module(tmp_path, "L2.1", "module", '["M01.2"]')
    root = parse(html("/// module-map | MS-T7\n///", exercises=tmp_path))
    items = {i.attrs["data-node"]: i for i in root.find_all("li")}
    assert list(items) == ["M01.1", "M01.2", "L2.1", "L3.1"]
    assert items["L2.1"].attrs["data-exercise"] == "l2-1" and items["L3.1"].attrs["data-status"] == "later"
    assert "counts towards" not in items["L2.1"].text()
    assert root.one("div", "tl-module-map").data()["members"] == ["m01-1", "m01-2"]


def test_the_index_carries_milestone_and_direct_requires(tmp_path):
    bundle.write(tmp_path, FIXTURE)
    index = {e["id"]: e for e in json.loads((tmp_path / "exercises" / "index.json").read_text())}
    exercises = manifest.load_all(FIXTURE)
    assert {i: e["milestone"] for i, e in index.items()} == {e.id: e.milestone for e in exercises.values()}
    assert "usedBy" not in index["T01.1"]  # read by nothing in the browser; the module map renders used_by
    assert index["T01.2"]["directRequires"] == ["t01-1"]


# --- mutants -----------------------------------------------------------------------------------------------------

def test_mutants_table_lists_every_mutant_file():
    ex = manifest.load_all(FIXTURE)["t1-2"]
    root = parse(html("/// mutants | T1.2\n///\n"))
    holder = root.one("div", "tl-mutants", data_exercise="t1-2")
    rows = holder.find_all("tr", None)[1:]
    assert [r.attrs["data-mutant"] for r in rows] == [m.name for m in ex.mutants]
    for row, m in zip(rows, ex.mutants):
        cells = row.find_all("td")
        assert [c.text() for c in cells] == [m.name, m.description, m.fails]
        assert cells[2].one("a").attrs["href"] == f"#{m.fails}"
    assert holder.one("p", "tl-mutant-count").text().startswith(f"{len(ex.mutants)} mutants")
