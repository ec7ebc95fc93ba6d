"""Pictures in the code cells: matplotlib loaded only when code imports it, from the site's own files.

The machinery on the fixture course (its lesson's exercise cell, whose Run takes any code): nothing of matplotlib
is requested before code imports it; a plot appears after Run, in order with the printed text, as an image with a
text alternative, on a white background, with no request off 127.0.0.1; the page grades while matplotlib loads;
the caps; a Check draws nothing; offline after one visit that used it. Then the real course's two lesson cells,
with the reference code saved as the learner's, plot, and say what to write first while the code is the starter.
"""
from __future__ import annotations

import base64
import io
import json
import time

import pytest

from conftest import FIXTURE_SITE, REPO, served
from e2e_helpers import (FIXTURE, LESSON, LESSON_EX, cell, failures, near, reference, set_code, uri, wait_python,
                         wait_result, wait_saved)

SLUG = LESSON_EX.slug
PLOT_MS = 120_000  # the first plot fetches ~10 MB and imports matplotlib: generous on a loaded 2-core machine

PLOT = """import matplotlib.pyplot as plt
print("before")
plt.plot([0, 1, 2], [0, 1, 4])
plt.title("a parabola")
plt.show()
print("between")
fig = plt.figure(figsize=(3, 2))
fig.suptitle("left open")
print("after")
"""


def optional_files(site) -> list[str]:
    """The files of matplotlib and its dependencies, as the build's wheels list names them."""
    listed = json.loads((site / "assets" / "pyodide" / "wheels.json").read_text(encoding="utf-8"))
    (matplotlib,) = [p for p in listed["optional"] if p["name"] == "matplotlib"]
    assert matplotlib["files"] and matplotlib["files"][0].startswith("matplotlib-")
    return matplotlib["files"]


def fixture_files() -> list[str]:
    return optional_files(served(FIXTURE_SITE))


def asked_for(recorder, files) -> list[str]:
    return [u for u in recorder.requests if any(u.split("?")[0].endswith("/" + f) for f in files)]


def figures(page, root):
    """(kind, alt or text) of every node of the cell's output, in order, text included."""
    return page.evaluate("""(root) => [...root.querySelector('.tl-output').childNodes].map((n) =>
        n.nodeType === 3 ? ['text', n.textContent] : n.tagName === 'IMG' ? ['img', n.alt] : ['note', n.textContent])""",
                         root.element_handle())


def png_of(page, root, index=0):
    from PIL import Image
    src = root.locator(".tl-output img").nth(index).get_attribute("src")
    assert src.startswith("data:image/png;base64,")
    return Image.open(io.BytesIO(base64.b64decode(src.split(",", 1)[1])))


@pytest.fixture()
def no_sw_context(browser, recorder):
    """A fresh browser without the service worker: every request the page and its worker make is recorded as
    made (a service worker would fetch the offline copy's files on its own schedule)."""
    ctx = browser.new_context(viewport={"width": 1280, "height": 900}, service_workers="block")
    ctx.on("request", lambda r: recorder.requests.append(r.url))
    ctx.on("page", lambda p: p.on("pageerror", lambda e: recorder.errors.append(str(e))))
    yield ctx
    ctx.close()
    assert recorder.foreign() == [], f"requests left localhost: {recorder.foreign()}"
    assert recorder.errors == [], f"the page threw: {recorder.errors}"


