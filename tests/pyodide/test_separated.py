"""The separated path in the browser's Python: the hidden tests in one Pyodide, each learner's code in another,
joined by web/src/shared/sync-channel.js, under Node.js (tests/pyodide/separated_in_pyodide.mjs).

On the fixture course: every solution the platform knows of (references, starters, mutants) gets the same
verdict, the same rows and the same cases as on CPython's separated path (checker/learnerproc.py); every
red-team trick of tests/fixtures/redteam/ fails, as it does on CPython (tests/unit/test_redteam.py).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ASSETS = Path(os.environ.get("TL_PYODIDE_ASSETS", REPO / "site" / "assets" / "pyodide"))
sys.path.insert(0, str(REPO))

from authoring import validate  # noqa: E402
from checker import judge, learnerproc  # noqa: E402
from course import manifest  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"
TRICKS = sorted((REPO / "tests" / "fixtures" / "redteam").glob("*.py"))


def jobs_of_the_fixture_course() -> list[tuple[str, dict]]:
    course = manifest.load_all(FIXTURE)
    exercises = dict(course.items())
    out = []
    for ex in exercises.values():
        deps = validate.dependency_files(ex, exercises)
        reference = ex.reference.read_text(encoding="utf-8")
        solutions = [("reference", reference), ("starter", ex.starter.read_text(encoding="utf-8"))]
        solutions += [(f"mutant {m.name}", validate.apply_mutant(reference, m)) for m in ex.mutants]
        for name, source in solutions:
            out.append((f"{ex.id} {name}", {
                "tests": {ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")},
                "files": {**deps, ex.import_path: source}, "learner": ex.import_path,
                "names": ex.test_names(), "time_limit": ex.time_limit}))
    t011 = manifest.load(FIXTURE / "t01-1")
    for trick in TRICKS:
        out.append((f"trick {trick.stem}", {
            "tests": {t011.tests_file.name: t011.tests_file.read_text(encoding="utf-8")},
            "files": {t011.import_path: trick.read_text(encoding="utf-8")}, "learner": t011.import_path,
            "names": t011.test_names(), "time_limit": 5}))
    return out


def on_cpython(job: dict) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        return judge.check(workdir=tmp, separate=learnerproc.connector(tmp), **job)


def shape(result: dict) -> tuple:
    return (result["status"], result["phase"],
            [(t["name"], t["outcome"], t.get("case", "")) for t in result["tests"]])


@pytest.fixture(scope="module")
def ran(tmp_path_factory):
    assert (ASSETS / "wheels.json").is_file(), "site/assets/pyodide is missing: build the site first (make build)"
    jobs = jobs_of_the_fixture_course()
    path = tmp_path_factory.mktemp("separated") / "jobs.json"
    path.write_text(json.dumps([job for _, job in jobs]), encoding="utf-8")
    proc = subprocess.run(["node", str(Path(__file__).with_name("separated_in_pyodide.mjs")), str(REPO), str(ASSETS),
                           str(path)], capture_output=True, text=True, timeout=900, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    return [(name, job, got) for (name, job), got in zip(jobs, out)]


def test_every_fixture_solution_gets_cpythons_verdict_in_pyodide(ran):
    differ = [(name, shape(got["result"]), shape(on_cpython(job))) for name, job, got in ran
              if not name.startswith("trick") and shape(got["result"]) != shape(on_cpython(job))]
    assert not differ, differ
    assert any(name.endswith("reference") and got["result"]["status"] == "passed" for name, _, got in ran)


def test_no_trick_passes_in_pyodide(ran):
    forged = [name for name, _, got in ran if name.startswith("trick") and got["result"]["status"] == "passed"]
    assert not forged, forged
    tricks = [got for name, _, got in ran if name.startswith("trick")]
    assert len(tricks) == len(TRICKS) and all(t["result"]["tests"] for t in tricks)
