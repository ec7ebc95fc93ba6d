"""The red-team table: every trick of tests/fixtures/redteam/ against every path that judges learner code.

    python -m bench.redteam [--out bench/results/redteam-latest.md]

Paths on CPython, each run in a fresh copy of checker/, course/ and ol/ (a trick that rewrites the judge on disk
must not rewrite this checkout's):
  single     one interpreter for the hidden tests and the learner's code: `ol check`'s path, and the browser's
             interactive Check (the same judge in Pyodide)
  separated  the hidden tests in one process, the code in a sandboxed one (checker/separated.py): `ol class`,
             the pass `ol export` records
and in the browser's Python (Pyodide under Node.js, a fresh one per trick, the built site's assets):
  browser    the code cell's Check: one interpreter, armed as the worker arms it (bench/redteam_single.mjs)
The class page's separated path is the end-to-end tier's (tests/e2e/test_class.py, every trick; the engine matrix,
two of them in Firefox and WebKit).

Each cell is the verdict and whether the trick left a trace: a file outside its folder, a connection on
127.0.0.1:47913, a changed file of the judge or the hidden tests, or the judging process killed.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TRICKS = REPO / "tests" / "fixtures" / "redteam"
EXERCISE = REPO / "tests" / "fixtures" / "course" / "exercises" / "t01-1"
MARKERS = [Path("/tmp/tl-redteam-tmp"), Path("/tmp/tl-redteam-spawned"), Path("/tmp/tl-redteam-forked"),
           Path.home() / "tl-redteam-home"]
DRIVER = """
import json, sys
from pathlib import Path
from ol import checkrun
ex = Path(sys.argv[1])
request = {"tests": {"test_base.py": (ex / "tests" / "test_base.py").read_text()},
           "files": {"fixture/base.py": Path(sys.argv[2]).read_text()}, "learner": "fixture/base.py",
           "names": ["test_total_is_left_to_right", "test_total_of_nothing", "test_clamp"], "time_limit": 5}
out = checkrun.judge_in_child(request, tests=3, separate=sys.argv[3] == "separated")
print(json.dumps({"result": out.result, "stopped": out.stopped, "crash": out.crash}))
"""


def _digest(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            h.update(str(path.relative_to(root)).encode() + path.read_bytes())
    return h.hexdigest()


def run_one(trick: Path, path: str) -> str:
    """The cell of one trick on one path."""
    for marker in MARKERS:
        marker.unlink(missing_ok=True)
    with tempfile.TemporaryDirectory(prefix="tl-redteam-copy-") as tmp:
        root = Path(tmp)
        for package in ("checker", "course", "ol"):
            shutil.copytree(REPO / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(EXERCISE, root / "exercise")
        before = _digest(root)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", 47913))
        sock.listen(1)
        sock.setblocking(False)
        env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(root), "HOME": str(Path.home())}
        run = subprocess.run([sys.executable, "-c", DRIVER, str(root / "exercise"), str(trick), path], cwd=root,
                             env=env, capture_output=True, text=True, timeout=300)
        try:
            sock.accept()[0].close()
            reached = True
        except BlockingIOError:
            reached = False
        sock.close()
        traces = [m.name for m in MARKERS if m.exists()] + (["network"] if reached else [])
        traces += ["judge or tests changed"] if _digest(root) != before else []
    for marker in MARKERS:
        marker.unlink(missing_ok=True)
    if run.returncode != 0 or not run.stdout.strip():
        verdict = f"judge killed ({run.returncode})"
    else:
        out = json.loads(run.stdout.strip().splitlines()[-1])
        result = out["result"] or {}
        verdict = result.get("status") or ("stopped" if out["stopped"] else "crash")
        verdict = "**FORGED PASS**" if verdict == "passed" else f"{verdict} ({result.get('phase', '-')})"
    return verdict + ("; left: " + ", ".join(traces) if traces else "")


def run_browser(trick: Path) -> str:
    """The cell of one trick on the browser's Check path (Pyodide, one interpreter)."""
    try:
        run = subprocess.run(["node", str(REPO / "bench" / "redteam_single.mjs"), str(REPO), str(REPO / "site" /
                              "assets" / "pyodide"), str(EXERCISE), str(trick)], capture_output=True, text=True,
                             timeout=90, cwd=REPO)
    except subprocess.TimeoutExpired:  # no worker here to interrupt it: in the page its time limit would
        return "still running after 90 s (the page's time limit stops it)"
    if run.returncode != 0 or not run.stdout.strip():
        return f"worker lost ({run.returncode})"
    result = json.loads(run.stdout.strip().splitlines()[-1])
    verdict = result.get("status", "?")
    return "**FORGED PASS**" if verdict == "passed" else f"{verdict} ({result.get('phase', '-')})"


def table(paths=("single", "separated", "browser")) -> str:
    rows = ["| trick | " + " | ".join(paths) + " |", "|---|" + "---|" * len(paths)]
    for trick in sorted(TRICKS.glob("*.py")):
        what = trick.read_text(encoding="utf-8").splitlines()[0].strip('"')
        cells = [run_browser(trick) if p == "browser" else run_one(trick, p) for p in paths]
        rows.append(f"| `{trick.stem}`: {what} | " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(REPO / "bench" / "results" / "redteam-latest.md"))
    args = parser.parse_args(argv)
    text = table()
    print(text, end="")
    Path(args.out).write_text("# Red-team tricks against each path (python -m bench.redteam)\n\n" + text,
                              encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
