"""The browser worker's entry points into the judge (web/src/worker/worker.js), exchanging JSON text with JavaScript.

The worker imports this module once while Python starts, before any learner code runs, keeps the functions
below (Pyodide proxies of these very function objects) and calls only those. Each binds json and the judge's
functions as default arguments at import, so learner code that later replaces `json.dumps`, `judge.check` or an
attribute of this module cannot change what the worker reports; checker/integrity.py notices such replacements,
this makes sure the report of them is the real one. Standard library only; shipped in checker.zip.
"""
from __future__ import annotations

import ast
import json
import os
import site

from . import console, diagnosis, figures, integrity, judge, later

WORKDIR = "/tmp/tl"  # where checks and runs write their files, in Pyodide's in-memory file system
# What the last Run left for the console (checker/console.py), and the page's number for that Run: a console
# request names the Run it follows, and one that names another (or none: a new worker) starts afresh. Checks
# leave it: the page's background checks must not, and after the learner's own Check the page names Run 0.
_last = {"session": None, "run": 0}


def run(code: str, filename: str, files_json: str, write, run_id: int = 0, _session=console.Session,
        _run=console.run, _dumps=json.dumps, _loads=json.loads, _collecting=figures.collecting,
        _last=_last) -> str:
    """The Run button: `judge.run` with its output streamed to `write` (a JavaScript function); a RunResult,
    with `figures` (checker/figures.py: the images and notes of what it drew, in order) when it drew any. Its
    namespace is kept for the console, under `run_id`."""
    result = None
    drawn = None
    try:
        session = _session(code, filename, _loads(files_json))
        _last.update(session=session, run=run_id)
        with _collecting() as drawn:
            result = _run(session, WORKDIR, write)
    except KeyboardInterrupt:  # Stop outside the learner's code: setting up, or drawing the figures left open
        result = {**(result or {"stdout": "", "traceback": ""}), "status": "timeout"}
    try:
        items = drawn.result() if drawn is not None else []
        if items:
            result["figures"] = items
        return _dumps(result)
    except KeyboardInterrupt:  # Stop as the run ended
        return _dumps({**result, "status": "timeout"})


def explore(payload_json: str, write, on_steps, _last=_last, _session=console.Session,
            _evaluate=console.evaluate, _trace=console.trace_call, _dumps=json.dumps, _loads=json.loads,
            _collecting=figures.collecting) -> str:
    """A console input (`kind` "eval") or a traced call (`kind` "trace") in the namespace of the Run the request
    names (`run`): a RunResult, with `fresh` when that namespace is gone (another Run since, or a new worker; the
    page names Run 0 after the learner's Check or Reset) and the input ran in an empty one; a trace adds `steps` and `cut` (checker/trace.py), also streamed to
    `on_steps` (a JavaScript function) as they are recorded."""
    p = _loads(payload_json)
    fresh = _last["session"] is None or _last["run"] != p.get("run")
    if fresh:
        _last.update(session=_session("", p.get("filename") or "main.py", p.get("files") or {}), run=p.get("run"))
    session = _last["session"]
    drawn = None
    try:
        with _collecting() as drawn:
            if p["kind"] == "trace":
                result = _trace(session, p["code"], WORKDIR, on_steps=lambda steps: on_steps(_dumps(steps)),
                                on_write=write)
            else:
                result = _evaluate(session, p["code"], WORKDIR, on_write=write)
    except KeyboardInterrupt:
        result = {"status": "timeout", "stdout": "", "traceback": ""}
    items = drawn.result() if drawn is not None else []
    if items:
        result["figures"] = items
    if fresh:
        result["fresh"] = True
    return _dumps(result)


def check(payload_json: str, channel=None, _check=judge.check, _dumps=json.dumps, _loads=json.loads,
          _close=figures.close_all, _diagnose=diagnosis.diagnose) -> str:
    """The Check button: `judge.check` on a check request's tests, files, learner and names (and the build's
    assertion rewriting of the tests, `rewritten`, when the request carries it); a CheckResult, with the known
    mistakes its failure looks like as `diagnosis` when the request carries the exercise's `mistakes`
    (checker/diagnosis.py). Nothing is drawn (checker/figures.py); figures the learner's module opened are
    closed after. `channel`: one end of web/src/shared/sync-channel.js, for a separated check: the learner's
    code runs in the worker at its other end (`serve`), once; a second start (after a time limit) is refused."""
    try:
        p = _loads(payload_json)
        result = _check(tests=p["tests"], files=p["files"], learner=p["learner"], names=p["names"],
                        workdir=WORKDIR, rewritten=p.get("rewritten"),
                        separate=None if channel is None else _once(channel))
        found = _diagnose(result, p.get("mistakes") or [])
        if found:
            result["diagnosis"] = found
        return _dumps(result)
    except KeyboardInterrupt:  # a Stop as the check began or ended, outside the judge's own handling
        return _dumps({"status": "timeout", "tests": [], "stdout": "", "traceback": "", "phase": "import"})
    finally:
        _close()


