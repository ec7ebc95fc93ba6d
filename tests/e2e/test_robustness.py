"""Never freeze, never lose work: runaway code, floods, crashes, hostile code and troubled storage, in Chromium.

Each test is one scenario (marked `scenario`); the run ends with a count of scenarios and their outcomes.
The runaway scenarios share one page per isolation mode, the way a learner would keep working on one page.
All of them run on the fixture course's lesson (tests/fixtures/course): they test the machinery, not content.
"""
import json
import time

import pytest
from playwright.sync_api import expect

from conftest import CHROMIUM_ARGS, Recorder  # noqa: F401 - Recorder used by the shared fixture
from e2e_helpers import (FIXTURE, LESSON, LESSON_EX, PROGRESS, answer, answer_text, cell, failures, get_code,
                         outcomes, reference, set_code, starter, wait_python, wait_result, wait_saved)

pytestmark = pytest.mark.scenario
SLUG = LESSON_EX.slug
PROMPT = LESSON_EX.prompts[0]


def run_code(page, code: str, button: str = "run", timeout: int = 90_000) -> str:
    set_code(page, SLUG, code)
    cell(page, SLUG).locator(f"button.tl-{button}").click()  # clears the cell's data-status until it is done
    return wait_result(page, SLUG, timeout)


def output(page) -> str:
    return cell(page, SLUG).locator(".tl-output").inner_text()


def still_works(page) -> None:
    """The next run after any mishap works and prints its answer."""
    assert run_code(page, "print(6 * 7)") == "ok"
    assert output(page).strip() == "42"


@pytest.fixture(scope="module", params=["plain", "isolated"])
def shared_page(request, browser, fixture_url, fixture_isolated_url):
    recorder = Recorder()
    context = browser.new_context()
    context.on("request", lambda r: recorder.requests.append(r.url))
    page = context.new_page()
    page.on("pageerror", lambda e: recorder.errors.append(str(e)))
    page.goto((fixture_isolated_url if request.param == "isolated" else fixture_url) + LESSON)
    assert page.evaluate("crossOriginIsolated") is (request.param == "isolated")
    wait_python(page, SLUG)
    yield page
    context.close()
    assert recorder.foreign() == [] and recorder.errors == []


RUNAWAY = {
    "busy loop": "while True:\n    pass\n",
    "numpy loop": "import numpy as np\nwhile True:\n    np.linalg.inv(np.eye(40))\n",
    "sleep": "import time\ntime.sleep(60)\n",
    "one long C call": "sum(range(10**12))\n",
    "deep recursion, limit raised": "import sys\nsys.setrecursionlimit(10**6)\ndef f(n):\n    return f(n + 1)\nf(0)\n",
    "KeyboardInterrupt caught": "while True:\n    try:\n        while True:\n            pass\n"
                                "    except KeyboardInterrupt:\n        pass\n",
}
# Code that catches the interrupt is ended by a new worker once Python has had its time to unwind
# (worker-client.js: interrupted twice, 2 × (GRACE_MS + UNWIND_MS), 9 s); everything else within a few seconds.
STOP_WITHIN = {"KeyboardInterrupt caught": 12}


@pytest.mark.parametrize("name", list(RUNAWAY))
def test_stop_ends_runaway_code(shared_page, name):
    page = shared_page
    set_code(page, SLUG, RUNAWAY[name])
    cell(page, SLUG).locator("button.tl-run").click()
    page.wait_for_selector(f'.tl-cell[data-exercise="{SLUG}"][data-state="running"]')
    page.wait_for_timeout(1000)
    started = time.monotonic()
    cell(page, SLUG).locator("button.tl-stop").click()
    assert wait_result(page, SLUG, 30_000) == "stopped"
    assert time.monotonic() - started < STOP_WITHIN.get(name, 5), "Stop must answer within seconds"
    assert get_code(page, SLUG) == RUNAWAY[name], "a stop never loses the code"
    still_works(page)


