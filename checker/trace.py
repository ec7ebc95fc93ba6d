"""A step-through trace of one call: each line run in the learner's file, with the call stack and the local
variables at that step, as a learner reads them (numbers, short lists, numpy arrays with shape and dtype).

Python's own tracing does the work: `sys.monitoring` (Python 3.12 and later: the browser's 3.14), which calls
back only for code in the learner's file (everything else is switched off at its first event, so numpy runs at
full speed), else `sys.settrace` (CPython 3.11, under `ol trace`). Both feed one recorder.

A step is {"line", "stack", "vars", "changed"} and, for the step where an exception left a frame, "raised": the
exception's name and message. `vars` maps each local of the innermost frame to a summary (`describe`); `changed`
names those that differ from the previous step of the same frame. A trace is capped at MAX_STEPS steps and
MAX_BYTES of summaries: the call is stopped there and the trace says it was cut. Stop and the time limit end it
too (KeyboardInterrupt), keeping the steps recorded so far; `on_steps` receives them in batches as they come, so
a page that has to replace its worker for a Stop keeps them as well.
"""
from __future__ import annotations

import json
import sys
import time
from typing import Any, Callable

MAX_STEPS = 1000      # steps recorded before the call is stopped
MAX_BYTES = 400_000   # characters of recorded summaries before the call is stopped
TEXT = 120            # characters of a value's text
ITEMS = 8             # items of a list, tuple, dict or array shown
BATCH_S = 0.1         # how often steps are handed to `on_steps`
EACH = 100            # the first steps are handed over one by one


class TraceCut(BaseException):
    """Raised into the traced call once the trace is full: BaseException, so the learner's `except Exception`
    does not swallow it."""


def describe(value: Any) -> dict:
    """A value as a learner reads it: {"type", "text"}, with "shape" and "dtype" for a numpy array."""
    kind = type(value).__name__
    try:
        if type(value).__module__ == "numpy" and hasattr(value, "shape") and hasattr(value, "dtype"):
            return _array(value, kind)
        if isinstance(value, (list, tuple, set, frozenset)) and len(value) > ITEMS:
            shown = ", ".join(_short(v) for v in list(value)[:ITEMS])
            return {"type": kind, "text": f"{_open(value)}{shown}, … ({len(value)} items){_close(value)}"}
        if isinstance(value, dict) and len(value) > ITEMS:
            shown = ", ".join(f"{_short(k)}: {_short(v)}" for k, v in list(value.items())[:ITEMS])
            return {"type": kind, "text": f"{{{shown}, … ({len(value)} items)}}"}
        return {"type": kind, "text": _short(value)}
    except Exception as exc:  # noqa: BLE001 - a learner's __repr__ may fail: say so, do not stop the trace
        return {"type": kind, "text": f"<repr failed: {type(exc).__name__}>"}


def _array(value, kind: str) -> dict:
    import numpy as np
    text = np.array2string(np.asarray(value), threshold=ITEMS * 2, edgeitems=ITEMS // 2, precision=4,
                           max_line_width=TEXT)
    return {"type": kind, "shape": list(getattr(value, "shape", ())), "dtype": str(value.dtype), "text": _cut(text)}


def _short(value: Any) -> str:
    return _cut(repr(value))


def _cut(text: str) -> str:
    return text if len(text) <= TEXT else text[:TEXT - 1] + "…"


def _open(value) -> str:
    return {list: "[", tuple: "("}.get(type(value), "{")


def _close(value) -> str:
    return {list: "]", tuple: ")"}.get(type(value), "}")