def test_a_plot_appears_after_run_and_nothing_of_matplotlib_is_fetched_before(no_sw_context, recorder, fixture_url):
    files = fixture_files()
    page = no_sw_context.new_page()
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    root = cell(page, SLUG)
    root.locator("button.tl-check").click()  # the first Check, as today
    wait_result(page, SLUG)
    set_code(page, SLUG, "import numpy as np\nprint(np.arange(3).sum())\n")
    root.locator("button.tl-run").click()
    assert wait_result(page, SLUG) == "ok"
    assert asked_for(recorder, files) == [], "matplotlib was fetched before any code imported it"

    set_code(page, SLUG, PLOT)
    started = time.monotonic()
    root.locator("button.tl-run").click()
    page.wait_for_function("(root) => root.querySelector('.tl-summary').textContent.startsWith('Loading matplotlib')",
                           arg=root.element_handle(), timeout=10_000)
    assert wait_result(page, SLUG, PLOT_MS) == "ok", failures(page, SLUG)
    first_plot = time.monotonic() - started
    assert figures(page, root) == [["text", "before\n"], ["img", "a parabola"], ["text", "between\nafter\n"],
                                   ["img", "left open"]]
    assert png_of(page, root).convert("RGB").getpixel((2, 2)) == (255, 255, 255), "a light background"
    fetched = {u.split("?")[0].rsplit("/", 1)[1] for u in asked_for(recorder, files)}
    assert fetched == set(files), "loadPackage fetched other files than the build listed"
    assert not any("numpy-2.0.2-cp312" in u for u in recorder.requests), "numpy's wheel fetched over its pack"
    print(f"first plot: {first_plot:.1f} s")

    # The second plot loads nothing more, and figures of the previous run are gone.
    count = len(recorder.requests)
    set_code(page, SLUG, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\n")
    root.locator("button.tl-run").click()
    assert wait_result(page, SLUG) == "ok"
    assert figures(page, root) == [["img", "figure 1"]]
    assert len(asked_for(recorder, files[:1])) == 1, "matplotlib's wheel fetched twice"
    # Nothing more was fetched for it. The theme's search index may come meanwhile: the page lets the search fetch
    # it once Python has settled (web/src/page/main.js allowSearch), whenever that is.
    later = [u for u in recorder.requests[count:] if not u.endswith("/search/search_index.json")]
    assert later == [], later


def test_the_page_grades_while_matplotlib_loads(no_sw_context, recorder, fixture_url):
    page = no_sw_context.new_page()
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    # An example cell would run the plot beside the exercise's cell; the fixture lesson's examples do not plot,
    # so the plot is sent through the page's worker client, as a cell sends it, and Check pressed meanwhile.
    page.evaluate("""(code) => { window.__plot = window.tinyllm.python.request('run',
        {code, filename: 'plot.py', files: {}}, {timeLimit: 120}).then((r) => ({...r, at: performance.now()})); }""",
                  PLOT)
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    page.evaluate("document.addEventListener('tl:result', () => { window.__checkedAt = performance.now(); })")
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)
    checked_at = page.evaluate("window.__checkedAt")
    plot = page.evaluate("window.__plot")
    assert plot["status"] == "ok", plot
    assert [f["alt"] for f in plot["figures"] if f["kind"] == "image"] == ["a parabola", "left open"]
    # The check was judged while matplotlib loaded, not queued behind it.
    assert checked_at < plot["at"], f"the check waited for the plot ({checked_at:.0f} ms, plot {plot['at']:.0f} ms)"
    # A check of code that plots draws nothing.
    set_code(page, SLUG, reference(FIXTURE, SLUG) + "\nimport matplotlib.pyplot as plt\nplt.plot([1]); plt.show()\n")
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)
    assert cell(page, SLUG).locator(".tl-output img").count() == 0


def test_figures_are_capped_in_number_and_size(no_sw_context, recorder, fixture_url):
    page = no_sw_context.new_page()
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG, "numpy")
    root = cell(page, SLUG)
    set_code(page, SLUG, "import matplotlib.pyplot as plt\nfor i in range(30):\n    plt.figure(figsize=(1, 1))\n"
                         "    plt.title(f'small {i}')\n    plt.show()\n"
                         "plt.figure(figsize=(100, 60), dpi=300)\nplt.title('huge')\n")
    root.locator("button.tl-run").click()
    assert wait_result(page, SLUG, PLOT_MS) == "ok", failures(page, SLUG)
    shown = figures(page, root)
    images = [alt for kind, alt in shown if kind == "img"]
    assert images == [f"small {i}" for i in range(20)]
    assert shown[-1] == ["note", "11 more figures were not shown: at most 20 figures are drawn per run."]
    assert page.evaluate("(root) => root.querySelector('.tl-output').textContent.length", root.element_handle()) < 200

    set_code(page, SLUG, "import matplotlib.pyplot as plt\nplt.figure(figsize=(100, 60), dpi=300)\nplt.title('huge')\n")
    root.locator("button.tl-run").click()
    assert wait_result(page, SLUG, PLOT_MS) == "ok", failures(page, SLUG)
    (img, note) = figures(page, root)
    assert img == ["img", "huge"] and note[1].startswith("huge (100 x 60 inches) was drawn at ")
    width, height = png_of(page, root).size
    assert width * height <= 4_000_000
    assert page.evaluate("(root) => root.querySelector('.tl-output img').getBoundingClientRect().width"
                         " <= root.getBoundingClientRect().width", root.element_handle())