def set_time_limit(page, seconds: float | None) -> float:
    """Set the cell's time limit (None leaves it); returns the one it had."""
    cell(page, SLUG)
    return page.evaluate("([s, t]) => { const c = document.querySelector(`.tl-cell[data-exercise='${s}']`).tlCell;"
                         " const old = c.settings.timeLimit; if (t !== null) c.settings.timeLimit = t; return old; }",
                         [SLUG, seconds])


def test_the_time_limit_stops_code_without_a_click(shared_page):
    page = shared_page
    limit = set_time_limit(page, 2)
    assert limit == LESSON_EX.time_limit
    try:
        assert run_code(page, "while True:\n    pass\n", timeout=30_000) == "timeout"
        assert "time limit of 2 s" in cell(page, SLUG).locator(".tl-summary").inner_text()
    finally:
        set_time_limit(page, limit)
    still_works(page)


def test_deep_recursion_is_reported_and_recovered(shared_page):
    page = shared_page
    assert run_code(page, "def f(n):\n    return f(n + 1)\n\nf(0)\n") == "error"
    text = output(page)
    assert "RecursionError" in text and "[Previous line repeated" in text and len(text.splitlines()) < 20
    still_works(page)


def re_any(text: str, words: list[str]) -> bool:
    return any(w.lower() in text.lower() for w in words)


def test_a_million_printed_lines_keep_the_page_responsive(shared_page):
    """The page's main thread never runs one task of a second or more while Python prints a million lines: its
    longest task, as the browser's Long Tasks API times it (the page's own work, not the round trip of a test
    driver that shares two cores with a second browser and the printing worker; that round trip once took
    1.38 s here with no long task behind it to blame)."""
    page = shared_page
    page.evaluate("""() => {
        window.tlLongest = 0;
        window.tlLongTasks = new PerformanceObserver((list) => {
            for (const entry of list.getEntries()) window.tlLongest = Math.max(window.tlLongest, entry.duration);
        });
        window.tlLongTasks.observe({ type: "longtask" });
    }""")
    set_code(page, SLUG, "for i in range(10**6):\n    print(i)\n")
    cell(page, SLUG).locator("button.tl-run").click()
    page.wait_for_selector(f'.tl-cell[data-exercise="{SLUG}"][data-state="running"]')
    page.wait_for_selector(f'.tl-cell[data-exercise="{SLUG}"]:not([data-state="running"])', timeout=120_000)
    assert cell(page, SLUG).get_attribute("data-status") == "ok"
    text = output(page)
    assert "[output truncated:" in text and len(text) < 120_000
    worst = page.evaluate("() => { window.tlLongTasks.disconnect(); return window.tlLongest; }")
    assert worst < 1000, f"the page froze for {worst / 1000:.2f} s"
    still_works(page)


def test_a_huge_allocation_is_reported(shared_page):
    page = shared_page
    assert run_code(page, "import numpy as np\nhuge = np.ones((30000, 30000))\n") == "error"
    assert re_any(output(page), ["MemoryError", "too big", "Unable to allocate"])
    still_works(page)


@pytest.mark.parametrize("code, status, words", [
    ("import sys\nprint('before')\nsys.exit()\nprint('after')\n", "ok", ["before", "sys.exit()"]),
    ("raise SystemExit\n", "ok", ["sys.exit()"]),
    ("import sys\nsys.exit(3)\n", "error", ["SystemExit: 3"]),
])
def test_exits_are_reported_plainly(shared_page, code, status, words):
    page = shared_page
    assert run_code(page, code) == status
    assert all(w in output(page) for w in words)
    assert "after" not in output(page)
    still_works(page)


def test_os_exit_kills_python_and_it_comes_back(shared_page):
    page = shared_page
    code = "import os\nos._exit(1)\n"
    assert run_code(page, code) == "error"
    assert "Python has been restarted" in output(page)
    assert get_code(page, SLUG) == code
    still_works(page)


