"""Accessibility and layout, in real headless Chromium.

Over one page of each kind of the real site (pages are of one kind when the same widgets are on them: the first of
each, in the order of mkdocs.yml's nav and then any exercise or chapter page outside it, so a new kind of page is
audited without naming it here; every page is checked statically by tests/content/test_site_pages.py, a cost that does
not grow with the course as a browser's does):
- An axe-core audit (from node_modules, injected by Playwright: never a CDN), in the light and the dark palette,
  fails on any "serious" or "critical" violation. Pages are audited with saved work in place (failed and passed
  tests, right and wrong answers, a prediction), so result rows, verdicts and the diff are on screen and their
  colours are checked too. Each page is loaded once on a desktop, audited in the light palette, switched to the
  dark one with its own switch (no reload) and audited again: what the audit reads is the same page restyled.
- At 390 CSS pixels wide, on a system that asks for the dark palette, the page loads in it; no page scrolls
  sideways; wide tables, code and output scroll inside their own box, which the keyboard can reach; axe again.
On the fixture course (the machinery):
- Keyboard only: Tab reaches the code cell, typed code runs with Shift+Enter and is checked with Ctrl+Enter, the
  result is announced through live regions, and Escape then Tab leaves the editor for the next control.
- The palette switch is remembered.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import REPO, SITE, served
from authoring import page_kinds, pages
from e2e_helpers import (COURSE, FIXTURE, FIXTURE_DOCS, LESSON, LESSON_EX, cell, chapter_defs, exercises, failures,
                         fixture_modules, near, outcomes, page_with, pages_with, reference, set_code, uri, wait_python,
                         wait_result)
from test_course_check import broken_reference, run_check

AXE = REPO / "node_modules" / "axe-core" / "axe.min.js"


def nav_pages(config: Path) -> list[str]:
    """The uri of every page in a MkDocs config's nav, in nav order (authoring/pages.py reads the nav)."""
    return [uri(page) for page in pages.nav_pages(yaml.safe_load(config.read_text(encoding="utf-8"))["nav"])]


def outside_nav(config: Path) -> list[str]:
    """The uri of every page a MkDocs config leaves out of its nav on purpose (`not_in_nav`: the class view)."""
    import pathspec

    patterns = yaml.safe_load(config.read_text(encoding="utf-8")).get("not_in_nav") or ""
    spec = pathspec.GitIgnoreSpec.from_lines(patterns.splitlines())
    docs = config.parent / "docs"
    return [uri(p.relative_to(docs).as_posix()) for p in sorted(docs.rglob("*.md"))
            if spec.match_file(p.relative_to(docs).as_posix())]


def site_pages() -> list[str]:
    """Every page of the real site: its nav, then any exercise or chapter page reached only from a chapter
    overview (the page checks allow a lesson outside the nav), the pages linked from others (`not_in_nav`), then
    the theme's page for a wrong address."""
    listed = nav_pages(REPO / "mkdocs.yml")
    linked = [uri(e.page) for e in exercises(COURSE).values()] + [uri(c.page) for c in chapter_defs(COURSE).values()]
    linked += outside_nav(REPO / "mkdocs.yml")
    return listed + sorted(set(linked) - set(listed)) + ["404.html"]


def page_kind(path: str) -> tuple[str, ...]:
    """A page's kind: the widget blocks on it, and nothing else (authoring/page_kinds.py), so the pages audited
    grow with the platform's widgets, not with the course."""
    site = served(SITE)
    html = site / path / "index.html" if not path.endswith(".html") else site / path
    return page_kinds.blocks(html.read_text(encoding="utf-8")) if html.is_file() else (path,)


def one_of_each_kind(pages: list[str]) -> list[str]:
    """The first page of each kind, in the order given."""
    seen: dict[tuple[str, ...], str] = {}
    for path in pages:
        seen.setdefault(page_kind(path), path)
    return list(seen.values())


PAGES = one_of_each_kind(site_pages())
BLOCKING = ("serious", "critical")
SCHEMES = {"light": "default", "dark": "slate"}


