"""A lesson page's machinery in real headless Chromium, on the fixture course's lesson: numeric prompts, predict
first, the code cell (Check, Run, Stop, errors at the learner's lines), the example cells, saved work.

Everything the tests type or expect comes from the fixture lesson's manifest, so the tests say what the
machinery does with any lesson's data.
"""
import re
import subprocess
import sys

from e2e_helpers import (CHECK_MS, FIXTURE, LESSON, LESSON_EX, answer, answer_text, cell, failures, get_code,
                         mutant_source, near, outcomes, press_in_editor, reference, set_code, starter, wait_python, wait_result)

SLUG = LESSON_EX.slug
LIST = next(p for p in LESSON_EX.prompts if len(p.answer) > 1 and p.feedback)    # normalised = [0.25, 0.25, 0.5]
NUMBER = next(p for p in LESSON_EX.prompts if len(p.answer) == 1 and p.feedback)  # mean = 5
PREDICT = next(c for c in LESSON_EX.choices if c.kind == "predict")
CHECK = next(c for c in LESSON_EX.choices if c.shows_prediction == PREDICT.id)


def right(choice):
    return next(o for o in choice.options if o.correct)


def wrong(choice):
    return next(o for o in choice.options if not o.correct)


def test_numeric_prompts_right_and_wrong(page, fixture_url):
    page.goto(fixture_url + LESSON)
    verdict, message = answer(page, LIST.id, answer_text(LIST.feedback[0].answer))
    assert verdict == "incorrect" and LIST.feedback[0].message in message  # a known mistake: its own feedback
    off = list(LIST.answer)
    off[1] += 0.125
    verdict, message = answer(page, LIST.id, answer_text(tuple(off)))
    assert verdict == "incorrect" and "#2" in message and "#1" not in message  # says which entry is off
    verdict, message = answer(page, LIST.id, "[" + " ".join(f"{v:g}" for v in LIST.answer) + "]")
    assert verdict == "correct"
    assert page.locator(f'.tl-numeric[data-prompt="{LIST.id}"] .tl-explain').is_visible()

    (value,) = NUMBER.answer
    verdict, message = answer(page, NUMBER.id, answer_text(NUMBER.feedback[0].answer))
    assert verdict == "incorrect" and NUMBER.feedback[0].message in message
    verdict, message = answer(page, NUMBER.id, "banana")
    assert verdict == "incorrect" and "not a number" in message  # unreadable: explained, verdict kept
    verdict, _ = answer(page, NUMBER.id, f"{2 * value:g}/2")
    assert verdict == "correct"


def test_the_worked_answer_after_three_wrong_tries(page, fixture_url):
    page.goto(fixture_url + LESSON)
    (value,) = NUMBER.answer
    explain = page.locator(f'.tl-numeric[data-prompt="{NUMBER.id}"] .tl-explain')
    wrongs = [f"{value + 0.5:g}", f"{value + 1.5:g}".replace(".", ","), f"{100 * value + 7:g}%"]
    for typed in wrongs:  # a plain number, a decimal comma and a percentage, all read and all wrong
        assert not explain.is_visible()
        verdict, _ = answer(page, NUMBER.id, typed)
        assert verdict == "incorrect", typed
    assert explain.is_visible(), "the worked answer appears after three wrong tries"
    assert f"{value:g}" in explain.inner_text()
    verdict, _ = answer(page, NUMBER.id, f"{value:.1f}".replace(".", ","))
    assert verdict == "correct"


def test_worked_answer_on_request_and_bad_input(page, fixture_url):
    page.goto(fixture_url + LESSON)
    box = near(page.locator(f'.tl-numeric[data-prompt="{NUMBER.id}"]'))
    for bad, words in (("", "Type an answer"), ("NaN", "not a finite"), ("1e309", "too large"),
                       ("9" * 1000, "characters"), ("<script>alert(1)</script>", "not a number")):
        box.locator("input").fill(bad)
        box.locator("button[type=submit]").click()
        assert words in box.locator(".tl-feedback").inner_text()
        assert box.get_attribute("data-verdict") is None
    assert box.locator(".tl-feedback script").count() == 0  # shown as text, never as HTML
    box.get_by_role("button", name="Show the worked answer").click()
    assert box.locator(".tl-explain").is_visible()


