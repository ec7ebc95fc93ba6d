"""The learner journeys that can differ by browser engine, in Chromium, Firefox and WebKit (tests/e2e/engines.py).

The full end-to-end suite runs in Chromium; these journeys run in all three engines, against the fixture course
(the machinery) and, for the `ol` line, the real site's home page. Each journey gets a fresh browser with an empty
profile, as a learner's first visit (a browser costs a second to start; Python's cold start, a few).
`TL_ENGINES=firefox,webkit` runs only those.

Everything typed or expected comes from the fixture's manifests (e2e_helpers).
"""
from __future__ import annotations

import base64
import io
import json
import os
import shutil
import zipfile

import pytest

from conftest import CHROMIUM_ARGS, FIXTURE_SITE, chromium_path, served
from e2e_helpers import (FIXTURE, FIXTURE_DOCS, LESSON, LESSON_EX, PROGRESS, answer_text, exercises, mutant_source,
                         page_with, reference)
from engines import ENGINES, Chromium, Firefox, WebKit
from test_offline import private_site  # noqa: F401 (a fixture)
from test_trust import ESCAPES, RUN_IN, elsewhere  # noqa: F401 (elsewhere: a fixture)
from authoring.serve import start_in_thread

SLUG = LESSON_EX.slug
CHECK_PAGE = page_with(FIXTURE_DOCS, "/// course-check")
PROMPT = next(p for p in LESSON_EX.prompts if p.feedback)
CHOSEN = [e for e in os.environ.get("TL_ENGINES", ",".join(ENGINES)).split(",") if e]
PYTHON_S = 120  # a cold start in a fresh profile, two cores, three browsers in one run

# A slug's cell, brought into view first as a reader scrolls to it: a cell mounts as it nears the viewport
# (web/src/page/widgets.js mountWhenNear; `tlLater` marks one still waiting).
CELL = ("(() => { const c = document.querySelector(`.tl-cell[data-exercise='${slug}']`);"
        " if (c && c.tlLater) c.scrollIntoView({ block: 'center' }); return c; })()")


@pytest.fixture(params=CHOSEN)
def engine(request):
    if request.param == "chromium":
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            made = Chromium(p, chromium_path(), CHROMIUM_ARGS)
            yield made
            made.close()
        return
    made = Firefox() if request.param == "firefox" else WebKit()
    yield made
    made.close()


@pytest.fixture()
def site(tmp_path, fixture_url):
    """The fixture site on a server of its own (an origin of its own: storage and service worker start empty),
    which a journey may stop."""
    root = tmp_path / "site"
    shutil.copytree(served(FIXTURE_SITE), root)
    server, url = start_in_thread(root)
    yield server, url
    server.shutdown()
    server.server_close()


def wait_python(engine, slug: str = SLUG, stage: str = "pytest") -> None:
    stages = ["python", "numpy", "pytest"][["python", "numpy", "pytest"].index(stage):]
    try:
        engine.wait(f"(slug, stages) => {{ const c = {CELL}; return c && stages.includes(c.dataset.python); }}",
                    slug, stages, timeout=PYTHON_S, what=f"Python ({stage}) in {slug}'s cell")
    except TimeoutError as exc:  # say where it stood: the cell's status and the worker client's
        said = engine.js(f"(slug) => [{CELL}?.querySelector('.tl-status')?.textContent, "
                         "JSON.stringify(window.tinyllm?.python?.status), JSON.stringify(window.tinyllm?.python?.losses),"
                         " location.href, navigator.serviceWorker?.controller?.state]", slug)
        raise TimeoutError(f"{exc}; the page says {said}; errors {engine.errors()}; "
                           f"timeline {engine.js('() => window.tinyllm?.python?.timeline')}") from None


def mounted(engine, slug: str = SLUG) -> None:
    engine.wait(f"(slug) => !!{CELL}?.tlCell", slug, what=f"{slug}'s cell mounted")


