"""The course around the pages, in real headless Chromium, on the fixture course: a chapter's overview and a
module map with its milestone gate, whose statuses follow what the learner does on the lesson and module pages.

Overviews are kept open in one tab while the work happens in another, as a learner would: they must follow
without a reload (storage events), and still agree after one.
"""
import json
import time

from e2e_helpers import (FIXTURE, FIXTURE_DOCS, LESSON, LESSON_EX, PROGRESS, answer, answer_text, cell,
                         chapter_defs, exercises, failures, fixture_modules, near, page_with, reference, set_code, uri,
                         wait_result)

BASE, NEXT = fixture_modules()
MILESTONE = BASE.milestone  # MS-T1, which both fixture modules count towards
MAP = page_with(FIXTURE_DOCS, f"/// module-map | {MILESTONE}")
CHAPTER = next(c for c in chapter_defs(FIXTURE).values() if LESSON_EX.id in c.lessons)
MODULES = [BASE.slug, NEXT.slug]


def status_of(page, slug: str) -> str:
    return page.locator(f'li[data-exercise="{slug}"] .tl-course-status').inner_text()


def wait_status(page, selector: str, status: str) -> None:
    page.wait_for_function("([sel, status]) => [...document.querySelectorAll(sel)].length > 0 && "
                           "[...document.querySelectorAll(sel)].every((n) => n.dataset.status === status)",
                           arg=[selector, status], timeout=15_000)


def passed_result(slug: str) -> dict:
    """A saved result shaped as code-cell.js stores it after a Check that passed, with the reference as the code."""
    names = exercises(FIXTURE)[slug].test_names()
    return {"status": "passed", "tests": [{"name": n, "outcome": "passed", "message": ""} for n in names],
            "stdout": "", "traceback": "", "code": reference(FIXTURE, slug), "at": int(time.time() * 1000)}


def save(page, items: dict) -> None:
    page.evaluate("(items) => { for (const [k, v] of Object.entries(items))"
                  " localStorage.setItem('tinyllm:v1:' + k, JSON.stringify(v)); }", items)


def test_chapter_overview_lists_its_lessons_written_or_not(page, fixture_url):
    page.goto(fixture_url + uri(CHAPTER.page))
    by_id = {e.id: e for e in exercises(FIXTURE).values()}
    items = page.locator("ol.tl-lessons > li")
    assert items.count() == len(CHAPTER.lessons)
    unwritten = [n for n, lesson in enumerate(CHAPTER.lessons, 1) if lesson not in by_id]
    assert unwritten, "the fixture chapter has planned lessons"
    for n, lesson in enumerate(CHAPTER.lessons, 1):
        text = items.nth(n - 1).inner_text()
        if n in unwritten:
            assert text == f"Lesson {n}: not yet written"
        else:
            assert text.startswith(f"Lesson {n}: {lesson} {by_id[lesson].title}")
    written = len(CHAPTER.lessons) - len(unwritten)
    assert page.locator(".tl-chapter-count").inner_text() == f"{len(CHAPTER.lessons)} lessons, {written} written so far."


def test_chapter_overview_follows_the_lesson(context, fixture_url):
    slug = LESSON_EX.slug
    title = f"{LESSON_EX.id} {LESSON_EX.title}"
    overview = context.new_page()
    overview.goto(fixture_url + uri(CHAPTER.page))
    assert status_of(overview, slug) == "not started"

    with context.expect_page() as opened:  # a second tab, as a learner would open the lesson from the overview
        overview.locator("ol.tl-lessons").get_by_role("link", name=title).click(modifiers=["Control"])
    lesson = opened.value
    # The learner then looks at the lesson's tab. Left in the background, its clicks wait on animation frames a
    # hidden tab hardly draws (14 s instead of 3 here); the overview's status is still followed while it is hidden.
    lesson.bring_to_front()
    lesson.wait_for_load_state()
    assert lesson.url.endswith(LESSON)
    first, *others = LESSON_EX.prompts
    answer(lesson, first.id, answer_text(first.answer))
    wait_status(overview, f'li[data-exercise="{slug}"]', "in-progress")  # followed without a reload
    assert status_of(overview, slug) == "in progress"

    # Every question answered and the hidden tests passing, checked in the editor: the lesson is done.
    for prompt in others:
        answer(lesson, prompt.id, answer_text(prompt.answer))
    for choice in LESSON_EX.choices:
        key = next(o.key for o in choice.options if o.correct)
        near(lesson.locator(f'.tl-choice[data-prompt="{choice.id}"]')).locator(f'.tl-option[data-key="{key}"]').click()
    assert status_of(overview, slug) == "in progress", "answers alone do not finish a lesson"
    set_code(lesson, slug, reference(FIXTURE, slug))
    cell(lesson, slug).locator("button.tl-check").click()
    assert wait_result(lesson, slug) == "passed", failures(lesson, slug)
    wait_status(overview, f'li[data-exercise="{slug}"]', "done")
    assert status_of(overview, slug) == "done"
    overview.reload()
    assert status_of(overview, slug) == "done"

    # A later failing check puts the lesson back in progress.
    set_code(lesson, slug, "def normalise(p):\n    return p\n")
    cell(lesson, slug).locator("button.tl-check").click()
    assert wait_result(lesson, slug) == "failed"
    wait_status(overview, f'li[data-exercise="{slug}"]', "in-progress")