def test_closing_the_worker_from_python_is_caught_by_the_time_limit(shared_page):
    page = shared_page
    limit = set_time_limit(page, 3)
    try:
        status = run_code(page, "import js\njs.close()\n", timeout=30_000)
    finally:
        set_time_limit(page, limit)
    assert status == "error" and "closed the Python worker" in output(page)
    still_works(page)


# ---- hostile or careless code cannot make the verdict say "passed" ----

def check_code(page, code: str) -> str:
    return run_code(page, code, button="check")


def test_printing_a_fake_verdict_changes_nothing(shared_page):
    page = shared_page
    fake = f"\nprint('All {len(LESSON_EX.catalogue)} tests pass.')\nprint('status: passed')\n"
    assert check_code(page, starter(FIXTURE, SLUG) + fake) == "failed"


@pytest.mark.parametrize("patch", [
    "np.allclose = lambda *a, **k: True",
    "import _pytest.python\n_pytest.python.Function.runtest = lambda self: None",
    "import builtins\nbuiltins.abs = lambda x: 0",
    "import checker.judge\nchecker.judge.describe_failure = lambda *a: ('passed', '')",
    "import sys\nsys.modules['checker.stats'] = type(sys)('fake')",
])
def test_tampering_with_the_machinery_is_refused(shared_page, patch):
    page = shared_page
    assert check_code(page, starter(FIXTURE, SLUG) + "\n" + patch + "\n") == "error"
    assert "replaced parts of the checking machinery" in output(page)
    assert set(outcomes(page, SLUG).values()) == {"error"}
    assert check_code(page, reference(FIXTURE, SLUG)) == "passed", f"after the restart: {failures(page, SLUG)}"


def test_forged_worker_messages_are_ignored(shared_page):
    page = shared_page
    forge = (
        "import js\nfrom pyodide.ffi import to_js\n"
        "fake = {'status': 'passed', 'tests': [], 'stdout': '', 'traceback': ''}\n"
        "for i in range(300):\n"
        "    js.postMessage(to_js({'type': 'result', 'id': i, 'result': fake}, dict_converter=js.Object.fromEntries))\n"
    )
    assert check_code(page, starter(FIXTURE, SLUG) + "\n" + forge) == "failed"


def test_tampering_in_a_run_does_not_leak_into_the_next_check(shared_page):
    page = shared_page
    restarts = page.evaluate("window.tinyllm.python.restarts")
    run_code(page, "import numpy as np\nnp.allclose = lambda *a, **k: True\n")
    assert check_code(page, starter(FIXTURE, SLUG)) == "failed"  # judged on a clean interpreter, transparently
    assert page.evaluate("window.tinyllm.python.restarts") == restarts + 1
    assert check_code(page, reference(FIXTURE, SLUG)) == "passed", failures(page, SLUG)


# ---- saved work ----

def test_storage_full_keeps_the_last_good_copy(page, fixture_url):
    page.goto(fixture_url + LESSON)
    good = starter(FIXTURE, SLUG) + "\n# good work\n"
    set_code(page, SLUG, good)
    wait_saved(page, f"code:{SLUG}", good)
    page.evaluate("""() => {
        const real = Storage.prototype.setItem;
        Storage.prototype.setItem = function (k, v) {
            if (k.startsWith('tinyllm:')) throw new DOMException('full', 'QuotaExceededError');
            return real.call(this, k, v);
        };
    }""")
    set_code(page, SLUG, "")
    expect(page.locator(".tl-notices")).to_contain_text("storage is full")  # the autosave was refused
    assert get_code(page, SLUG) == ""
    page.reload()
    assert get_code(page, SLUG) == good, "an empty editor never overwrote the saved work"


