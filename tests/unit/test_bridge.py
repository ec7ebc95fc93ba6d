"""checker/bridge.py, the worker's entry points into the judge, on CPython: JSON in and out, the phase passed
through untouched, and the judge's functions bound when the module is imported (before any learner code)."""
from __future__ import annotations

import inspect
import json
import os
import signal
import sys
from pathlib import Path

import pytest

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


def test_the_warm_up_check_passes_and_leaves_nothing_behind_for_the_next(monkeypatch, tmp_path):
    # The worker runs it before numpy while the pack downloads (boot.js warmWhileWaiting), the snapshot's build
    # before the snapshot is taken: the learner's first check after it must see what it would have seen without.
    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path / "work"))
    modules = set(sys.modules)
    assert bridge.warm(str(tmp_path / "warm")) == "passed"
    assert not {"warm", "test_warm"} & set(sys.modules), "the warm-up's own modules are gone"
    assert set(sys.modules) - modules <= {m for m in sys.modules if m.startswith(("_pytest", "pytest", "pluggy"))}
    result = json.loads(bridge.check(payload("ONE = 1\n")))
    assert (result["status"], [t["name"] for t in result["tests"]]) == ("passed", ["test_one"])


def test_a_stop_outside_the_judge_is_still_a_stopped_result(monkeypatch, tmp_path):
    """A KeyboardInterrupt the judge did not see (a Stop as the bridge began or ended) is a stopped result: one
    that reached the worker would be taken for a broken interpreter, and cost a new worker."""
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    def escaped(call, *args, **kwargs):  # a failure of this test, rather than the end of the whole session
        try:
            return json.loads(call(*args, **kwargs))
        except KeyboardInterrupt:
            pytest.fail(f"KeyboardInterrupt escaped bridge.{call.__name__}")

    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path))
    result = escaped(bridge.check, payload("ONE = 1\n"), _check=interrupted)
    assert (result["status"], result["tests"], result["phase"]) == ("timeout", [], "import")
    ran = escaped(bridge.run, "print('hi')", "main.py", "{}", print, _collecting=interrupted)
    assert ran == {"status": "timeout", "stdout": "", "traceback": ""}


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
    bound = {name: p.default for fn in (bridge.run, bridge.explore) for name, p in
             inspect.signature(fn).parameters.items()}
    assert bound["_run"].__module__ == "checker.console" and bound["_evaluate"].__module__ == "checker.console"
    assert bound["_trace"].__module__ == "checker.console" and bound["_dumps"] is not json.dumps


def test_the_console_follows_the_run_it_names_and_starts_afresh_after_a_check(monkeypatch, tmp_path):
    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path))
    monkeypatch.setitem(bridge._last, "session", None)
    out: list[str] = []
    steps: list[str] = []
    assert json.loads(bridge.run("x = 41\ndef f(n):\n    y = n + 1\n    return y\n", "main.py", "{}", out.append,
                                 7))["status"] == "ok"
    ask = lambda kind, code, run=7: json.loads(bridge.explore(json.dumps({"kind": kind, "code": code, "run": run}),
                                                                 out.append, steps.append))
    assert ask("eval", "x + 1") == {"status": "ok", "stdout": "42\n", "traceback": ""}
    assert ask("eval", "for i in range(2):")["status"] == "incomplete"
    traced = ask("trace", "f(1)")
    assert [s["line"] for s in traced["steps"]] == [3, 4] and traced["steps"][1]["changed"] == ["y"]
    assert traced["stdout"] == "2\n" and not traced["cut"]
    assert ask("eval", "x", run=8)["fresh"] is True, "another Run's number: a fresh namespace, and it says so"
    bridge.run("x = 1", "main.py", "{}", out.append, 9)
    json.loads(bridge.check(json.dumps({"tests": {}, "files": {}, "learner": "m.py", "names": []})))
    assert ask("eval", "x", run=9) == {"status": "ok", "stdout": "1\n", "traceback": ""}, \
        "a check (the page's background ones too) leaves the Run's namespace"
    assert ask("eval", "x", run=0)["fresh"] is True, "after the learner's Check or Reset the page names Run 0"


def test_the_ready_steps_take_the_tamper_baseline(monkeypatch):
    monkeypatch.setattr(integrity, "_baseline", {})
    monkeypatch.delenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", raising=False)  # restored after the test
    bridge.numpy_ready()
    assert {"numpy", "numpy.random", "numpy.linalg", "math", "fractions", "checker.stats", "checker.bridge"} <= \
        set(integrity._baseline["sys.modules"])
    bridge.judge_ready()
    assert "pytest" in integrity._baseline["sys.modules"] and integrity.changes() == []
    assert Path(bridge.site_packages()).is_dir()
    # No installed plugins, in the browser as in `ol` and validation.
    assert os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1"