def test_module_map_comes_from_the_manifests(page, fixture_url):
    all_ = exercises(FIXTURE).values()
    members = sorted(e.id for e in all_ if e.milestone == MILESTONE)
    later = [u.id for e in all_ for u in e.used_by if u.id not in {x.id for x in all_}]
    assert members == [BASE.id, NEXT.id] and later, "the fixture: two members and a module not written yet"
    page.goto(fixture_url + MAP)
    nodes = page.locator("ol.tl-map-list > li")
    assert [nodes.nth(i).get_attribute("data-node") for i in range(nodes.count())] == members + later
    for ident in later:
        assert page.locator(f'li[data-node="{ident}"] .tl-course-status').inner_text() == "not yet available"
        assert page.locator(f'svg g[data-node="{ident}"] .tl-course-status').text_content() == "not yet available"
    assert f"needs {BASE.id}" in page.locator(f'li[data-node="{NEXT.id}"]').inner_text()
    title = page.locator("svg.tl-map-svg title").text_content()
    users = ", ".join([NEXT.id] + [f"{i} (not yet available)" for i in later])
    assert f"{BASE.id} → {users}" in title
    page.locator(f'li[data-node="{BASE.id}"] a').click()
    assert page.url.endswith(uri(BASE.page))


def test_module_map_statuses_and_the_gate_opening(context, fixture_url):
    atlas = context.new_page()
    atlas.goto(fixture_url + MAP)
    save(atlas, {f"result:{BASE.slug}": passed_result(BASE.slug)})
    atlas.reload()
    assert [status_of(atlas, s) for s in MODULES] == ["done", "not started"]
    assert atlas.locator(f'svg g[data-node="{BASE.id}"]').get_attribute("data-status") == "done"
    gate = atlas.locator("div.tl-gate")
    assert gate.get_attribute("data-state") == "closed"
    assert gate.locator(".tl-gate-count").inner_text() == f"Closed: 1 of 2 modules pass. Still to pass: {NEXT.id}."
    assert atlas.locator("svg g.tl-map-gate text").text_content() == f"{MILESTONE} gate: closed"

    # The next module for real, in its editor: its check imports the base code saved with that pass.
    module = context.new_page()
    module.goto(fixture_url + uri(NEXT.page))
    assert cell(module, NEXT.slug).locator(".tl-deps").is_hidden(), "its dependency counts as passed"
    set_code(module, NEXT.slug, "# started\n")
    wait_status(atlas, f'[data-exercise="{NEXT.slug}"]', "in-progress")
    assert atlas.locator(f'svg g[data-node="{NEXT.id}"] .tl-course-status').text_content() == "in progress"
    set_code(module, NEXT.slug, reference(FIXTURE, NEXT.slug))
    cell(module, NEXT.slug).locator("button.tl-check").click()
    assert wait_result(module, NEXT.slug) == "passed", failures(module, NEXT.slug)

    wait_status(atlas, f'[data-exercise="{NEXT.slug}"]', "done")
    atlas.wait_for_function("() => document.querySelector('div.tl-gate').dataset.state === 'open'")
    assert atlas.locator("svg g.tl-map-gate").get_attribute("data-state") == "open"
    assert atlas.locator("svg g.tl-map-gate text").text_content() == f"{MILESTONE} gate: open"
    assert gate.locator(".tl-gate-state").inner_text() == "gate open"
    assert gate.locator(".tl-gate-count").inner_text() == "Open: all 2 of its modules pass."
    atlas.reload()
    assert atlas.locator("div.tl-gate").get_attribute("data-state") == "open"

    # The progress page agrees: both modules are done.
    atlas.goto(fixture_url + PROGRESS)
    for slug in MODULES:
        atlas.wait_for_selector(f'tr[data-exercise="{slug}"][data-status="done"]')


def test_the_gate_closes_when_a_module_fails_again(page, fixture_url):
    page.goto(fixture_url + MAP)
    save(page, {f"result:{slug}": passed_result(slug) for slug in MODULES})
    page.reload()
    assert page.locator("div.tl-gate").get_attribute("data-state") == "open"
    failed = passed_result(BASE.slug) | {"status": "failed"}
    failed["tests"][0] = failed["tests"][0] | {"outcome": "failed", "message": "expected 2, got 1"}
    save(page, {f"result:{BASE.slug}": failed})
    page.reload()
    assert page.locator("div.tl-gate").get_attribute("data-state") == "closed"
    assert status_of(page, BASE.slug) == "in progress"
    assert page.locator(".tl-gate-count").inner_text() == f"Closed: 1 of 2 modules pass. Still to pass: {BASE.id}."
    saved = page.evaluate("(slug) => localStorage.getItem(`tinyllm:v1:result:${slug}`)", BASE.slug)
    assert json.loads(saved)["status"] == "failed"