def set_code(engine, code: str, slug: str = SLUG) -> None:
    mounted(engine, slug)
    engine.js(f"(slug, code) => {CELL}.tlCell.editor.setCode(code)", slug, code)


def press(engine, button: str, slug: str = SLUG) -> None:
    mounted(engine, slug)
    engine.js(f"(slug, button) => {CELL}.querySelector(button).click()", slug, button)


def result(engine, slug: str = SLUG, timeout: float = PYTHON_S) -> str:
    """Wait until the cell is idle with a status; the status."""
    return engine.wait(f"(slug) => {{ const c = {CELL}; return c.dataset.state === 'idle' && c.dataset.status; }}",
                       slug, timeout=timeout, what="a result")


def rows(engine, slug: str = SLUG) -> dict[str, str]:
    mounted(engine, slug)
    return engine.js(f"(slug) => Object.fromEntries([...{CELL}.querySelectorAll('li[data-test]')]"
                     ".map((li) => [li.dataset.test, li.dataset.outcome]))", slug)


def check(engine, code: str) -> str:
    set_code(engine, code)
    press(engine, "button.tl-check")
    return result(engine)


def clean(engine) -> None:
    """No error since the last journey's check (the engine's log is one for the whole module)."""
    every = engine.errors()
    new, engine.seen = every[engine.seen:], len(every)
    assert new == [], f"{engine.name}: the page threw"


def test_a_lesson_page_loads_with_no_error(engine, site):
    _, url = site
    engine.open(url + LESSON)
    wait_python(engine)
    assert engine.js("() => document.querySelectorAll('.tl-widget-error, [data-widget-error]').length") == 0
    assert engine.js("() => document.querySelector('.tl-cell .tl-toolbar button.tl-check') !== null")
    clean(engine)


# A prompt's input, once the prompt is brought into view as a reader scrolls to it: a prompt mounts as it nears the
# viewport (web/src/page/widgets.js mountWhenNear).
NEAR_INPUT = ("(id) => { const box = document.querySelector(`.tl-numeric[data-prompt='${id}']`);"
              " if (box.tlLater) box.scrollIntoView({ block: 'center' }); return box.querySelector('input'); }")


def test_a_numeric_prompt(engine, fixture_url):
    engine.open(fixture_url + LESSON)
    answer = ("(id, text) => { const box = document.querySelector(`.tl-numeric[data-prompt='${id}']`);"
              " box.querySelector('input').value = text; box.querySelector('button[type=submit]').click();"
              " return [box.dataset.verdict, box.querySelector('.tl-feedback').textContent]; }")
    engine.wait(NEAR_INPUT, PROMPT.id)
    verdict, said = engine.js(answer, PROMPT.id, answer_text(PROMPT.feedback[0].answer))
    assert verdict == "incorrect" and PROMPT.feedback[0].message in said
    verdict, _ = engine.js(answer, PROMPT.id, answer_text(PROMPT.answer))
    assert verdict == "correct"
    clean(engine)


def test_check_passing_and_failing_with_a_row_per_test(engine, fixture_url):
    engine.open(fixture_url + LESSON)
    wait_python(engine)
    assert check(engine, reference(FIXTURE, SLUG)) == "passed"
    assert rows(engine) == {name: "passed" for name in LESSON_EX.test_names()}
    mutant = min(LESSON_EX.mutants, key=lambda m: m.name)
    source, fails = mutant_source(FIXTURE, SLUG, mutant.name)
    assert check(engine, source) == "failed"
    got = rows(engine)
    assert list(got) == LESSON_EX.test_names() and got[fails] in ("failed", "error")
    clean(engine)


