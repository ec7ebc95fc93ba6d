"""The course around the pages, in real headless Chromium: the home page, chapter E7's overview and the Pass 6
module map with its milestone gate, whose statuses follow what the learner does on the lesson and module pages.

Overviews are kept open in one tab while the work happens in another, as a learner would: they must follow
without a reload (storage events), and still agree after one.
"""
import json
import time

from checker import manifest
from e2e_helpers import LESSON, cell, reference, set_code, wait_result

MAP = "modules/"
CHAPTER = "e7/"
MODULE_PAGES = {"m06-3": "m06/pcg32/", "m07-1": "m07/categorical-sampling/", "m07-6": "m07/rejection-sampling/"}


def status_of(page, slug: str) -> str:
    return page.locator(f'li[data-exercise="{slug}"] .tl-course-status').inner_text()


def wait_status(page, selector: str, status: str) -> None:
    page.wait_for_function("([sel, status]) => [...document.querySelectorAll(sel)].length > 0 && "
                           "[...document.querySelectorAll(sel)].every((n) => n.dataset.status === status)",
                           arg=[selector, status], timeout=15_000)


def passed_result(slug: str) -> dict:
    """A saved result shaped as code-cell.js stores it after a Check that passed, with the reference as the code."""
    names = manifest.load(manifest.EXERCISES / slug).test_names()
    return {"status": "passed", "tests": [{"name": n, "outcome": "passed", "message": ""} for n in names],
            "stdout": "", "traceback": "", "code": reference(slug), "at": int(time.time() * 1000)}


def save(page, items: dict) -> None:
    page.evaluate("(items) => { for (const [k, v] of Object.entries(items))"
                  " localStorage.setItem('tinyllm:v1:' + k, JSON.stringify(v)); }", items)


def answer(page, prompt: str, text: str) -> None:
    box = page.locator(f'.tl-numeric[data-prompt="{prompt}"]')
    box.locator("input").fill(text)
    box.locator("button[type=submit]").click()


def test_home_page_says_what_the_course_is_and_where_to_start(page, site_url):
    page.goto(site_url)
    text = page.locator("article").inner_text()
    for words in ("tinyllm", "Where to start", "Numeric prompts", "Predict first", "Multiple-choice",
                  "Run", "Check", "Stop", "Reset", "Shift+Enter", "Ctrl+Enter", "⌘+Enter", "Esc", "Tab",
                  "without a network connection", "Saved in this browser only", "Export", "Self-assessment"):
        assert words in text, words
    for name, path in (("Chapter E7, speculative decoding", CHAPTER), ("The module map", MAP),
                       ("Your progress", "progress/"), ("E7.3 Rejection correction", LESSON)):
        assert page.get_by_role("link", name=name).first.get_attribute("href").rstrip("/").endswith(
            path.rstrip("/")), name
    page.get_by_role("link", name="Chapter E7, speculative decoding").click()
    assert page.locator("h1").inner_text() == "Chapter E7: speculative decoding"


def test_chapter_overview_follows_the_lesson(context, site_url):
    overview = context.new_page()
    overview.goto(site_url + CHAPTER)
    items = overview.locator("ol.tl-lessons > li")
    assert items.count() == 6
    assert [items.nth(i).inner_text() for i in (0, 1, 3, 4, 5)] == [
        f"Lesson {n}: not yet written" for n in (1, 2, 4, 5, 6)]
    assert items.nth(2).inner_text().startswith("Lesson 3: E7.3 Rejection correction")
    assert status_of(overview, "e7-3") == "not started"

    with context.expect_page() as opened:  # a second tab, as a learner would open the lesson from the overview
        overview.locator("ol.tl-lessons").get_by_role("link", name="E7.3 Rejection correction").click(modifiers=["Control"])
    lesson = opened.value
    lesson.wait_for_load_state()
    assert lesson.url.endswith(LESSON)
    answer(lesson, "residual", "1, 0, 0")
    wait_status(overview, 'li[data-exercise="e7-3"]', "in-progress")  # followed without a reload
    assert status_of(overview, "e7-3") == "in progress"

    # Every question answered and the hidden tests passing, checked in the editor: the lesson is done.
    answer(lesson, "total-corrected", "0.5")
    answer(lesson, "total-naive", "0.375")
    lesson.locator('.tl-choice[data-prompt="predict"] .tl-option[data-key="B"]').click()
    lesson.locator('.tl-choice[data-prompt="check"] .tl-option[data-key="B"]').click()
    assert status_of(overview, "e7-3") == "in progress", "answers alone do not finish a lesson"
    set_code(lesson, "e7-3", reference("e7-3"))
    cell(lesson, "e7-3").locator("button.tl-check").click()
    assert wait_result(lesson, "e7-3") == "passed"
    wait_status(overview, 'li[data-exercise="e7-3"]', "done")
    assert status_of(overview, "e7-3") == "done"
    overview.reload()
    assert status_of(overview, "e7-3") == "done"

    # A later failing check puts the lesson back in progress.
    set_code(lesson, "e7-3", "def residual(p, q):\n    return p\n")
    cell(lesson, "e7-3").locator("button.tl-check").click()
    assert wait_result(lesson, "e7-3") == "failed"
    wait_status(overview, 'li[data-exercise="e7-3"]', "in-progress")