# --- figures (checker/figures.py), with CPython's matplotlib as the stand-in for Pyodide's ------------------------

def _plotting(monkeypatch, tmp_path, baseline_kept=False):
    pytest.importorskip("matplotlib")
    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path))
    if not baseline_kept:
        monkeypatch.setattr(integrity, "_baseline", {})  # this test's own baseline, with its WORKDIR
    bridge.judge_ready()  # the worker's order: the judge is ready before matplotlib is loaded
    bridge.plots_ready()
    import matplotlib
    return matplotlib


def test_imports_are_found_in_every_source_and_broken_code_imports_nothing():
    said = json.loads(bridge.imports(json.dumps([
        "import matplotlib.pyplot as plt\nfrom numpy import random\n", "from .sibling import x\nimport os, json",
        "def broken(:\n  import pandas", "if False:\n    from mpl_toolkits.mplot3d import Axes3D"])))
    assert said == ["json", "matplotlib", "mpl_toolkits", "numpy", "os"]


def test_a_run_draws_shown_and_left_open_figures_in_order_with_the_text(monkeypatch, tmp_path):
    import base64
    _plotting(monkeypatch, tmp_path)
    code = ("import matplotlib.pyplot as plt\nprint('before')\nplt.plot([1, 2]); plt.title('first')\nplt.show()\n"
            "print('between')\nfig = plt.figure(); fig.suptitle('second')\nplt.figure()\nprint('after')\n")
    result = json.loads(bridge.run(code, "main.py", "{}", lambda text: None))
    assert result["status"] == "ok", result["traceback"]
    assert result["stdout"] == "before\nbetween\nafter\n"
    shown = result["figures"]
    assert [(f["kind"], f["alt"], f["at"]) for f in shown] == [
        ("image", "first", len("before\n")), ("image", "second", None), ("image", "figure 3", None)]
    png = base64.b64decode(shown[0]["data"])
    assert png.startswith(b"\x89PNG") and shown[0]["mime"] == "image/png"
    import matplotlib.pyplot as plt
    assert plt.get_fignums() == [], "figures outlived the run"
    again = json.loads(bridge.run("print('no plot')", "main.py", "{}", lambda text: None))
    assert "figures" not in again


def test_a_figure_has_a_white_background_whatever_the_palette(monkeypatch, tmp_path):
    import base64
    import io
    _plotting(monkeypatch, tmp_path)
    from PIL import Image
    result = json.loads(bridge.run("import matplotlib.pyplot as plt\nplt.figure(figsize=(2, 2))\nplt.show()",
                                   "main.py", "{}", lambda text: None))
    image = Image.open(io.BytesIO(base64.b64decode(result["figures"][0]["data"]))).convert("RGB")
    assert image.getpixel((0, 0)) == (255, 255, 255)


def test_figures_are_capped_in_number_and_size(monkeypatch, tmp_path):
    import base64
    import io
    _plotting(monkeypatch, tmp_path)
    from PIL import Image
    from checker import figures
    many = "import matplotlib.pyplot as plt\nfor i in range(25):\n    plt.figure(figsize=(1, 1)); plt.show()\n"
    shown = json.loads(bridge.run(many, "main.py", "{}", lambda text: None))["figures"]
    assert [f["kind"] for f in shown] == ["image"] * figures.MAX_FIGURES + ["note"]
    assert shown[-1]["text"].startswith("5 more figures were not shown")
    huge = "import matplotlib.pyplot as plt\nplt.figure(figsize=(100, 50), dpi=300); plt.title('big')\nplt.show()"
    image, note = json.loads(bridge.run(huge, "main.py", "{}", lambda text: None))["figures"]
    width, height = Image.open(io.BytesIO(base64.b64decode(image["data"]))).size
    assert width * height <= figures.MAX_PIXELS and abs(width / height - 2) < 0.05  # drawn smaller, not cut
    assert note["kind"] == "note" and "big (100 x 50 inches) was drawn at" in note["text"]
    absurd = "import matplotlib.pyplot as plt\nplt.figure(figsize=(20000, 20000))\nplt.show()"
    (only,) = json.loads(bridge.run(absurd, "main.py", "{}", lambda text: None))["figures"]
    assert only == {"kind": "note", "text": "figure 1 (20000 x 20000 inches) is too large to draw.", "at": 0}


