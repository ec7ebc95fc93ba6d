"""The real course in the browser, checked from its own manifests, chapter definitions and pages.

Nothing here names an exercise, a page or a count: every exercise of `exercises/` gets the same checks, on its own
page (from its manifest's `page`), so adding, removing or renaming a lesson or module keeps this file green as long
as the content is right. The machinery itself is tested on the fixture course (the other test files).

One exercise page of each kind (its widgets), the largest, in one tab, without waiting for Python: it loads with no
error and no request off localhost, and every numeric prompt on it accepts its manifest answer; every exercise's page
is checked without a browser in tests/content. Then the author's course check, once, in one Python worker, for one
exercise of each kind: its reference passes, its starter fails, its first mutant fails the test it names (every
exercise is judged in Pyodide in the Pyodide tier). Per chapter: its overview lists its lessons in order, the planned
ones as not yet written. What grows with the course here is the overviews; a kind of page or of exercise costs the
same whatever the course's size (bench/README.md, "The cost of a course").
"""
from __future__ import annotations

import json
import os
from urllib.parse import urljoin

import pytest
import yaml

from conftest import REPO, SITE, Recorder, served
from authoring import page_kinds
from e2e_helpers import (COURSE, answer_text, chapter_defs, exercises, near, page_with, pages_with, uri)

def one_of_each(slugs: list[str]) -> list[str]:
    """One exercise of each kind (a lesson, a module, a module that builds on others, with numeric prompts or
    without), the first of its kind by slug."""
    seen: dict[tuple, str] = {}
    for slug in slugs:
        ex = exercises(COURSE)[slug]
        seen.setdefault((ex.kind, bool(ex.requires), bool(ex.prompts)), slug)
    return sorted(seen.values())


def sample(slugs: list[str]) -> list[str]:
    """With TL_SAMPLE set (the second generator's run, `make test-e2e-zensical`): one exercise of each kind, whose
    pages hold every widget the generator must render; else all."""
    return one_of_each(slugs) if os.environ.get("TL_SAMPLE") else slugs


SLUGS = sample(sorted(exercises(COURSE)))
CHAPTERS = sorted(chapter_defs(COURSE))


def exercise_pages() -> list[str]:
    """One page of each kind among the pages that show an exercise (authoring/page_kinds.py: a kind is the widget
    blocks on a page, and nothing else), the largest of its kind: what the browser adds to the static checks of every
    page (tests/content/test_exercise_pages.py) is the same on two pages of one kind, so the number of pages opened
    grows with the platform's widgets, not with the course."""
    site = served(SITE)
    pages = {p.path: p for p in page_kinds.built_pages(site)}
    shown = sorted({uri(exercises(COURSE)[slug].page) for slug in SLUGS})
    largest = page_kinds.largest_of_each_kind([pages[path] for path in shown if path in pages])
    return sorted(page.path for page in largest.values())


def manifest_prompts() -> dict[tuple[str, str], object]:
    """(exercise slug, prompt id) -> the prompt, as its manifest says it."""
    return {(ex.slug, p.id): p for ex in exercises(COURSE).values() for p in ex.prompts}


@pytest.fixture(scope="module")
def course_context(browser):
    """One browser context for every exercise, as one learner going through the course: the site's files are
    downloaded and its service worker installed once, so each exercise costs its own page and checks only."""
    recorder = Recorder()
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.on("request", lambda r: recorder.requests.append(r.url))
    # Modules are checked against the reference dependencies, as their page offers (a learner's choice).
    prefs = {f"tinyllm:v1:prefs:{e.slug}": json.dumps({"refDeps": True}) for e in exercises(COURSE).values() if e.requires}
    context.add_init_script(f"try {{ for (const [k, v] of Object.entries({json.dumps(prefs)}))"
                            " localStorage.setItem(k, v); } catch (e) {}  // about:blank has no storage")
    yield context, recorder
    context.close()
    assert recorder.foreign() == [], f"requests left localhost: {recorder.foreign()}"


