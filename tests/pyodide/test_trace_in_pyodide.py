"""The trace's unit tests pass inside Pyodide too, where the trace runs on sys.monitoring (tests/unit/test_trace.py
on CPython 3.11 covers sys.settrace): one source of truth for both runtimes."""
import json
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ASSETS = REPO / "site" / "assets" / "pyodide"


def test_the_trace_tests_pass_in_pyodide_on_sys_monitoring():
    assert (ASSETS / "wheels.json").is_file(), "site/assets/pyodide is missing: build the site first (make build)"
    proc = subprocess.run(["node", str(Path(__file__).with_name("trace_in_pyodide.mjs")), str(REPO), str(ASSETS)],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["monitoring"] is True, got
    assert got["rc"] == 0, got["report"]
