"""authoring/pages.py's reachability rule on the fixture course: every page is in the nav or a chapter's lessons,
unless `not_in_nav:` leaves it out on purpose (the author's course check)."""
from __future__ import annotations

from pathlib import Path

from mkdocs.config import load_config

from authoring import pages

REPO = Path(__file__).resolve().parents[2]
CONFIG = REPO / "tests" / "fixtures" / "course" / "mkdocs.yml"


def test_a_page_left_out_of_the_nav_on_purpose_is_no_mistake():
    config = load_config(str(CONFIG))
    course = pages.course_of(CONFIG)
    left_out = pages.outside_nav(config, course.docs)
    assert left_out == {"check-course.md", "class.md"}
    listed = set(pages.nav_pages(config.nav))
    assert pages.structure_errors(course, listed | left_out) == []
    errors = pages.structure_errors(course, listed)
    assert [e.split(":")[0] for e in errors] == [f"tests/fixtures/course/docs/{p}" for p in sorted(left_out)]
    assert all("this page is in neither the nav" in e and "`not_in_nav:`" in e for e in errors)


def broken_copy(tmp_path: Path, slug: str | None = None) -> tuple[Path, Path]:
    """A copy of the fixture course (its config pointing at this repository's hooks and theme) in which one
    exercise's manifest (`slug`, else the first) does not load: (the copy's config, that manifest)."""
    import shutil

    course = tmp_path / "course"
    shutil.copytree(CONFIG.parent, course)
    config = course / "mkdocs.yml"
    config.write_text(config.read_text().replace("../../../", f"{REPO}/").replace(
        f"{REPO}/build/fixture-site", str(tmp_path / "site")))
    manifest = (course / "exercises" / slug / "exercise.toml" if slug
                else next((course / "exercises").glob("*/exercise.toml")))
    manifest.write_text(manifest.read_text() + '\n[[hints]]\ntext = "x"\nbogus = 1\n')
    return config, manifest


def test_a_broken_manifest_is_named_once_not_by_every_widget_of_its_page(tmp_path):
    """A manifest that does not load breaks every widget of its page; the author reads its file and line once."""
    import subprocess
    import sys

    config, manifest = broken_copy(tmp_path)
    # The whole course: every page is checked, the broken exercise's own among them.
    done = subprocess.run([sys.executable, "-m", "authoring", "validate", "--root", str(manifest.parent.parent),
                           "--config", str(config)], cwd=REPO, capture_output=True, text=True)
    assert "pages: " in done.stdout and "(every page of" in done.stdout, done.stdout
    lines = [line for line in done.stderr.splitlines() if "bogus: unknown field" in line]
    assert len(lines) == 1 and ":" in lines[0], done.stderr
    assert done.returncode == 1
    assert pages.collapse(["docs/a.md:3: `/// numeric | X1.1 p`: exercises/x1-1/exercise.toml:9: bad",
                           "docs/a.md:5: `/// exercise | X1.1`: exercises/x1-1/exercise.toml:9: bad",
                           "docs/a.md:7: a page's own mistake"]) == ["exercises/x1-1/exercise.toml:9: bad",
                                                                     "docs/a.md:7: a page's own mistake"]


def test_one_broken_exercise_leaves_the_other_pages_alone(tmp_path):
    """While one author's exercise is half-written, another's page checks clean: a manifest that does not load
    breaks the widgets that name its exercise, and no other page's (the pages of one exercise: its page alone)."""
    import mdwidgets
    from course import manifest as manifests

    exercises = manifests.load_all(CONFIG.parent / "exercises")
    lone = next(ex for ex in exercises.values() if not ex.requires and not any(
        ex.id in other.requires for other in exercises.values()))
    others = [ex for ex in exercises.values() if ex.slug != lone.slug and ex.page != lone.page]
    config, _ = broken_copy(tmp_path, lone.slug)
    mdwidgets.reset_cache()
    try:
        for ex in others:
            assert pages.check(config, {ex.page}) == [], ex.page
        errors = pages.check(config, {lone.page})
        assert errors and all("bogus: unknown field" in e for e in errors), errors
        assert len(errors) == 1, errors
    finally:
        mdwidgets.reset_cache()
