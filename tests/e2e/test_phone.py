"""A learner on a phone, in Chromium's phone emulation: a 390 × 844 screen, touch, a mobile browser's viewport.

The whole journey is done with taps and typed text, never a mouse or Ctrl/⌘: a numeric prompt asks for the
decimal keyboard (`inputmode`), a choice and Check are tapped, the editor takes text as an on-screen keyboard
sends it (insertText, no key events), Run and Check are tapped, and neither the results, the output nor a
traceback with a long line makes the page scroll sideways. The same width in Firefox and WebKit is
tests/e2e/test_engines.py's (`test_a_phone_width_journey`). Everything typed comes from the fixture's manifests.
"""
from __future__ import annotations

import pytest

from conftest import Recorder
from e2e_helpers import FIXTURE, LESSON, LESSON_EX, answer_text, cell, near, reference, wait_python, wait_result

SLUG = LESSON_EX.slug
PROMPT = LESSON_EX.prompts[0]
CHOICE = next(c for c in LESSON_EX.choices if c.kind != "predict")
WIDTH = 390
LONG_ERROR = "raise ValueError('" + "a very long message without a single space in it " * 6 + "')\n"


@pytest.fixture()
def phone(browser):
    recorder = Recorder()
    ctx = browser.new_context(viewport={"width": WIDTH, "height": 844}, device_scale_factor=3, is_mobile=True,
                              has_touch=True)
    ctx.on("request", lambda r: recorder.requests.append(r.url))
    ctx.on("page", lambda p: p.on("pageerror", lambda e: recorder.errors.append(str(e))))
    page = ctx.new_page()
    yield page
    ctx.close()
    assert recorder.foreign() == [], f"requests left localhost: {recorder.foreign()}"
    assert recorder.errors == [], f"the page threw: {recorder.errors}"


def page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def fits(page, locator) -> None:
    """The element is within the screen's width and the page does not scroll sideways."""
    box = locator.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH + 1, f"off the screen: {box}"
    assert page_width(page) <= WIDTH, f"the page is {page_width(page)} px wide on a {WIDTH} px screen"


def test_a_numeric_prompt_and_a_choice_by_touch(phone, fixture_url):
    phone.goto(fixture_url + LESSON)
    box = near(phone.locator(f'.tl-numeric[data-prompt="{PROMPT.id}"]'))
    field = box.locator("input")
    assert field.get_attribute("inputmode") == "decimal", "a phone shows its number keyboard"
    field.tap()
    phone.keyboard.insert_text(answer_text(PROMPT.answer))
    check = box.locator("button[type=submit]")
    fits(phone, check)
    check.tap()
    assert box.get_attribute("data-verdict") == "correct"
    choice = near(phone.locator(f'.tl-choice[data-prompt="{CHOICE.id}"]'))
    right = next(o for o in CHOICE.options if o.correct)
    choice.locator(f'.tl-option[data-key="{right.key}"]').tap()
    assert choice.get_attribute("data-verdict") == "correct"
    assert page_width(phone) <= WIDTH


def test_code_typed_on_a_touch_keyboard_runs_and_checks_by_taps(phone, fixture_url):
    phone.goto(fixture_url + LESSON)
    here = cell(phone, SLUG)
    wait_python(phone, SLUG)
    # A tap on the editor hands it to CodeMirror with the focus; text arrives as a touch keyboard sends it.
    here.locator(".cm-content, textarea.tl-editor-plain").first.tap()
    here.locator(".cm-editor.cm-focused").wait_for()
    phone.keyboard.press("Control+a")  # the test's way to clear it; a learner would use Reset
    phone.keyboard.insert_text(LONG_ERROR)
    assert phone.evaluate("(c) => c.tlCell.editor.getCode()", here.element_handle()) == LONG_ERROR
    run = here.get_by_role("button", name="Run", exact=True)
    fits(phone, run)
    run.tap()
    assert wait_result(phone, SLUG) == "error"
    traceback = here.locator(".tl-output")
    assert "ValueError" in traceback.text_content()
    fits(phone, traceback)
    here.locator(".cm-content").tap()
    phone.keyboard.press("Control+a")
    phone.keyboard.insert_text(reference(FIXTURE, SLUG))
    check = here.get_by_role("button", name="Check", exact=True)
    fits(phone, check)
    check.tap()
    assert wait_result(phone, SLUG) == "passed"
    rows = here.locator("li[data-test]")
    assert rows.count() == len(LESSON_EX.test_names())
    fits(phone, rows.first)
    fits(phone, here)


def test_the_closed_drawer_opens_with_its_links_drawn_and_working(phone, fixture_url):
    """The navigation drawer is not drawn while closed (tl.css), and is when the menu is tapped: its links show and
    take the reader to their page."""
    phone.goto(fixture_url + LESSON)
    drawer = phone.locator(".md-sidebar--primary .md-sidebar__scrollwrap")
    assert drawer.evaluate("(d) => getComputedStyle(d).contentVisibility") == "hidden"
    phone.locator('.md-header label[for="__drawer"]').tap()
    link = phone.locator(".md-sidebar--primary a.md-nav__link[href]").filter(has_text="Chapter overview").first
    link.wait_for(state="visible")
    assert drawer.evaluate("(d) => getComputedStyle(d).contentVisibility") == "visible"
    assert link.bounding_box()["width"] > 0
    link.tap()
    phone.wait_for_url("**/t1/")


def test_the_theme_script_waits_for_the_search_which_a_tap_opens_and_a_heading_link_closes_the_menu(phone, fixture_url):
    """On a phone the theme's script (mkdocs-material's bundle) is not loaded with the page (tools/page_html.py):
    nothing is blocked by it while the learner reads. Tapping the search button focuses the search box in that tap
    (a phone's keyboard comes up), loads the script, and the search finds the lesson. Following a link to a heading
    closes the menu without it (web/src/page/theme.js closeOnTarget)."""
    # The page's own requests: the service worker, once it controls the page, fetches the same file again (and its
    # requests are the context's, not the page's).
    own = []
    phone.on("request", lambda r: own.append(r.url))
    phone.goto(fixture_url + LESSON)
    wait_python(phone, SLUG)
    theme = lambda: [u for u in own if "/assets/javascripts/bundle." in u]  # noqa: E731
    phone.locator('.md-header label[for="__drawer"]').tap()
    assert phone.locator("#__drawer").is_checked()
    heading = phone.evaluate("document.querySelector('article h2[id]').id")
    phone.evaluate("(id) => { location.hash = '#' + id; }", heading)
    phone.wait_for_function("() => !document.getElementById('__drawer').checked")
    assert theme() == [], "the theme's script was loaded before the search was used"
    phone.locator('label.md-header__button[for="__search"]').tap()
    assert phone.evaluate("document.activeElement.classList.contains('md-search__input')"), "the box has the keyboard"
    phone.wait_for_function("() => !/Initializing/i.test("
                            "document.querySelector('.md-search-result__meta').textContent)", timeout=60_000)
    assert len(theme()) == 1
    phone.keyboard.type("seeded")  # the theme searches on keyup
    phone.wait_for_function("() => document.querySelectorAll('.md-search-result__item').length > 0", timeout=15_000)
    titles = phone.locator(".md-search-result__item h1, .md-search-result__item h2").all_inner_texts()
    assert any("Fixture lesson" in t for t in titles), titles
