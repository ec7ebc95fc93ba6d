"""The real course, checked from its own manifests: whatever lessons and modules it holds today.

Nothing here names an exercise or counts them, so adding, removing or renaming content keeps these green as
long as the content itself is consistent. The platform's behaviour is tested on tests/fixtures/course.
"""
from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from course import chapters, manifest  # noqa: E402
from authoring import pages  # noqa: E402


def test_every_exercise_and_chapter_loads():
    exercises = manifest.load_all()
    defined = chapters.load_chapters(manifest.EXERCISES, exercises)
    lessons = [e for e in exercises.values() if e.kind == "lesson"]
    assert all(chapters.chapter_of(e.id, defined) for e in lessons)


def test_every_page_and_widget_of_the_site_checks_clean():
    assert pages.check(REPO / "mkdocs.yml") == []


def test_the_real_exercises_load():
    exercises = manifest.load_all()
    assert exercises, "no exercise found in exercises/"
    by_id = exercises.by_id
    for slug, ex in exercises.items():
        assert ex.slug == slug == ex.folder.name
        assert ex.id.lower().replace(".", "-") == slug
        assert ex.starter.is_file() and ex.reference.is_file() and ex.tests_file.is_file()
        assert len(ex.mutants) == len(list((ex.folder / "mutants").glob("*.toml")))
        assert all(r in by_id for r in ex.requires)
        assert ex not in manifest.dependency_order(ex, by_id)
