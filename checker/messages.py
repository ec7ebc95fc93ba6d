"""What a learner reads of a check: tracebacks of their own lines, and one message per test.

Tracebacks keep only the learner's frames, under the file names the learner knows: frames of the checker, pytest
and numpy are dropped, since the learner can act only on their own lines. A test's message is the author's
assertion message, or the exception the learner's code raised and where. Standard library only: this file ships
to the browser with the judge (checker/judge.py).
"""
from __future__ import annotations

import ast
import linecache
import os
import re
import sys
import traceback
from pathlib import Path
from typing import Mapping

from .isolation import TestTimeout

MESSAGE_CAP = 400  # characters of a per-test message
MAX_FRAMES = 200   # traceback frames examined (the innermost ones)
CONTEXT_CAP = 40   # characters of one value named in a "DID NOT RAISE" message


def frames(exc: BaseException, names: Mapping[str, str]) -> str:
    """`Traceback (most recent call last):` and the learner's own frames of `exc`, or '' when there are none.

    `names` maps real file names (absolute paths on disk, or the name code was compiled under) to display names.
    """
    lines = []
    last, repeats = None, 0
    # Only the last frames: runaway recursion can leave a million of them, and the learner needs the bottom.
    for frame in traceback.extract_tb(exc.__traceback__, limit=-MAX_FRAMES):
        shown = names.get(frame.filename) or names.get(os.path.abspath(frame.filename))
        if not shown:
            continue
        key = (shown, frame.lineno, frame.name)
        repeats = repeats + 1 if key == last else 0
        last = key
        if repeats >= 3:  # like Python: show a repeated frame three times, then count the rest
            if repeats == 3:
                lines.append(None)
            lines[-1] = repeats - 2
            continue
        lines.append(f'  File "{shown}", line {frame.lineno}, in {frame.name}\n')
        if frame.line:
            lines.append(f"    {frame.line.strip()}\n")
    lines = [f"  [Previous line repeated {x} more time{'s' if x > 1 else ''}]\n" if isinstance(x, int) else x
             for x in lines]
    return ("Traceback (most recent call last):\n" + "".join(lines)) if lines else ""


def format_traceback(exc: BaseException, names: Mapping[str, str]) -> str:
    """A traceback that shows only the learner's own frames, under the names the learner knows (see `frames`)."""
    if isinstance(exc, SyntaxError):
        shown = names.get(exc.filename or "", exc.filename or "<code>")
        head = f'  File "{shown}", line {exc.lineno}\n'
        text = (exc.text or "").rstrip("\n")
        body = ""
        if text:
            stripped = text.lstrip()
            body = f"    {stripped}\n"
            if exc.offset:
                body += "    " + " " * max(0, exc.offset - 1 - (len(text) - len(stripped))) + "^\n"
        return head + body + f"{type(exc).__name__}: {exc.msg}\n"
    return frames(exc, names) + "".join(traceback.format_exception_only(type(exc), exc))


def _where(exc: BaseException, names: Mapping[str, str]) -> str:
    """`line 12 of tinyllm/x.py, in residual` for the deepest learner frame of `exc`, or ''."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        shown = names.get(frame.filename)
        if shown:
            return f"line {frame.lineno} of {shown}, in {frame.name}"
    return ""


def location(exc: BaseException, names: Mapping[str, str]) -> str:
    """`path:line` of the deepest frame of `exc` in one of `names`, or ''. For authors, never shown to learners."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename in names:
            return f"{names[frame.filename]}:{frame.lineno}"
    return ""


def exception_line(exc: BaseException, names: Mapping[str, str]) -> str:
    """`Type: message`, with a SyntaxError's temporary path replaced by the learner's file name and line."""
    if isinstance(exc, SyntaxError):
        shown = names.get(exc.filename or "", exc.filename or "your code")
        return f"{type(exc).__name__}: {exc.msg} (line {exc.lineno} of {shown})"
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def short(text: str) -> str:
    """`text` stripped and cut to MESSAGE_CAP characters."""
    text = text.strip()
    return text if len(text) <= MESSAGE_CAP else text[: MESSAGE_CAP - 1] + "…"