def test_predict_first_gates_the_explanation(page, fixture_url):
    page.goto(fixture_url + LESSON)
    body = page.locator(f'.tl-reveal[data-after="{PREDICT.id}"] .tl-reveal-body')
    assert not body.is_visible()
    predict = near(page.locator(f'.tl-choice[data-prompt="{PREDICT.id}"]'))
    mine, other = PREDICT.options[0].key, PREDICT.options[1].key
    predict.locator(f'.tl-option[data-key="{mine}"]').click()
    near(page.locator(f'.tl-reveal[data-after="{PREDICT.id}"]'))
    assert body.is_visible()
    assert predict.get_attribute("data-verdict") == "committed"
    assert predict.locator(f'.tl-option[data-key="{other}"]').is_disabled()  # a prediction is committed once
    assert predict.locator(f'.tl-option[data-key="{mine}"]').get_attribute("aria-pressed") == "true"

    check = near(page.locator(f'.tl-choice[data-prompt="{CHECK.id}"]'))
    assert f"you predicted: {mine}" in check.locator(".tl-predicted").inner_text()
    check.locator(f'.tl-option[data-key="{wrong(CHECK).key}"]').click()
    assert check.get_attribute("data-verdict") == "incorrect"
    assert wrong(CHECK).feedback in check.locator(".tl-feedback").inner_text()
    check.locator(f'.tl-option[data-key="{right(CHECK).key}"]').click()
    assert check.get_attribute("data-verdict") == "correct"


def test_the_maths_arrives_as_mathml_in_its_font_and_katex_is_not_loaded(page, fixture_url, recorder):
    page.goto(fixture_url + LESSON)
    formulas = page.locator(".arithmatex")
    assert formulas.count() > 0, "the fixture lesson has formulas"
    assert page.locator(".arithmatex .katex").count() == formulas.count()
    assert page.locator(".arithmatex .katex-error").count() == 0
    assert page.locator("div.arithmatex math[display=block]").count() > 0
    assert page.locator(".arithmatex .katex-html").count() == 0  # MathML alone: one rendering, not two
    # Laid out natively, in the site's math font (tools/math_font.py): a displayed formula has a real height.
    assert page.locator("div.arithmatex math").first.bounding_box()["height"] > 20
    page.wait_for_load_state("networkidle")
    assert [u for u in recorder.requests if "/chunks/katex" in u] == []
    assert any(u.endswith("/assets/tl/tl-math.woff") for u in recorder.requests)
    assert any(u.endswith("/assets/tl/tl.js") for u in recorder.requests)


EDITOR_CHUNK = "/assets/tl/chunks/editor-"


class HeldBack:
    """A route handler that holds its requests until `release()`; those asked for after it pass straight through."""

    def __init__(self):
        self.routes, self.released = [], False

    def __call__(self, route):
        if self.released:
            route.continue_()
        else:
            self.routes.append(route)

    def release(self):
        self.released = True
        for route in self.routes:
            route.continue_()


