"""`ol trace`: one call of the learner's function traced line by line, in a fresh interpreter (as `ol check` runs
the judge: learner code cannot change `ol`, and the parent can kill it).

Child protocol: `python -m ol.tracerun FOLDER` reads FOLDER/request.json ({code, filename, files, expr,
time_limit}), runs the learner's file as the site's Run does (checker/console.py), traces `expr` through it
(checker/trace.py) with the time limit as an alarm, and writes FOLDER/result.json: the console's result with
its steps. A time limit or the trace's cap ends the call and keeps the steps so far; the parent kills a child
that outlives the limit anyway (a loop in C) and then has no steps to show.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from checker import console, isolation

from .checkrun import BOOT_LIMIT, CHECKER_ROOT, grace


def trace_in_child(request: dict) -> dict | None:
    """The child's result, or None when it had to be killed or crashed (the reason is in "crash")."""
    limit = float(request.get("time_limit") or 10.0)
    with tempfile.TemporaryDirectory(prefix="ol-trace-", ignore_cleanup_errors=True) as tmp:
        folder = Path(tmp)
        (folder / "request.json").write_text(json.dumps(request), encoding="utf-8")
        env = isolation.child_environment([str(CHECKER_ROOT)], {})
        try:
            proc = subprocess.run([sys.executable, "-m", "ol.tracerun", str(folder)], cwd=folder, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=BOOT_LIMIT + 2 * (limit + grace(limit)))
        except subprocess.TimeoutExpired:
            return {"crash": f"did not finish within the time limit ({limit:g} s) and was stopped"}
        result = folder / "result.json"
        if not result.is_file():
            return {"crash": (proc.stderr.strip().splitlines() or [f"ended with exit code {proc.returncode}"])[-1]}
        return json.loads(result.read_text(encoding="utf-8"))


def _child(folder: Path) -> int:
    request = json.loads((folder / "request.json").read_text(encoding="utf-8"))
    session = console.Session(request["code"], request["filename"], request["files"])
    work = str(folder / "work")
    limit = float(request.get("time_limit") or 10.0)
    with isolation.alarm(limit):
        ran = console.run(session, work)
    if ran["status"] != "ok":
        result = {**ran, "steps": [], "cut": False, "ran": False}
    else:
        with isolation.alarm(limit):
            result = {**console.trace_call(session, request["expr"], work), "ran": True}
    (folder / "result.json").write_text(json.dumps(result), encoding="utf-8")
    return 0


if __name__ == "__main__":
    os.environ.pop("PYTHONINSPECT", None)
    raise SystemExit(_child(Path(sys.argv[1])))