def _once(end):
    """The `separate` of a browser check: its one learner worker. The browser cannot start another one while the
    tests wait, so after a time limit the rest of the tests fail with a message instead."""
    from . import boundary, separated

    used = []

    def connect():
        if used:
            raise boundary.LearnerGone("your code's Python was stopped at the time limit, so the tests after it "
                                       "were not run")
        used.append(True)
        return separated.JsChannel(end)
    return connect


def serve(end) -> str:
    """Be the learner's interpreter of one separated check, over `end` (web/src/shared/sync-channel.js), until
    the check ends; a RunResult. No judge, no verdict here: only the learner's code and what the tests ask of it."""
    from pathlib import Path

    from . import boundary, separated

    try:
        separated.serve_learner(separated.JsChannel(end), Path(WORKDIR) / "learner", ["worker", "confined"])
        return json.dumps({"status": "ok", "stdout": "", "traceback": ""})
    except (boundary.BoundaryError, KeyboardInterrupt) as exc:
        return json.dumps({"status": "error", "stdout": "", "traceback": f"{type(exc).__name__}: {exc}"[:500]})


def imports(sources_json: str, _loads=json.loads, _dumps=json.dumps) -> str:
    """The top-level modules that the sources (a JSON list of strings) import, as a JSON list: the worker loads an
    optional package (matplotlib) before a request whose code imports it. Code that does not parse imports
    nothing (running it will say why); relative imports are the learner's own modules."""
    found: set[str] = set()
    for source in _loads(sources_json):
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".", 1)[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module.split(".", 1)[0])
    return _dumps(sorted(found))


def plots_ready() -> None:
    """matplotlib's files are installed: select the checker's backend and import pyplot (checker/figures.py),
    then add what that imported to the tamper baseline. Raises when matplotlib cannot be imported."""
    figures.prepare()
    integrity.arm()


def expect_later(parts_json: str, now) -> None:
    """The modules that arrive after ready (the wheels list's `later`): an import of one of them waits for them
    (checker/later.py); `now` is the worker's function that fetches them at once."""
    later.expect(parts_json, now)


def later_arrived() -> None:
    """The worker has written the modules that arrive after ready."""
    later.arrived()


def site_packages() -> str:
    """Where the worker writes numpy's and the judge's wheels' files."""
    return site.getsitepackages()[0]


WARM_TEST = "def test_warm():\n    assert True\n"


def no_plugin_autoload() -> None:
    """Tell pytest not to look for installed plugins, as `ol` and validation tell it (checker/isolation.py
    child_environment): the browser has none, and looking reads every distribution's metadata in the WebAssembly
    file system on each check (~25 ms a check, measured under Node.js), the standard library's zip among them,
    which a restored worker fetches only after ready (web/src/worker/boot/later.js deferStdlib)."""
    os.environ.setdefault("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")


def warm(workdir: str = WORKDIR) -> str:
    """A throwaway check of a test of the judge's own, with no learner code: the judge's and pytest's code run
    once; its status ("passed"). The snapshot's build runs it to import what pytest loads lazily
    (tools/snapshot.mjs); the worker runs it while numpy's pack is still on its way, so that the browser compiles
    the interpreter's hot code well before the first real check (web/src/worker/boot/boot.js warmWhileWaiting).
    It runs as every real check does, without pytest looking for installed plugins (no_plugin_autoload)."""
    no_plugin_autoload()
    return judge.check(tests={"test_warm.py": WARM_TEST}, files={"warm.py": "X = 1\n"}, learner="warm.py",
                       workdir=workdir, names=["test_warm"])["status"]


def numpy_ready(late: bool = False) -> None:
    """Import numpy and what hidden tests import with it, then take the tamper baseline, before any learner code
    runs, so that replacing any of them later is noticed. Raises when numpy cannot be imported. `late`: the worker
    wrote numpy's second part (numpy.random...) after `import numpy` listed numpy's folders
    (web/src/worker/boot/numpy.js), which must then be listed again."""
    import fractions  # noqa: F401
    import math  # noqa: F401

    import numpy

    if late:
        later.forget_listings(list(numpy.__path__))
    import numpy.linalg  # noqa: F401
    import numpy.random  # noqa: F401

    from . import stats  # noqa: F401

    integrity.arm()


def judge_ready() -> None:
    """Import pytest and the judge's speed-ups, and add pytest's modules to the tamper baseline; from here on
    pytest looks for no installed plugins (no_plugin_autoload)."""
    no_plugin_autoload()
    judge.prepare()
    integrity.arm()
