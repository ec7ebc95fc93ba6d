"""Small helpers shared by the end-to-end tests.

Exercises are read from a course's manifests: the fixture course's (FIXTURE, what the tests of the machinery run
on) or the real course's (COURSE, what test_content.py checks). No helper assumes one or the other.
"""
from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from course import chapters, manifest
from authoring.validate import apply_mutant
from tools.offline import page_url

REPO = Path(__file__).resolve().parents[2]
FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"
COURSE = manifest.EXERCISES

PYTHON_READY_MS = 90_000   # generous: two cores, and a spare worker may be loading at the same time
CHECK_MS = 90_000


@lru_cache(maxsize=None)
def exercises(root: Path) -> dict[str, manifest.Exercise]:
    """Every exercise of a course, by slug (loaded once per run: the manifests do not change during it)."""
    return manifest.load_all(root)


@lru_cache(maxsize=None)
def chapter_defs(root: Path) -> dict[str, chapters.Chapter]:
    return chapters.load_chapters(root, exercises(root))


def exercise(root: Path, slug: str) -> manifest.Exercise:
    return exercises(root)[slug]


def reference(root: Path, slug: str) -> str:
    return exercise(root, slug).reference.read_text()


def starter(root: Path, slug: str) -> str:
    return exercise(root, slug).starter.read_text()


def mutant_source(root: Path, slug: str, name: str) -> tuple[str, str]:
    """(source, the test it must fail) of a mutant."""
    ex = exercise(root, slug)
    m = next(m for m in ex.mutants if m.name == name)
    return apply_mutant(ex.reference.read_text(), m), m.fails


def uri(page: str) -> str:
    """The URL path, relative to the site, of a page under docs/, as the build addresses it (tools/offline.py
    `page_url`): `t1/fixture-lesson.md` -> `t1/fixture-lesson/`, `t1/index.md` -> `t1/`, `index.md` -> ``."""
    return page_url(page)


def answer_text(values: tuple[float, ...]) -> str:
    """A numeric answer typed the plain way, every digit kept (`0.25, 0.25, 0.5`; `0.123456789`)."""
    return ", ".join(repr(float(v)) for v in values)


# ---- the fixture course: what the tests of the machinery use, found from its manifests ----

def fixture_lesson() -> manifest.Exercise:
    """The fixture's written lesson: numeric prompts, a predict-first question, a check question, a code cell."""
    (lesson,) = [e for e in exercises(FIXTURE).values() if e.kind == "lesson"]
    return lesson


def fixture_modules() -> tuple[manifest.Exercise, manifest.Exercise]:
    """(base, next) of the fixture: a module that needs nothing, and one that requires it."""
    by_id = {e.id: e for e in exercises(FIXTURE).values()}
    (after,) = [e for e in by_id.values() if e.kind == "module" and e.requires]
    return by_id[after.requires[0]], after


def pages_with(docs: Path, block: str) -> list[str]:
    """The uris of the pages under `docs` that hold a widget block (`/// progress`, `/// module-map | ...`)."""
    return [uri(p.relative_to(docs).as_posix()) for p in sorted(docs.rglob("*.md"))
            if any(line.startswith(block) for line in p.read_text(encoding="utf-8").splitlines())]


def page_with(docs: Path, block: str) -> str:
    """The uri of the one page under `docs` that holds a widget block."""
    found = pages_with(docs, block)
    assert len(found) == 1, f"expected one page of {docs} with {block!r}, found {found}"
    return found[0]


FIXTURE_DOCS = FIXTURE.parent / "docs"
LESSON_EX = fixture_lesson()
LESSON = uri(LESSON_EX.page)
PROGRESS = page_with(FIXTURE_DOCS, "/// progress")


# ---- driving a code cell ----

def cell(page, slug: str):
    """An exercise's code cell, brought into view as a reader scrolls to it, and mounted (`near`)."""
    return near(page.locator(f'.tl-cell[data-exercise="{slug}"]'))


STAGES = ["python", "numpy", "pytest"]


