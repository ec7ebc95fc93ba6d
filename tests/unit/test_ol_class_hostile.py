"""The red team's files for `ol class` (issue 52): whatever one file in the class folder holds, every other
learner is graded, and the file gets one line in the report and a row in the CSV.

Each hostile kind is first put beside two honest learners and read as `ol class` reads a folder
(ol/classrun.py `read_folder`, one file at a time, into classroom.Gatherer), in a thread that must end: a file
that made the reader wait (a FIFO, a link to a device) would fail it. Then every kind at once, in one folder
graded by `ol class` itself on the fixture course, with the real judge: the honest pass holds, the CSV has the
honest rows and a row per bad file, and `ol class` exits 0. The rules both languages share are the golden cases'
(tests/fixtures/class/, test_ol_class.py); these are the folder's, which only `ol class` reads.
"""
from __future__ import annotations

import csv
import io
import json
import os
import socket
import subprocess
import sys
import threading
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from ol import classroom, classrun

REPO = Path(__file__).resolve().parent.parent.parent
FIXTURE = REPO / "tests" / "fixtures" / "course" / "exercises"
COLUMNS = [classroom.Column("t1-2", "T1.2", "Fixture lesson", (), ("normalised", "mean")),
           classroom.Column("t01-1", "T01.1", "Fixture base module"),
           classroom.Column("t01-2", "T01.2", "Fixture next module", ("t01-1",))]
REFERENCE = (FIXTURE / "t01-1" / "reference.py").read_text(encoding="utf-8")


def export(learner: str, data: dict | None = None, **extra) -> dict:
    return {"format": "tinyllm-progress", "version": "v1", "saved": "2026-12-01T10:00:00Z", "course": "tinyllm",
            "learner": learner, "data": data or {}, **extra}


def passed(code: str, at: int = 1796119200000) -> dict:
    return {"status": "passed", "tests": [], "code": code, "at": at}


def text(doc: dict) -> str:
    return json.dumps(doc)


def honest(folder: Path) -> None:
    """Two honest learners: Ada passed T01.1 with the reference, Bob tried nothing."""
    (folder / "ada.json").write_text(text(export("Ada", {"result:t01-1": passed(REFERENCE)})), encoding="utf-8")
    (folder / "bob.json").write_text(text(export("Bob", {"help:t1-2": {"hints": 1}})), encoding="utf-8")


def zipped(path: Path, entries: list[tuple[str, bytes | str]], method=zipfile.ZIP_DEFLATED) -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a duplicate name, on purpose
        with zipfile.ZipFile(path, "w", method) as zf:
            for name, data in entries:
                zf.writestr(name, data)


# Each kind: what to put in the folder (a function of the folder), the name its line is under, and what it says.
def _deep(f):
    (f / "deep.json").write_text('{"format": "tinyllm-progress", "data": ' + "[" * 100_000 + "]" * 100_000 + "}")


def _digits(f):
    (f / "digits.json").write_text(text(export("Dee")).replace('"v1"', "9" * 10_000))


def _huge(f):
    with open(f / "huge.json", "wb") as out:
        out.truncate(classroom.FILE_CAP + 1)


def _objects(f):
    (f / "objects.json").write_text("[" + ",".join(["{}"] * 1_200_000) + "]")


def _link(target):
    def make(f):
        os.symlink(target, f / "linked.json")
    return make


def _outside_link(f):
    outside = f.parent / f"{f.name}-outside.json"
    outside.write_text(text(export("Eve")), encoding="utf-8")
    os.symlink(outside, f / "linked.json")


def _fifo(f):
    os.mkfifo(f / "pipe.json")


def _socket(f):
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(f / "sock.json"))
    sock.close()


def _bomb(f):
    zipped(f / "bomb.zip", [("bomb.json", b"{" + b" " * (classroom.FILE_CAP - 100) + b"}")])  # 5 kB in the zip


def _dup(f):
    zipped(f / "dup.zip", [("x.json", text(export("Xena"))), ("x.json", text(export("Xavier")))])


def _escape(f):
    zipped(f / "escape.zip", [("../../x.json", text(export("Xena"))), ("/etc/x.json", text(export("Xavier")))])