def test_run_prints_and_draws_a_figure(engine, fixture_url):
    engine.open(fixture_url + LESSON)
    wait_python(engine, stage="numpy")
    set_code(engine, "import matplotlib.pyplot as plt\nprint('before the plot')\nplt.plot([1, 3, 2])\n"
                     "plt.title('a line')\nplt.show()\nprint('after it')\n")
    press(engine, "button.tl-run")
    assert result(engine) == "ok"
    shown = engine.js(f"(slug) => {{ const out = {CELL}.querySelector('.tl-output');"
                      " const img = out.querySelector('img.tl-figure');"
                      " return [out.textContent, img && img.alt, img && img.naturalWidth]; }", SLUG)
    assert "before the plot" in shown[0] and "after it" in shown[0]
    assert shown[1] == "a line" and shown[2] > 100, shown
    clean(engine)


def test_the_console_and_a_trace(engine, fixture_url):
    engine.open(fixture_url + LESSON)
    wait_python(engine, stage="numpy")
    set_code(engine, reference(FIXTURE, SLUG))
    press(engine, "button.tl-run")
    assert result(engine) == "ok"
    console = f"{CELL}.querySelector('details.tl-console')"
    engine.js(f"(slug) => {{ const c = {console}; c.open = true; const i = c.querySelector('[data-console-input]');"
              " i.value = 'normalise([1, 3])';"
              " i.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true, cancelable: true})); }", SLUG)
    said = engine.wait(f"(slug) => {{ const e = [...{console}.querySelectorAll('[data-console-entry]')];"
                       " return e.length >= 2 && e.map((n) => n.dataset.kind + ':' + n.textContent); }", SLUG,
                       timeout=PYTHON_S, what="the console's answer")
    assert said == ["input:>>> normalise([1, 3])", "output:array([0.25, 0.75])"], said
    engine.js(f"(slug) => {{ const c = {console}; c.querySelector('[data-console-input]').value = 'normalise([1, 3])';"
              " c.querySelector('.tl-console-trace').click(); }", SLUG)
    steps = engine.wait(f"(slug) => {{ const t = {console}.querySelector('[data-trace]');"
                        " return t.dataset.steps === '2' && t.querySelector('.tl-trace-note').textContent.includes('returned')"
                        " && [t.dataset.step, t.dataset.line]; }", SLUG, timeout=PYTHON_S, what="the trace")
    engine.js(f"(slug) => {console}.querySelector('[data-trace]').dispatchEvent(new KeyboardEvent('keydown',"
              " {key: 'ArrowRight', bubbles: true, cancelable: true}))", SLUG)
    after = engine.js(f"(slug) => {{ const t = {console}.querySelector('[data-trace]');"
                      " return [t.dataset.step, t.dataset.line, t.querySelector('tr[data-var=p]').textContent]; }", SLUG)
    assert steps[0] == "1" and after[0] == "2" and int(after[1]) == int(steps[1]) + 1, (steps, after)
    assert "shape (2,) float64" in after[2], after
    clean(engine)


@pytest.mark.parametrize("isolated", [False, True], ids=["plain", "isolated"])
def test_stop_ends_an_infinite_loop(engine, isolated, fixture_url, fixture_isolated_url):
    # A first visit: the service worker, which adds the isolation headers, does not control the page yet.
    engine.open((fixture_isolated_url if isolated else fixture_url) + LESSON)
    wait_python(engine)
    if not isolated:
        engine.js("() => navigator.serviceWorker.getRegistrations().then((all) => Promise.all(all.map((r) => r.unregister())))")
        engine.reload()
        wait_python(engine)
    assert engine.js("() => crossOriginIsolated") is isolated
    set_code(engine, "def normalise(p):\n    while True:\n        pass\n\nnormalise(1)\n")
    press(engine, "button.tl-check")
    engine.wait(f"(slug) => {CELL}.dataset.state === 'running'", SLUG)
    engine.js("() => new Promise((r) => setTimeout(r, 1500))")  # let it spin inside Python
    press(engine, "button.tl-stop")
    assert result(engine, timeout=30) == "stopped"
    restarts = engine.js("() => window.tinyllm.python.restarts")
    assert restarts == (0 if isolated else 1), engine.js("() => window.tinyllm.python.losses")
    assert check(engine, reference(FIXTURE, SLUG)) == "passed", "Python works again after the Stop"
    clean(engine)


