"""Unit tests of the course widgets (mdwidgets/course.py): `/// chapter` and `/// module-map`, Markdown in, HTML out.

The structure must come from the exercise manifests: the real exercises give E7's lesson 3 and the Pass 6 map, and
copies in tmp_path with other ids, requirements and milestones show that the map follows the manifests rather
than a list kept anywhere else.
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
from checker import manifest  # noqa: E402
from test_widgets import parse  # noqa: E402  (the strict HTML tree builder)
from tools import bundle  # noqa: E402

CHAPTER = """
    /// chapter | E7
        lessons: 6

    The lessons, in order.
    ///
"""
MAP = """
    /// module-map | MS-P6
    Every math module of the pass checks **green**.
    ///
"""


@pytest.fixture(autouse=True)
def _fresh_manifests():
    mdwidgets.reset_cache()
    yield
    mdwidgets.reset_cache()


def convert(text: str, page: str = "docs/e7/index.md", exercises: Path | None = None) -> str:
    text = textwrap.dedent(text)
    mdwidgets.set_source(page, text)
    configs = {"mdwidgets": {"exercises": str(exercises)}} if exercises else {}
    return markdown.Markdown(extensions=["mdwidgets"], extension_configs=configs).convert(text)


def error(text: str, exercises: Path | None = None) -> str:
    with pytest.raises(mdwidgets.WidgetError) as info:
        convert("Intro.\n" + textwrap.dedent(text), "docs/x.md", exercises)
    return str(info.value)


# --- chapter -----------------------------------------------------------------------------------------------------

def test_chapter_lists_six_lessons_with_lesson_3_written():
    root = parse(convert(CHAPTER)).one("div", "tl-chapter", data_chapter="E7")
    items = root.one("ol", "tl-lessons").find_all("li")
    assert [i.attrs["data-lesson"] for i in items] == ["1", "2", "3", "4", "5", "6"]
    written = [i for i in items if "tl-unwritten" not in i.classes]
    assert [i.attrs.get("data-exercise") for i in written] == ["e7-3"]
    lesson = written[0]
    assert lesson.one("a").attrs["href"] == "rejection-correction.md"  # relative to docs/e7/index.md
    assert lesson.text() == "Lesson 3: E7.3 Rejection correction · not started"
    assert lesson.attrs["data-status"] == "not-started"
    assert items[0].text() == "Lesson 1: not yet written"
    assert "The lessons, in order." in root.one("div", "tl-chapter-intro").text()
    ex = manifest.load_all()["e7-3"]
    assert root.data() == {"chapter": "E7", "lessons": [{
        "slug": "e7-3", "id": "E7.3", "kind": "lesson", "prompts": [p.id for p in ex.prompts],
        "choices": [{"id": c.id, "kind": c.kind} for c in ex.choices]}]}


def test_chapter_links_are_relative_to_the_page():
    root = parse(convert(CHAPTER, page="docs/index.md"))
    assert root.one("a").attrs["href"] == "e7/rejection-correction.md"


@pytest.mark.parametrize("text, problem", [
    ("/// chapter | E7\n///", "option `lessons:` must be the number of lessons of E7 (1 to 99), got 0"),
    ("/// chapter | E7\n    lessons: many\n///", "option `lessons:` must be the number of lessons of E7 (1 to 99), got 'many'"),
    ("/// chapter | E7\n    lessons: 2\n///", "E7.3 is lesson 3, but the chapter has 2 lessons"),
    ("/// chapter | e7.3\n    lessons: 6\n///", "expected a chapter id, like `E7`"),
])
def test_chapter_errors_name_the_page_and_line(text, problem):
    header = text.splitlines()[0]
    assert error(text) == f"docs/x.md:2: `{header}`: {problem}"


# --- module map --------------------------------------------------------------------------------------------------

def test_module_map_of_pass_6():
    root = parse(convert(MAP, page="docs/modules.md")).one("div", "tl-module-map", data_milestone="MS-P6")
    items = root.one("ol", "tl-map-list").find_all("li")
    assert [i.attrs["data-node"] for i in items] == ["M06.3", "M07.1", "M07.6", "L8.6", "L10.8"]
    assert [i.attrs["data-status"] for i in items] == ["not-started"] * 3 + ["later"] * 2
    assert items[1].one("a").attrs["href"] == "m07/categorical-sampling.md"
    assert "needs M06.3 · counts towards MS-P6" in items[1].text()
    assert items[3].text().startswith("L8.6 · not yet available needs M07.6 · speculative decoding")
    assert root.data()["members"] == ["m06-3", "m07-1", "m07-6"]
    assert [n["id"] for n in root.data()["nodes"]] == ["M06.3", "M07.1", "M07.6"]

    svg = root.one("svg", "tl-map-svg")
    assert svg.attrs["role"] == "img"
    title = svg.one("title")
    assert svg.attrs["aria-labelledby"] == title.attrs["id"]
    assert ("M06.3 → M07.1; M07.1 → M07.6; M07.6 → L8.6 (not yet available), L10.8 (not yet available)"
            in title.text())
    assert len(svg.find_all("line", "tl-map-edge")) == 4
    boxes = {g.attrs["data-node"]: g for g in svg.find_all("g", "tl-map-node")}
    assert list(boxes) == ["M06.3", "M07.1", "M07.6", "L8.6", "L10.8"]
    assert boxes["L8.6"].attrs["data-status"] == "later" and "data-exercise" not in boxes["L8.6"].attrs
    assert svg.one("g", "tl-map-gate").attrs["data-state"] == "closed"

    gate = root.one("div", "tl-gate")
    assert (gate.attrs["data-gate"], gate.attrs["data-state"]) == ("MS-P6", "closed")
    assert gate.one("p", "tl-gate-head").text() == "Milestone MS-P6: gate closed"
    assert "Every math module of the pass checks green." in gate.one("div", "tl-gate-body").text()
    assert gate.one("p", "tl-gate-count").text() == "Opens when all 3 of its modules pass: M06.3, M07.1, M07.6."


def test_module_map_errors():
    assert error("/// module-map | MS-P9\n///") == \
        "docs/x.md:2: `/// module-map | MS-P9`: no exercise counts towards MS-P9 (known: MS-P6)"
    assert error("/// module-map | P6\n///") == "docs/x.md:2: `/// module-map | P6`: expected a milestone id, like `MS-P6`"


def copy_exercise(root: Path, ident: str, kind: str, requires: str = "[]", extra: str = "", tail: str = "") -> None:
    """A copy of exercises/e7-3 under another id, kind and requirements."""
    folder = root / ident.lower().replace(".", "-")
    shutil.copytree(REPO / "exercises" / "e7-3", folder, ignore=shutil.ignore_patterns("__pycache__"))
    path = folder / "exercise.toml"
    text = path.read_text(encoding="utf-8")
    for old, new in (('id = "E7.3"', f'id = "{ident}"'), ('kind = "lesson"', f'kind = "{kind}"'),
                     ("requires = []", f"requires = {requires}\n{extra}")):
        assert text.count(old) == 1
        text = text.replace(old, new)
    path.write_text(text + tail, encoding="utf-8")


def test_module_map_follows_the_manifests(tmp_path):
    copy_exercise(tmp_path, "M01.1", "module", extra='milestone = "MS-T1"')
    copy_exercise(tmp_path, "M01.2", "module", '["M01.1"]', 'milestone = "MS-T1"',
                  '\n[[used_by]]\nid = "L2.1"\nhow = "uses it"\n[[used_by]]\nid = "L3.1"\nhow = "ports it"\n')
    copy_exercise(tmp_path, "M00.9", "module")  # not in the milestone and not needed by it: not on the map
    root = parse(convert("/// module-map | MS-T1\n///", exercises=tmp_path))
    assert [i.attrs["data-node"] for i in root.find_all("li")] == ["M01.1", "M01.2", "L2.1", "L3.1"]
    assert [i.attrs["data-status"] for i in root.find_all("li")] == ["not-started"] * 2 + ["later"] * 2

    # Once L2.1 is written (requiring M01.2), it is on the map as a live exercise, not "not yet available".
    mdwidgets.reset_cache()
    copy_exercise(tmp_path, "L2.1", "lesson", '["M01.2"]')
    root = parse(convert("/// module-map | MS-T1\n///", exercises=tmp_path))
    items = {i.attrs["data-node"]: i for i in root.find_all("li")}
    assert list(items) == ["M01.1", "M01.2", "L2.1", "L3.1"]
    assert items["L2.1"].attrs["data-exercise"] == "l2-1" and items["L3.1"].attrs["data-status"] == "later"
    assert "counts towards" not in items["L2.1"].text()
    assert root.one("div", "tl-module-map").data()["members"] == ["m01-1", "m01-2"]


def test_the_index_carries_milestone_and_used_by(tmp_path):
    bundle.write(tmp_path)
    index = {e["id"]: e for e in json.loads((tmp_path / "exercises" / "index.json").read_text())}
    assert {i: e["milestone"] for i, e in index.items()} == {"E7.3": "", "M06.3": "MS-P6", "M07.1": "MS-P6",
                                                           "M07.6": "MS-P6"}
    assert [u["id"] for u in index["M07.6"]["usedBy"]] == ["L8.6", "L10.8"]
    assert index["M07.6"]["directRequires"] == ["m07-1"]
