"""The console under a code cell: Python typed after a Run, evaluated in the namespace that Run left, and the
step-through trace of one call (checker/trace.py).

A Session is what one Run leaves: its namespace (the learner's module, with its imports), its file name and
source, and the files it could import (its dependencies). Each input runs as the Run did: the same files written
and importable, output captured with the same cap, Stop and the time limit reported as "timeout", tracebacks at
the learner's lines. An expression shows its repr and a statement runs (Python's "single" mode, as the
interactive interpreter); `codeop` says whether an input is complete. Standard library only.
"""
from __future__ import annotations

import codeop
import itertools
import linecache
import os
import shutil
from pathlib import Path
from typing import Callable, Mapping

from . import judge, trace
from .isolation import CappedStream, TestTimeout, isolated, top_modules, write_tree
from .messages import format_traceback

CONSOLE = "<console>"
BROKEN = ("The traced code changed Python's tracing (sys.settrace or sys.monitoring), so the steps after that "
          "are missing; the trace shows only what was recorded before.\n")
_inputs = itertools.count(1)


class Session:
    """What a Run left for the console: its namespace, file name, source and importable files."""

    def __init__(self, code: str = "", filename: str = "main.py", files: Mapping[str, str] | None = None):
        self.code, self.filename, self.files = code, filename, dict(files or {})
        self.namespace: dict = {"__name__": "__main__", "__file__": filename}


def run(session: Session, workdir: str | None, on_write: Callable[[str], None] | None = None) -> dict:
    """The Run button, keeping the namespace in `session` for the console."""
    return judge.run(session.code, session.filename, files=session.files, workdir=workdir, on_write=on_write,
                     namespace=session.namespace)


def complete(source: str) -> bool:
    """Whether `source` is a complete input (Enter runs it) rather than the start of one (Enter adds a line).
    A syntax error is complete: running it shows the error."""
    try:
        return codeop.compile_command(source, CONSOLE, "single") is not None
    except (SyntaxError, ValueError, OverflowError):
        return True


def evaluate(session: Session, source: str, workdir: str | None,
             on_write: Callable[[str], None] | None = None) -> dict:
    """One console input in the session's namespace: {"status": "ok" | "error" | "timeout" | "incomplete",
    "stdout", "traceback"}; an expression's repr is in stdout, as the interactive interpreter prints it."""
    if not complete(source):
        return {"status": "incomplete", "stdout": "", "traceback": ""}
    out = CappedStream(on_write=on_write)

    def body() -> None:
        linecache.cache[CONSOLE] = (len(source), None, (source + "\n").splitlines(True), CONSOLE)
        code = compile(source + "\n", CONSOLE, "single", dont_inherit=True)
        exec(code, session.namespace)

    return _inside(session, workdir, out, body)


def trace_call(session: Session, source: str, workdir: str | None,
               on_steps: Callable[[list], None] | None = None, on_write: Callable[[str], None] | None = None,
               max_steps: int = trace.MAX_STEPS) -> dict:
    """Trace one expression (a call of the learner's function) through the learner's file: the console's
    result with "steps" (checker/trace.py), "cut" when the cap stopped it, and the expression's repr in stdout."""
    recorder = trace.Recorder(session.filename, on_steps, max_steps=max_steps)
    out = CappedStream(on_write=on_write)

    def body() -> None:
        code = compile(source.strip() + "\n", CONSOLE, "eval", dont_inherit=True)
        value = trace.traced(lambda: eval(code, session.namespace), recorder)
        out.write(repr(value) + "\n")

    result = _inside(session, workdir, out, body, recorder)
    recorder.flush()
    if recorder.broken:
        result = {**result, "status": "error", "traceback": result["traceback"] + BROKEN}
    return {**result, "steps": recorder.steps, "cut": recorder.cut}


def _inside(session: Session, workdir: str | None, out: CappedStream, body: Callable[[], None],
            recorder: trace.Recorder | None = None) -> dict:
    """Run `body` with the Run's surroundings set up again: its files written and importable, output to `out`."""
    root = Path(workdir or "/tmp") / f"console-{os.getpid()}-{next(_inputs)}"
    names = {session.filename: session.filename, CONSOLE: CONSOLE, **judge._display_names(root, session.files)}
    linecache.cache[session.filename] = (len(session.code), None, session.code.splitlines(True), session.filename)
    status, text = "ok", ""
    try:
        write_tree(root, session.files)
        with isolated(out, root, top_modules(session.files), (root,)):
            try:
                body()
            except trace.TraceCut:
                out.write(f"[the trace stopped the call after {len(recorder.steps)} steps: its cap]\n")
    except (KeyboardInterrupt, TestTimeout):
        status = "timeout"
    except SystemExit as exc:
        out.write(f"[your code called sys.exit({exc.code!r})]\n")
    except BaseException as exc:  # noqa: BLE001 - learner errors are results
        status, text = "error", format_traceback(exc, names)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return {"status": status, "stdout": out.getvalue(), "traceback": text}