def test_the_editor_is_plain_until_python_has_started_or_the_learner_touches_it(page, fixture_url, recorder):
    """CodeMirror (a chunk of its own) is not loaded while Python starts (plain-editor.js): each cell shows a
    textarea with its code. Focusing one hands it over to CodeMirror at once, focus and text kept; the others
    follow once Python has settled."""
    held = HeldBack()
    page.context.route(re.compile(r".*/assets/pyodide/.*"), held)  # Python cannot start until these are let through
    asked = []  # the page's own requests: the service worker's offline copy fetches the chunk too, once it may
    page.on("request", lambda r: asked.append(r.url))
    page.goto(fixture_url + LESSON)
    cells = page.locator(".tl-cell")
    for n in range(cells.count()):  # each mounts as the reader nears it; then back to the top
        near(cells.nth(n))
    page.evaluate("window.scrollTo(0, 0)")
    page.wait_for_function("n => document.querySelectorAll('.tl-cell textarea.tl-editor-plain').length === n",
                           arg=cells.count())
    page.wait_for_timeout(300)
    assert page.locator(".cm-editor").count() == 0
    assert [u for u in recorder.requests if EDITOR_CHUNK in u] == []
    plain = cell(page, SLUG).locator("textarea.tl-editor-plain")
    assert plain.input_value() == get_code(page, SLUG)
    assert plain.get_attribute("aria-label")

    example = near(page.locator('.tl-cell[data-kind="example"]').first)
    example.locator("textarea.tl-editor-plain").click()
    example.locator(".cm-editor.cm-focused").wait_for()
    page.keyboard.press("Control+End")
    page.keyboard.type("# typed at once")
    code = page.evaluate("(el) => el.tlCell.editor.getCode()", example.element_handle())
    assert code.endswith("# typed at once"), code
    assert page.locator(".cm-editor").count() == 1, "only the touched editor was handed over"

    held.release()
    wait_python(page, SLUG)
    page.wait_for_function("n => document.querySelectorAll('.tl-cell .cm-editor').length === n"
                           " && !document.querySelector('.tl-cell textarea.tl-editor-plain')", arg=cells.count(),
                           timeout=60_000)
    assert len([u for u in asked if EDITOR_CHUNK in u]) == 1
    press_in_editor(page, SLUG, "Control+Enter")  # CodeMirror has the cell's shortcuts too
    assert wait_result(page, SLUG) in ("failed", "error")


def test_reference_passes_every_hidden_test_with_ctrl_enter(page, fixture_url):
    page.goto(fixture_url + LESSON)
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    press_in_editor(page, SLUG, "Control+Enter")  # pressed before Python is ready: queued, then checked
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)
    got = outcomes(page, SLUG)
    assert list(got) == LESSON_EX.test_names()
    assert set(got.values()) == {"passed"}
    assert cell(page, SLUG).locator(".tl-summary").inner_text() == f"All {len(got)} tests pass."
    # The catalogue rows show names and outcomes, never the test source.
    assert "def test_" not in cell(page, SLUG).inner_text()


import pytest  # noqa: E402


@pytest.mark.parametrize("start", ["", "cold", "snapshot"])
def test_either_start_grades_the_same(page, fixture_url, start):
    """A slow line's first visit starts Python without the memory snapshot (web/src/worker/boot/line.js snapshotWorthIt);
    unforced (localhost restores, as a rule), and forced each way, the page is ready and grades the reference with every test
    passing."""
    if start:
        page.context.add_init_script(f"localStorage.setItem('tl-start', '{start}')")
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    # Unforced, the line's measure decides: localhost restores, but a loaded machine can measure its line slow.
    restored = page.evaluate("window.tinyllm.python.timeline.snapshot")
    assert restored is (start == "snapshot") if start else restored in (True, False)
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)
    assert set(outcomes(page, SLUG).values()) == {"passed"}


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_a_snapshot_that_cannot_be_read_means_a_cold_start(page, fixture_url, damage):
    """Pyodide is handed the snapshot's buffer before its parts arrive (web/src/worker/boot/python.js startPython); when one part is
    missing or damaged, the buffer stays unfilled, Pyodide refuses it, and Python starts cold and grades."""
    def broken(route):
        if damage == "missing":
            route.fulfill(status=404, body="gone")
        else:
            # a zstd frame's magic number, then nothing a decoder can read
            route.fulfill(status=200, body=b"\x28\xb5\x2f\xfd" + bytes(64), content_type="application/octet-stream")
    page.context.route(re.compile(r".*/snapshot-2-of-\d+\.zst$"), broken)
    page.context.add_init_script("localStorage.setItem('tl-start', 'snapshot')")
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    assert page.evaluate("window.tinyllm.python.timeline.snapshot") is False
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)