def test_a_reload_keeps_the_code(engine, site):
    _, url = site
    engine.open(url + LESSON)
    wait_python(engine, stage="python")
    mine = "# typed before a reload\n" + reference(FIXTURE, SLUG)
    set_code(engine, mine)
    engine.wait("(key, code) => { try { return JSON.parse(localStorage.getItem(key)).code === code; }"
                " catch { return false; } }", f"tinyllm:v1:code:{SLUG}", mine, timeout=10)
    engine.reload()
    engine.wait(f"(slug) => {CELL} && {CELL}.tlCell", SLUG)
    assert engine.js(f"(slug) => {CELL}.tlCell.editor.getCode()", SLUG) == mine
    clean(engine)


def test_it_grades_offline_after_a_first_visit(engine, site):
    server, url = site
    engine.open(url + LESSON)
    wait_python(engine)
    engine.wait("() => new Promise((resolve) => { const sw = navigator.serviceWorker;"
                " if (!sw || !sw.controller) return resolve(false);"
                " sw.addEventListener('message', function once(e) { if (!e.data || e.data.type !== 'tl-sw-status') return;"
                " sw.removeEventListener('message', once); resolve(Boolean(e.data.pageSaved) && !e.data.filling); });"
                " sw.controller.postMessage({type: 'tl-sw-status', page: location.href});"
                " setTimeout(() => resolve(false), 2000); })",
                timeout=180, what="the offline copy of the page's unit")
    server.shutdown()
    server.server_close()  # the host is gone: only the service worker's copy remains
    engine.reload()
    wait_python(engine)
    assert check(engine, reference(FIXTURE, SLUG)) == "passed"
    clean(engine)


EXPORT = """async () => {
  let blob = null;
  const original = URL.createObjectURL;
  URL.createObjectURL = (b) => { blob = b; return original.call(URL, b); };
  HTMLAnchorElement.prototype.click = function () {};  // no download dialog: the file's bytes are read here
  document.querySelector('.tl-export').click();
  for (let i = 0; i < 100 && !blob; i += 1) await new Promise((r) => setTimeout(r, 50));
  return blob ? await blob.text() : null;
}"""
IMPORT = """(text) => {
  const input = document.querySelector('.tl-import input[type=file]');
  const files = new DataTransfer();
  files.items.add(new File([text], 'tinyllm-progress.json', { type: 'application/json' }));
  input.files = files.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
}"""


def test_progress_export_and_import(engine, site):
    _, url = site
    engine.open(url + LESSON)
    engine.wait(NEAR_INPUT, PROMPT.id)
    engine.js("(id, text) => { const box = document.querySelector(`.tl-numeric[data-prompt='${id}']`);"
              " box.querySelector('input').value = text; box.querySelector('button[type=submit]').click(); }",
              PROMPT.id, answer_text(PROMPT.answer))
    engine.open(url + PROGRESS)
    state = (f"() => {{ const li = document.querySelector(`tr[data-exercise='{SLUG}'] li[data-prompt='{PROMPT.id}']`);"
             " return li && li.dataset.state; }")
    assert engine.wait(state) == "correct"
    text = engine.js(EXPORT)
    assert json.loads(text)["data"][f"prompt:{SLUG}/{PROMPT.id}"]
    engine.js("() => { document.querySelector('.tl-reset-all').click(); document.querySelector('.tl-confirm-yes').click(); }")
    assert engine.wait(f"() => ({state})() === 'unanswered'")
    engine.js(IMPORT, text)
    engine.wait("() => /Imported/.test(document.querySelector('.tl-progress-status').textContent)")
    assert engine.wait(state) == "correct"
    clean(engine)