def test_a_check_never_draws_and_closes_what_the_learner_opened(monkeypatch, tmp_path):
    matplotlib = _plotting(monkeypatch, tmp_path)
    import matplotlib.figure
    drawn = []
    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", lambda *a, **kw: drawn.append(a))
    source = "import matplotlib.pyplot as plt\nplt.plot([1, 2]); plt.show()\nplt.figure()\nONE = 1\n"
    result = json.loads(bridge.check(payload(source)))
    assert result["status"] == "passed", result
    assert drawn == []
    import matplotlib.pyplot as plt
    assert plt.get_fignums() == []


def test_loading_matplotlib_leaves_the_tamper_baseline_clean(monkeypatch, tmp_path):
    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path))
    monkeypatch.setattr(integrity, "_baseline", {})
    # This process imported pytest before numpy_ready's baseline, which the worker never does: its speed-ups must
    # be in place first, or the baseline holds pytest's own _rewrite_test and judge_ready's memo reads as a change
    # (the test then failed whenever it was the first of its process to judge).
    judge.prepare()
    bridge.numpy_ready()
    bridge.judge_ready()
    _plotting(monkeypatch, tmp_path, baseline_kept=True)
    json.loads(bridge.run("import matplotlib.pyplot as plt\nplt.plot([1]); plt.show()", "main.py", "{}", print))
    assert integrity.changes() == []
    assert "checker.figures" in integrity._baseline["sys.modules"]


def _interrupted_at(n: int, call, *args):
    """Call `call(*args)` with SIGINT raised at the n-th Python function call (1: `call` itself), as the
    browser's Stop lands wherever Python is; -> (what it returned or None, whether the KeyboardInterrupt
    escaped, how many calls it made)."""
    calls = 0

    def hook(frame, event, arg):
        nonlocal calls
        if event == "call":
            calls += 1
            if calls == n:
                sys.setprofile(None)
                signal.raise_signal(signal.SIGINT)

    # Python's own SIGINT handler, which is not there when this process was started with SIGINT ignored (a
    # background job of a shell without job control): the browser's Stop raises KeyboardInterrupt regardless.
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.setprofile(hook)
    try:
        return call(*args), False, calls
    except KeyboardInterrupt:
        return None, True, calls
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGINT, handler)


ENTRIES = {  # entry point -> its arguments, and the status it gives when nothing stops it
    "check": (lambda: (payload("ONE = 1\n"),), "passed"),
    "run": (lambda: ("import tl_bridge_x\nprint(tl_bridge_x.ONE)\n", "main.py",
                     json.dumps({"tl_bridge_x.py": "ONE = 1\n"}), lambda text: None), "ok"),
}


@pytest.mark.parametrize("entry", list(ENTRIES))
def test_a_stop_anywhere_ends_in_a_result_and_the_next_request_is_right(monkeypatch, tmp_path, entry):
    """The Stop of a cross-origin isolated page raises KeyboardInterrupt wherever Python is: in the judge's set-up,
    in pytest, in the clean-up. Sampled over a whole check (or run), every one ends in a result (an escaped one
    would cost a new worker) and leaves the interpreter as it found it: the next request is judged right."""
    monkeypatch.setattr(bridge, "WORKDIR", str(tmp_path))
    call, (make_args, clean) = getattr(bridge, entry), ENTRIES[entry]
    args = make_args()
    stdout, path = sys.stdout, list(sys.path)
    _, _, total = _interrupted_at(0, call, *args)
    # From call 2 on: a stop as the entry point is entered, before its first line, reaches the worker, which
    # takes a KeyboardInterrupt for a stopped request (web/src/worker/worker.js invoke).
    points = sorted({max(2, round(total ** (i / 40))) for i in range(1, 41)} | {2, 3, 5, 8})
    escaped, statuses = [], set()
    for n in points:
        got, escaped_here, _ = _interrupted_at(n, call, *args)
        if escaped_here:
            escaped.append(n)
            continue
        statuses.add(json.loads(got)["status"])
        after = json.loads(call(*args))
        assert after["status"] == clean, f"after a stop at call {n} of {total}: {after}"
        assert (sys.stdout, sys.path) == (stdout, path), f"a stop at call {n} left the interpreter changed"
    assert not escaped, f"KeyboardInterrupt escaped bridge.{entry} at calls {escaped} of {total}"
    assert "timeout" in statuses, statuses
