"""Small helpers shared by the end-to-end tests."""
from __future__ import annotations

from pathlib import Path

from checker import manifest
from checker.validate import apply_mutant

PYTHON_READY_MS = 90_000   # generous: two cores, and a spare worker may be loading at the same time
CHECK_MS = 90_000

LESSON = "e7/rejection-correction/"


def cell(page, slug: str):
    return page.locator(f'.tl-cell[data-exercise="{slug}"]')


STAGES = ["python", "numpy", "judge"]


def wait_python(page, slug: str, stage: str = "judge") -> None:
    """Wait until the cell's Python has reached `stage` or a later one (stages can follow within milliseconds)."""
    later = STAGES[STAGES.index(stage):]
    page.wait_for_function("([slug, later]) => later.includes(document.querySelector("
                           "`.tl-cell[data-exercise='${slug}']`).dataset.python)", arg=[slug, later],
                           timeout=PYTHON_READY_MS)


def set_code(page, slug: str, code: str) -> None:
    page.evaluate("([slug, code]) => document.querySelector(`.tl-cell[data-exercise='${slug}']`).tlCell.editor.setCode(code)",
                  [slug, code])


def get_code(page, slug: str) -> str:
    return page.evaluate("(slug) => document.querySelector(`.tl-cell[data-exercise='${slug}']`).tlCell.editor.getCode()", slug)


def press_in_editor(page, slug: str, keys: str) -> None:
    cell(page, slug).locator(".cm-content").click()
    page.keyboard.press(keys)


def wait_result(page, slug: str, timeout: int = CHECK_MS) -> str:
    """Wait until the cell is idle with a status, and return it."""
    page.wait_for_function(
        "(slug) => { const c = document.querySelector(`.tl-cell[data-exercise='${slug}']`);"
        " return c.dataset.state === 'idle' && c.dataset.status; }", arg=slug, timeout=timeout)
    return cell(page, slug).get_attribute("data-status")


def outcomes(page, slug: str) -> dict[str, str]:
    rows = cell(page, slug).locator("li[data-test]")
    return {rows.nth(i).get_attribute("data-test"): rows.nth(i).get_attribute("data-outcome")
            for i in range(rows.count())}


def exercise(slug: str) -> manifest.Exercise:
    return manifest.load(manifest.EXERCISES / slug)


def reference(slug: str) -> str:
    return exercise(slug).reference.read_text()


def mutant_source(slug: str, name: str) -> tuple[str, str]:
    """(source, the test it must fail) of a mutant."""
    ex = exercise(slug)
    m = next(m for m in ex.mutants if m.name == name)
    return apply_mutant(ex.reference.read_text(), m), m.fails


def starter(slug: str) -> str:
    return exercise(slug).starter.read_text()


__all__ = ["Path", "LESSON", "cell", "wait_python", "set_code", "get_code", "press_in_editor", "wait_result",
           "outcomes", "reference", "mutant_source", "starter", "exercise"]