def saved_work(site: Path) -> dict[str, object]:
    """Saved state shaped as the widgets store it, so every kind of result is on screen during the audit."""
    index = json.loads((site / "assets" / "tl" / "exercises" / "index.json").read_text(encoding="utf-8"))
    data: dict[str, object] = {}
    for n, entry in enumerate(index):
        slug, names = entry["slug"], entry["names"]
        outcome = ["passed", "failed", "error"]
        tests = [{"name": t, "outcome": outcome[i % 3] if n % 2 else "passed",
                  "message": "" if (i % 3 == 0 or not n % 2) else f"expected 0.5, got 0.375 in {t}"}
                 for i, t in enumerate(names)]
        code = f"# my {slug}\nprint('hello')\n"
        data[f"result:{slug}"] = {"status": "failed" if n % 2 else "passed", "tests": tests, "code": code,
                                  "stdout": "hello\n", "traceback": "", "at": 1, "phase": "tests"}
        if n % 2:  # a failing check that looks like a known mistake, with a hint taken: the help panel shows
            data[f"result:{slug}"]["diagnosis"] = [{"pitfall": "accepting on u <= r", "number": 1, "mutants": ["s01"],
                                                    "also": []}]
            data[f"help:{slug}"] = {"hints": 1, "failed": 2}
        data[f"code:{slug}"] = {"code": code, "at": 1}
        for i, prompt in enumerate(entry["prompts"]):
            data[f"prompt:{slug}/{prompt}"] = {"value": "0.4", "verdict": "incorrect" if i % 2 else "correct",
                                               "tries": 1, "revealed": False}
        for choice in entry["choices"]:
            data[f"prompt:{slug}/{choice['id']}"] = {"choice": "A"}
    return data


def open_page(page, url: str, work: dict | None = None) -> None:
    """Load a page, with `work` saved for the site before any of its scripts runs, and wait for every widget."""
    if work is not None:
        page.add_init_script("((work) => { for (const [k, v] of Object.entries(work))"
                             " localStorage.setItem('tinyllm:v1:' + k, JSON.stringify(v)); })(" + json.dumps(work) + ")")
    page.goto(url)
    # The class page's first visit reloads itself once the service worker takes it (issue 52): the page audited
    # is the one that stays, which says how it checks.
    page.wait_for_function("""() => window.tinyllmStarted === true
        && [...document.querySelectorAll('.tl-fallback')].every((f) => f.parentElement.tlLater)
        && [...document.querySelectorAll('.tl-class')].every((c) => ['separated', 'refused'].includes(c.dataset.boundary))
        && [...document.querySelectorAll('.tl-progress')].every((p) => p.querySelector('table'))
        && [...document.querySelectorAll('.tl-cell')].every((c) => c.tlCell || c.tlLater)""", timeout=60_000)
    page.wait_for_load_state("load")
    render_everything(page)


def render_everything(page) -> None:
    """Every fold of the page drawn (tl.css: a fold out of view is not, and axe cannot read the colours or sizes of
    what is not drawn) and every editor handed over to CodeMirror (each once it nears the viewport: each cell
    brought into view in turn), so the audit sees all of the page as a reader scrolling through it does."""
    page.add_style_tag(content=".md-typeset .tl-fold { content-visibility: visible !important; }")
    cells = page.locator(".tl-cell")  # each mounts as it nears the viewport, then hands its editor over
    for n in range(cells.count()):
        cells.nth(n).scroll_into_view_if_needed()
        near(cells.nth(n)).locator(".cm-editor").wait_for(timeout=60_000)
    widgets = page.locator(".tl-numeric, .tl-choice, .tl-reveal")  # each mounts as it nears the viewport
    for n in range(widgets.count()):
        near(widgets.nth(n))
    page.evaluate("window.scrollTo(0, 0)")


