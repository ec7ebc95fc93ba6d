"""Lesson E7.3 in real headless Chromium against the built site on localhost."""
import re

from e2e_helpers import (LESSON, cell, get_code, mutant_source, outcomes, press_in_editor, reference, set_code,
                         starter, wait_python, wait_result, exercise)

SLUG = "e7-3"


def answer(page, prompt: str, text: str) -> tuple[str | None, str]:
    box = page.locator(f'.tl-numeric[data-prompt="{prompt}"]')
    box.locator("input").fill(text)
    box.locator("button[type=submit]").click()
    return box.get_attribute("data-verdict"), box.locator(".tl-feedback").inner_text()


def test_numeric_prompts_right_and_wrong(page, site_url):
    page.goto(site_url + LESSON)
    verdict, message = answer(page, "residual", "0.25, 0, 0")
    assert verdict == "incorrect" and "normalising" in message
    verdict, message = answer(page, "residual", "1, 0.5, 0")
    assert verdict == "incorrect" and "#2" in message and "#1" not in message
    verdict, message = answer(page, "residual", "[1 0 0]")
    assert verdict == "correct"
    assert page.locator('.tl-numeric[data-prompt="residual"] .tl-explain').is_visible()

    verdict, message = answer(page, "total-corrected", "0.375")
    assert verdict == "incorrect" and "shortcut" in message  # the naive total gets targeted feedback
    verdict, message = answer(page, "total-corrected", "banana")
    assert verdict == "incorrect" and "not a number" in message  # unreadable: explained, verdict kept
    verdict, _ = answer(page, "total-corrected", "1/2")
    assert verdict == "correct"

    naive = page.locator('.tl-numeric[data-prompt="total-naive"]')
    explain = naive.locator(".tl-explain")
    for wrong in ("0.4", "0,3", "37%"):
        assert not explain.is_visible()
        verdict, _ = answer(page, "total-naive", wrong)
        assert verdict == "incorrect"
    assert explain.is_visible(), "the worked answer appears after three wrong tries"
    assert "0.375" in explain.inner_text()
    verdict, _ = answer(page, "total-naive", "0,375")
    assert verdict == "correct"


def test_worked_answer_on_request_and_bad_input(page, site_url):
    page.goto(site_url + LESSON)
    box = page.locator('.tl-numeric[data-prompt="total-corrected"]')
    for bad, words in (("", "Type an answer"), ("NaN", "not a finite"), ("1e309", "too large"),
                       ("9" * 1000, "characters"), ("<script>alert(1)</script>", "not a number")):
        box.locator("input").fill(bad)
        box.locator("button[type=submit]").click()
        assert words in box.locator(".tl-feedback").inner_text()
        assert box.get_attribute("data-verdict") is None
    assert box.locator(".tl-feedback script").count() == 0  # shown as text, never as HTML
    box.get_by_role("button", name="Show the worked answer").click()
    assert box.locator(".tl-explain").is_visible()


def test_predict_first_gates_the_explanation(page, site_url):
    page.goto(site_url + LESSON)
    body = page.locator('.tl-reveal[data-after="predict"] .tl-reveal-body')
    assert not body.is_visible()
    predict = page.locator('.tl-choice[data-prompt="predict"]')
    predict.locator('.tl-option[data-key="A"]').click()
    assert body.is_visible()
    assert predict.get_attribute("data-verdict") == "committed"
    assert predict.locator('.tl-option[data-key="B"]').is_disabled()  # a prediction is committed once
    assert predict.locator('.tl-option[data-key="A"]').get_attribute("aria-pressed") == "true"

    check = page.locator('.tl-choice[data-prompt="check"]')
    assert "you predicted: A" in check.locator(".tl-predicted").inner_text()
    check.locator('.tl-option[data-key="A"]').click()
    assert check.get_attribute("data-verdict") == "incorrect"
    assert "counts them twice" in check.locator(".tl-feedback").inner_text()
    check.locator('.tl-option[data-key="B"]').click()
    assert check.get_attribute("data-verdict") == "correct"


def test_reference_passes_every_hidden_test_with_ctrl_enter(page, site_url):
    page.goto(site_url + LESSON)
    set_code(page, SLUG, reference(SLUG))
    press_in_editor(page, SLUG, "Control+Enter")  # pressed before Python is ready: queued, then checked
    assert wait_result(page, SLUG) == "passed"
    got = outcomes(page, SLUG)
    assert list(got) == exercise(SLUG).test_names()
    assert set(got.values()) == {"passed"}
    assert cell(page, SLUG).locator(".tl-summary").inner_text() == f"All {len(got)} tests pass."
    # The catalogue rows show names and outcomes, never the test source.
    assert "def test_" not in cell(page, SLUG).inner_text()


def test_mutants_fail_their_named_tests_and_errors_point_at_learner_lines(page, site_url):
    page.goto(site_url + LESSON)
    wait_python(page, SLUG)
    for name in ("resample-from-p", "residual-not-normalised", "nan-when-q-is-zero"):
        source, fails = mutant_source(SLUG, name)
        set_code(page, SLUG, source)
        cell(page, SLUG).locator("button.tl-check").click()
        assert wait_result(page, SLUG) == "failed"
        assert outcomes(page, SLUG)[fails] in ("failed", "error"), name

    broken = reference(SLUG).replace("    return gap / mass", "    return gap / mass +")
    line = broken.splitlines().index("    return gap / mass +") + 1
    set_code(page, SLUG, broken)
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "error"
    out = cell(page, SLUG).locator(".tl-output").inner_text()
    assert f"line {line}" in out and "rejection_correction.py" in out and "SyntaxError" in out
    assert "checker" not in out and "_pytest" not in out

    crash = reference(SLUG).replace("    return 1.0 - float(", "    return undefined_name - float(")
    set_code(page, SLUG, crash)
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "failed"
    row = cell(page, SLUG).locator('li[data-test="test_rejection_probability"]')
    assert row.get_attribute("data-outcome") == "error"
    line = next(i for i, text in enumerate(crash.splitlines(), 1) if "undefined_name" in text)
    assert re.search(rf"NameError.*line {line} of tinyllm/lessons/rejection_correction.py", row.inner_text())