# The lesson's bundle as the page fetches it, with its starter for a reference: the course check must report it.
BREAK_A_REFERENCE = """(slug) => {
  const real = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const response = await real(input, init);
    if (!String(input.url || input).endsWith(`/tl/exercises/${slug}.json`)) return response;
    const data = await response.json();
    data.reference = data.starter;
    return new Response(JSON.stringify(data), { headers: { "Content-Type": "application/json" } });
  };
}"""


def test_the_course_check_runs_every_exercise_and_reports_a_broken_one(engine, site):
    """The author's check of the whole course (what Safari on an iPhone is checked with): every exercise's
    reference, starter and first mutant in this engine, one worker; the lesson's reference broken on its way."""
    _, url = site
    engine.open(url + CHECK_PAGE)
    engine.wait("() => document.querySelector('[data-course-check]')?.dataset.state === 'idle'", timeout=30)
    engine.js(BREAK_A_REFERENCE, SLUG)
    engine.js("() => { document.querySelector('.tl-course-check-start').click(); }")
    engine.wait("() => document.querySelector('[data-course-check]').dataset.state === 'done'", timeout=PYTHON_S * 3,
                what="the course check")
    rows = engine.js("() => Object.fromEntries([...document.querySelectorAll('[data-check-row]')]"
                     ".map((r) => [r.dataset.exercise, r.dataset.outcome]))")
    assert rows == {slug: "failed" if slug == SLUG else "passed" for slug in exercises(FIXTURE)}, \
        engine.js("() => document.querySelector('[data-course-check]').innerText")
    failures = engine.js("() => [...document.querySelectorAll('[data-check-failure]')]"
                         ".map((r) => [r.dataset.exercise, r.dataset.what])")
    assert failures == [[SLUG, "reference"]]
    clean(engine)


def test_the_ol_install_line_names_this_site(engine, site_url):
    engine.open(site_url)
    want = f"pip install --extra-index-url {site_url}simple/ tinyllm-ol"
    # Until the page's script fills in the address, the command holds a placeholder: wait for the address, then
    # say what the command holds if it never came.
    read = "() => { const c = document.querySelector('.tl-ol-command'); return c ? c.textContent : null; }"
    filled = "(want) => { const c = document.querySelector('.tl-ol-command'); return !!c && c.textContent === want; }"
    try:
        engine.wait(filled, want, timeout=30, what="this site's address in the command")
    except TimeoutError:
        pytest.fail(f"the ol command reads {engine.js(read)!r}, not {want!r}")
    clean(engine)


CLASS = page_with(FIXTURE_DOCS, "/// class")
# A first visit: the page reloads itself once the service worker takes it, and checks apart (issue 52); a page
# that cannot says so ("refused"), which fails the journey.
SEPARATED = "() => ['separated', 'refused'].includes(document.querySelector('.tl-class')?.dataset.boundary)"
ADD_FILES = """(files) => {
  const input = document.querySelector('input[type=file][data-class-files]');
  const list = new DataTransfer();
  for (const [name, b64] of files) {
    const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
    list.items.add(new File([bytes], name));
  }
  input.files = list.files;
  input.dispatchEvent(new Event('change', { bubbles: true }));
}"""


