"""checker/trace.py and the console's traced call (checker/console.py) on CPython: the steps, the values as a
learner reads them, the cap, Stop, a raise, and code that tries to switch the tracing off."""
from __future__ import annotations

import numpy as np

from checker import console, trace

CODE = """import numpy as np

def residual(p, q):
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    r = np.maximum(p - q, 0.0)
    return r / r.sum()

def forever():
    i = 0
    while True:
        i += 1

def boom(x):
    y = x * 2
    raise ValueError(f"no {y}")
"""


def session(tmp_path, code=CODE):
    s = console.Session(code, "tinyllm/m.py")
    assert console.run(s, str(tmp_path))["status"] == "ok"
    return s


def test_each_line_of_the_call_with_its_variables_and_what_changed(tmp_path):
    got = console.trace_call(session(tmp_path), "residual([0.5, 0.5], [0.25, 0.75])", str(tmp_path))
    assert got["status"] == "ok" and not got["cut"] and got["stdout"] == "array([1., 0.])\n"
    assert [s["line"] for s in got["steps"]] == [4, 5, 6, 7]
    first, second = got["steps"][0], got["steps"][1]
    assert first["stack"] == [{"function": "residual", "line": 4}]
    assert first["vars"]["p"] == {"type": "list", "text": "[0.5, 0.5]"}
    assert second["changed"] == ["p"], "the line before turned p into an array"
    assert second["vars"]["p"]["shape"] == [2] and second["vars"]["p"]["dtype"] == "float64"
    assert got["steps"][3]["vars"]["r"]["text"] == "[0.25 0.  ]"


def test_large_values_are_summarised():
    big = trace.describe(np.arange(10_000, dtype=np.int32))
    assert big["shape"] == [10000] and big["dtype"] == "int32" and "..." in big["text"]
    assert len(big["text"]) <= trace.TEXT
    assert "(100 items)" in trace.describe(list(range(100)))["text"]

    class Bad:
        def __repr__(self):
            raise RuntimeError("no")
    assert trace.describe(Bad()) == {"type": "Bad", "text": "<repr failed: RuntimeError>"}


def test_an_endless_loop_is_cut_at_the_cap_and_its_steps_kept(tmp_path):
    batches: list[list] = []
    got = console.trace_call(session(tmp_path), "forever()", str(tmp_path), on_steps=batches.append,
                             max_steps=300)
    assert got["cut"] is True and len(got["steps"]) == 300
    assert "its cap" in got["stdout"]
    assert sum(len(b) for b in batches) == 300, "every step reached the page in batches, none twice"


def test_stop_keeps_the_steps_so_far(tmp_path):
    s = session(tmp_path, CODE + "\ndef stopped():\n    a = 1\n    raise KeyboardInterrupt\n")
    got = console.trace_call(s, "stopped()", str(tmp_path))
    assert got["status"] == "timeout" and [st["line"] for st in got["steps"]] == [19, 20]


def test_the_step_that_raised_is_marked(tmp_path):
    got = console.trace_call(session(tmp_path), "boom(3)", str(tmp_path))
    assert got["status"] == "error" and "ValueError: no 6" in got["traceback"]
    assert got["steps"][-1]["line"] == 16 and got["steps"][-1]["raised"] == "ValueError: no 6"
    assert all("raised" not in s for s in got["steps"][:-1])


def test_code_that_switches_the_tracing_off_is_told_it_broke_the_trace(tmp_path):
    code = ("import sys\ndef sneaky():\n    a = 1\n    sys.settrace(None)\n"
            "    if hasattr(sys, 'monitoring'):\n        sys.monitoring.set_events(sys.monitoring.DEBUGGER_ID, 0)\n"
            "    b = 2\n    return b\n")
    got = console.trace_call(session(tmp_path, code), "sneaky()", str(tmp_path))
    assert got["status"] == "error" and "changed Python's tracing" in got["traceback"]
    assert 7 not in [s["line"] for s in got["steps"]], "no step after the tracing was switched off"


def test_ol_prints_the_steps_as_text(tmp_path):
    got = console.trace_call(session(tmp_path), "residual([0.5, 0.5], [0.25, 0.75])", str(tmp_path))
    text = trace.as_text(got["steps"], CODE.splitlines())
    assert text.splitlines()[0] == "step 1  line 4  (residual)  p = np.asarray(p, dtype=float)"
    assert "   * p = array([0.5, 0.5])  shape (2,) float64" not in text
    assert "   * p = [0.5 0.5]  shape (2,) float64" in text
