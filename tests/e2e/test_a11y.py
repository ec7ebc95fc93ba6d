"""Accessibility and layout of every page, in real headless Chromium against the built site.

- An axe-core audit (from node_modules, injected by Playwright: never a CDN) of every page of the site, in the
  light and the dark palette, fails on any "serious" or "critical" violation. Pages are audited with saved work in
  place (failed and passed tests, right and wrong answers, a prediction), so result rows, verdicts and the diff
  are on screen and their colours are checked too.
- At 390 CSS pixels wide no page scrolls sideways; wide tables, code and output scroll inside their own box,
  which the keyboard can reach.
- Keyboard only: Tab reaches the code cell, typed code runs with Shift+Enter and is checked with Ctrl+Enter, the
  result is announced through live regions, and Escape then Tab leaves the editor for the next control.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import SITE
from e2e_helpers import LESSON, cell, outcomes, reference, wait_result

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"
PAGES = sorted("" if p.parent == SITE else p.parent.relative_to(SITE).as_posix() + "/"
               for p in SITE.rglob("index.html") if "assets" not in p.relative_to(SITE).parts) + ["404.html"]
BLOCKING = ("serious", "critical")
SCHEMES = {"light": "default", "dark": "slate"}


def saved_work() -> dict[str, object]:
    """Saved state shaped as the widgets store it, so every kind of result is on screen during the audit."""
    index = json.loads((SITE / "assets" / "tl" / "exercises" / "index.json").read_text(encoding="utf-8"))
    data: dict[str, object] = {}
    for n, entry in enumerate(index):
        slug, names = entry["slug"], entry["names"]
        outcome = ["passed", "failed", "error"]
        tests = [{"name": t, "outcome": outcome[i % 3] if n % 2 else "passed",
                  "message": "" if (i % 3 == 0 or not n % 2) else f"expected 0.5, got 0.375 in {t}"}
                 for i, t in enumerate(names)]
        code = f"# my {slug}\nprint('hello')\n"
        data[f"result:{slug}"] = {"status": "failed" if n % 2 else "passed", "tests": tests, "code": code,
                                  "stdout": "hello\n", "traceback": "", "at": 1}
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
    page.wait_for_function("""() => document.documentElement.classList.contains('tl-js')
        && !document.querySelector('.tl-fallback')
        && [...document.querySelectorAll('.tl-progress')].every((p) => p.querySelector('table'))
        && [...document.querySelectorAll('.tl-cell')].every((c) => c.querySelector('.cm-editor'))""", timeout=60_000)
    page.wait_for_load_state("load")


def audit(page) -> list[dict]:
    """Run axe-core on the page; every violation with its impact, rule and (up to 5) elements."""
    page.add_script_tag(path=str(AXE))
    return page.evaluate("""async () => {
        const r = await axe.run(document, {resultTypes: ['violations']});
        return r.violations.map((v) => ({impact: v.impact, id: v.id, help: v.help,
            nodes: v.nodes.slice(0, 5).map((n) => n.target.join(' ') + ': ' + (n.failureSummary || '').split('\\n').slice(1).join(' ').trim())}));
    }""")


def report(violations: list[dict]) -> str:
    return "\n".join(f"{v['impact']} {v['id']} ({v['help']}):\n    " + "\n    ".join(v["nodes"]) for v in violations)


@pytest.fixture(scope="module")
def work():
    return saved_work()


@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("path", PAGES)
def test_axe_finds_nothing_serious(browser, context, site_url, work, path, scheme):
    page = context.new_page()
    page.emulate_media(color_scheme=scheme)
    open_page(page, site_url + path, work)
    assert page.evaluate("document.body.dataset.mdColorScheme") == SCHEMES[scheme]
    violations = audit(page)
    blocking = [v for v in violations if v["impact"] in BLOCKING]
    assert not blocking, f"{path or '/'} ({scheme}):\n{report(blocking)}"


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
    return {page, boxes};
}"""


@pytest.mark.parametrize("path", PAGES)
def test_phone_width(browser, context, site_url, work, path):
    """390 px wide: nothing scrolls the page sideways, every wide box scrolls by itself and by keyboard, and axe
    (which checks scrollable regions for keyboard access) finds nothing serious."""
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    open_page(page, site_url + path, work)
    page.wait_for_timeout(100)  # one frame for the scroller repairs (web/src/a11y.js) after layout
    found = page.evaluate(SCROLLERS_JS)
    (scroll_width, width) = found["page"]
    assert scroll_width <= width == 390, f"{path or '/'}: the page is {scroll_width} px wide on a 390 px screen"
    unreachable = [b["box"] for b in found["boxes"] if not b["reachable"]]
    assert unreachable == [], f"{path or '/'}: boxes that scroll sideways but not by keyboard: {unreachable}"
    if path == "m07/rejection-sampling/":  # its catalogue is wider than a phone: it must scroll, inside its box
        assert any("md-typeset__scrollwrap" in b["box"] for b in found["boxes"])
    blocking = [v for v in audit(page) if v["impact"] in BLOCKING]
    assert not blocking, f"{path or '/'} (390 px):\n{report(blocking)}"


def focused(page) -> str:
    return page.evaluate("""() => { const a = document.activeElement;
        if (!a || a === document.body) return 'body';
        if (a.classList.contains('cm-content')) return 'editor:' + a.closest('.tl-cell').dataset.exercise;
        return a.tagName.toLowerCase() + '.' + [...a.classList].filter((c) => c !== 'focus-visible').join('.'); }""")


def count_checks(page) -> None:
    """Count finished checks in `window.tlChecks` (code-cell.js announces each with a `tl:result` event)."""
    page.evaluate("() => { window.tlChecks = 0; document.addEventListener('tl:result', () => { window.tlChecks += 1; }); }")


def wait_checks(page, n: int) -> None:
    page.wait_for_function("(n) => window.tlChecks === n", arg=n, timeout=90_000)


def test_keyboard_only_code_cell(page, site_url):
    """Tab to the editor, type, Shift+Enter runs, Ctrl+Enter checks (announced in a live region), and Escape then
    Tab leaves the editor for the next control, as the hint beside every editor says."""
    slug = "e7-3"
    page.goto(site_url + LESSON)
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
    page.keyboard.insert_text(reference(slug))
    count_checks(page)
    page.keyboard.press("Control+Enter")
    summary = cell(page, slug).locator(".tl-summary")
    assert (summary.get_attribute("role"), summary.get_attribute("aria-live")) == ("status", "polite")
    wait_checks(page, 1)
    assert wait_result(page, slug) == "passed"
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
    assert wait_result(page, slug) == "passed"
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    assert focused(page) == f"editor:{slug}", "Shift+Tab goes back into the editor"


def test_palette_toggle_is_remembered(page, site_url):
    """Material's palette switch stores the choice (`__palette`); the page comes back in the dark palette."""
    page.goto(site_url + "modules/")
    assert page.evaluate("document.body.dataset.mdColorScheme") == "default"
    page.locator('label[title="Switch to the dark palette"]').click()
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    page.reload()
    assert page.evaluate("document.body.dataset.mdColorScheme") == "slate"
    assert "slate" in page.evaluate("localStorage.getItem(Object.keys(localStorage).find((k) => k.endsWith('__palette')))")
