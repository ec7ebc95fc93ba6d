"""checker/bridge.py, the worker's entry points into the judge, on CPython: JSON in and out, the phase passed
through untouched, and the judge's functions bound when the module is imported (before any learner code)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from checker import bridge, integrity, judge  # noqa: E402

TESTS = {"test_bridge_tiny.py": "import tl_bridge_x as s\n\ndef test_one():\n    assert s.ONE == 1\n"}


def payload(source: str) -> str:
    return json.dumps({"tests": TESTS, "files": {"tl_bridge_x.py": source}, "learner": "tl_bridge_x.py",
                       "names": ["test_one"]})


def test_check_speaks_json_and_keeps_the_phase(monkeypatch, tmp_path):
    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path))
    result = json.loads(bridge.check(payload("ONE = 1\n")))
    assert (result["status"], result["phase"]) == ("passed", "tests")
    broken = json.loads(bridge.check(payload("ONE = (\n")))
    assert (broken["status"], broken["phase"]) == ("error", "import")


def test_run_streams_output_to_the_callback(monkeypatch, tmp_path):
    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path))
    got: list[str] = []
    result = json.loads(bridge.run("print('hi')", "main.py", "{}", got.append))
    assert result == {"status": "ok", "stdout": "hi\n", "traceback": ""}
    assert "".join(got) == "hi\n"


def test_the_entry_points_use_the_functions_bound_at_import(monkeypatch):
    monkeypatch.setattr(judge, "check", lambda **kw: {"status": "passed", "forged": True})
    monkeypatch.setattr(json, "dumps", lambda *a, **kw: '"forged"')
    assert bridge.check.__defaults__[0] is not judge.check
    assert bridge.check.__defaults__[1] is not json.dumps
    assert bridge.run.__defaults__[0].__module__ == "checker.judge"


def test_the_ready_steps_take_the_tamper_baseline(monkeypatch):
    monkeypatch.setattr(integrity, "_baseline", {})
    bridge.numpy_ready()
    assert {"numpy", "numpy.random", "numpy.linalg", "math", "fractions", "checker.stats", "checker.bridge"} <= \
        set(integrity._baseline["sys.modules"])
    bridge.judge_ready()
    assert "pytest" in integrity._baseline["sys.modules"] and integrity.changes() == []
    assert Path(bridge.site_packages()).is_dir()