def test_module_map_comes_from_the_manifests(page, site_url):
    exercises = manifest.load_all()
    members = sorted(e.id for e in exercises.values() if e.milestone == "MS-P6")
    later = [u.id for e in exercises.values() for u in e.used_by if u.id not in {x.id for x in exercises.values()}]
    page.goto(site_url + MAP)
    nodes = page.locator("ol.tl-map-list > li")
    assert [nodes.nth(i).get_attribute("data-node") for i in range(nodes.count())] == members + later
    assert members == ["M06.3", "M07.1", "M07.6"] and later == ["L8.6", "L10.8"]
    for ident in later:
        assert page.locator(f'li[data-node="{ident}"] .tl-course-status').inner_text() == "not yet available"
        assert page.locator(f'svg g[data-node="{ident}"] .tl-course-status').text_content() == "not yet available"
    assert "needs M06.3" in page.locator('li[data-node="M07.1"]').inner_text()
    title = page.locator("svg.tl-map-svg title").text_content()
    assert "M06.3 → M07.1; M07.1 → M07.6; M07.6 → L8.6 (not yet available), L10.8 (not yet available)" in title
    page.locator('li[data-node="M07.1"] a').click()
    assert page.url.endswith(MODULE_PAGES["m07-1"])


def test_module_map_statuses_and_the_gate_opening(context, site_url):
    atlas = context.new_page()
    atlas.goto(site_url + MAP)
    save(atlas, {"result:m06-3": passed_result("m06-3"), "result:m07-1": passed_result("m07-1")})
    atlas.reload()
    assert [status_of(atlas, s) for s in MODULE_PAGES] == ["done", "done", "not started"]
    assert atlas.locator('svg g[data-node="M06.3"]').get_attribute("data-status") == "done"
    gate = atlas.locator("div.tl-gate")
    assert gate.get_attribute("data-state") == "closed"
    assert gate.locator(".tl-gate-count").inner_text() == "Closed: 2 of 3 modules pass. Still to pass: M07.6."
    assert atlas.locator("svg g.tl-map-gate text").text_content() == "MS-P6 gate: closed"

    # M07.6 for real, in its editor: its check imports the M06.3 and M07.1 code saved with those passes.
    module = context.new_page()
    module.goto(site_url + MODULE_PAGES["m07-6"])
    assert cell(module, "m07-6").locator(".tl-deps").is_hidden(), "both dependencies count as passed"
    set_code(module, "m07-6", "# started\n")
    wait_status(atlas, '[data-exercise="m07-6"]', "in-progress")
    assert atlas.locator('svg g[data-node="M07.6"] .tl-course-status').text_content() == "in progress"
    set_code(module, "m07-6", reference("m07-6"))
    cell(module, "m07-6").locator("button.tl-check").click()
    assert wait_result(module, "m07-6") == "passed"

    wait_status(atlas, '[data-exercise="m07-6"]', "done")
    atlas.wait_for_function("() => document.querySelector('div.tl-gate').dataset.state === 'open'")
    assert atlas.locator("svg g.tl-map-gate").get_attribute("data-state") == "open"
    assert atlas.locator("svg g.tl-map-gate text").text_content() == "MS-P6 gate: open"
    assert gate.locator(".tl-gate-state").inner_text() == "gate open"
    assert gate.locator(".tl-gate-count").inner_text() == "Open: all 3 of its modules pass."
    atlas.reload()
    assert atlas.locator("div.tl-gate").get_attribute("data-state") == "open"

    # The progress page agrees: the three modules are done.
    atlas.goto(site_url + "progress/")
    for slug in MODULE_PAGES:
        atlas.wait_for_selector(f'tr[data-exercise="{slug}"][data-status="done"]')


def test_the_gate_closes_when_a_module_fails_again(page, site_url):
    page.goto(site_url + MAP)
    save(page, {f"result:{slug}": passed_result(slug) for slug in MODULE_PAGES})
    page.reload()
    assert page.locator("div.tl-gate").get_attribute("data-state") == "open"
    failed = passed_result("m07-1") | {"status": "failed"}
    failed["tests"][0] = failed["tests"][0] | {"outcome": "failed", "message": "expected 2, got 1"}
    save(page, {"result:m07-1": failed})
    page.reload()
    assert page.locator("div.tl-gate").get_attribute("data-state") == "closed"
    assert status_of(page, "m07-1") == "in progress"
    assert page.locator(".tl-gate-count").inner_text() == "Closed: 2 of 3 modules pass. Still to pass: M07.1."
    assert json.loads(page.evaluate("localStorage.getItem('tinyllm:v1:result:m07-1')"))["status"] == "failed"