NUMPY_PACK = re.compile(r".*/numpy-[^/]*-tl\.pack\.zst$")


def test_the_wait_for_numpy_warms_python_and_checks_grade_the_same(page, fixture_url):
    """On a line numpy's pack comes after the core and the snapshot (web/src/worker/boot/files.js), and Python,
    restored, runs one throwaway check while it waits (boot.js warmWhileWaiting, checker/bridge.py warm). Forced
    here by holding numpy's pack back until Python is restored (stage python; a fixed delay lost the race on a
    busy machine): the warm-up is marked, and the first real checks grade as without it."""
    held = HeldBack()
    page.context.route(NUMPY_PACK, held)
    page.goto(fixture_url + LESSON)
    page.wait_for_function("() => !!window.tinyllm?.python?.timeline?.python", timeout=CHECK_MS)
    held.release()
    wait_python(page, SLUG)
    marks = page.evaluate("window.tinyllm.python.timeline.marks")
    assert marks["restored"] < marks["warmed"] < marks["numpyWritten"], marks
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)
    assert set(outcomes(page, SLUG).values()) == {"passed"}
    mutant = LESSON_EX.mutants[0]
    source, fails = mutant_source(FIXTURE, SLUG, mutant.name)
    set_code(page, SLUG, source)
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "failed", mutant.name
    assert outcomes(page, SLUG)[fails] in ("failed", "error"), mutant.name
    assert "warm" not in outcomes(page, SLUG), "the warm-up's own test is nowhere in a learner's result"


LATER = re.compile(r".*/(python_stdlib-rest\.zip|numpy-[^/]*-rest\.pack)\.zst$")
ARRIVES_LATER = """import statistics, traceback
import numpy as np, numpy.fft
print(statistics.mean([1, 2, 3]), np.fft.fft([1, 0]).real.tolist())
try:
    np.linalg.matrix_power(np.ones((2, 3)), 2)
except np.linalg.LinAlgError:
    print(traceback.format_exc())
"""


def run_with_worker_requests(page, fixture_url, files: re.Pattern, failing: bool, code: str) -> tuple[list, str, dict]:
    """Open the lesson with the worker's own requests for `files` failing when `failing` (a synchronous request,
    xhr, still goes through), else once they are in (handed off); then Run `code`. Returns the resource type of
    every request for `files`, the cell's output, and the worker's marks as they were before the Run."""
    requests = []
    # Python restored from the snapshot, whatever the line's measure says (on a loaded machine it can choose cold).
    page.context.add_init_script("localStorage.setItem('tl-start', 'snapshot')")

    def answer(route):
        requests.append(route.request.resource_type)
        route.abort() if failing and route.request.resource_type != "xhr" else route.continue_()
    page.context.route(files, answer)
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    if not failing:
        page.wait_for_function("() => window.tinyllm.python.status.handedOff", timeout=60_000)
    marks = page.evaluate("window.tinyllm.python.timeline.marks")
    set_code(page, SLUG, code)
    cell(page, SLUG).locator("button.tl-run").click()
    assert wait_result(page, SLUG) == "ok", failures(page, SLUG)
    return requests, cell(page, SLUG).locator(".tl-output").inner_text(), marks


@pytest.mark.parametrize("when", ["fetched after ready", "needed before they arrive"])
def test_modules_that_arrive_after_ready_can_be_imported_at_once(page, fixture_url, when):
    """The rest of the standard library and of numpy arrive after ready (web/src/worker/boot/later.js). An import
    that needs them before they arrive waits for them (checker/later.py): forced here by failing the worker's own
    request for them, so that the import fetches them itself. Either way the modules import, and a traceback
    through numpy shows numpy's lines (its sources are in the rest)."""
    requests, out, _ = run_with_worker_requests(page, fixture_url, LATER, when != "fetched after ready", ARRIVES_LATER)
    assert "2 [1.0, 1.0]" in out
    assert "raise LinAlgError('Last 2 dimensions of the array must be square')" in out, out
    # The worker's own requests (fetch), and only when those failed the import's synchronous ones (xhr). More
    # fetches of the same files may come before the test ends, more often on a loaded machine: the spare worker
    # boots the same way (web/src/worker/boot/boot.js) and the offline copy fills its scope (two xdist workers
    # once gave four).
    assert requests.count("fetch") >= 2, requests
    assert requests.count("xhr") == (0 if when == "fetched after ready" else 2), requests


