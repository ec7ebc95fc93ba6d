"""A Node.js script's work shared out over one process per core, side by side (the Pyodide tier's scripts each
load Pyodide once and print one JSON line at the end)."""
from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def per_core(script: Path, args: list[str], items: list[str], timeout: float,
             env: dict[str, str] | None = None) -> list[dict]:
    """`node script *args <share of items>` in one process per core (one process, with no items, when `items` is
    empty); the JSON each printed last, in the order of the shares."""
    jobs = max(1, min(len(items), os.cpu_count() or 1))
    procs = [subprocess.Popen(["node", str(script), *args, *items[k::jobs]], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, env={**os.environ, **(env or {})})
             for k in range(jobs)]
    reports = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=timeout)
        assert proc.returncode == 0, stderr[-3000:]
        reports.append(json.loads(stdout.strip().splitlines()[-1]))
    return reports