@pytest.mark.alone  # the service worker's timing: test_offline.py says why
def test_offline_after_one_visit_that_plotted(context, recorder, fixture_url):
    page = context.new_page()
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=60_000)
    page.reload()  # now the page and its Python worker go through the service worker
    wait_python(page, SLUG, "numpy")
    set_code(page, SLUG, PLOT)
    cell(page, SLUG).locator("button.tl-run").click()
    assert wait_result(page, SLUG, PLOT_MS) == "ok", failures(page, SLUG)
    wait_saved(page, f"code:{SLUG}", PLOT)
    context.set_offline(True)
    page.reload()
    wait_python(page, SLUG, "numpy")
    set_code(page, SLUG, PLOT.replace("a parabola", "offline"))
    cell(page, SLUG).locator("button.tl-run").click()
    assert wait_result(page, SLUG, PLOT_MS) == "ok", failures(page, SLUG)
    assert figures(page, cell(page, SLUG))[1] == ["img", "offline"]
    context.set_offline(False)


# ---- the real course's lesson cells ----------------------------------------------------------------------------

def lesson_cells():
    from course import manifest
    exercises = manifest.load_all(manifest.EXERCISES)
    for ex in exercises.values():
        text = (REPO / "docs" / ex.page).read_text(encoding="utf-8")
        if f"uses: {ex.id}" in text and "matplotlib" in text:
            yield ex


# The first lesson whose example cell plots: the browser's part (matplotlib loaded on demand, a figure drawn, the
# starter's message) is the platform's, the same on every lesson. Each lesson's example runs at build time on
# CPython against its reference and its starter (mdwidgets/pycell.py), so no lesson's content goes unchecked, and
# this test's cost does not grow with the course.
@pytest.mark.parametrize("ex", list(lesson_cells())[:1], ids=lambda ex: ex.id)
def test_a_lesson_cell_plots_with_the_reference_and_says_what_to_write_with_the_starter(no_sw_context, recorder,
                                                                                        site_url, ex):
    page = no_sw_context.new_page()
    page.goto(site_url + uri(ex.page))
    # The page's example that imports the exercise's module (`uses:`) and plots; a page may have other examples.
    examples = page.locator('.tl-cell[data-kind="example"]')
    which = page.evaluate("""(slug) => [...document.querySelectorAll('.tl-cell[data-kind="example"]')].findIndex(
        (el) => { const data = JSON.parse(el.querySelector('script.tl-data').textContent);
                  return data.uses === slug && el.textContent.includes('matplotlib'); })""", ex.slug)
    assert which >= 0, f"no example of {ex.page} uses {ex.id} and plots"
    example = near(examples.nth(which))
    wait_python(page, ex.slug, "numpy")
    example.locator("button.tl-run").click()
    page.wait_for_function("(el) => el.dataset.state === 'idle' && el.dataset.status", arg=example.element_handle(),
                           timeout=PLOT_MS)
    assert example.get_attribute("data-status") == "ok", example.locator(".tl-output").inner_text()
    assert example.locator(".tl-output img").count() == 0
    said = example.locator(".tl-output").inner_text()
    assert said.strip() and "Traceback" not in said, said  # what to write first, not a crash

    set_code(page, ex.slug, reference(REPO / "exercises", ex.slug))
    wait_saved(page, f"code:{ex.slug}", reference(REPO / "exercises", ex.slug))
    example.locator("button.tl-run").click()
    page.wait_for_function("(el) => el.dataset.state === 'idle' && el.dataset.status", arg=example.element_handle(),
                           timeout=PLOT_MS)
    assert example.get_attribute("data-status") == "ok", example.locator(".tl-output").inner_text()
    img = example.locator(".tl-output img")
    assert img.count() == 1
    assert img.get_attribute("alt").strip()
    assert "Traceback" not in example.locator(".tl-output").inner_text()
