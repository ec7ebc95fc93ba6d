"""`ol check`'s report of a verdict (ol/cli.py `report`), driven by judge results: what ol says follows the
judge's machine-readable `phase` and counts, never the wording of the judge's messages.

The results here are the judge's own (checker/judge.py on the fixture course's lesson T1.2) or results shaped
like them with messages no judge writes, so a test fails if ol goes back to reading English.
"""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from checker import judge
from course import manifest
from ol import commands  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"


@pytest.fixture(scope="module")
def exercises() -> dict[str, manifest.Exercise]:
    return manifest.load_all(FIXTURE)


@pytest.fixture
def lesson(exercises) -> manifest.Exercise:
    return exercises["t1-2"]


def judged(ex: manifest.Exercise, source: str, tmp_path: Path) -> dict:
    return judge.check(tests={ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")},
                       files={ex.import_path: source}, learner=ex.import_path, workdir=str(tmp_path),
                       names=ex.test_names(), time_limit=5)


def reported(ex, exercises, result, tmp_path, capsys) -> tuple[int, str]:
    code = commands.report(ex, exercises, result, tmp_path, b"", False)
    return code, " ".join(capsys.readouterr().out.split())


def rows(ex: manifest.Exercise, *outcomes: str) -> list[dict]:
    return [{"name": n, "outcome": o, "message": "some words"} for n, o in zip(ex.test_names(), outcomes)]


def test_a_file_that_does_not_import(lesson, exercises, tmp_path, capsys):
    result = judged(lesson, "def mean(x):\n    return (\n", tmp_path)
    code, out = reported(lesson, exercises, result, tmp_path, capsys)
    assert code == commands.FAILED
    assert f"your file {lesson.learner_path} did not run, so none of the {len(lesson.catalogue)}" in out
    assert "SyntaxError" in out


def test_phase_import_decides_whatever_the_messages_say(lesson, exercises, tmp_path, capsys):
    n = len(lesson.catalogue)
    result = {"status": "error", "phase": "import", "tests": rows(lesson, *["error"] * n), "stdout": "",
              "traceback": "Traceback (most recent call last):\nValueError: x\n"}
    assert "did not run, so none of the" in reported(lesson, exercises, result, tmp_path, capsys)[1]
    stopped = {**result, "status": "timeout", "traceback": "Traceback (most recent call last):\n"
                                                           '  File "fixture/lessons/stats.py", line 2, in <module>\n'}
    out = reported(lesson, exercises, stopped, tmp_path, capsys)[1]
    assert f"stopped after {lesson.time_limit:g} s while importing {lesson.learner_path}, so no test ran" in out
    assert f'File "{lesson.learner_path}", line 2' in out
    # Rows whose messages look like an import failure do not make one: only the phase does.
    ran = {"status": "failed", "phase": "tests", "stdout": "", "traceback": "",
           "tests": [{**t, "message": "your code did not run: no"} for t in rows(lesson, "passed", *["error"] * (n - 1))]}
    assert "not passed yet" in reported(lesson, exercises, ran, tmp_path, capsys)[1]


def test_hidden_tests_that_cannot_be_collected(lesson, exercises, tmp_path, capsys):
    tests = {"test_other.py": "from fixture.lessons.stats import not_there\n\ndef test_mean():\n    pass\n"}
    result = judge.check(tests=tests, files={lesson.import_path: "X = 1\n"}, learner=lesson.import_path,
                         workdir=str(tmp_path), names=lesson.test_names())
    assert result["phase"] == "collect"
    code, out = reported(lesson, exercises, result, tmp_path, capsys)
    assert code == commands.FAILED
    assert "the hidden tests could not be loaded against your file: ImportError: cannot import name 'not_there'" in out


def test_tampering_is_explained(lesson, exercises, tmp_path, capsys):
    n = len(lesson.catalogue)
    result = {"status": "error", "phase": "tampered", "tainted": "during", "stdout": "",
              "tests": rows(lesson, *["error"] * n), "traceback": "Your code replaced parts of the checking machinery (math.floor).\n"}
    code, out = reported(lesson, exercises, result, tmp_path, capsys)
    assert code == commands.FAILED and "replaced parts of the checking machinery (math.floor)" in out


@pytest.mark.parametrize("outcomes, said", [
    (["passed", "failed", "error"], "1 passed, 1 failed, 1 error of 3"),
    (["error", "failed", "error"], "0 passed, 1 failed, 2 errors of 3"),
    (["passed", "failed", "failed"], "1 passed, 2 failed of 3"),
])
def test_the_counts_read_in_the_singular_and_the_plural(lesson, exercises, tmp_path, capsys, outcomes, said):
    result = {"status": "failed", "phase": "tests", "stdout": "", "traceback": "", "tests": rows(lesson, *outcomes)}
    assert said in reported(lesson, exercises, result, tmp_path, capsys)[1]
