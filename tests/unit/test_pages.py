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