def test_one_exercise_page_of_each_kind_loads_cleanly_and_its_prompts_accept_their_answers(course_context, site_url):
    """The largest exercise page of each kind in turn, in one tab, as one learner going through the course: it loads
    with no error and no request off localhost, every code cell on it gets its editor, and every numeric prompt on it
    accepts its manifest answer typed into the widget. Nothing here waits for Python: that is the course check's
    (below). Every exercise's page is checked without a browser (its cell, its prompts as the page carries them,
    judged by the page's own code: tests/content/test_exercise_pages.py)."""
    context, shared = course_context
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    prompts = manifest_prompts()
    paths = exercise_pages()
    assert paths, "the course's exercises have pages"
    for path in paths:
        page.goto(site_url + path)
        cells = page.locator(".tl-cell[data-exercise]")
        assert cells.count(), f"/{path} shows no exercise's code cell"
        for n in range(cells.count()):  # each mounts as the reader nears it
            near(cells.nth(n))
        page.wait_for_function("() => [...document.querySelectorAll('.tl-cell[data-exercise]')]"
                               ".every((c) => c.querySelector('textarea'))")
        shown = page.evaluate("""() => [...document.querySelectorAll('.tl-numeric')].map((box) => {
            const data = JSON.parse(box.querySelector('script.tl-data').textContent);
            return [data.exercise, data.prompt];
        })""")
        answer_all(page, path, [((slug, prompt), prompts[(slug, prompt)]) for slug, prompt in shown])
    page.close()
    assert errors == [], errors
    assert shared.foreign() == [], f"requests left localhost: {shared.foreign()}"


# Every prompt of a page answered in one call into the page: the widget's own input and submit, as `answer` drives
# them, without four round trips per prompt (about 0.1 s each, 475 prompts at N = 100). How a learner types into a
# prompt (keys, focus, the feedback read out) is the fixture course's test (test_lesson.py).
# Each prompt is brought into view first, as a reader scrolls to it: it mounts as it nears the viewport
# (web/src/page/widgets.js mountWhenNear), within a few frames.
ANSWER_ALL = """async (answers) => {
    const out = [];
    for (const [exercise, prompt, text] of answers) {
        const box = document.querySelector(
            `.tl-numeric[data-exercise="${CSS.escape(exercise)}"][data-prompt="${CSS.escape(prompt)}"]`);
        if (!box) { out.push([null, 'no such prompt on the page']); continue; }
        box.scrollIntoView({ block: 'center' });
        for (let frames = 0; box.tlLater && frames < 600; frames++) await new Promise(requestAnimationFrame);
        if (box.tlLater) { out.push([null, 'the prompt did not mount in view']); continue; }
        box.querySelector('input').value = text;
        box.querySelector('button[type=submit]').click();
        out.push([box.dataset.verdict ?? null, box.querySelector('.tl-feedback').textContent]);
    }
    return out;
}"""


def answer_all(page, path: str, prompts: list) -> None:
    """Type each ((exercise slug, prompt id), manifest prompt)'s answer into its widget on the page, and hear it is
    correct."""
    texts = [answer_text(prompt.answer) for _, prompt in prompts]
    got = page.evaluate(ANSWER_ALL, [[*key, text] for (key, _), text in zip(prompts, texts)])
    for (key, _), text, (verdict, message) in zip(prompts, texts, got):
        assert verdict == "correct", f"/{path} {key}: {text} gave {message!r}"


CHECK = page_with(REPO / "docs", "/// course-check")
# The course check in this browser for one exercise of each kind (the page's `?only=`): every exercise's reference,
# starter and mutants are judged inside Pyodide in the Pyodide tier (validation's gate, and each bundle's reference
# with its rewriting), so what the browser adds, its worker and the bundles as the page loads them, is the same for
# two exercises of one kind. The whole course's check, every row, is the fixture course's (test_course_check.py).
CHECKED = one_of_each(SLUGS)
CHECK_MS = 120_000 + 30_000 * len(CHECKED)  # Python's start, then three checks per exercise, on two shared cores
ROWS = """() => Object.fromEntries([...document.querySelectorAll('[data-check-row]')]
    .map((r) => [r.dataset.exercise, r.dataset.outcome]))"""