def audit(page) -> list[dict]:
    """Run axe-core on the page; every violation with its impact, rule and (up to 5) elements.

    Colours are read once they have settled: a control the pointer was left on (a click, then a new viewport moves
    another button under it) fades into its hover colours, and a colour caught halfway is one no learner reads."""
    page.mouse.move(0, 0)
    page.wait_for_function("""() => document.getAnimations()
        .every((a) => !(a instanceof CSSTransition) || a.playState !== 'running')""")
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map((v) => ({impact: v.impact, id: v.id, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n').slice(1).join(' ').trim())}));
    }""")


def report(violations: list[dict]) -> str:
    return "\n".join(f"{v['impact']} {v['id']} ({v['help']}):\n    " + "\n    ".join(v["nodes"]) for v in violations)


@pytest.fixture(scope="module")
def work(site_url):
    return saved_work(served(SITE))


def switch_palette(page) -> None:
    """The reader's own switch to the other palette (the header's visible label), as a click."""
    before = page.evaluate("document.body.dataset.mdColorScheme")
    page.locator('[data-tl-component="palette"] label:not([hidden])').first.click()
    page.wait_for_function("(before) => document.body.dataset.mdColorScheme !== before", arg=before)


@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_nothing_serious(browser, context, site_url, work, path):
    """Light as the system asks, then dark by the page's switch: one load, two audits (the page loads in the dark
    palette when the system asks for it in test_phone_width)."""
    page = context.new_page()
    page.emulate_media(color_scheme="light")
    open_page(page, site_url + path, work)
    for scheme in SCHEMES:
        if scheme != "light":
            switch_palette(page)
        assert page.evaluate("document.body.dataset.mdColorScheme") == SCHEMES[scheme]
        blocking = [v for v in audit(page) if v["impact"] in BLOCKING]
        assert not blocking, f"{path or '/'} ({scheme}):\n{report(blocking)}"


@pytest.mark.parametrize("path", ["simple/", "simple/tinyllm-ol/"])
def test_the_package_index_pages_pass_axe(page, site_url, path):
    """The pages `pip` reads (the `ol` wheel's index) are pages of the site too."""
    page.goto(site_url + path)
    blocking = [v for v in audit(page) if v["impact"] in BLOCKING]
    assert not blocking, f"{path}:\n{report(blocking)}"


@pytest.mark.parametrize("scheme", list(SCHEMES))
def test_the_course_check_with_a_failure_passes_axe_and_fits_a_phone(browser, fixture_url, scheme):
    """The author's course check once it has run, with its tables and a failure on screen (the fixture course, a
    reference broken on its way): axe, then at 390 px nothing scrolls the page sideways."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    try:
        page = ctx.new_page()
        page.emulate_media(color_scheme=scheme)
        page.route(f"**/assets/tl/exercises/{LESSON_EX.slug}.json", broken_reference)
        run_check(page, fixture_url)
        assert page.locator("[data-check-failure]").count() == 1
        blocking = [v for v in audit(page) if v["impact"] in BLOCKING]
        assert not blocking, f"the course check ({scheme}):\n{report(blocking)}"
        page.set_viewport_size({"width": 390, "height": 844})
        found = scrollers_after_repairs(page)
        assert found["page"][0] <= 390, f"the page is {found['page'][0]} px wide on a 390 px screen"
        assert [b["box"] for b in found["boxes"] if not b["reachable"]] == []
        blocking = [v for v in audit(page) if v["impact"] in BLOCKING]
        assert not blocking, f"the course check (390 px, {scheme}):\n{report(blocking)}"
    finally:
        ctx.close()


# Every box that may scroll sideways on a phone, and whether the keyboard can reach it (itself, or a control in it).
SCROLLERS_JS = """() => {
    const page = [document.documentElement.scrollWidth, document.documentElement.clientWidth];
    const boxes = [];
    for (const el of document.querySelectorAll('.md-content *')) {
        const s = getComputedStyle(el);
        if (!['auto', 'scroll'].includes(s.overflowX) || el.scrollWidth <= el.clientWidth + 1) continue;
        if (el.closest('[hidden], details:not([open])')) continue;
        const reachable = el.tabIndex >= 0 || !!el.querySelector('a[href], button, input, [tabindex="0"], [contenteditable="true"]');
        boxes.push({box: el.tagName.toLowerCase() + '.' + [...el.classList].join('.'), reachable});
    }
    // A table wider than the content must sit in a box of its own that scrolls (the theme's scrollwrap).
    const content = document.querySelector('.md-content').clientWidth;
    const wideTables = [...document.querySelectorAll('.md-content table')]
        .filter((t) => t.scrollWidth > content && !t.closest('[hidden], details:not([open])'))
        .filter((t) => { const w = t.closest('.md-typeset__scrollwrap');
                         return !w || w.scrollWidth <= w.clientWidth + 1; })
        .map((t) => t.className || 'table');
    return {page, boxes, wideTables};
}"""


@pytest.mark.parametrize("path", PAGES)
def test_phone_width(browser, context, site_url, work, path):
    """390 px wide, the system asking for the dark palette: the page loads in it, nothing scrolls the page
    sideways, every wide box scrolls by itself and by keyboard, and axe (which checks scrollable regions for
    keyboard access) finds nothing serious."""
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.emulate_media(color_scheme="dark")
    open_page(page, site_url + path, work)
    assert page.evaluate("document.body.dataset.mdColorScheme") == SCHEMES["dark"]
    found = scrollers_after_repairs(page)
    (scroll_width, width) = found["page"]
    assert scroll_width <= width == 390, f"{path or '/'}: the page is {scroll_width} px wide on a 390 px screen"
    unreachable = [b["box"] for b in found["boxes"] if not b["reachable"]]
    assert unreachable == [], f"{path or '/'}: boxes that scroll sideways but not by keyboard: {unreachable}"
    assert found["wideTables"] == [], f"{path or '/'}: tables wider than the page that do not scroll in a box"
    blocking = [v for v in audit(page) if v["impact"] in BLOCKING]
    assert not blocking, f"{path or '/'} (390 px, dark):\n{report(blocking)}"


def scrollers_after_repairs(page) -> dict:
    """SCROLLERS_JS once the scroller repairs (web/src/page/a11y.js, on a ResizeObserver's next frame) have made every
    overflowing box keyboard-reachable, or after 5 s, when the assertions say which box is not."""
    try:
        page.wait_for_function(f"() => ({SCROLLERS_JS})().boxes.every((b) => b.reachable)", timeout=5_000)
    except PlaywrightTimeout:
        pass
    return page.evaluate(SCROLLERS_JS)


def test_a_wide_catalogue_scrolls_in_its_own_box_on_a_phone(page, fixture_url):
    """A module's test catalogue is wider than a phone: it scrolls inside the theme's box around the table, which
    the keyboard reaches (a named region), and the page itself does not scroll sideways."""
    base, _ = fixture_modules()
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, fixture_url + uri(base.page))
    found = scrollers_after_repairs(page)
    assert found["page"][0] <= found["page"][1] == 390
    wrap = page.locator(f'.tl-catalogue[data-exercise="{base.slug}"] .md-typeset__scrollwrap')
    assert wrap.evaluate("(w) => w.scrollWidth > w.clientWidth + 1"), "the catalogue fits a phone: nothing tested"
    assert (wrap.get_attribute("tabindex"), wrap.get_attribute("role")) == ("0", "region")
    assert "scrolls sideways" in wrap.get_attribute("aria-label")
    wrap.focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function("(w) => w.scrollLeft > 0", arg=wrap.element_handle(), timeout=5_000)


def focused(page) -> str:
    return page.evaluate("""() => { const a = document.activeElement;
        if (!a || a === document.body) return 'body';
        // CodeMirror's editable area, or the plain editor that stands in for it until it loads (plain-editor.js)
        if (a.matches('.cm-content, .tl-editor-plain')) return 'editor:' + a.closest('.tl-cell').dataset.exercise;
        return a.tagName.toLowerCase() + '.' + [...a.classList].filter((c) => c !== 'focus-visible').join('.'); }""")


def count_checks(page) -> None:
    """Count finished checks in `window.tlChecks` (code-cell.js announces each with a `tl:result` event)."""
    page.evaluate("() => { window.tlChecks = 0; document.addEventListener('tl:result', () => { window.tlChecks += 1; }); }")


def wait_checks(page, n: int) -> None:
    page.wait_for_function("(n) => window.tlChecks === n", arg=n, timeout=90_000)


def test_keyboard_only_code_cell(page, fixture_url):
    """Tab to the editor, type, Shift+Enter runs, Ctrl+Enter checks (announced in a live region), and Escape then
    Tab leaves the editor for the next control, as the hint beside every editor says."""
    slug = LESSON_EX.slug
    page.goto(fixture_url + LESSON)
    presses = 0
    while focused(page) != f"editor:{slug}":
        assert presses < 200, f"Tab never reached the editor of {slug}; focus is on {focused(page)}"
        page.keyboard.press("Tab")
        presses += 1
    assert "Esc then Tab leaves the editor" in cell(page, slug).locator(".tl-hint").inner_text()

    page.keyboard.press("Control+a")
    page.keyboard.type("print(6 * 7)")
    page.keyboard.press("Shift+Enter")
    assert wait_result(page, slug) == "ok"
    assert cell(page, slug).locator(".tl-output").inner_text().strip() == "42"

    page.keyboard.press("Control+a")
    page.keyboard.insert_text(reference(FIXTURE, slug))
    count_checks(page)
    page.keyboard.press("Control+Enter")
    summary = cell(page, slug).locator(".tl-summary")
    assert (summary.get_attribute("role"), summary.get_attribute("aria-live")) == ("status", "polite")
    wait_checks(page, 1)
    assert wait_result(page, slug) == "passed", failures(page, slug)
    assert summary.inner_text() == f"All {len(outcomes(page, slug))} tests pass."
    # Each row says its outcome in words to a screen reader; the ✓ mark is hidden from it.
    row = cell(page, slug).locator("li[data-test]").first
    assert row.locator(".tl-sr").inner_text().strip() == "passed"
    assert row.locator(".tl-mark").get_attribute("aria-hidden") == "true"

    assert focused(page) == f"editor:{slug}"
    page.keyboard.press("Tab")  # inside the editor Tab indents...
    assert focused(page) == f"editor:{slug}"
    page.keyboard.press("Escape")  # ...until Escape: then Tab moves on, to the cell's first button
    page.keyboard.press("Tab")
    assert focused(page) == "button.md-button.tl-run"
    page.keyboard.press("Tab")
    assert focused(page) == "button.md-button.tl-check.md-button--primary"
    page.keyboard.press("Enter")  # a button works from the keyboard too: the check runs again
    wait_checks(page, 2)
    assert wait_result(page, slug) == "passed", failures(page, slug)
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert focused(page) == f"editor:{slug}", "Shift+Tab goes back into the editor"


def test_palette_toggle_is_remembered(page, fixture_url):
    """Material's palette switch stores the choice (`__palette`); the page comes back in the dark palette."""
    page.goto(fixture_url + page_with(FIXTURE_DOCS, "/// module-map"))
    assert page.evaluate("document.body.dataset.mdColorScheme") == "default"
    page.locator('label[title="Switch to the dark palette"]').click()
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    page.reload()
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    assert "slate" in page.evaluate("localStorage.getItem(Object.keys(localStorage).find((k) => k.endsWith('__palette')))")


def test_a_phone_wraps_long_lines_and_reaches_every_button(context, fixture_url):
    """390 px: a long line of code wraps in the editor (plain at first, CodeMirror once it takes over) instead of
    widening the page or hiding the cursor, and every button of the cell is on the screen and works."""
    slug = LESSON_EX.slug
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(fixture_url + LESSON)
    long_line = "total = " + " + ".join(f"value_{i}" for i in range(40)) + "\n"
    assert cell(page, slug).locator("textarea.tl-editor-plain").get_attribute("wrap") == "soft"
    wait_python(page, slug)
    page.wait_for_selector(f'.tl-cell[data-exercise="{slug}"] .cm-editor')
    set_code(page, slug, long_line)
    content = cell(page, slug).locator(".cm-content")
    assert "cm-lineWrapping" in content.get_attribute("class")
    editor = cell(page, slug).locator(".cm-scroller").evaluate("(e) => [e.scrollWidth, e.clientWidth]")
    assert editor[0] <= editor[1], f"the editor scrolls sideways on a phone: {editor}"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    for name in ("Run", "Check", "Stop", "Reset"):
        box = cell(page, slug).get_by_role("button", name=name, exact=True).bounding_box()
        assert box and 0 <= box["x"] and box["x"] + box["width"] <= 390, f"{name} is off the screen: {box}"
    cell(page, slug).get_by_role("button", name="Check", exact=True).click()
    assert wait_result(page, slug) in ("failed", "error"), failures(page, slug)