def _is_pytest_failure(exc: BaseException) -> bool:
    """pytest's own "this test failed" (`pytest.fail`, a `pytest.raises` that saw nothing raised)."""
    pytest = sys.modules.get("pytest")
    return pytest is not None and isinstance(exc, pytest.fail.Exception)


def not_raised(exc: BaseException, test_files: Mapping[str, str]) -> str:
    """The message of a `pytest.raises` block that finished without raising: what was expected, and for which
    values when the block reads local variables of the test (a loop's, a parametrisation's), as in
    "expected ValueError for q_x = 0"."""
    expected = " or ".join(re.findall(r"<class '(?:[\w.]*\.)?(\w+)'>", str(exc))) or "an exception"
    context = _raises_context(exc, test_files)
    return f"expected {expected} for {context}" if context else f"expected {expected}, but nothing was raised"


def _raises_block(filename: str, line: int) -> ast.AST | None:
    """The innermost `with pytest.raises(...)` statement of `filename` around `line`, or None."""
    try:
        tree = ast.parse("".join(linecache.getlines(filename)) or Path(filename).read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError):
        return None
    blocks = [n for n in ast.walk(tree) if isinstance(n, (ast.With, ast.AsyncWith))
              and n.lineno <= line <= (n.end_lineno or n.lineno)
              and any(isinstance(i.context_expr, ast.Call) and "raises" in ast.unparse(i.context_expr.func)
                      for i in n.items)]
    return max(blocks, key=lambda n: n.lineno) if blocks else None


def _raises_context(exc: BaseException, test_files: Mapping[str, str]) -> str:
    """`name = value, ...` for the test's local variables that the failed `with pytest.raises` block reads."""
    tb, found = exc.__traceback__, None
    while tb is not None:  # the innermost frame of a hidden test file is at the `with` statement's line
        if tb.tb_frame.f_code.co_filename in test_files:
            found = tb
        tb = tb.tb_next
    block = found and _raises_block(found.tb_frame.f_code.co_filename, found.tb_lineno)
    if not block:
        return ""
    read = [n for n in ast.walk(ast.Module(body=block.body, type_ignores=[])) if isinstance(n, ast.Name)]
    assigned = {n.id for n in read if not isinstance(n.ctx, ast.Load)}
    local = found.tb_frame.f_locals
    shown = []
    for name in dict.fromkeys(n.id for n in read if n.id not in assigned):
        value = local.get(name, local)
        if value is local or callable(value) or isinstance(value, type(sys)):
            continue  # a global, a function or a module: not a value the test tried
        text = repr(value)
        if len(text) <= CONTEXT_CAP:
            shown.append(f"{name} = {text}")
    return ", ".join(shown)


def describe_failure(exc: BaseException, names: Mapping[str, str], time_limit: float | None,
                     test_files: Mapping[str, str] | None = None) -> tuple[str, str]:
    """(outcome, message) for an exception raised inside a test.

    A failure is the code under test answering wrongly: an assertion, or pytest's own failure (`pytest.fail`,
    a `pytest.raises` that saw nothing raised: the code returned where it should have refused). An error is
    anything else it raised, or a time limit. `test_files` (real path -> name of the hidden test files) lets a
    "DID NOT RAISE" name the values the test tried.
    """
    if isinstance(exc, TestTimeout):
        return "error", f"stopped after {time_limit:g} s: an infinite loop, or far too slow"
    if isinstance(exc, KeyboardInterrupt):
        return "error", "stopped: the run was interrupted"
    if isinstance(exc, AssertionError):
        text = str(exc)
        # pytest appends its rewritten expression after the author's message; the message is what teaches.
        first = text.split("\nassert ", 1)[0].strip() if "\nassert " in text else text
        return "failed", short(first or "assertion failed")
    if _is_pytest_failure(exc):
        text = str(exc)
        return "failed", short(not_raised(exc, test_files or {}) if text.startswith("DID NOT RAISE") else text
                               or "failed")
    where = _where(exc, names)
    head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return "error", short(f"{head} ({where})" if where else head)