FAILURES = """() => [...document.querySelectorAll('[data-check-failure]')].map((r) => r.innerText)"""


def test_the_course_check_finds_one_exercise_of_each_kind_consistent(page, site_url, recorder):
    """The reference of one exercise of each kind passes every test of its catalogue, its starter does not pass,
    and its first mutant fails the test it names, in this browser: the author's course check (`/// course-check`,
    `?only=` those exercises), one Python worker, the pages' own bundles and judge. The same rules run on CPython in
    validation and, test by test, inside Pyodide in the Pyodide tier, on every exercise."""
    only = ",".join(exercises(COURSE)[slug].id for slug in CHECKED)
    page.goto(f"{site_url}{CHECK}?only={only}")
    page.locator(".tl-course-check-start").click()
    page.wait_for_function("() => document.querySelector('[data-course-check]').dataset.state === 'done'",
                           timeout=CHECK_MS)
    assert page.evaluate(FAILURES) == []
    assert page.evaluate(ROWS) == {slug: "passed" for slug in CHECKED}
    assert recorder.foreign() == [] and recorder.errors == []


# Each lesson of an overview as the page shows it: its id, its text, and where its link leads.
LESSON_ITEMS = """(chapter) => [...document.querySelectorAll(`.tl-chapter[data-chapter="${chapter}"] ol.tl-lessons > li`)]
    .map((li) => [li.dataset.id, li.innerText, li.querySelector('a') ? li.querySelector('a').href : null])"""


def test_every_chapter_overview_lists_its_lessons_in_order(page, site_url):
    """Every chapter's overview in turn, in one tab (a page load each, as the exercises' pages above)."""
    by_id = {e.id: e for e in exercises(COURSE).values()}
    for chapter in CHAPTERS:
        defined = chapter_defs(COURSE)[chapter]
        page.goto(site_url + uri(defined.page))
        items = page.evaluate(LESSON_ITEMS, chapter)
        assert [i[0] for i in items] == list(defined.lessons), f"{chapter}: the lessons listed on {defined.page}"
        for n, (lesson, text, href) in enumerate(items, 1):
            ex = by_id.get(lesson)
            if ex is None:
                assert text == f"Lesson {n}: not yet written", f"{chapter} {lesson}"
                continue
            assert text.startswith(f"Lesson {n}: {ex.id} {ex.title}"), f"{chapter} {lesson}: {text!r}"
            assert href == site_url + uri(ex.page), f"{chapter}: {lesson} links to {href}"


def test_the_home_page_says_how_the_pages_work_and_where_to_start(page, site_url):
    """What the home page must say whatever the course holds: how each widget works, offline, privacy; and links
    that lead to pages of the site, among them a chapter overview, a module map and the progress page."""
    page.goto(site_url)
    text = page.locator("article").inner_text()
    site_name = yaml.safe_load((REPO / "mkdocs.yml").read_text())["site_name"]
    for words in (site_name, "Where to start", "Numeric prompts", "Predict first", "Multiple-choice",
                  "Run", "Check", "Stop", "Reset", "Shift+Enter", "Ctrl+Enter", "⌘+Enter", "Esc", "Tab",
                  "without a network connection", "asks to save data", "Save the whole course for offline use",
                  "Saved in this browser only", "Export", "Self-assessment"):
        assert words in text, words
    assert page.locator(".tl-offline .tl-offline-state").count() == 1, "the offline copy's state and its button"
    links = page.locator("article a[href]")
    targets = {urljoin(page.url, links.nth(i).get_attribute("href")).split("#")[0] for i in range(links.count())}
    chapters = {site_url + uri(c.page) for c in chapter_defs(COURSE).values()}
    maps = {site_url + p for p in pages_with(REPO / "docs", "/// module-map")}
    progress = {site_url + p for p in pages_with(REPO / "docs", "/// progress")}
    assert targets & chapters and targets & maps and targets & progress, sorted(targets)
    for target in sorted(t for t in targets if t.startswith(site_url)):
        path = target.removeprefix(site_url)
        site = served(SITE)
        assert (site / path / "index.html").is_file() or (site / path).is_file(), f"the home page links to {path}"
