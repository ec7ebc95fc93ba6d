"""The console under a code cell and the step-through trace, in Chromium against the fixture course: after a Run
an input evaluates in the namespace it left, an incomplete input gets a new line, a traced call steps through the
learner's file with its arrays, an endless traced call is stopped and its first steps stay, and a Check starts
the console afresh. (The engine matrix runs the console's journey in Firefox and WebKit: test_engines.py.)"""
from playwright.sync_api import expect

from e2e_helpers import LESSON, LESSON_EX, cell, reference, FIXTURE, set_code, wait_python, wait_result

SLUG = LESSON_EX.slug
ENTRY = "[data-console-entry]"


def open_console(page, fixture_url):
    page.goto(fixture_url + LESSON)
    wait_python(page, SLUG, "numpy")
    console = cell(page, SLUG).locator("details.tl-console")
    console.locator("summary").click()
    return console, console.locator("[data-console-input]")


def entries(console) -> list[tuple[str, str]]:
    return [(e.get_attribute("data-kind"), e.inner_text()) for e in console.locator(ENTRY).all()]


def run_reference(page, code: str) -> None:
    set_code(page, SLUG, code)
    cell(page, SLUG).locator("button.tl-run").click()
    assert wait_result(page, SLUG) == "ok"


def test_the_console_evaluates_after_a_run_and_says_when_it_starts_afresh(page, fixture_url):
    console, line = open_console(page, fixture_url)
    run_reference(page, reference(FIXTURE, SLUG))
    line.fill("normalise([1, 3])")
    line.press("Enter")
    expect(console.locator(ENTRY).nth(1)).to_have_text("array([0.25, 0.75])")
    assert entries(console)[0] == ("input", ">>> normalise([1, 3])")
    line.fill("for i in range(2):")
    line.press("End")
    line.press("Enter")
    expect(line).to_have_value("for i in range(2):\n")
    line.type("    print(i)")
    line.press("Shift+Enter")
    line.press("Enter")
    expect(console.locator(ENTRY).nth(3)).to_have_text("0\n1")
    line.fill("1/0")
    line.press("Enter")
    error = console.locator('[data-console-entry][data-kind="error"]')
    expect(error).to_contain_text("ZeroDivisionError")
    line.press("ArrowUp")
    expect(line).to_have_value("1/0")
    cell(page, SLUG).locator("button.tl-check").click()
    wait_result(page, SLUG)
    line.fill("normalise")
    line.press("Enter")
    expect(console.locator(ENTRY).last).to_contain_text("NameError")
    expect(console.locator(".tl-console-note").last).to_contain_text("fresh namespace")


def test_a_traced_call_steps_through_the_learners_lines_with_its_arrays(page, fixture_url):
    console, line = open_console(page, fixture_url)
    run_reference(page, reference(FIXTURE, SLUG))
    line.fill("normalise([1, 3])")
    console.locator(".tl-console-trace").click()
    trace = console.locator("[data-trace]")
    expect(trace).to_have_attribute("data-steps", "2")
    assert trace.get_attribute("data-step") == "1"
    first_line = int(trace.get_attribute("data-line"))
    # The editor marks the step's line (CodeMirror takes over from the plain editor once Python has settled).
    expect(cell(page, SLUG).locator(".cm-content")).to_be_visible(timeout=60_000)
    expect(cell(page, SLUG).locator(".tl-trace-line")).to_have_count(1)
    trace.focus()
    page.keyboard.press("ArrowRight")
    expect(trace).to_have_attribute("data-step", "2")
    assert int(trace.get_attribute("data-line")) == first_line + 1
    p = trace.locator("tr[data-var=p]")
    expect(p).to_have_class("tl-trace-changed")
    expect(p).to_contain_text("ndarray shape (2,) float64")
    expect(p).to_contain_text("[1. 3.]")


def test_an_endless_traced_call_is_stopped_and_its_first_steps_stay(page, fixture_url):
    console, line = open_console(page, fixture_url)
    run_reference(page, "def spin():\n    i = 0\n    while True:\n        i += 1\n")
    line.fill("spin()")
    console.locator(".tl-console-trace").click()
    trace = console.locator("[data-trace]")
    expect(trace).to_have_attribute("data-steps", "1000", timeout=60_000)
    expect(trace.locator(".tl-trace-note")).to_contain_text("Cut at 1000 steps")
    assert trace.get_attribute("data-line") == "2"
    # A call that hangs in C, where Python never looks at Stop, is ended with its worker; its steps so far stay.
    run_reference(page, "import itertools\n\ndef hang():\n    i = 0\n    return sum(itertools.count())\n")
    line.fill("hang()")
    console.locator(".tl-console-trace").click()
    expect(trace).to_have_attribute("data-steps", "2", timeout=30_000)
    console.locator(".tl-console-stop").click()
    expect(trace.locator(".tl-trace-note")).to_contain_text("Stopped after 2 steps", timeout=30_000)
    expect(console.locator('[data-console-entry][data-kind="error"]').last).to_have_text("Stopped.")