START_STDLIB = re.compile(r".*/python_stdlib-start\.zip(\.zst)?$")  # its zstd frame, or the zip itself
START_SOURCES = """import fractions, inspect, json, traceback
print(inspect.getsource(json.dumps).splitlines()[0])
try:
    fractions.Fraction(1, 0)
except ZeroDivisionError:
    print(traceback.format_exc())
"""


@pytest.mark.parametrize("when", ["fetched after ready", "needed before it arrives"])
def test_the_start_up_standard_library_comes_after_ready_and_its_sources_read_at_once(page, fixture_url, when):
    """Python restored from the snapshot holds every module of the start-up standard library, imported, so the
    file comes after ready (web/src/worker/boot/later.js deferStdlib). Code that reads those modules' sources
    (inspect, a traceback's lines) before it has come waits for it: forced here by failing the worker's own request,
    so that the file's first opening fetches it itself. Either way the sources read."""
    failing = when != "fetched after ready"
    requests, out, marks = run_with_worker_requests(page, fixture_url, START_STDLIB, failing, START_SOURCES)
    assert page.evaluate("window.tinyllm.python.timeline.snapshot") is True
    if not failing:
        assert marks["pytestReady"] < marks["stdlibIn"], marks
    assert "def dumps(obj, *, skipkeys=False" in out, out
    assert "raise ZeroDivisionError('Fraction(%s, 0)' % numerator)" in out, out
    # As for the later parts above: the worker's own requests, and the opening's synchronous one only when the
    # worker's failed (the spare worker may make more of each).
    assert requests.count("fetch") >= 1, requests
    assert requests.count("xhr") == (1 if failing else 0), requests


def edited(source: str, find: str, replace: str) -> str:
    assert source.count(find) == 1, f"the fixture's reference no longer has {find!r} once"
    return source.replace(find, replace)


def test_mutants_fail_their_named_tests_and_errors_point_at_learner_lines(page, fixture_url):
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    assert LESSON_EX.mutants
    for m in LESSON_EX.mutants:
        source, fails = mutant_source(FIXTURE, SLUG, m.name)
        set_code(page, SLUG, source)
        cell(page, SLUG).locator("button.tl-check").click()
        assert wait_result(page, SLUG) == "failed", m.name
        assert outcomes(page, SLUG)[fails] in ("failed", "error"), m.name

    learner_file = LESSON_EX.import_path  # fixture/lessons/stats.py
    broken = edited(reference(FIXTURE, SLUG), "    return p / p.sum()\n", "    return p / p.sum() +\n")
    line = broken.splitlines().index("    return p / p.sum() +") + 1
    set_code(page, SLUG, broken)
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "error"
    out = cell(page, SLUG).locator(".tl-output").inner_text()
    assert f"line {line}" in out and learner_file.rsplit("/", 1)[1] in out and "SyntaxError" in out
    assert "checker" not in out and "_pytest" not in out

    crash = edited(reference(FIXTURE, SLUG), "xs.sum() / len(xs)", "undefined_name / len(xs)")
    set_code(page, SLUG, crash)
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "failed"
    errors = cell(page, SLUG).locator('li[data-test][data-outcome="error"]')
    assert errors.count() >= 1, "the tests calling the crashing function report an error"
    line = next(i for i, text in enumerate(crash.splitlines(), 1) if "undefined_name" in text)
    assert re.search(rf"NameError.*line {line} of {re.escape(learner_file)}", errors.first.inner_text())


