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

REMOTE = "\0learner/"  # the file name prefix of a learner frame from across the boundary (boundary.REMOTE)

MESSAGE_CAP = 400  # characters of a per-test message
MAX_FRAMES = 200   # traceback frames examined (the innermost ones)
CONTEXT_CAP = 40   # characters of one value named in a "DID NOT RAISE" message


def _extract(exc: BaseException, limit: int | None = None) -> list[traceback.FrameSummary]:
    """The frames of `exc`, then the learner's frames it brought across the boundary (checker/boundary.py), whose
    file names start with boundary.REMOTE and are in `names` under that prefix."""
    found = traceback.extract_tb(exc.__traceback__, limit=limit)
    remote = getattr(exc, "__tl_frames__", None)
    if remote:
        found = list(found) + [traceback.FrameSummary(REMOTE + shown, line, name, line=text, lookup_line=False)
                               for shown, line, name, text in remote]
        found = found[limit:] if limit and limit < 0 else found
    return found


def _spots(exc: BaseException) -> list[tuple[str, int | None, str]]:
    """(file name, line, function) of each frame of `exc`, outermost first, then the learner's frames it brought
    across the boundary, as `_extract` gives them but without reading a source line or a column: what `_where`
    and `location` need, for every failing test of every check (with traceback.extract_tb, E7.5's starter check,
    14 failing tests, took about 64 ms on CPython; with this, about 47)."""
    found = []
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        found.append((code.co_filename, tb.tb_lineno, code.co_name))
        tb = tb.tb_next
    return found + [(REMOTE + shown, line, name) for shown, line, name, _ in getattr(exc, "__tl_frames__", None) or ()]


def frames(exc: BaseException, names: Mapping[str, str]) -> str:
    """`Traceback (most recent call last):` and the learner's own frames of `exc`, or '' when there are none.

    `names` maps real file names (absolute paths on disk, or the name code was compiled under) to display names.
    """
    lines = []
    last, repeats = None, 0
    # Only the last frames: runaway recursion can leave a million of them, and the learner needs the bottom.
    for frame in _extract(exc, limit=-MAX_FRAMES):
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
    for filename, lineno, name in reversed(_spots(exc)):
        shown = names.get(filename)
        if shown:
            return f"line {lineno} of {shown}, in {name}"
    return ""


def location(exc: BaseException, names: Mapping[str, str]) -> str:
    """`path:line` of the deepest frame of `exc` in one of `names`, or ''. For authors, never shown to learners."""
    for filename, lineno, _ in reversed(_spots(exc)):
        if filename in names:
            return f"{names[filename]}:{lineno}"
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


CASE_VALUE_CAP = 40  # characters of one loop variable's value in a case

_loops: dict[tuple[str, int], list[tuple[int, int, list[str]]]] = {}  # (file, size) -> (first, last, names)


def _loop_targets(filename: str) -> list[tuple[int, int, list[str]]]:
    """Every `for` loop of a hidden test file (comprehensions too): its first and last line and the names its
    target binds. Parsed once per file version."""
    lines = linecache.getlines(filename)
    key = (filename, hash("".join(lines)))
    if key not in _loops:
        try:
            tree = ast.parse("".join(lines))
        except (SyntaxError, ValueError):
            tree = ast.Module(body=[], type_ignores=[])
        found = []
        comprehensions = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
        for node in ast.walk(tree):
            targets = [node.target] if isinstance(node, (ast.For, ast.AsyncFor)) else \
                [g.target for g in node.generators] if isinstance(node, comprehensions) else []
            for loop, target in ((node, t) for t in targets):
                names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
                found.append((loop.lineno, loop.end_lineno or loop.lineno, names))
        _loops[key] = found
    return _loops[key]


def _plain(value: object) -> bool:
    """A value a test's own data is made of: a number, a string, None, or a tuple of those."""
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, str))


def _iteration(frame, line: int) -> list[str]:
    """Which iteration of the test's own loops `line` failed in: the plain values of the loop variables of every
    `for` around it (`what='q_x = 0'`). Loops walk the test's data, so these name the sub-case, not the
    learner's values; other locals (what the learner's code returned) are never read."""
    local = frame.f_locals
    shown = []
    for first, last, names in _loop_targets(frame.f_code.co_filename):
        if not first <= line <= last:
            continue
        for name in names:
            value = local.get(name, local)
            text = repr(value) if value is not local and _plain(value) else ""
            if text and len(text) <= CASE_VALUE_CAP:
                shown.append(f"{name}={text}")
    return shown


CASE_DEPTH = 6  # hidden-test lines kept in a case: enough for a test, its helpers and a callback


def case(exc: BaseException, test_files: Mapping[str, str], param: str = "", when: str = "call") -> str:
    """How a test failed, in terms the learner's code cannot change: the lines of the hidden test files on the
    way to the exception (the sub-case: which assertion, or which call into the learner's code), and the
    exception's type, as in `[3-1] 214>119 AssertionError`. Never the message, which quotes the learner's values.

    `param` is the parametrisation's id (`[...]`, or ""), `when` pytest's phase (a failed set-up says "setup").
    A time limit or a Stop is only "timeout": where it landed depends on the machine's speed.
    checker/diagnosis.py compares these to the mutants' (the "known mistake" a failing check looks like).
    """
    if isinstance(exc, (TestTimeout, KeyboardInterrupt)):
        return f"{param}timeout".strip()
    steps: list[tuple[int, set[str]]] = []
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename in test_files:
            values = _iteration(tb.tb_frame, tb.tb_lineno)
            if steps and steps[-1][0] == tb.tb_lineno:  # a comprehension's own frame (Python 3.11) at its line
                steps[-1][1].update(values)
            else:
                steps.append((tb.tb_lineno, set(values)))
        tb = tb.tb_next
    lines = [f"{line}[{', '.join(sorted(values))}]" if values else str(line) for line, values in steps]
    if len(lines) > CASE_DEPTH:  # deep recursion through a helper: its outer and inner ends say enough
        lines = lines[: CASE_DEPTH // 2] + ["…"] + lines[-(CASE_DEPTH // 2):]
    where = ">".join(lines) or "-"
    return f"{param}{'setup ' if when != 'call' else ''}{where} {type(exc).__name__}"


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
