"""The real course in the browser, checked from its own manifests, chapter definitions and pages.

Nothing here names an exercise, a page or a count: every exercise of `exercises/` gets the same checks, on its own
page (from its manifest's `page`), so adding, removing or renaming a lesson or module keeps this file green as long
as the content is right. The machinery itself is tested on the fixture course (the other test files).

Per exercise, one browser page and one wait for Python: the page loads with no error and no request off
localhost, the reference passes every test of its catalogue in its code cell (a module with the reference
dependencies, as a learner may choose), its first mutant fails the test it names and is named as the known mistake
it is, and every numeric prompt accepts its manifest answer. Per chapter: its overview lists its lessons in order, the planned ones as not yet
written.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urljoin

import pytest
import yaml

from checker import diagnosis
from conftest import REPO, SITE, Recorder, served
from e2e_helpers import (COURSE, answer, answer_text, cell, chapter_defs, check, exercises, failures, mutant_source,
                         outcomes, pages_with, reference, uri, wait_python)

SLUGS = sorted(exercises(COURSE))
CHAPTERS = sorted(chapter_defs(COURSE))


@lru_cache(maxsize=None)
def prompt_pages() -> dict[tuple[str, str], list[str]]:
    """(slug, prompt id) -> the uris of the built pages that show that numeric prompt (found in the build, so a
    prompt in a chapter's shared section is found on every lesson that shows it)."""
    found: dict[tuple[str, str], list[str]] = {}
    site = served(SITE)
    for html in sorted(site.rglob("index.html")):
        path = html.parent.relative_to(site).as_posix()
        for tag in re.findall(r"<div\b[^>]*\btl-numeric\b[^>]*>", html.read_text(encoding="utf-8")):
            attrs = dict(re.findall(r'(data-exercise|data-prompt)="([^"]*)"', tag))
            key = (attrs.get("data-exercise", ""), attrs.get("data-prompt", ""))
            found.setdefault(key, []).append("" if path == "." else path + "/")
    return found


@dataclass
class Visit:
    """One exercise's page, shared by that exercise's tests."""

    ex: object
    page: object
    recorder: Recorder
    ready: bool = False

    def clean(self) -> None:
        assert self.recorder.foreign() == [], f"requests left localhost: {self.recorder.foreign()}"
        assert self.recorder.errors == [], f"the page threw: {self.recorder.errors}"

    def python(self) -> None:
        """Wait for the judge once per page."""
        if not self.ready:
            wait_python(self.page, self.ex.slug)
            self.ready = True


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


@pytest.fixture(scope="module")
def visit(request, course_context, site_url):
    """The exercise's page (from its manifest), opened once for all its tests (parametrized indirectly by slug)."""
    context, shared = course_context
    ex = exercises(COURSE)[request.param]
    recorder = Recorder()
    recorder.requests = shared.requests  # the context's, service worker included
    page = context.new_page()
    page.on("pageerror", lambda e: recorder.errors.append(str(e)))
    page.goto(site_url + uri(ex.page))
    current = Visit(ex, page, recorder)
    yield current
    page.close()
    current.clean()


each = pytest.mark.parametrize("visit", SLUGS, indirect=True)  # one page per exercise, shared by its tests


def test_every_exercise_page_loads_cleanly_and_its_prompts_accept_their_answers(course_context, site_url):
    """Every exercise's page in turn, in one tab, as one learner going through the course: it loads with no error
    and no request off localhost, shows its code cell and one h1, and every numeric prompt accepts its manifest
    answer (a prompt on another page, in a tab of its own). Nothing here waits for Python: that is the course
    check's (below), so a page costs its load and its prompts only."""
    context, shared = course_context
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"{page.url}: {e}"))
    for slug in SLUGS:
        ex = exercises(COURSE)[slug]
        page.goto(site_url + uri(ex.page))
        assert cell(page, ex.slug).count() == 1, f"{ex.id}'s code cell is not on {ex.page}"
        page.wait_for_function("(slug) => document.querySelector(`.tl-cell[data-exercise='${slug}'] textarea`)",
                               arg=ex.slug)
        assert page.locator("h1").count() == 1, ex.page
        own, other = [], {}
        for prompt in ex.prompts:
            where = prompt_pages().get((ex.slug, prompt.id), [])
            assert where, f"{ex.id}'s numeric prompt {prompt.id!r} is on no page of the site"
            if uri(ex.page) in where:
                own.append(prompt)
            else:
                other.setdefault(where[0], []).append(prompt)
        answer_all(page, ex, own)
        for path, prompts in other.items():  # a prompt on another page (rare): answered in a tab of its own
            tab = context.new_page()
            tab.on("pageerror", lambda e: errors.append(f"{tab.url}: {e}"))
            tab.goto(site_url + path)
            answer_all(tab, ex, prompts)
            tab.close()
    page.close()
    assert errors == [], errors
    assert shared.foreign() == [], f"requests left localhost: {shared.foreign()}"


