"""The browser worker's entry points into the judge (web/src/worker.js), exchanging JSON text with JavaScript.

The worker imports this module once while Python starts, before any learner code runs, keeps the functions
below (Pyodide proxies of these very function objects) and calls only those. Each binds json and the judge's
functions as default arguments at import, so learner code that later replaces `json.dumps`, `judge.check` or an
attribute of this module cannot change what the worker reports; checker/integrity.py notices such replacements,
this makes sure the report of them is the real one. Standard library only; shipped in checker.zip.
"""
from __future__ import annotations

import json
import site

from . import integrity, judge

WORKDIR = "/tmp/tl"  # where checks and runs write their files, in Pyodide's in-memory file system


def run(code: str, filename: str, files_json: str, write, _run=judge.run, _dumps=json.dumps,
        _loads=json.loads) -> str:
    """The Run button: `judge.run` with its output streamed to `write` (a JavaScript function); a RunResult."""
    return _dumps(_run(code, filename, files=_loads(files_json), workdir=WORKDIR, on_write=write))


def check(payload_json: str, _check=judge.check, _dumps=json.dumps, _loads=json.loads) -> str:
    """The Check button: `judge.check` on a check request's tests, files, learner and names; a CheckResult."""
    p = _loads(payload_json)
    return _dumps(_check(tests=p["tests"], files=p["files"], learner=p["learner"], names=p["names"],
                         workdir=WORKDIR))


def site_packages() -> str:
    """Where the worker writes numpy's and the judge's wheels' files."""
    return site.getsitepackages()[0]


def numpy_ready() -> None:
    """Import numpy and what hidden tests import with it, then take the tamper baseline, before any learner code
    runs, so that replacing any of them later is noticed. Raises when numpy cannot be imported."""
    import fractions  # noqa: F401
    import math  # noqa: F401

    import numpy  # noqa: F401
    import numpy.linalg  # noqa: F401
    import numpy.random  # noqa: F401

    from . import stats  # noqa: F401

    integrity.arm()


def judge_ready() -> None:
    """Import pytest and the judge's speed-ups, and add pytest's modules to the tamper baseline."""
    judge.prepare()
    integrity.arm()
