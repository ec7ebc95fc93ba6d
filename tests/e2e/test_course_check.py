"""The author's course check (`/// course-check`, web/src/page/course-check.js) in headless Chromium, on the fixture
course: every reference passes, every starter fails, every first mutant fails its test, all in one worker; and
a reference broken on its way to the page (its bundle rewritten by a route) is reported as a failure.

The same journey runs in Firefox and WebKit in test_engines.py."""
from __future__ import annotations

import pytest

from e2e_helpers import FIXTURE, FIXTURE_DOCS, LESSON_EX, exercises, page_with

CHECK = page_with(FIXTURE_DOCS, "/// course-check")
RUN_MS = 240_000  # Python's start and three checks per exercise, on two shared cores

ROWS = """() => Object.fromEntries([...document.querySelectorAll('[data-check-row]')]
    .map((r) => [r.dataset.exercise, r.dataset.outcome]))"""
FAILURES = """() => [...document.querySelectorAll('[data-check-failure]')]
    .map((r) => [r.dataset.exercise, r.dataset.what, ...[...r.querySelectorAll('td')].slice(2).map((td) => td.textContent)])"""


def run_check(page, url: str) -> None:
    page.goto(url + CHECK)
    page.locator(".tl-course-check-start").click()
    page.wait_for_function("() => document.querySelector('[data-course-check]').dataset.state === 'done'",
                           timeout=RUN_MS)


def broken_reference(route):
    """The lesson's bundle with its starter as its reference: the reference then fails."""
    response = route.fetch()
    data = response.json()
    data["reference"] = data["starter"]
    route.fulfill(response=response, json=data)


@pytest.fixture()
def no_sw_page(browser, recorder):
    """A page whose requests a route can rewrite: no service worker answers them first."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    ctx.on("request", lambda r: recorder.requests.append(r.url))
    ctx.on("page", lambda p: p.on("pageerror", lambda e: recorder.errors.append(str(e))))
    yield ctx.new_page()
    ctx.close()
    assert recorder.foreign() == [] and recorder.errors == []


COUNT_WORKERS = """window.tlWorkers = 0;
window.Worker = class extends Worker {
    constructor(url, options) { super(url, options); if (String(url).includes('tl-worker')) window.tlWorkers += 1; }
};"""


def test_the_course_check_finds_the_fixture_course_consistent(page, fixture_url):
    page.add_init_script(COUNT_WORKERS)
    run_check(page, fixture_url)
    slugs = sorted(exercises(FIXTURE))
    assert page.evaluate(ROWS) == {slug: "passed" for slug in slugs}
    assert page.evaluate(FAILURES) == []
    root = page.locator("[data-course-check]")
    assert root.get_attribute("data-failures") == "0"
    assert root.locator(".tl-course-check-summary").inner_text().startswith(f"All {len(slugs)} exercises hold")
    times = root.locator('[data-check-row] [data-cell="time"]')
    assert all(times.nth(i).inner_text().endswith(" s") for i in range(times.count()))
    assert "Done" in root.locator(".tl-course-check-progress").inner_text()
    assert page.evaluate("window.tlWorkers") == 1, "one Python worker for the whole course"


def test_a_reference_broken_on_its_way_is_reported(no_sw_page, fixture_url):
    page = no_sw_page
    page.route(f"**/assets/tl/exercises/{LESSON_EX.slug}.json", broken_reference)
    run_check(page, fixture_url)
    rows = page.evaluate(ROWS)
    assert rows.pop(LESSON_EX.slug) == "failed"
    assert set(rows.values()) == {"passed"}, "the other exercises still hold"
    (failure,) = page.evaluate(FAILURES)
    assert failure[:3] == [LESSON_EX.slug, "reference", "passes every test"]
    assert failure[3].startswith("failed"), failure
    assert page.locator("[data-course-check]").get_attribute("data-failures") == "1"
    assert page.locator(".tl-course-check-summary").inner_text().startswith("1 failure in 1 of ")
