"""course/records.py, the one serialiser of an exercise's browser view, and the places that use it: the code cell's
widget data (mdwidgets), the exercise bundles and the index (tools/bundle.py), the course blocks' status entries
(mdwidgets/course.py). On the fixture course (tests/fixtures/course)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(Path(__file__).parent))

import mdwidgets  # noqa: E402
from course import manifest, records  # noqa: E402
from test_widgets import convert, parse  # noqa: E402
from tools import bundle  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"


@pytest.fixture(scope="module")
def exercises() -> dict[str, manifest.Exercise]:
    return manifest.load_all(FIXTURE)


@pytest.fixture(autouse=True)
def _fresh_manifests():
    mdwidgets.reset_cache()
    yield
    mdwidgets.reset_cache()


def test_the_shapes_agree_on_every_field_they_share(exercises):
    for ex in exercises.values():
        shapes = {"cell": records.cell(ex, exercises), "bundle": records.bundle(ex, exercises),
                  "index": records.index_entry(ex, exercises), "status": records.status(ex)}
        for a, first in shapes.items():
            for b, second in shapes.items():
                shared = (first.keys() & second.keys()) - {"tests"}  # the cell's catalogue, the bundle's sources
                assert {k: first[k] for k in shared} == {k: second[k] for k in shared}, (ex.id, a, b)
        assert shapes["status"].items() <= shapes["index"].items(), "an index entry is a status entry and more"


def test_what_each_shape_carries(exercises):
    t012 = exercises["t01-2"]  # requires T01.1
    cell, full = records.cell(t012, exercises), records.bundle(t012, exercises)
    assert (cell["requires"], full["requires"], full["directRequires"]) == (["t01-1"], ["t01-1"], ["t01-1"])
    assert full["checkOrder"] == ["t01-1"], "the dependency rule's order, computed once (manifest.check_order)"
    assert full["tests"] == {t012.tests_file.name: t012.tests_file.read_text(encoding="utf-8")}
    assert full["reference"] == t012.reference.read_text(encoding="utf-8") and full["names"] == t012.test_names()
    assert [t["name"] for t in cell["tests"]] == t012.test_names()
    # The page and the index never carry the hidden tests' sources or the reference.
    for shape in (cell, records.index_entry(t012, exercises)):
        assert "reference" not in shape and not isinstance(shape.get("tests"), dict)
    entry = records.index_entry(t012, exercises)
    assert "usedBy" not in entry, "no reader in web/src: the module map renders used_by at build time"
    assert entry["milestone"] == t012.milestone and entry["page"] == t012.page


def test_the_bundles_and_the_index_are_the_serialisers_output(exercises, tmp_path):
    bundle.write(tmp_path, FIXTURE)
    for ex in exercises.values():
        written = json.loads((tmp_path / "exercises" / f"{ex.slug}.json").read_text(encoding="utf-8"))
        assert written == records.bundle(ex, exercises)
    index = json.loads((tmp_path / "exercises" / "index.json").read_text(encoding="utf-8"))
    assert index == [records.index_entry(ex, exercises) for ex in exercises.values()]


def test_the_cell_widget_and_the_course_blocks_embed_the_serialisers_output(exercises):
    cell = parse(convert("/// exercise | T01.2\nx\n///\n")).one("div", "tl-cell")
    assert cell.data() == records.cell(exercises["t01-2"], exercises)
    chapter = parse(convert("/// chapter | T1\n///\n")).one("div", "tl-chapter")
    assert chapter.data()["lessons"] == [records.status(exercises["t1-2"])]
    module_map = parse(convert("/// module-map | MS-T1\n///\n")).one("div", "tl-module-map")
    assert module_map.data()["nodes"] == [records.status(exercises[s]) for s in ("t01-1", "t01-2")]


def test_the_authors_files_hold_each_first_mutant_and_the_test_it_must_fail(exercises, tmp_path):
    """tools/bundle.py write_authoring, for the course check page: the reference with the first mutant's edits,
    which the bundles never carry."""
    from authoring.validate import apply_mutant
    from tools import build_outputs
    assert bundle.write_authoring(tmp_path, FIXTURE) == sorted(exercises)
    for ex in exercises.values():
        written = json.loads((tmp_path / build_outputs.AUTHORING_DIR / f"{ex.slug}.json").read_text(encoding="utf-8"))
        first = ex.mutants[0]
        assert written == {"slug": ex.slug, "id": ex.id, "mutant": {
            "name": first.name, "fails": first.fails, "source": apply_mutant(ex.reference.read_text(), first)}}
        assert written["mutant"]["source"] != ex.reference.read_text()
        assert "mutants" not in records.bundle(ex, exercises)