def _stop_and_recover(page, slug):
    set_code(page, slug, "def residual(p, q):\n    while True:\n        pass\n\nresidual(1, 2)\n")
    cell(page, slug).locator("button.tl-check").click()
    page.wait_for_selector(f'.tl-cell[data-exercise="{slug}"][data-state="running"]')
    page.wait_for_timeout(1500)  # let it spin inside Python
    cell(page, slug).locator("button.tl-stop").click()
    assert wait_result(page, slug, timeout=30_000) == "stopped"
    assert "while True" in get_code(page, slug), "a stop never loses the learner's code"
    set_code(page, slug, reference(slug))
    cell(page, slug).locator("button.tl-check").click()
    assert wait_result(page, slug) == "passed"


def test_stop_an_infinite_loop_without_isolation(page, site_url):
    page.goto(site_url + LESSON)
    assert page.evaluate("crossOriginIsolated") is False
    wait_python(page, SLUG)
    _stop_and_recover(page, SLUG)
    assert page.evaluate("window.tinyllm.python.restarts") == 1  # a fresh worker replaced the stuck one


def test_stop_an_infinite_loop_with_isolation(page, isolated_url):
    page.goto(isolated_url + LESSON)
    assert page.evaluate("crossOriginIsolated") is True
    wait_python(page, SLUG)
    _stop_and_recover(page, SLUG)
    assert page.evaluate("window.tinyllm.python.restarts") == 0  # interrupted in place, nothing reloaded


def test_run_typed_code_and_the_example_cell(page, site_url):
    page.goto(site_url + LESSON)
    wait_python(page, SLUG, "numpy")
    editor = cell(page, SLUG).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.type("import numpy as np\nprint(np.array([1, 2]).sum() * 21)\n")
    page.keyboard.press("Shift+Enter")
    assert wait_result(page, SLUG) == "ok"
    assert cell(page, SLUG).locator(".tl-output").inner_text().strip() == "63"
    set_code(page, SLUG, "print('<b>bold</b><script>alert(1)</script>')")
    cell(page, SLUG).locator("button.tl-run").click()
    wait_result(page, SLUG)
    output = cell(page, SLUG).locator(".tl-output")
    assert output.inner_text().strip() == "<b>bold</b><script>alert(1)</script>"
    assert output.locator("b, script").count() == 0

    example = page.locator('.tl-cell[data-kind="example"]')
    example.locator("button.tl-run").click()
    page.wait_for_function("() => document.querySelector('.tl-cell[data-kind=example]').dataset.status === 'ok'",
                           timeout=60_000)
    text = example.locator(".tl-output").inner_text()
    assert "E[N] = 3.3616" in text and "210.1 tokens/s" in text and "2.101x" in text


def test_everything_survives_a_reload(page, site_url):
    page.goto(site_url + LESSON)
    answer(page, "residual", "1, 0, 0")
    answer(page, "total-corrected", "0.375")
    page.locator('.tl-choice[data-prompt="predict"] .tl-option[data-key="B"]').click()
    page.locator('.tl-choice[data-prompt="check"] .tl-option[data-key="B"]').click()
    mine = reference(SLUG) + "\n# my own note\n"
    set_code(page, SLUG, mine)
    cell(page, SLUG).locator("button.tl-check").click()
    assert wait_result(page, SLUG) == "passed"

    page.reload()
    assert page.locator('.tl-numeric[data-prompt="residual"]').get_attribute("data-verdict") == "correct"
    assert page.locator('.tl-numeric[data-prompt="residual"] input').input_value() == "1, 0, 0"
    wrong = page.locator('.tl-numeric[data-prompt="total-corrected"]')
    assert wrong.get_attribute("data-verdict") == "incorrect" and "shortcut" in wrong.locator(".tl-feedback").inner_text()
    assert page.locator('.tl-choice[data-prompt="predict"]').get_attribute("data-verdict") == "committed"
    assert page.locator('.tl-reveal[data-after="predict"] .tl-reveal-body').is_visible()
    assert page.locator('.tl-choice[data-prompt="check"]').get_attribute("data-verdict") == "correct"
    assert get_code(page, SLUG) == mine
    assert set(outcomes(page, SLUG).values()) == {"passed"}
    assert cell(page, SLUG).locator(".tl-summary").inner_text().startswith("Last check: All")

    cell(page, SLUG).locator("button.tl-reset").click()
    assert get_code(page, SLUG) == starter(SLUG)
    page.reload()
    assert get_code(page, SLUG) == starter(SLUG)


def test_corrupt_saved_data_is_reset_with_a_notice(page, site_url):
    page.goto(site_url + LESSON)
    page.evaluate("""() => {
        localStorage.setItem('tinyllm:v1:code:e7-3', '{not json');
        localStorage.setItem('tinyllm:v1:prompt:e7-3/residual', '}}}');
    }""")
    page.reload()
    assert "unreadable" in page.locator(".tl-notices").inner_text()
    assert get_code(page, SLUG) == starter(SLUG)
    verdict, _ = answer(page, "residual", "1 0 0")
    assert verdict == "correct"