class Recorder:
    """The steps of one trace, for code whose file is `filename`."""

    def __init__(self, filename: str, on_steps: Callable[[list], None] | None = None,
                 max_steps: int = MAX_STEPS, max_bytes: int = MAX_BYTES):
        self.filename, self.on_steps = filename, on_steps
        self.max_steps, self.max_bytes = max_steps, max_bytes
        self.steps: list[dict] = []
        self.size = 0
        self.sent = 0
        self.last_sent = time.monotonic()
        self.previous: dict[int, dict] = {}  # id of a frame -> its variables at its last step
        self.cut = False
        self.broken = False  # the traced code changed the tracing itself: the steps after that are missing
        self.interrupted = False  # an exception left the recorder itself (the cap, a Stop): tracing ended there

    def line(self, frame, line: int) -> None:
        """A line about to run in `frame`."""
        if len(self.steps) >= self.max_steps or self.size >= self.max_bytes:
            self.cut = True
            raise TraceCut()
        try:
            self._record(frame, line)
        except BaseException:  # a Stop or the time limit inside the recording: CPython drops a settrace tracer
            self.interrupted = True
            raise

    def _record(self, frame, line: int) -> None:
        variables = {name: describe(value) for name, value in list(frame.f_locals.items())
                     if not name.startswith("__")}
        before = self.previous.get(id(frame))
        changed = [n for n, v in variables.items() if before is not None and before.get(n) != v]
        if before is None:
            changed = list(variables)
        self.previous[id(frame)] = variables
        step = {"line": line, "stack": self.stack(frame), "vars": variables, "changed": changed}
        self.add(step)

    def raised(self, frame, exc: BaseException) -> None:
        """An exception leaving `frame`: marks the last step of that frame's line."""
        if isinstance(exc, (TraceCut, KeyboardInterrupt)) or not self.steps:
            return
        last = self.steps[-1]
        if "raised" not in last:
            last["raised"] = f"{type(exc).__name__}: {exc}"[:TEXT * 2]

    def stack(self, frame) -> list[dict]:
        """The learner's frames from the outermost to this one: function name and the line each is at."""
        frames = []
        while frame is not None:
            if frame.f_code.co_filename == self.filename:
                frames.append({"function": frame.f_code.co_name, "line": frame.f_lineno})
            frame = frame.f_back
        return frames[::-1]

    def add(self, step: dict) -> None:
        self.steps.append(step)
        self.size += len(json.dumps(step, default=str))
        # The first steps go out one by one: a call that then hangs in C (where no later step, nor a Stop, can
        # run Python) still shows them; after that, in batches.
        if self.on_steps and (len(self.steps) <= EACH or time.monotonic() - self.last_sent >= BATCH_S):
            self.flush()

    def flush(self) -> None:
        if self.on_steps and self.sent < len(self.steps):
            self.on_steps(self.steps[self.sent:])
            self.sent = len(self.steps)
            self.last_sent = time.monotonic()


def traced(call: Callable[[], Any], recorder: Recorder) -> Any:
    """Run `call` with every line of the recorder's file recorded; returns what it returns."""
    monitoring = getattr(sys, "monitoring", None)
    if monitoring is not None:
        return _with_monitoring(monitoring, call, recorder)
    return _with_settrace(call, recorder)


def _with_monitoring(monitoring, call, recorder: Recorder):
    tool = monitoring.DEBUGGER_ID
    try:
        monitoring.use_tool_id(tool, "tinyllm trace")
    except ValueError:  # still held by a trace that ended badly
        monitoring.free_tool_id(tool)
        monitoring.use_tool_id(tool, "tinyllm trace")
    events = monitoring.events

    def on_line(code, line):
        if code.co_filename != recorder.filename:
            return monitoring.DISABLE
        recorder.line(sys._getframe(1), line)
        return None

    def on_raise(code, offset, exc):
        if code.co_filename == recorder.filename:
            recorder.raised(sys._getframe(1), exc)

    try:
        monitoring.register_callback(tool, events.LINE, on_line)
        monitoring.register_callback(tool, events.RAISE, on_raise)
        monitoring.set_events(tool, events.LINE | events.RAISE)
        return call()
    finally:
        try:
            recorder.broken = (monitoring.get_events(tool) != events.LINE | events.RAISE
                               and not (recorder.cut or recorder.interrupted))
        except ValueError:  # the tool id was freed
            recorder.broken = True
            monitoring.use_tool_id(tool, "tinyllm trace")
        monitoring.set_events(tool, 0)
        monitoring.register_callback(tool, events.LINE, None)
        monitoring.register_callback(tool, events.RAISE, None)
        monitoring.free_tool_id(tool)


def _with_settrace(call, recorder: Recorder):
    def local(frame, event, arg):
        if event == "line":
            recorder.line(frame, frame.f_lineno)
        elif event == "exception":
            recorder.raised(frame, arg[1])
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename == recorder.filename else None

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        return call()
    finally:
        # A tracer that raises (the cap, a Stop while it records) is dropped by CPython itself: not the learner's doing.
        recorder.broken = sys.gettrace() is not tracer and not (recorder.cut or recorder.interrupted)
        sys.settrace(previous)


def as_text(steps: list[dict], source_lines: list[str]) -> str:
    """The steps as `ol trace` prints them: the step, its line and source, the stack, the variables (changed
    ones marked with *)."""
    out = []
    for number, step in enumerate(steps, 1):
        source = source_lines[step["line"] - 1].strip() if 0 < step["line"] <= len(source_lines) else ""
        where = " > ".join(f["function"] for f in step["stack"]) or "<call>"
        out.append(f"step {number}  line {step['line']}  ({where})  {source}")
        for name, value in step["vars"].items():
            mark = "*" if name in step["changed"] else " "
            extra = f"  shape {tuple(value['shape'])} {value['dtype']}" if "shape" in value else ""
            out.append(f"   {mark} {name} = {value['text']}{extra}")
        if "raised" in step:
            out.append(f"   raised here: {step['raised']}")
    return "\n".join(out)