def _stop_and_recover(page, slug):
    set_code(page, slug, "def normalise(p):\n    while True:\n        pass\n\nnormalise(1)\n")
    cell(page, slug).locator("button.tl-check").click()
    page.wait_for_selector(f'.tl-cell[data-exercise="{slug}"][data-state="running"]')
    page.wait_for_timeout(1500)  # let it spin inside Python (a check streams nothing to wait for)
    cell(page, slug).locator("button.tl-stop").click()
    assert wait_result(page, slug, timeout=30_000) == "stopped"
    assert "while True" in get_code(page, slug), "a stop never loses the learner's code"
    set_code(page, slug, reference(FIXTURE, slug))
    cell(page, slug).locator("button.tl-check").click()
    assert wait_result(page, slug) == "passed", failures(page, slug)


def test_stop_an_infinite_loop_without_isolation(page, fixture_url):
    page.goto(fixture_url + LESSON)
    assert page.evaluate("crossOriginIsolated") is False
    wait_python(page, SLUG)
    _stop_and_recover(page, SLUG)
    assert page.evaluate("window.tinyllm.python.restarts") == 1  # a fresh worker replaced the stuck one


def test_stop_an_infinite_loop_with_isolation(page, fixture_isolated_url):
    page.goto(fixture_isolated_url + LESSON)
    assert page.evaluate("crossOriginIsolated") is True
    wait_python(page, SLUG)
    _stop_and_recover(page, SLUG)
    # Interrupted in place, nothing reloaded; else the worker client says why it gave the worker up.
    assert page.evaluate("window.tinyllm.python.restarts") == 0, page.evaluate("window.tinyllm.python.losses")


def test_run_typed_code_and_the_example_cells(page, fixture_url):
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG, "numpy")
    editor = cell(page, SLUG).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    for line in ("import numpy as np", "print(np.array([1, 2]).sum() * 21)"):
        page.keyboard.type(line)
        # A new line as text, not an Enter key: Enter would accept the completion CodeMirror may be offering
        # by then (`np`), depending on how fast the machine is.
        page.keyboard.insert_text("\n")
    page.keyboard.press("Shift+Enter")
    assert wait_result(page, SLUG) == "ok", failures(page, SLUG) + "\ntyped:\n" + get_code(page, SLUG)
    assert cell(page, SLUG).locator(".tl-output").inner_text().strip() == "63"
    set_code(page, SLUG, "print('<b>bold</b><script>alert(1)</script>')")
    cell(page, SLUG).locator("button.tl-run").click()
    wait_result(page, SLUG)
    output = cell(page, SLUG).locator(".tl-output")
    assert output.inner_text().strip() == "<b>bold</b><script>alert(1)</script>"
    assert output.locator("b, script").count() == 0

    # Every example cell (the lesson's own and the one of the chapter's shared section) prints in the browser
    # what its code prints on CPython.
    examples = page.locator('.tl-cell[data-kind="example"]')
    assert examples.count() >= 2
    for i in range(examples.count()):
        example = near(examples.nth(i))
        code = page.evaluate("(el) => JSON.parse(el.querySelector('script.tl-data').textContent).code",
                             example.element_handle())
        expected = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
        example.locator("button.tl-run").click()
        page.wait_for_function("(el) => el.dataset.state === 'idle' && el.dataset.status === 'ok'",
                               arg=example.element_handle(), timeout=60_000)
        assert example.locator(".tl-output").inner_text().strip() == expected.strip(), code


