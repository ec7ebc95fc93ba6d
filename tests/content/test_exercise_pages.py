"""Every exercise's page as built: its code cell is there, and every numeric prompt of the course as its page carries
it, judged by the page's own code, without a browser.

A prompt's widget reads what the build embedded in the page (mdwidgets/numeric.py: the answer, its tolerance, the
known wrong answers and their messages) and judges what the learner typed with web/src/page/numeric.js. Here every
built page's prompts are read from the files, held to their manifests, and judged by that same module under
Node.js, all of them in one process: the answer typed in full is correct, and each known wrong answer gets its own
message. The browser's part (typing, the submit, the feedback read out) is the fixture course's (tests/e2e), and
one page of each kind of the real course is answered in a browser too (tests/e2e/test_content.py).
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(REPO), str(REPO / "tests" / "e2e")]

from authoring import page_kinds  # noqa: E402
from course import manifest  # noqa: E402
from e2e_helpers import answer_text, uri  # noqa: E402  the e2e tests' own: the same answer typed, the same address

SITE = REPO / "site"
JUDGE = Path(__file__).with_name("judge_prompts.mjs")
# A prompt's widget, then the first data it carries (its question, before the data, holds no script).
WIDGET = re.compile(r'<div\b[^>]*\btl-numeric\b[^>]*>.*?<script\b[^>]*\btl-data\b[^>]*>(.*?)</script>', re.S)


def prompts_on_pages(pages: list[page_kinds.BuiltPage]) -> dict[tuple[str, str], list[tuple[str, dict]]]:
    """(exercise slug, prompt id) -> every (page, embedded data) that shows it, from the built files."""
    found: dict[tuple[str, str], list[tuple[str, dict]]] = {}
    for page in pages:
        for text in WIDGET.findall(page.html):
            data = json.loads(text)
            found.setdefault((data["exercise"], data["prompt"]), []).append((page.path, data))
    return found


def judge(answers: list[tuple[str, dict]]) -> list[tuple[str | None, str]]:
    """numeric.js's verdict and message for each (text typed, a prompt's embedded data), in one Node.js process."""
    node = shutil.which("node")
    assert node, "Node.js runs the page's own judge (make setup-node)"
    done = subprocess.run([node, str(JUDGE)], input=json.dumps(answers), capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [tuple(pair) for pair in json.loads(done.stdout)]


@pytest.fixture(scope="module")
def pages() -> list[page_kinds.BuiltPage]:
    found = page_kinds.built_pages(SITE)
    assert found, "the site is built (make build)"
    return found


@pytest.fixture(scope="module")
def built(pages) -> dict[tuple[str, str], list[tuple[str, dict]]]:
    return prompts_on_pages(pages)


CELL = re.compile(r'<div\b[^>]*\bclass="tl-cell"[^>]*\bdata-exercise="([^"]+)"')


def test_every_exercise_has_its_code_cell_on_its_own_page(pages):
    by_path = {page.path: page for page in pages}
    wrong = []
    for ex in manifest.load_all().values():
        path = uri(ex.page)
        if path not in by_path:
            wrong.append(f"{ex.id}: its page {ex.page} was not built (/{path})")
            continue
        cells = CELL.findall(by_path[path].html).count(ex.slug)
        if cells != 1:
            wrong.append(f"{ex.id}: /{path} has {cells} code cells for it, not 1")
    assert wrong == [], "\n".join(wrong)


def test_every_prompt_is_on_a_page_as_its_manifest_says(built):
    wrong = []
    for ex in manifest.load_all().values():
        for prompt in ex.prompts:
            shown = built.get((ex.slug, prompt.id), [])
            if not shown:
                wrong.append(f"{ex.id} {prompt.id}: on no page of the site")
            want = {"answer": list(prompt.answer), "tolerance": prompt.tolerance,
                    "feedback": [{"answer": list(f.answer), "message": f.message} for f in prompt.feedback]}
            for path, data in shown:
                got = {key: data.get(key) for key in want}
                if got != want:
                    wrong.append(f"{ex.id} {prompt.id} on /{path}: the page carries {got}, the manifest {want}")
    assert wrong == [], "\n".join(wrong)


def test_the_pages_own_judge_accepts_every_answer_and_tells_each_known_wrong_one(built):
    cases, expected = [], []
    for (slug, prompt), shown in sorted(built.items()):
        path, data = shown[0]
        cases.append((answer_text(data["answer"]), data))
        expected.append((f"/{path} {slug} {prompt}: its answer", "correct", "Correct."))
        for known in data["feedback"]:
            cases.append((answer_text(known["answer"]), data))
            expected.append((f"/{path} {slug} {prompt}: the known wrong answer {known['answer']}", "incorrect",
                             known["message"]))
    assert cases, "the course has numeric prompts"
    got = judge(cases)
    wrong = [f"{what}: {text!r} gave {verdict} {message!r}" for (what, verdict_wanted, message_wanted), (text, _), (
        verdict, message) in zip(expected, cases, got) if (verdict, message) != (verdict_wanted, message_wanted)]
    assert wrong == [], "\n".join(wrong)


def test_the_judge_here_is_the_pages_and_it_can_refuse():
    """The Node.js side of these checks reads a wrong answer as wrong and an unreadable one as unreadable."""
    data = {"answer": [0.25, 0.75], "tolerance": 1e-3, "feedback": [{"answer": [0.75, 0.25], "message": "Swapped."}]}
    got = judge([("0.25, 0.75", data), ("0.75, 0.25", data), ("0.3, 0.75", data), ("a lot", data), ("0.25", data)])
    assert got[0] == ("correct", "Correct.")
    assert got[1] == ("incorrect", "Swapped.")
    assert got[2][0] == "incorrect"
    assert got[3][0] is None and got[4][0] is None