def wait_python(page, slug: str, stage: str = "pytest") -> None:
    """Wait until the cell's Python has reached `stage` or a later one (stages can follow within milliseconds)."""
    cell(page, slug)
    later = STAGES[STAGES.index(stage):]
    page.wait_for_function("([slug, later]) => later.includes(document.querySelector("
                           "`.tl-cell[data-exercise='${slug}']`).dataset.python)", arg=[slug, later],
                           timeout=PYTHON_READY_MS)


def set_code(page, slug: str, code: str) -> None:
    cell(page, slug)
    page.evaluate("([slug, code]) => document.querySelector(`.tl-cell[data-exercise='${slug}']`).tlCell.editor.setCode(code)",
                  [slug, code])


def get_code(page, slug: str) -> str:
    cell(page, slug)
    return page.evaluate("(slug) => document.querySelector(`.tl-cell[data-exercise='${slug}']`).tlCell.editor.getCode()", slug)


def press_in_editor(page, slug: str, keys: str) -> None:
    """Keys pressed in a cell's editor: CodeMirror, or the plain editor that a touch hands over to it at once
    (an editor far from the viewport is plain until then: plain-editor.js)."""
    cell(page, slug).locator(".cm-content, textarea.tl-editor-plain").first.click()
    cell(page, slug).locator(".cm-content").wait_for()
    page.keyboard.press(keys)


def wait_result(page, slug: str, timeout: int = CHECK_MS) -> str:
    """Wait until the cell is idle with a status, and return it."""
    cell(page, slug)
    page.wait_for_function(
        "(slug) => { const c = document.querySelector(`.tl-cell[data-exercise='${slug}']`);"
        " return c.dataset.state === 'idle' && c.dataset.status; }", arg=slug, timeout=timeout)
    return cell(page, slug).get_attribute("data-status")


def check(page, slug: str, code: str) -> str:
    """Put `code` in the cell, press Check, and return the status once judged."""
    set_code(page, slug, code)
    cell(page, slug).locator("button.tl-check").click()
    return wait_result(page, slug)


def outcomes(page, slug: str) -> dict[str, str]:
    rows = cell(page, slug).locator("li[data-test]")
    return {rows.nth(i).get_attribute("data-test"): rows.nth(i).get_attribute("data-outcome")
            for i in range(rows.count())}


def near(widget):
    """A code cell, prompt, choice or reveal (a locator) scrolled into view as a reader brings it, unless it is
    mounted already, then mounted: each mounts as it nears the viewport (web/src/page/widgets.js mountWhenNear),
    and `tlLater` marks one still waiting. One round trip when it is mounted."""
    if widget.evaluate("(el) => el.tlLater === true"):
        widget.scroll_into_view_if_needed()
        widget.page.wait_for_function("(el) => !el.tlLater", arg=widget.element_handle(), timeout=10_000)
    return widget


def answer(page, prompt: str, text: str) -> tuple[str | None, str]:
    """Type `text` into a numeric prompt and submit it; (its verdict, its feedback)."""
    box = near(page.locator(f'.tl-numeric[data-prompt="{prompt}"]'))
    box.locator("input").fill(text)
    box.locator("button[type=submit]").click()
    return box.get_attribute("data-verdict"), box.locator(".tl-feedback").inner_text()


def wait_saved(page, key: str, code: str) -> None:
    """Wait until the editor's autosave has written `code` under `tinyllm:v1:<key>` (`code:<slug>`, `draft:<slug>`)."""
    page.wait_for_function("([key, code]) => { const v = localStorage.getItem('tinyllm:v1:' + key);"
                           " try { return v !== null && JSON.parse(v).code === code; } catch { return false; } }",
                           arg=[key, code], timeout=10_000)


def failures(page, slug: str) -> str:
    """What a check that did not pass said (rows that did not pass, the summary, the output), for assertion messages."""
    c = cell(page, slug)
    rows = c.locator('li[data-test]:not([data-outcome="passed"])')
    lines = [rows.nth(i).inner_text().replace("\n", " ") for i in range(rows.count())]
    return "\n".join([c.locator(".tl-summary").inner_text(), *lines, c.locator(".tl-output").inner_text()[:2000]])