def test_everything_survives_a_reload(page, fixture_url):
    page.goto(fixture_url + LESSON)
    mine_list = answer_text(LIST.answer)
    answer(page, LIST.id, mine_list)
    answer(page, NUMBER.id, answer_text(NUMBER.feedback[0].answer))
    near(page.locator(f'.tl-choice[data-prompt="{PREDICT.id}"]')).locator(
        f'.tl-option[data-key="{PREDICT.options[1].key}"]').click()
    near(page.locator(f'.tl-choice[data-prompt="{CHECK.id}"]')).locator(f'.tl-option[data-key="{right(CHECK).key}"]').click()
    mine = reference(FIXTURE, SLUG) + "\n# my own note\n"
    set_code(page, SLUG, mine)
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)

    page.reload()
    assert near(page.locator(f'.tl-numeric[data-prompt="{LIST.id}"]')).get_attribute("data-verdict") == "correct"
    assert page.locator(f'.tl-numeric[data-prompt="{LIST.id}"] input').input_value() == mine_list
    wrong_box = near(page.locator(f'.tl-numeric[data-prompt="{NUMBER.id}"]'))
    assert wrong_box.get_attribute("data-verdict") == "incorrect"
    assert NUMBER.feedback[0].message in wrong_box.locator(".tl-feedback").inner_text()
    assert near(page.locator(f'.tl-choice[data-prompt="{PREDICT.id}"]')).get_attribute("data-verdict") == "committed"
    assert near(page.locator(f'.tl-reveal[data-after="{PREDICT.id}"]')).locator(".tl-reveal-body").is_visible()
    assert near(page.locator(f'.tl-choice[data-prompt="{CHECK.id}"]')).get_attribute("data-verdict") == "correct"
    assert get_code(page, SLUG) == mine
    assert set(outcomes(page, SLUG).values()) == {"passed"}
    assert cell(page, SLUG).locator(".tl-summary").inner_text().startswith("Last check: All")

    cell(page, SLUG).locator("button.tl-reset").click()
    assert get_code(page, SLUG) == starter(FIXTURE, SLUG)
    page.reload()
    assert get_code(page, SLUG) == starter(FIXTURE, SLUG)


def test_corrupt_saved_data_is_reset_with_a_notice(page, fixture_url):
    page.goto(fixture_url + LESSON)
    page.evaluate("""([slug, prompt]) => {
        localStorage.setItem(`tinyllm:v1:code:${slug}`, '{not json');
        localStorage.setItem(`tinyllm:v1:prompt:${slug}/${prompt}`, '}}}');
    }""", [SLUG, LIST.id])
    page.reload()
    assert "unreadable" in page.locator(".tl-notices").inner_text()
    assert get_code(page, SLUG) == starter(FIXTURE, SLUG)
    verdict, _ = answer(page, LIST.id, answer_text(LIST.answer))
    assert verdict == "correct"


def search(page, query: str) -> list[str]:
    """Type `query` into the theme's search once its index is built; the titles of the results."""
    toggle = page.locator("label.md-header__button[for=__search]")
    if toggle.is_visible():
        toggle.click()
    page.locator(".md-search__input").click()
    meta = page.locator(".md-search-result__meta")
    page.wait_for_function("() => !/Initializing/i.test(document.querySelector('.md-search-result__meta').textContent)",
                           timeout=60_000)
    page.keyboard.type(query)  # the theme searches on keyup
    page.wait_for_function("() => document.querySelectorAll('.md-search-result__item').length > 0", timeout=15_000)
    assert "matching" in meta.inner_text()
    return page.locator(".md-search-result__item h1, .md-search-result__item h2").all_inner_texts()


def test_search_waits_for_python_on_a_lesson_page_and_works_on_every_page(page, fixture_url, recorder):
    """The theme's search index is downloaded (overrides/main.html) and built (tools/search_later.py) once Python
    is ready and idle on a page with code cells, at once on a page without; either way searching finds the pages."""
    later = lambda: [u for u in recorder.requests if u.endswith(".later.js")]  # noqa: E731 - the real search worker
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG)
    index = lambda: [u for u in recorder.requests if u.endswith("search/search_index.json")]  # noqa: E731
    assert later() == [], "the search index was built while Python started"
    assert index() == [], "the search index was downloaded while Python started (overrides/main.html)"
    assert any("Fixture lesson" in t for t in search(page, "seeded"))
    assert later(), "the search worker was never started"
    assert index(), "the search index was never downloaded"
    page.goto(fixture_url)
    assert any("Fixture lesson" in t for t in search(page, "seeded"))
