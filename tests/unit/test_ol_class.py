"""A teacher's class view in a terminal (`ol class`, ol/classroom.py).

The rules are the golden cases of tests/fixtures/class/, which web/test/class.test.mjs holds the page to as well;
`ol class` itself runs on the fixture course (tests/fixtures/course), with the real judge: a pass that holds, a
hand-edited pass that does not, a loop stopped by the time limit, bad files each with a line of their own.
"""
from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from ol import classroom, exchange

REPO = Path(__file__).resolve().parent.parent.parent
GOLDEN = REPO / "tests" / "fixtures" / "class"
GOLD = json.loads((GOLDEN / "cases.json").read_text(encoding="utf-8"))
COLUMNS = [classroom.Column(c["slug"], c["id"], c["title"], tuple(c["requires"]), tuple(c["prompts"]))
           for c in GOLD["columns"]]
FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"


def simulate(case: dict) -> tuple[classroom.Gathered, list, list[dict]]:
    """A case run as `ol class` runs it, its zips opened, with each check's result taken from the case:
    (gathered, tasks, rows); the zips' refusals come first in the gathered refusals."""
    files, refused = classroom.expand([(n, (GOLDEN / "files" / n).read_bytes()) for n in case["files"]])
    found = classroom.gather(files, COLUMNS)
    found = classroom.Gathered(found.learners, refused + found.rejected)
    verdicts: dict[str, dict] = {learner.key: {} for learner in found.learners}
    tasks = []
    for learner, column in classroom.plan(found.learners, COLUMNS):
        mine = verdicts[learner.key]
        assert all(dep in mine for dep in classroom.waits_for(learner, column)), "a dependency is checked first"
        tasks.append([learner.key, column.slug, classroom.dependency_sources(column, mine)])
        result = case["rechecks"][f"{learner.key}|{column.slug}"]
        mine[column.slug] = classroom.verdict(learner.work[column.slug], result)
    rows = []
    for learner in found.learners:
        mine = {c.slug: verdicts[learner.key].get(c.slug) or classroom.verdict(learner.work[c.slug], None)
                for c in COLUMNS}
        rechecks = {c.slug: case["rechecks"][f"{learner.key}|{c.slug}"] for c in COLUMNS
                    if f"{learner.key}|{c.slug}" in case["rechecks"]}
        rows.append(classroom.row(learner, COLUMNS, mine, rechecks))
    return found, tasks, rows


@pytest.mark.parametrize("name", sorted(GOLD["cases"]))
def test_each_golden_class_gives_its_rows_csv_and_summary(name):
    case = GOLD["cases"][name]
    found, tasks, rows = simulate(case)
    assert tasks == case["tasks"]
    assert {file: why for file, why in found.rejected}.keys() == case["rejected"].keys()
    for file, why in found.rejected:
        assert case["rejected"][file] in why, (file, why)
    assert rows == case["rows"]
    assert classroom.utf8(classroom.csv_text(rows, COLUMNS, found.rejected)) == (GOLDEN / case["csv"]).read_bytes()
    assert classroom.summary_text(rows, COLUMNS) == (GOLDEN / case["summary"]).read_text(encoding="utf-8")


def test_every_golden_file_is_read_by_a_case():
    used = {f for case in GOLD["cases"].values() for f in case["files"]}
    assert used == {p.name for p in (GOLDEN / "files").iterdir()}
    outputs = {case[k] for case in GOLD["cases"].values() for k in ("csv", "summary")}
    assert outputs | {"cases.json", "files"} == {p.name for p in GOLDEN.iterdir()}


def test_the_csv_opens_as_one_row_per_learner_with_named_columns():
    case = GOLD["cases"]["a-class"]
    text = (GOLDEN / case["csv"]).read_bytes().decode("utf-8-sig")
    table = list(csv.reader(io.StringIO(text, newline="")))
    assert table[0] == classroom.csv_header(COLUMNS)
    learners = [r[0] for r in table[1:] if not r[3].startswith("refused: ")]
    assert learners == ["'=Carol+1", "Ada Lovelace", "ada lovelace", "Bob", "no-name.json"], \
        "sorted by name; a name a spreadsheet would run as a formula is quoted"
    assert all(len(r) == len(table[0]) for r in table)
    assert table[0][:4] == ["learner", "exercises passed", "last activity (UTC)", "problem"]
    refused = [(r[0], r[3]) for r in table[1:] if r[3].startswith("refused: ")]
    assert [f for f, _ in refused] == sorted(case["rejected"]), "a row per refused file, after the learners"
    assert "T01.2 verdict" in table[0] and "T1.2 prompts answered wrong" in table[0]