def test_the_class_view_checks_each_pass_again(engine, fixture_url):
    """A pass that holds (in a zip: the engine's own DecompressionStream inflates it), a hand-edited pass that does
    not, and a damaged file, on the class page."""
    def export(learner: str, code: str) -> bytes:
        return json.dumps({"format": "tinyllm-progress", "version": "v1", "course": "tinyllm", "learner": learner,
                           "data": {f"result:{SLUG}": {"status": "passed", "tests": [], "code": code,
                                                       "at": 1}}}).encode()
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("class/ada.json", export("Ada", reference(FIXTURE, SLUG)))
    mutant = mutant_source(FIXTURE, SLUG, min(LESSON_EX.mutants, key=lambda m: m.name).name)[0]
    files = {"class.zip": buf.getvalue(), "bob.json": export("Bob", mutant), "cut.json": export("Cy", "x")[:40]}
    engine.open(fixture_url + CLASS)
    engine.wait(SEPARATED, timeout=PYTHON_S, what="the class page, isolated by itself (it reloads once)")
    assert engine.js("() => document.querySelector('.tl-class').dataset.boundary") == "separated", engine.name
    engine.js(ADD_FILES, [[name, base64.b64encode(data).decode()] for name, data in files.items()])
    engine.wait("() => document.querySelector('.tl-class').dataset.state === 'done'", timeout=2 * PYTHON_S,
                what="every pass checked again")
    cells = engine.js("""() => Object.fromEntries([...document.querySelectorAll('tr[data-learner]')].map((tr) =>
        [tr.dataset.learner, Object.fromEntries([...tr.querySelectorAll('td[data-exercise][data-verdict]')]
            .map((td) => [td.dataset.exercise, td.dataset.verdict]))]))""")
    assert {name: verdicts[LESSON_EX.id] for name, verdicts in cells.items()} == {"Ada": "passed",
                                                                                  "Bob": "not-reproduced"}
    refused = engine.js("() => [...document.querySelectorAll('[data-class-rejected]')].map((li) => li.textContent)")
    assert len(refused) == 1 and refused[0].startswith("cut.json: ") and "ends in the middle" in refused[0]
    clean(engine)


def test_the_class_view_keeps_learner_code_apart_where_the_page_is_isolated(engine, fixture_isolated_url):
    """On a cross-origin isolated page each claimed pass is checked with the learner's code in a worker of its own
    (the separated path): an honest pass holds, two red-team tricks (a pytest plugin found through gc; deleting
    the origin's caches) do not. The path each engine takes is on the page (`data-boundary`)."""
    redteam = FIXTURE.parent.parent / "redteam"
    t011 = next(e for e in exercises(FIXTURE).values() if e.id == "T01.1")

    def export(learner: str, code: str) -> bytes:
        return json.dumps({"format": "tinyllm-progress", "version": "v1", "course": "tinyllm", "learner": learner,
                           "data": {f"result:{t011.slug}": {"status": "passed", "tests": [], "code": code,
                                                            "at": 1}}}).encode()
    files = {"honest.json": export("honest", reference(FIXTURE, t011.slug))}
    for trick in ("gc_plugin", "delete_caches"):
        files[f"{trick}.json"] = export(trick, (redteam / f"{trick}.py").read_text(encoding="utf-8"))
    engine.open(fixture_isolated_url + CLASS)
    engine.wait(SEPARATED, timeout=PYTHON_S, what="the class page, isolated")
    isolated = engine.js("() => crossOriginIsolated === true")
    boundary = engine.js("() => document.querySelector('.tl-class').dataset.boundary")
    assert boundary == "separated" and isolated, (engine.name, isolated, boundary)
    engine.js(ADD_FILES, [[name, base64.b64encode(data).decode()] for name, data in files.items()])
    engine.wait("() => document.querySelector('.tl-class').dataset.state === 'done'", timeout=2 * PYTHON_S,
                what="every pass checked again")
    cells = engine.js(f"""() => Object.fromEntries([...document.querySelectorAll('tr[data-learner]')].map((tr) =>
        [tr.dataset.learner, tr.querySelector('td[data-exercise="{t011.id}"]').dataset.verdict]))""")
    assert cells == {"honest": "passed", "gc_plugin": "not-reproduced", "delete_caches": "not-reproduced"}, (
        cells, engine.js("() => document.querySelector('tr[data-learner=\"honest\"]')?.innerText"))
    print(f"{engine.name}: cross-origin isolated {isolated}, class checks {boundary}")
    clean(engine)


