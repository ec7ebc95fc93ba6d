"""Unit tests that must hold in both runtimes pass inside Pyodide too: the trace's, where it runs on sys.monitoring
(tests/unit/test_trace.py on CPython 3.11 covers sys.settrace), and the diagnosis's golden cases, which the
browser and `ol` read alike: one source of truth for both runtimes."""
import json
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
ASSETS = REPO / "site" / "assets" / "pyodide"


def in_pyodide(*files: str) -> dict:
    assert (ASSETS / "wheels.json").is_file(), "site/assets/pyodide is missing: build the site first (make build)"
    proc = subprocess.run(["node", str(Path(__file__).with_name("unit_in_pyodide.mjs")), str(REPO), str(ASSETS), *files],
                          capture_output=True, text=True, timeout=300, cwd=REPO)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def ran():
    return in_pyodide("test_trace.py", "test_diagnosis_golden.py")


def test_the_trace_tests_pass_in_pyodide_on_sys_monitoring(ran):
    assert ran["monitoring"] is True, ran
    assert ran["rc"] == 0, ran["report"]


def test_the_diagnosis_golden_cases_pass_in_pyodide(ran):
    assert ran["rc"] == 0 and " passed" in ran["report"], ran["report"]