def _many(f):
    zipped(f / "many.zip", [(f"{n}.txt", "x") for n in range(classroom.ZIP_ENTRIES + 1)], zipfile.ZIP_STORED)


def _nested(f):
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w") as zf:
        zf.writestr("a.json", text(export("Ivan")))
    zipped(f / "nested.zip", [("inner.zip", inner.getvalue())])


def _conflict(f):
    (f / "mallory.json").write_text(text(export("ADA", {"result:t01-1": passed("def total(xs):\n    return 6\n",
                                                                             at=1796299200000)})), encoding="utf-8")


KINDS = {
    "deeply nested JSON": (_deep, "deep.json", "nests deeper than 100 levels"),
    "a number of ten thousand digits": (_digits, "digits.json", "no progress format version"),
    "a file past the size limit": (_huge, "huge.json", "larger than 5 MB"),
    "a million small objects": (_objects, "objects.json", "not a tinyllm progress export"),
    "a link to /dev/zero": (_link("/dev/zero"), "linked.json", "symbolic link"),
    "a link to /dev/stdin": (_link("/dev/stdin"), "linked.json", "symbolic link"),
    "a link to a file outside": (_outside_link, "linked.json", "symbolic link"),
    "a link to itself": (_link("linked.json"), "linked.json", "symbolic link"),
    "a named pipe": (_fifo, "pipe.json", "named pipe"),
    "a socket": (_socket, "sock.json", "socket"),
    "a zip bomb": (_bomb, "bomb.zip/bomb.json", "zip bomb"),
    "a zip with one name twice": (_dup, "dup.zip/x.json", "2 entries of this name"),
    "a zip entry leading out": (_escape, "escape.zip/../../x.json", "leads out of the zip"),
    "a zip of too many files": (_many, "many.zip", "more than 1000 files"),
    "a zip in a zip": (_nested, "nested.zip/inner.zip", "not UTF-8"),
    "a second file naming a learner": (_conflict, "mallory.json", "conflict: 2 files name this learner"),
}


def read(folder: Path, gatherer: classroom.Gatherer) -> None:
    """read_folder in a thread that must end within 30 s (a reader waiting on a FIFO or a device would not)."""
    errors = []
    reader = threading.Thread(target=lambda: errors.append(classrun.read_folder(folder, set(), gatherer)),
                              daemon=True)
    reader.start()
    reader.join(30)
    assert not reader.is_alive(), "reading the folder blocked"


def lines_of(found: classroom.Gathered) -> dict[str, str]:
    lines = {file: why for file, why in found.rejected}
    lines |= {l.files[0]: l.problem for l in found.learners if l.problem}
    return lines


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_hostile_file_gets_its_line_and_the_honest_learners_are_read(kind, tmp_path):
    make, name, says = KINDS[kind]
    folder = tmp_path / "class"
    folder.mkdir()
    honest(folder)
    make(folder)
    gatherer = classroom.Gatherer(COLUMNS)
    read(folder, gatherer)
    found = gatherer.result()
    names = [l.name for l in found.learners]
    assert "Bob" in names and [l.work["t01-1"].claim for l in found.learners if l.name == "Ada"] == ["passed"]
    assert says in lines_of(found).get(name, ""), lines_of(found)
    rows = [classroom.row(l, COLUMNS, {}) for l in found.learners]
    for r in rows:  # a row as the CSV needs it, with no check made
        for c in r["cells"].values():
            c["verdict"] = c["verdict"] or "not-reproduced"
    table = list(csv.reader(io.StringIO(classroom.csv_text(rows, COLUMNS, found.rejected)[1:], newline="")))
    assert any(r[0] == name and (r[3].startswith("refused: ") or r[3].startswith("conflict: ")) for r in table) or \
        any(r[3].startswith("conflict: ") and name in r[3] for r in table), table


