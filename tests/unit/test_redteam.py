"""The red-team suite on CPython: every trick of tests/fixtures/redteam/ (the public catalogue of ways to make a
hidden pytest suite pass without passing it), judged on the separated path, which is the one whose verdicts count
for someone else (`ol class`, the pass `ol export` records). None may pass, and none may leave a trace outside
its check's folder: no file written in the home folder or /tmp, no connection made, the judge and the hidden
tests unchanged, the judging process alive. Then the same files as a class, through `ol class`.

`python -m bench.redteam` prints the same tricks against every path, the single-interpreter Check included.
"""
from __future__ import annotations

import csv
import hashlib
import io
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from checker import judge, learnerproc

try:
    import fcntl
except ImportError:  # Windows has none: the tier runs there in one process, or not at all
    fcntl = None

REPO = Path(__file__).resolve().parents[2]
TRICKS = sorted((REPO / "tests" / "fixtures" / "redteam").glob("*.py"))
EXERCISE = REPO / "tests" / "fixtures" / "course" / "exercises" / "t01-1"
TESTS = {"test_base.py": (EXERCISE / "tests" / "test_base.py").read_text(encoding="utf-8")}
NAMES = ["test_total_is_left_to_right", "test_total_of_nothing", "test_clamp"]
PORT = 47913
MARKERS = [Path("/tmp/tl-redteam-tmp"), Path("/tmp/tl-redteam-spawned"), Path("/tmp/tl-redteam-forked"),
           Path.home() / "tl-redteam-home", Path("/root/tl-redteam-home")]


def digest(*folders: Path) -> str:
    h = hashlib.sha256()
    for folder in folders:
        for path in sorted(folder.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                h.update(str(path).encode() + path.read_bytes())
    return h.hexdigest()


@pytest.fixture
def listener(tmp_path_factory):
    """A socket on 127.0.0.1:PORT that records whether anything connected. A trick's test holds a lock shared by
    the unit tier's processes (pytest-xdist) while it runs: two tricks judged side by side would otherwise take
    turns at the port (one of them skipped, as happened) and see each other's markers."""
    lock = (tmp_path_factory.getbasetemp().parent / "tl-redteam.lock").open("w")
    if fcntl:
        fcntl.flock(lock, fcntl.LOCK_EX)
    sock = socket.socket()
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(("127.0.0.1", PORT))
    except OSError:
        lock.close()
        pytest.skip(f"port {PORT} is taken by another program")
    sock.listen(1)
    sock.setblocking(False)
    yield sock
    sock.close()
    lock.close()


def connected(sock: socket.socket) -> bool:
    try:
        sock.accept()[0].close()
        return True
    except BlockingIOError:
        return False


def test_the_catalogue_is_all_here():
    names = {t.stem for t in TRICKS}
    assert {"patch_reports", "conftest", "gc_plugin", "collector", "exit_import", "os_exit_call", "skip",
            "always_equal", "numeric_subclass", "settrace", "caller_locals", "edit_tests", "read_frames",
            "repeat_calls", "write_outside", "network", "new_process", "kill_parent", "edit_checker",
            "delete_caches", "poison_tests", "leave_storage"} <= names


@pytest.mark.parametrize("trick", TRICKS, ids=lambda p: p.stem)
def test_no_trick_passes_on_the_separated_path_nor_leaves_a_trace(trick, tmp_path, listener):
    for marker in MARKERS:
        marker.unlink(missing_ok=True)
    before = digest(REPO / "checker", EXERCISE)
    result = judge.check(tests=TESTS, files={"fixture/base.py": trick.read_text(encoding="utf-8")},
                         learner="fixture/base.py", workdir=str(tmp_path), names=NAMES, time_limit=5,
                         separate=learnerproc.connector(tmp_path))
    assert result["status"] != "passed", trick.stem
    left = [str(m) for m in MARKERS if m.exists()]
    assert not left, f"{trick.stem} wrote {left}"
    assert not connected(listener), f"{trick.stem} reached 127.0.0.1:{PORT}"
    assert digest(REPO / "checker", EXERCISE) == before, f"{trick.stem} changed the judge or the hidden tests"


def test_a_class_of_tricksters_gets_no_pass_from_ol_class(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for trick in TRICKS:
        doc = {"format": "tinyllm-progress", "version": "v1", "saved": "2026-12-01T10:00:00Z", "course": "tinyllm",
               "build": "b", "origin": "browser", "learner": trick.stem,
               "data": {"result:t01-1": {"status": "passed", "tests": [], "at": 1796119200000,
                                         "code": trick.read_text(encoding="utf-8")}}}
        (folder / f"{trick.stem}.json").write_text(json.dumps(doc), encoding="utf-8")
    env = {**os.environ, "TL_EXERCISES": str(EXERCISE.parent), "PYTHONPATH": str(REPO), "COLUMNS": "120"}
    run = subprocess.run([sys.executable, "-m", "ol", "class", str(folder), "--csv", str(tmp_path / "c.csv")],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    rows = list(csv.DictReader(io.StringIO((tmp_path / "c.csv").read_bytes().decode("utf-8-sig"), newline="")))
    assert len(rows) == len(TRICKS)
    assert {r["learner"]: r["T01.1 verdict"] for r in rows} == {t.stem: "not-reproduced" for t in TRICKS}
    said = " ".join(run.stdout.split())
    assert "Learner code ran apart from the judge" in said
