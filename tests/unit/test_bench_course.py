"""bench/course.py's generator: a course of N copies of the real exercises that loads and hangs together.

N = 5 is one full cycle of the four exercises plus the first of the next (a copy cut short). Only the generator
is tested here; validating and building the generated course is the benchmark's own work (make bench-course).
"""
import re

import pytest
import yaml

from bench import course as bench_course
from course import chapters, manifest
from authoring import pages


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    return bench_course.generate(tmp_path_factory.mktemp("course") / "c", 5)


@pytest.fixture(scope="module")
def exercises(generated):
    return manifest.load_all(generated.exercises)


def test_the_first_n_of_the_cycle(generated, exercises):
    assert generated.copies == [["E7.3", "M06.3", "M07.1", "M07.6"], ["E107.3"]]
    assert sorted(e.id for e in exercises.values()) == sorted(generated.ids)


def test_chapters_load_one_per_copy(generated, exercises):
    loaded = chapters.load_chapters(generated.exercises, exercises)
    assert sorted(loaded) == ["E107", "E7"]
    assert loaded["E107"].lessons[2] == "E107.3"
    assert loaded["E107"].page == "e107/index.md"
    assert [s.path.relative_to(generated.exercises).as_posix() for s in loaded["E107"].shared] == [
        "chapters/e107/reference.md"]


def test_ids_and_learner_paths_are_unique(exercises):
    ids = [e.id for e in exercises.values()]
    paths = [e.learner_path for e in exercises.values()]
    assert len(set(ids)) == len(ids) == 5
    assert len(set(paths)) == len(paths) == 5
    assert exercises["e107-3"].learner_path == "python/tinyllm/c1/lessons/rejection_correction.py"
    assert exercises["e107-3"].module == "tinyllm.c1.lessons.rejection_correction"


def test_requires_stay_inside_their_copy(generated, exercises):
    copy_of = {i: k for k, ids in enumerate(generated.copies) for i in ids}
    for ex in exercises.values():
        for required in ex.requires:
            assert copy_of[required] == copy_of[ex.id], f"{ex.id} requires {required}"
    assert exercises["m07-6"].requires == ("M07.1",)
    assert {e.milestone for e in exercises.values() if e.kind == "module"} == {"MS-P6"}  # copy 0: the real names


def test_imports_and_mutants_follow_the_renaming(generated, exercises):
    for ex in exercises.values():
        k = next(k for k, ids in enumerate(generated.copies) if ex.id in ids)
        for path in ex.folder.rglob("*.py"):
            names = re.findall(r"\btinyllm\.(\w+)", path.read_text(encoding="utf-8"))
            assert all(name == f"c{k}" for name in names) if k else not any(
                re.fullmatch(r"c\d+", name) for name in names), f"{path}: {names}"
        reference = ex.reference.read_text(encoding="utf-8")
        for mutant in ex.mutants:
            for edit in mutant.edits:
                assert reference.count(edit.find) == 1, f"{mutant.path}: find occurs {reference.count(edit.find)}x"


def test_pages_are_consistent_and_all_in_the_nav(generated):
    course = pages.course_of(generated.config)
    assert course.exercises == generated.exercises.resolve()
    nav = yaml.safe_load(generated.config.read_text(encoding="utf-8"))["nav"]
    listed = set(pages.nav_pages(nav))
    assert pages.structure_errors(course, listed) == []
    assert listed == {p.relative_to(generated.docs).as_posix() for p in generated.docs.rglob("*.md")}


def test_links_between_pages_resolve(generated):
    for page in generated.docs.rglob("*.md"):
        for target in bench_course.LINK_RE.findall(page.read_text(encoding="utf-8")):
            assert (page.parent / target[1]).is_file(), f"{page}: link to {target[1]}"
    overview = (generated.docs / "e107" / "index.md").read_text(encoding="utf-8")
    assert "/// chapter | E107" in overview
    assert "[E107.3](rejection-correction.md)" in overview
    assert "../m107/" not in overview  # copy 1 has no M107.6: the link became text


def test_widget_ids_are_renamed(generated):
    lesson = (generated.docs / "e107" / "rejection-correction.md").read_text(encoding="utf-8")
    assert "/// exercise | E107.3" in lesson and "/// chapter-section | E107 reference" in lesson
    assert not re.search(r"\bE7\b", lesson)
    module_map = (generated.docs / bench_course.MODULE_MAP).read_text(encoding="utf-8")
    assert "/// module-map | MS-P6" in module_map  # copy 0 keeps the real course's names
    assert not (generated.docs / "modules-c1.md").exists()  # copy 1 has no module


def test_a_generated_course_generates_itself_again(generated, tmp_path):
    """Copy 0 is the real course under its own names, so a clone whose course was replaced by a generated one
    (bench/course_test.py) can run the generator again: the same exercises and pages, file for file."""
    again = bench_course.generate(tmp_path / "again", 5, repo=generated.root)
    assert again.copies == generated.copies

    def files(root):
        return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    for part in ("exercises", "docs"):
        mine, theirs = files(getattr(generated, part)), files(getattr(again, part))
        assert sorted(theirs) == sorted(mine), part
        assert [name for name in mine if mine[name] != theirs[name]] == [], part