def test_a_device_itself_is_refused_unread(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    honest(folder)
    try:
        os.mknod(folder / "zero.json", 0o600 | 0o020000, os.makedev(1, 5))  # a character device, as /dev/zero
    except (PermissionError, AttributeError):
        pytest.skip("making a device needs root")
    gatherer = classroom.Gatherer(COLUMNS)
    read(folder, gatherer)
    assert "device" in lines_of(gatherer.result())["zero.json"]


def test_a_zip_past_its_total_is_read_no_further(tmp_path, monkeypatch):
    zipped(tmp_path / "class.zip", [(f"{n}.json", text(export(f"L{n}"))) for n in range(5)])
    sizes = [info.file_size for info in zipfile.ZipFile(tmp_path / "class.zip").infolist()]
    monkeypatch.setattr(classroom, "ZIP_TOTAL", sizes[0] + sizes[1] + sizes[2] // 2)
    gatherer = classroom.Gatherer(COLUMNS)
    with open(tmp_path / "class.zip", "rb") as f:
        classrun.feed("class.zip", f, (tmp_path / "class.zip").stat().st_size, gatherer)
    found = gatherer.result()
    assert [l.name for l in found.learners] == ["L0", "L1"], "the third would pass the total"
    assert found.rejected == [("class.zip", classroom.ZIP_TOO_MUCH)]


def test_a_zip_of_large_exports_is_read_one_entry_at_a_time_and_its_code_kept_on_disk(tmp_path):
    """Twenty exports of 4 MB each (80 MB in all, each deflating about twice over): the reader's peak is about
    one of them, not the twenty, and what it keeps of their code is on disk (classrun.Spool)."""
    import random

    rng = random.Random(5)
    code = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz \n") for _ in range(4_000_000))
    entries = [(f"big{n}.json", text(export(f"Big {n}", {"result:t01-1": passed(code + str(n))}))) for n in range(20)]
    zipped(tmp_path / "big.zip", entries)
    del entries
    spool_dir = tmp_path / "spool"
    spool_dir.mkdir()
    gatherer = classroom.Gatherer(COLUMNS, keep=classrun.Spool(spool_dir))
    tracemalloc.start()
    try:
        with open(tmp_path / "big.zip", "rb") as f:
            classrun.feed("big.zip", f, (tmp_path / "big.zip").stat().st_size, gatherer)
        found = gatherer.result()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(found.learners) == 20 and not found.rejected
    assert peak < 40_000_000, f"{peak / 1e6:.0f} MB at the peak: more than a few exports held at once"
    kept = found.learners[0].work["t01-1"].code
    assert isinstance(kept, classrun.Spooled) and kept.text().startswith(code[:100])
    assert len(list(spool_dir.iterdir())) == 20


# ---- every kind at once, through ol class itself -------------------------------------------------------------------

def ol(cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "TL_EXERCISES": str(FIXTURE), "PYTHONPATH": str(REPO), "COLUMNS": "120"}
    env.pop("OL_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "ol", *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.PIPE)


def test_ol_class_grades_the_honest_learners_beside_every_hostile_file_at_once(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    honest(folder)
    made = {}
    for kind, (make, name, says) in KINDS.items():
        if name not in made:  # the links share a name: the first of them
            make(folder)
            made[name] = says
    out = tmp_path / "class.csv"
    run = ol(tmp_path, "class", str(folder), "--csv", str(out))
    assert run.returncode == 0, run.stderr
    table = list(csv.DictReader(io.StringIO(out.read_bytes().decode("utf-8-sig"), newline="")))
    by = {(r["learner"], r["problem"][:9]): r for r in table}
    assert by[("Ada", "conflict:")]["T01.1 verdict"] == "passed", "the honest pass holds beside them all"
    assert by[("ADA", "conflict:")]["T01.1 verdict"] == "not-reproduced", "the file claiming Ada is its own row"
    assert by[("Bob", "")]["T1.2 hints"] == "1"
    said = [" ".join(line.split()) for line in run.stderr.replace("\n  ", " ").splitlines()]
    for name, says in made.items():
        assert any(f" {name}: " in line and says in line for line in said), (name, run.stderr)
        assert any(r["learner"] == name or name in r["problem"] for r in table), name
    refused = {r["learner"] for r in table if r["problem"].startswith("refused: ")
               and not r["learner"].startswith("many.zip/")}  # its thousand entries are not JSON: a row each
    assert refused == set(made) - {"mallory.json"} | {"escape.zip//etc/x.json"}, \
        "a row per bad file (the conflict's is Mallory's own learner row; the second entry leading out has its own)"