PHONE_WIDTH = 390
LONG_ERROR = "raise ValueError('" + "a very long message without a single space in it " * 6 + "')\n"
ON_SCREEN = ("(slug) => { const c = " + CELL + "; const w = document.documentElement.clientWidth;"
             " const inside = (s) => { const r = c.querySelector(s).getBoundingClientRect();"
             " return r.width > 0 && r.left >= 0 && r.right <= w + 1; };"
             " return {page: document.documentElement.scrollWidth, width: w, run: inside('button.tl-run'),"
             " check: inside('button.tl-check'), output: c.querySelector('.tl-output').hidden || inside('.tl-output'),"
             " results: [...c.querySelectorAll('li[data-test]')].every((li) => li.getBoundingClientRect().right <= w + 1)}; }")


def test_a_phone_width_journey(engine, fixture_url):
    """390 CSS pixels wide, as a phone: a numeric prompt asks for the decimal keyboard; Run and Check are on the
    screen and work when pressed (no Ctrl/⌘); neither a traceback with a long line nor the results make the page
    scroll sideways. Touch itself is Chromium's phone emulation's (tests/e2e/test_phone.py)."""
    engine.open(fixture_url + LESSON)
    engine.narrow(PHONE_WIDTH, 844)
    assert engine.js("() => document.documentElement.clientWidth") <= PHONE_WIDTH
    engine.wait(NEAR_INPUT, PROMPT.id)
    assert engine.js("(id) => document.querySelector(`.tl-numeric[data-prompt='${id}'] input`).inputMode",
                     PROMPT.id) == "decimal"
    wait_python(engine)
    seen = engine.js(ON_SCREEN, SLUG)
    assert seen["run"] and seen["check"], seen
    set_code(engine, LONG_ERROR)
    press(engine, "button.tl-run")
    assert result(engine) == "error"
    seen = engine.js(ON_SCREEN, SLUG)
    assert seen["page"] <= seen["width"] and seen["output"], f"{engine.name}: {seen}"
    assert check(engine, reference(FIXTURE, SLUG)) == "passed"
    seen = engine.js(ON_SCREEN, SLUG)
    assert seen["page"] <= seen["width"] and seen["results"], f"{engine.name}: {seen}"
    clean(engine)


def test_a_learners_worker_reaches_no_origin_in_each_engine(engine, private_site, elsewhere):
    """test_trust.py's journey in this engine: a learner's worker (tl-worker.js?learner, served by the service
    worker with its policy) runs code that tries every way out it can name, outside a check (nothing of
    confine.js in its way): nothing reaches another origin or the site's host. The same code in a lesson's worker
    reaches the other origin (the attempts are real)."""
    root, server, url = private_site
    other, hits = elsewhere
    engine.open(url + CLASS)
    engine.wait(SEPARATED, timeout=PYTHON_S, what="the class page, isolated")
    code = ESCAPES.format(other=other)
    learner = engine.js(RUN_IN, [url + "assets/tl/tl-worker.js?learner=", code])
    assert learner["status"] == "ok", (engine.name, learner)
    assert hits == [], f"{engine.name}: a learner's worker reached another origin: {hits}; it tried {learner['stdout']}"
    assert not [line for line in server.log if "/leak" in line], server.log
    lesson = engine.js(RUN_IN, [url + "assets/tl/tl-worker.js", code])
    assert hits, f"{engine.name}: the same code in a lesson's worker reached nothing: {lesson}"
    print(f"{engine.name}: learner tried {learner['stdout'].strip()}; lesson reached {sorted(set(hits))}")
    # What the engine logs of the refusals (Firefox: "content blocked", the policy) is this journey's own doing.
    logged = engine.errors()[engine.seen:]
    engine.seen += len(logged)
    host = other.split("//", 1)[1]  # the other origin's host and port (ws:// as well as http://)
    expected = (host, "Content-Security-Policy", "blocked", "NetworkError", "unexpected error")
    assert all(any(word in e for word in expected) for e in logged), logged
