"""The precision rule of numeric prompts (AUTHORING.md, "Numeric prompts: the precision rule"): course/numeric.py's
roundings and suggested tolerance, and authoring/pages.py holding every prompt of a course to it, on a copy of the
fixture course whose lesson T1.2 gets a prompt of 1.875 (to two decimals, 1.88)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from authoring import pages
from course import manifest, numeric
from course.manifest import rel

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "course"
PROMPT = '''
[[prompts]]
id = "short"
answer = 1.875
expr = "mean([1.5, 2.25])"
tolerance = 1e-3
explain = "(1.5 + 2.25) / 2 = **1.875**."
'''


def test_the_roundings_a_learner_may_type():
    assert numeric.roundings(1.875, 2) == [1.88]
    assert numeric.roundings(0.125, 2) == [0.12, 0.13], "a tie: half up, or half to even"
    assert numeric.roundings(2.0 / 3.0, 2) == [0.67]
    assert numeric.roundings(3.0, 2) == [3.0] and numeric.roundings(0.95, 1) == [1.0]


def test_refused_roundings_and_the_tolerance_to_suggest():
    assert numeric.refused((1.875,), 1e-3, 2) == [(1.875, 1.88)]
    assert numeric.refused((1.875,), 1e-3, 3) == [], "1.875 to three decimals is itself"
    assert numeric.refused((0.25, 4.0), 0.0, 2) == [], "answers with fewer decimals always pass"
    assert numeric.tolerance_for((1.875,), 2) == 0.003  # 0.005 / 1.875 = 0.00267, relative above 1
    # 0.38 - 0.375 is 0.0050000000000000044 in floating point: 0.005 would still refuse it
    assert numeric.tolerance_for((0.375,), 2) == 0.006 and numeric.refused((0.375,), 0.005, 2)
    assert numeric.tolerance_for((1 / 3, 2 / 3), 2) == 0.004
    for answer in [(1.875,), (0.375,), (3.0163,), (0.125, 0.8667)]:
        assert numeric.refused(answer, numeric.tolerance_for(answer, 2), 2) == [], answer


@pytest.fixture
def course(tmp_path: Path) -> Path:
    """A copy of the fixture course whose T1.2 has the prompt `short` (1.875, tolerance 1e-3) on its page."""
    root = tmp_path / "course"
    shutil.copytree(FIXTURE, root, ignore=shutil.ignore_patterns("__pycache__"))
    toml = root / "exercises" / "t1-2" / "exercise.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("[[choices]]", PROMPT.lstrip() + "\n[[choices]]", 1),
                    encoding="utf-8")
    ask(root, "")
    return root


def ask(root: Path, question: str) -> None:
    """Put the prompt `short` on T1.2's page (again), with `question` as its text."""
    page = root / "docs" / "t1" / "fixture-lesson.md"
    text = re.sub(r"/// numeric \| T1\.2 short\n.*?\n///\n\n", "", page.read_text(encoding="utf-8"), flags=re.S)
    text = text.replace("/// exercise | T1.2", f"/// numeric | T1.2 short\n**To do.** {question}\n///\n\n"
                                                "/// exercise | T1.2", 1)
    page.write_text(text, encoding="utf-8")


def errors(root: Path) -> list[str]:
    """The precision errors of T1.2, as the page checks report them."""
    ex = manifest.load_all(root / "exercises")["t1-2"]
    page = root / "docs" / ex.page
    return pages.precision_errors(ex, page, page.read_text(encoding="utf-8"),
                                  pages.course_decimals(root / "exercises"))


def line_of(path: Path, needle: str) -> int:
    """The line of `path` that starts with `needle`, which must be the only one."""
    [found] = [n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if line.startswith(needle)]
    return found


def test_a_tolerance_that_refuses_the_course_precision_is_named_at_its_line(course):
    toml = course / "exercises" / "t1-2" / "exercise.toml"
    page = course / "docs" / "t1" / "fixture-lesson.md"
    assert errors(course) == [
        f"{rel(toml)}:{line_of(toml, 'tolerance = 1e-3')}: prompts[2].tolerance: 0.001 refuses 1.88, the answer "
        f"1.875 rounded to 2 decimals (the course's precision; {rel(page)}:{line_of(page, '/// numeric | T1.2 short')} "
        f"asks for no other): make it 0.003 or more, or ask for more decimals in the question"]
    toml.write_text(toml.read_text(encoding="utf-8").replace("tolerance = 1e-3", "tolerance = 3e-3"), encoding="utf-8")
    assert errors(course) == []


def test_the_page_asks_for_its_own_precision(course):
    ask(course, "The mean of 1.5 and 2.25, to 3 decimals.")
    assert errors(course) == [], "1.875 to three decimals is 1.875 itself"
    ask(course, "The mean of 1.5 and 2.25, to one decimal place.")
    [error] = errors(course)
    page = course / "docs" / "t1" / "fixture-lesson.md"
    assert f"refuses 1.9, the answer 1.875 rounded to 1 decimals (as {rel(page)}:" in error
    assert "make it 0.02 or more" in error
    ask(course, "Give two decimals, or three decimals.")
    assert errors(course) == [f"{rel(page)}:{line_of(page, '/// numeric | T1.2 short')}: `/// numeric | T1.2 short` "
                              f"asks for 2 and 3 decimals: ask for one precision"]


def test_the_course_sets_its_own_precision(course):
    (course / "exercises" / "course.toml").write_text('reveal = "after-pass"\ndecimals = 3\n', encoding="utf-8")
    assert pages.course_decimals(course / "exercises") == 3
    assert errors(course) == []
    (course / "exercises" / "course.toml").write_text("decimals = 13\n", encoding="utf-8")
    with pytest.raises(manifest.ManifestError, match=r"course.toml:1: decimals: must be a whole number from 0 to 12"):
        manifest.course_defaults(course / "exercises")
    assert pages.course_decimals(course / "exercises") == numeric.DECIMALS, "validation names the broken file"


def test_a_known_wrong_answer_inside_the_tolerance_is_named(course):
    toml = course / "exercises" / "t1-2" / "exercise.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace(
        'explain = "(1.5 + 2.25) / 2 = **1.875**."',
        'explain = "(1.5 + 2.25) / 2 = **1.875**."\n\n[[prompts.feedback]]\nanswer = 1.874\nmessage = "x"\n\n'
        '[[prompts.feedback]]\nanswer = 1.75\nmessage = "y"\n').replace("tolerance = 1e-3", "tolerance = 5e-3"),
        encoding="utf-8")
    assert errors(course) == [
        f"{rel(toml)}:{line_of(toml, 'answer = 1.874')}: prompts[2].feedback[0].answer: [1.874] counts as the right "
        f"answer under the tolerance 0.005, so its message is never shown"]


def test_the_page_checks_run_it(course):
    """structure_errors, which `python -m authoring validate` and the build's on_nav run, includes the rule."""
    config = course / "mkdocs.yml"
    config.write_text(config.read_text().replace("../../../", f"{REPO}/"))
    found = pages.structure_errors(pages.course_of(config), None)
    assert len(found) == 1 and "prompts[2].tolerance: 0.001 refuses 1.88" in found[0], found
