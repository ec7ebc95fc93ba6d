"""bench/long_tasks.py reading a trace: the page's main thread found by the document it parsed, each task over
50 ms with the work inside it put down to its kind by its own time (nested events not counted twice), and the
blocking time after the first paint."""
from __future__ import annotations

from bench import long_tasks

URL = "http://127.0.0.1:8000/e7/x/"
MAIN, OTHER = (1, 10), (1, 11)


def event(name, ts_ms, dur_ms=None, thread=MAIN, **data):
    e = {"name": name, "pid": thread[0], "tid": thread[1], "ts": ts_ms * 1000, "ph": "X" if dur_ms is not None else "I"}
    if dur_ms is not None:
        e["dur"] = dur_ms * 1000
    if data:
        e["args"] = {"data": data}
    return e


def trace():
    names = [{"name": "thread_name", "ph": "M", "pid": t[0], "tid": t[1], "args": {"name": "CrRendererMain"}}
             for t in (MAIN, OTHER)]
    parse = {**event("ParseHTML", 0, 5), "args": {"beginData": {"url": URL}}}
    return {"traceEvents": names + [
        parse,
        {"name": "firstContentfulPaint", "pid": 1, "tid": 10, "ts": 100_000, "ph": "I"},
        # Before the first paint: long, but not blocking time.
        event("RunTask", 20, 70),
        event("Layout", 25, 60),
        # After it: 200 ms, of which a script of 80 (30 of them a style recalc it forced) and a layout of 100.
        event("RunTask", 300, 200),
        event("FunctionCall", 300, 80, url="http://127.0.0.1:8000/assets/tl/tl.js"),
        event("UpdateLayoutTree", 340, 30),
        event("Layout", 390, 100),
        # Short: not a long task.
        event("RunTask", 600, 40),
        event("Layout", 600, 40),
        # Another document's renderer: not this page's.
        event("RunTask", 300, 500, thread=OTHER),
    ]}


def test_tasks_over_50_ms_of_the_page_with_their_own_work():
    tasks, fcp = long_tasks.long_tasks(trace(), URL)
    assert fcp == 100
    assert [(t["at"], t["ms"]) for t in tasks] == [(20, 70), (300, 200)]
    work = tasks[1]["work"]
    assert work["script tl.js"] == 50  # 80 less the 30 of style inside it
    assert work["style"] == 30
    assert work["layout"] == 100
    assert round(work["other"]) == 20  # the task's time outside any event named inside it
    lines = long_tasks.summary(tasks, fcp).splitlines()
    assert lines[0] == "first contentful paint 100 ms; 2 long tasks; blocking time after it 150 ms"
    assert lines[-1] == "| 300 | 200 | layout 100, script tl.js 50, style 30, other 20 |"


def test_no_page_in_the_trace_is_said_plainly():
    import pytest
    with pytest.raises(SystemExit, match="no main thread parsed"):
        long_tasks.long_tasks(trace(), "http://elsewhere/")