def test_times_read_alike_whatever_their_zone():
    assert classroom.iso_ms("2026-12-01T10:00:00Z") == classroom.iso_ms("2026-12-01T11:00:00+01:00") == 1796119200000
    assert classroom.iso_ms("2026-12-01T10:00:00.25Z") == 1796119200250
    assert classroom.iso_ms("2026-12-01T10:00:00") is None, "no zone, no guess"
    assert classroom.iso_ms("2026-13-01T10:00:00Z") is None
    assert classroom.ms(True) is None and classroom.ms(-5) is None and classroom.ms(1.9) == 1
    assert classroom.when(1796119200000) == "2026-12-01 10:00" and classroom.when(None) == ""


def test_a_huge_file_is_refused_unread():
    found = classroom.gather([("huge.json", b" " * (classroom.FILE_CAP + 1))], COLUMNS)
    assert found.learners == [] and "larger than 5 MB" in found.rejected[0][1]


# ---- ol class, on the fixture course ------------------------------------------------------------------------------

def ol(cwd: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "TL_EXERCISES": str(FIXTURE), "PYTHONPATH": str(REPO), "COLUMNS": "120"}
    env.pop("OL_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "ol", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def export(folder: Path, learner: str | None, data: dict, origin: str = "browser") -> dict:
    doc = {"format": "tinyllm-progress", "version": "v1", "saved": "2026-12-01T10:00:00Z", "course": "tinyllm",
           "build": "b", "origin": origin, **({"learner": learner} if learner else {}), "data": data}
    return doc


def reference(slug: str) -> str:
    return (FIXTURE / slug / "reference.py").read_text(encoding="utf-8")


def passed(code: str, at: int = 1796119200000) -> dict:
    return {"status": "passed", "tests": [], "code": code, "at": at}


@pytest.fixture(scope="module")
def a_class(tmp_path_factory) -> Path:
    """A folder of exports: real passes (one made by ol itself), a hand-edited fake pass, a loop, bad files."""
    folder = tmp_path_factory.mktemp("class")
    work = tmp_path_factory.mktemp("learner")
    (work / "python" / "fixture").mkdir(parents=True)
    (work / "python" / "fixture" / "base.py").write_text(reference("t01-1"), encoding="utf-8")
    assert ol(work, "check", "T01.1").returncode == 0
    made = ol(work, "export", str(folder / "grace.json"), "--name", "Grace Hopper")
    assert made.returncode == 0, made.stderr
    files = {
        "ada.json": export(folder, "Ada", {
            "result:t01-1": passed(reference("t01-1")), "result:t01-2": passed(reference("t01-2")),
            "help:t01-1": {"hints": 1, "failed": 2,
                           "pitfalls": ["1. min and max swapped: max(min(x, lo), hi) is always hi"]}}),
        "bob.json": export(folder, "Bob", {
            "result:t01-1": passed("def total(xs):\n    return 6.0\n\ndef clamp(x, lo, hi):\n    return x\n"),
            "result:t1-2": {"status": "failed", "tests": [], "code": "x = 1\n", "at": 1}}),
        "carol.json": export(folder, "Carol", {"result:t1-2": passed("while True:\n    pass\n")}),
    }
    for name, doc in files.items():
        (folder / name).write_text(json.dumps(doc), encoding="utf-8")
    shutil.copy(folder / "bob.json", folder / "bob again.json")
    (folder / "broken.json").write_text('{"format": "tinyllm-progress", "version": "v1", "data": {', encoding="utf-8")
    (folder / "foreign.json").write_text(json.dumps({**export(folder, "Eve", {}), "course": "another-course"}),
                                         encoding="utf-8")
    with zipfile.ZipFile(folder / "more.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("class/dan.json", json.dumps(export(folder, "Dan", {"code:t01-1": {"code": "x", "at": 1}})))
        zf.writestr("class/notes.txt", "not a progress file")
        zf.writestr("__MACOSX/class/._dan.json", b"\x00\x05\x16\x07")
    return folder


@pytest.fixture(scope="module")
def graded(a_class, tmp_path_factory) -> tuple[subprocess.CompletedProcess, Path]:
    out = tmp_path_factory.mktemp("out") / "class.csv"
    return ol(a_class, "class", str(a_class), "--csv", str(out)), out


def test_ol_class_checks_every_pass_again_and_writes_the_csv(graded):
    run, out = graded
    assert run.returncode == 0, run.stdout + run.stderr
    table = list(csv.DictReader(io.StringIO(out.read_bytes().decode("utf-8-sig"), newline="")))
    by = {r["learner"]: r for r in table if not r["problem"].startswith("refused: ")}
    assert list(by) == ["Ada", "Bob", "Carol", "Dan", "Grace Hopper"]
    refused = {r["learner"]: r["problem"] for r in table if r["problem"].startswith("refused: ")}
    assert list(refused) == ["bob.json", "broken.json", "foreign.json", "more.zip/class/notes.txt"], \
        "a row per refused file, after the learners, in the order of the files' names"
    assert by["Ada"]["T01.1 verdict"] == by["Ada"]["T01.2 verdict"] == "passed"
    assert by["Ada"]["T01.1 checks"] == "3" and by["Ada"]["T01.1 pitfalls"].startswith("1. min and max")
    assert by["Grace Hopper"]["T01.1 verdict"] == "passed", "a pass made by ol itself holds"
    assert by["Bob"]["T01.1 verdict"] == "not-reproduced", "the hand-edited pass is caught"
    assert by["Bob"]["T1.2 verdict"] == "failed"
    assert by["Carol"]["T1.2 verdict"] == "not-reproduced", "the loop is stopped by the time limit"
    assert by["Dan"]["T01.1 verdict"] == "untried"
    said = " ".join(run.stdout.split())
    assert "Bob T01.1: the claimed pass did not hold: test_total_is_left_to_right" in said, run.stdout
    assert "test_clamp (total([1e+16, 1.0, -1e+16]) gave 6.0" in said, "with the first failing test's message"
    assert "Carol T1.2: the claimed pass did not hold: (stopped by the time limit)" in said


def test_ol_class_gives_each_bad_file_a_line_and_grades_the_rest(graded):
    run, _out = graded
    lines = [" ".join(line.split()) for line in run.stderr.splitlines()]
    expect = {"bob.json": "same file as bob again.json", "broken.json": "ends in the middle", "foreign.json": "another-course",
              "more.zip/class/notes.txt": "not valid JSON"}
    for file, why in expect.items():
        assert any(line.startswith(f"refused {file}:") and why in line for line in lines), (file, run.stderr)
    assert "__MACOSX" not in run.stderr, "a Mac's resource forks are not learners' files"
    assert "class.csv" not in run.stderr


def test_ol_class_prints_the_summary_and_can_write_it(a_class, tmp_path):
    run = ol(a_class, "class", str(a_class), "--summary", str(tmp_path / "summary.txt"), "--jobs", "1")
    assert run.returncode == 0, run.stderr
    text = (tmp_path / "summary.txt").read_text(encoding="utf-8")
    assert text.startswith("Class summary: 5 learners, 3 exercises.")
    assert "T01.1 Fixture base module\n  passed 2 of 5 (40%); not reproduced 1" in text
    assert text in run.stdout


def test_ol_class_refuses_a_folder_that_is_not_there(tmp_path):
    run = ol(tmp_path, "class", str(tmp_path / "nope"))
    assert run.returncode == 2 and "nope" in run.stderr


def test_ol_export_asks_for_no_name_without_a_terminal_and_remembers_one_given(tmp_path):
    (tmp_path / "python" / "fixture").mkdir(parents=True)
    (tmp_path / "python" / "fixture" / "base.py").write_text("x = 1\n", encoding="utf-8")
    first = ol(tmp_path, "export", "a.json")
    assert first.returncode == 0 and "--name" in first.stderr
    assert "learner" not in json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    assert ol(tmp_path, "export", "b.json", "--name", "  Grace\tHopper ").returncode == 0
    assert json.loads((tmp_path / "b.json").read_text(encoding="utf-8"))["learner"] == "Grace Hopper"
    again = ol(tmp_path, "export", "c.json")
    assert json.loads((tmp_path / "c.json").read_text(encoding="utf-8"))["learner"] == "Grace Hopper"
    assert "--name" not in again.stderr
    assert exchange.parse((tmp_path / "c.json").read_text(encoding="utf-8"), "tinyllm").learner == "Grace Hopper"