def answer_all(page, ex, prompts) -> None:
    for prompt in prompts:
        verdict, message = answer(page, prompt.id, answer_text(prompt.answer))
        assert verdict == "correct", f"{ex.id} {prompt.id}: {answer_text(prompt.answer)} gave {message!r}"


@each
def test_the_reference_passes_every_test_of_its_catalogue(visit):
    ex, page = visit.ex, visit.page
    visit.python()
    assert check(page, ex.slug, reference(COURSE, ex.slug)) == "passed", failures(page, ex.slug)
    got = outcomes(page, ex.slug)
    assert list(got) == ex.test_names()
    assert set(got.values()) == {"passed"}
    visit.clean()


@each
def test_its_first_mutant_fails_the_test_it_names(visit):
    ex, page = visit.ex, visit.page
    if not ex.mutants:
        pytest.skip(f"{ex.id} has no mutant")
    first = min(ex.mutants, key=lambda m: m.name)
    source, fails = mutant_source(COURSE, ex.slug, first.name)
    visit.python()
    assert check(page, ex.slug, source) == "failed", first.name
    assert outcomes(page, ex.slug)[fails] in ("failed", "error"), f"mutant {first.name} must fail {fails}"
    # The failure looks like that very mutant: the page names its pitfall, as ol would from the same result.
    saved = json.loads(page.evaluate("(slug) => localStorage.getItem(`tinyllm:v1:result:${slug}`)", ex.slug))
    known = json.loads((served(SITE) / "assets" / "tl" / "exercises" / f"{ex.slug}.json").read_text())["mistakes"]
    expected = diagnosis.diagnose(saved, known)
    assert saved.get("diagnosis", []) == expected
    shown = cell(page, ex.slug).locator("[data-diagnosis] [data-pitfall]")
    assert shown.count() == len(expected)
    if expected:  # none when its failure is shared by more pitfalls than are named (checker/diagnosis.py)
        assert any(first.name in item["mutants"] for item in expected), expected
        assert diagnosis.split_pitfall(first.pitfall)[1] in cell(page, ex.slug).locator("[data-diagnosis]").inner_text()
    visit.clean()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_the_chapter_overview_lists_its_lessons_in_order(page, site_url, chapter):
    defined = chapter_defs(COURSE)[chapter]
    by_id = {e.id: e for e in exercises(COURSE).values()}
    page.goto(site_url + uri(defined.page))
    items = page.locator(f'.tl-chapter[data-chapter="{chapter}"] ol.tl-lessons > li')
    assert items.count() == len(defined.lessons)
    for n, lesson in enumerate(defined.lessons, 1):
        item = items.nth(n - 1)
        assert item.get_attribute("data-id") == lesson
        ex = by_id.get(lesson)
        if ex is None:
            assert item.inner_text() == f"Lesson {n}: not yet written"
            continue
        assert item.inner_text().startswith(f"Lesson {n}: {ex.id} {ex.title}")
        href = item.locator("a").get_attribute("href")
        assert urljoin(page.url, href) == site_url + uri(ex.page), f"{lesson} links to {href}"


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
