"""Work that lasts (web/src/page/keep.js), in Chromium on the fixture course: once the learner has saved work the page
asks the browser to keep it; where the browser does not promise, the learner is told once, with a link to Export,
and the progress page says so with the date of the last export. The browser's answer is set by the test (an init
script standing in for `navigator.storage`), so both answers are tested whatever Chromium decides by itself."""
import pytest
from playwright.sync_api import expect

from e2e_helpers import LESSON, LESSON_EX, PROGRESS, set_code, wait_python, wait_saved

SLUG = LESSON_EX.slug


def answering(context, promised: bool) -> None:
    context.add_init_script(f"""(() => {{
        const kept = {str(promised).lower()};
        if (navigator.storage) {{
            navigator.storage.persisted = async () => false;
            navigator.storage.persist = async () => {{ window.tlAsked = (window.tlAsked || 0) + 1; return kept; }};
        }}
    }})()""")


def type_work(page) -> None:
    wait_python(page, SLUG, "python")
    set_code(page, SLUG, "# mine\n")
    wait_saved(page, f"code:{SLUG}", "# mine\n")


def test_a_refusal_is_told_once_with_a_link_to_export(context, fixture_url):
    answering(context, False)
    page = context.new_page()
    page.goto(fixture_url + LESSON)
    assert page.evaluate("window.tlAsked || 0") == 0, "nothing saved yet: nothing asked"
    type_work(page)
    notice = page.locator(".tl-notices p", has_text="has not promised to keep your saved work")
    expect(notice).to_be_visible()
    notice.get_by_role("link", name="Export your progress").click()
    page.wait_for_url(fixture_url + PROGRESS)
    keeping = page.locator(".tl-keeping")
    expect(keeping).to_have_attribute("data-state", "not-promised")
    expect(keeping).to_contain_text("Not exported yet.")
    with page.expect_download():
        page.get_by_role("button", name="Export progress to a file").click()
    expect(keeping).to_contain_text("Last exported: 20")
    page.goto(fixture_url + LESSON)
    type_work(page)
    page.wait_for_timeout(500)
    expect(page.locator(".tl-notices p", has_text="has not promised")).to_have_count(0)  # told once only


def test_a_promise_is_kept_quietly(context, fixture_url):
    answering(context, True)
    page = context.new_page()
    page.goto(fixture_url + LESSON)
    type_work(page)
    page.wait_for_function("window.tlAsked === 1")
    page.goto(fixture_url + PROGRESS)
    expect(page.locator(".tl-keeping")).to_have_attribute("data-state", "kept")
    expect(page.locator(".tl-notices p", has_text="has not promised")).to_have_count(0)