def test_no_storage_at_all(page, fixture_url, recorder):
    # mkdocs-material's own scripts read localStorage too and throw; the lesson's widgets must not.
    recorder.expected_errors.append("denied")
    page.add_init_script("""Object.defineProperty(window, 'localStorage', {
        get() { throw new DOMException('denied', 'SecurityError'); } });""")
    page.goto(fixture_url + LESSON)
    assert "not letting the page save" in page.locator(".tl-notices").inner_text()
    verdict, _ = answer(page, PROMPT.id, answer_text(PROMPT.answer))
    assert verdict == "correct"
    wait_python(page, SLUG)
    set_code(page, SLUG, reference(FIXTURE, SLUG))
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed", failures(page, SLUG)


def test_data_of_an_older_version_is_left_alone(page, fixture_url):
    page.goto(fixture_url + LESSON)
    page.evaluate("(slug) => localStorage.setItem(`tinyllm:v0:code:${slug}`, JSON.stringify('old format'))", SLUG)
    page.reload()
    assert "another version" in page.locator(".tl-notices").inner_text()
    assert get_code(page, SLUG) == starter(FIXTURE, SLUG)
    assert page.evaluate("(slug) => localStorage.getItem(`tinyllm:v0:code:${slug}`)", SLUG) == json.dumps("old format")


def test_two_tabs_do_not_silently_overwrite_each_other(context, fixture_url):
    one, two = context.new_page(), context.new_page()
    one.goto(fixture_url + LESSON)
    two.goto(fixture_url + LESSON)
    mine_one = starter(FIXTURE, SLUG) + "\n# tab one\n"
    set_code(one, SLUG, mine_one)
    bar = cell(two, SLUG).locator(".tl-conflict")
    bar.wait_for(state="visible", timeout=10_000)
    mine_two = starter(FIXTURE, SLUG) + "\n# tab two\n"
    set_code(two, SLUG, mine_two)
    wait_saved(two, f"draft:{SLUG}", mine_two)
    saved = json.loads(one.evaluate("(slug) => localStorage.getItem(`tinyllm:v1:code:${slug}`)", SLUG))["code"]
    assert saved == mine_one, "tab two's edits went to a draft, not over tab one's work"
    # A notice appearing above (keep.js, after the first save) can move the button under a coordinate click,
    # so the click is dispatched to the button itself: what is tested here is the choice, not the layout.
    bar.get_by_role("button", name="Keep this version").dispatch_event("click")
    wait_saved(one, f"code:{SLUG}", mine_two)
    cell(one, SLUG).locator(".tl-conflict").wait_for(state="visible", timeout=10_000)


def test_export_and_import_progress(page, fixture_url, tmp_path):
    page.goto(fixture_url + LESSON)
    answer(page, PROMPT.id, answer_text(PROMPT.answer))
    exported = starter(FIXTURE, SLUG) + "\n# exported\n"
    set_code(page, SLUG, exported)
    wait_saved(page, f"code:{SLUG}", exported)
    page.goto(fixture_url + PROGRESS)
    row = page.locator(f'tr[data-exercise="{SLUG}"]')
    item = row.locator(f'li[data-prompt="{PROMPT.id}"]')
    expect(item).to_have_attribute("data-state", "correct")
    with page.expect_download() as download:
        page.get_by_role("button", name="Export progress to a file").click()
    path = tmp_path / "progress.json"
    download.value.save_as(path)
    dump = json.loads(path.read_text())
    assert dump["format"] == "tinyllm-progress" and f"prompt:{SLUG}/{PROMPT.id}" in dump["data"]

    page.get_by_role("button", name="Reset all progress…").click()
    page.get_by_role("button", name="Yes, erase everything").click()
    expect(item).to_have_attribute("data-state", "unanswered")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json}")
    page.locator(".tl-import input").set_input_files(bad)
    expect(page.locator(".tl-progress-status")).to_contain_text("Nothing was imported: the file is not valid JSON")
    page.locator(".tl-import input").set_input_files(path)
    expect(page.locator(".tl-progress-status")).to_contain_text("Imported")
    expect(item).to_have_attribute("data-state", "correct")
    page.goto(fixture_url + LESSON)
    assert get_code(page, SLUG) == exported
