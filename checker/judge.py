"""The one judge: run an exercise's hidden pytest suite against learner files and return a plain-data result.

This module is imported unchanged by CPython (validation, `ol`) and by Pyodide (the browser worker), so it
depends on nothing but the standard library and pytest, and it never reads exercise manifests: callers pass the
test sources and the learner's files as strings.

A result is data, never an exception:
    {"status": "passed" | "failed" | "error" | "timeout",
     "tests": [{"name", "outcome": "passed" | "failed" | "error", "message"}],
     "stdout": str, "traceback": str}
"""
from __future__ import annotations

import builtins
import contextlib
import hashlib
import importlib
import io
import itertools
import linecache
import os
import shutil
import signal
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Callable, Iterable, Mapping

from . import integrity

OUTPUT_CAP = 100_000  # characters of learner output kept per run; the rest is dropped with a note
MESSAGE_CAP = 400     # characters of a per-test message
MAX_FRAMES = 200      # traceback frames examined (the innermost ones)

_counter = itertools.count(1)


class TestTimeout(BaseException):
    """Raised inside a test that overran its time limit (CPython only; the browser interrupts instead)."""


class CappedStream(io.TextIOBase):
    """A text stream that keeps the first `cap` characters and drops the rest, counting what it dropped.

    A learner printing a million lines must not exhaust memory nor flood the page: the cap is enforced where the
    text is produced, so the dropped part costs almost nothing. Kept text is forwarded to `on_write` in batches
    (every `batch` characters or `interval` seconds, and at the end), so streaming to the page stays cheap.
    """

    def __init__(self, cap: int = OUTPUT_CAP, on_write: Callable[[str], None] | None = None,
                 batch: int = 4096, interval: float = 0.05):
        self.cap, self.on_write, self.batch, self.interval = cap, on_write, batch, interval
        self.parts: list[str] = []
        self.pending: list[str] = []
        self.pending_size = 0
        self.size = 0
        self.dropped = 0
        self.last_flush = time.monotonic()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        room = self.cap - self.size
        kept = text[:room] if room > 0 else ""
        self.dropped += len(text) - len(kept)
        if kept:
            self.parts.append(kept)
            self.size += len(kept)
            if self.on_write:
                self.pending.append(kept)
                self.pending_size += len(kept)
                if self.pending_size >= self.batch or time.monotonic() - self.last_flush >= self.interval:
                    self.flush()
        return len(text)

    def flush(self) -> None:
        if self.on_write and self.pending:
            text = "".join(self.pending)
            self.pending, self.pending_size = [], 0
            self.on_write(text)
        self.last_flush = time.monotonic()

    def getvalue(self) -> str:
        self.flush()
        text = "".join(self.parts)
        if self.dropped:
            text += f"\n[output truncated: {self.dropped:,} more characters not shown]\n"
        return text


def format_traceback(exc: BaseException, names: Mapping[str, str]) -> str:
    """A traceback that shows only the learner's own frames, under the names the learner knows.

    `names` maps real file names (absolute paths on disk, or the name code was compiled under) to display names.
    Frames of the checker, pytest and numpy are dropped: the learner can act only on their own lines.
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
    out = ("Traceback (most recent call last):\n" + "".join(lines)) if lines else ""
    return out + "".join(traceback.format_exception_only(type(exc), exc))


def _where(exc: BaseException, names: Mapping[str, str]) -> str:
    """`line 12 of tinyllm/x.py, in residual` for the deepest learner frame of `exc`, or ''."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        shown = names.get(frame.filename)
        if shown:
            return f"line {frame.lineno} of {shown}, in {frame.name}"
    return ""


def _location(exc: BaseException, names: Mapping[str, str]) -> str:
    """`path:line` of the deepest frame of `exc` in one of `names`, or ''. For authors, never shown to learners."""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if frame.filename in names:
            return f"{names[frame.filename]}:{frame.lineno}"
    return ""


def _exception_line(exc: BaseException, names: Mapping[str, str]) -> str:
    """`Type: message`, with a SyntaxError's temporary path replaced by the learner's file name and line."""
    if isinstance(exc, SyntaxError):
        shown = names.get(exc.filename or "", exc.filename or "your code")
        return f"{type(exc).__name__}: {exc.msg} (line {exc.lineno} of {shown})"
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _tampered(result: dict, names: Iterable[str], changed: list[str], when: str) -> dict:
    """Turn `result` into the error a tampered environment deserves; `when` is "before" or "during"."""
    shown = ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6 else "")
    origin = "Code you ran earlier" if when == "before" else "Your code"
    result.update(status="error", tainted=when, tests=[
        {"name": n, "outcome": "error", "message": "not judged: the checking machinery was modified"} for n in names])
    result["traceback"] = (f"{origin} replaced parts of the checking machinery ({shown}). The hidden tests only "
                           f"count when they run against the real ones, so nothing was judged. Python restarts "
                           f"to undo the change; check again.\n")
    return result


def _short(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MESSAGE_CAP else text[: MESSAGE_CAP - 1] + "…"


def describe_failure(exc: BaseException, names: Mapping[str, str], time_limit: float | None) -> tuple[str, str]:
    """(outcome, message) for an exception raised inside a test."""
    if isinstance(exc, TestTimeout):
        return "error", f"stopped after {time_limit:g} s: an infinite loop, or far too slow"
    if isinstance(exc, KeyboardInterrupt):
        return "error", "stopped: the run was interrupted"
    if isinstance(exc, AssertionError):
        text = str(exc)
        # pytest appends its rewritten expression after the author's message; the message is what teaches.
        first = text.split("\nassert ", 1)[0].strip() if "\nassert " in text else text
        return "failed", _short(first or "assertion failed")
    where = _where(exc, names)
    head = "".join(traceback.format_exception_only(type(exc), exc)).strip()
    return "error", _short(f"{head} ({where})" if where else head)


class _Collector:
    """pytest plugin: one outcome and message per test function, aggregated over parametrisations."""

    def __init__(self, names: Mapping[str, str], test_files: Mapping[str, str], time_limit: float | None):
        self.names, self.test_files, self.time_limit = names, test_files, time_limit
        self.results: dict[str, dict[str, str]] = {}
        self.durations: dict[str, float] = {}  # ms in the call phase, summed over parametrisations
        self.collect_errors: list[str] = []
        self.interrupted = False

    def _record(self, name: str, outcome: str, message: str, where: str = "") -> None:
        prev = self.results.get(name)
        if prev is None or prev["outcome"] == "passed":
            self.results[name] = {"name": name, "outcome": outcome, "message": message}
            if where:
                self.results[name]["where"] = where

    def pytest_collectreport(self, report):  # noqa: D401 (pytest hook)
        if report.failed:
            self.collect_errors.append(str(report.longrepr))

    def pytest_keyboard_interrupt(self, excinfo):
        self.interrupted = True

    def makereport(self, item, call) -> None:
        """Record the outcome of one phase (setup, call, teardown) of one test."""
        name = getattr(item, "originalname", None) or item.name
        if call.when == "call":
            self.durations[name] = self.durations.get(name, 0.0) + call.duration * 1000
        if call.excinfo is None:
            if call.when == "call":
                self._record(name, "passed", "")
            return
        exc = call.excinfo.value
        if call.when == "call":
            outcome, message = describe_failure(exc, self.names, self.time_limit)
        else:
            outcome = "error"
            message = f"could not set the test up: {describe_failure(exc, self.names, self.time_limit)[1]}"
        if isinstance(exc, KeyboardInterrupt):
            self.interrupted = True
        self._record(name, outcome, message, _location(exc, self.names) or _location(exc, self.test_files))


@contextlib.contextmanager
def _alarm(time_limit: float | None):
    """Raise TestTimeout in this thread after `time_limit` seconds (CPython main thread only; else no limit).

    The browser stops runaway code with an interrupt from outside instead, so in Pyodide this does nothing.
    """
    usable = (time_limit and sys.platform != "emscripten" and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def alarm(signum, frame):
        raise TestTimeout()

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, time_limit)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def _timeout_plugin(time_limit: float | None):
    """pytest plugin applying the time limit to each test's call phase."""
    import pytest

    class Timeout:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            with _alarm(time_limit):
                yield

    return Timeout()


def _purge(prefixes: Iterable[str], *under: Path) -> None:
    """Forget learner and test modules (by name, or by living under a folder of `under`) so each check starts
    afresh."""
    prefixes = tuple(prefixes)
    folders = tuple(str(u) + os.sep for u in under)
    for mod, value in list(sys.modules.items()):
        path = getattr(value, "__file__", None) or ""
        if any(mod == p or mod.startswith(p + ".") for p in prefixes) or (folders and path.startswith(folders)):
            del sys.modules[mod]


def _clean(longrepr: str, src: Path, test_dir: Path) -> str:
    """The last error line of a pytest collection report, without temporary paths or hidden test source."""
    lines = [ln[1:].strip() for ln in longrepr.splitlines() if ln.startswith("E ")]
    text = lines[-1] if lines else longrepr.strip().splitlines()[-1] if longrepr.strip() else "unknown error"
    for folder, shown in ((src, ""), (src.resolve(), ""), (test_dir, "tests/"), (test_dir.resolve(), "tests/")):
        text = text.replace(str(folder) + "/", shown)
    return text


def _suite_dir(workdir: Path, tests: Mapping[str, str]) -> Path:
    """The folder holding this hidden suite: the same path for the same suite, so that the memo below applies.

    Files whose content is not exactly the suite's (edited by code under test, say) are written afresh, and
    pytest's bytecode cache next to them is never trusted: code under test could have written it.
    """
    digest = hashlib.sha256()
    for name in sorted(tests):
        digest.update(name.encode() + b"\0" + tests[name].encode() + b"\0")
    root = workdir / f"suite-{digest.hexdigest()[:16]}"
    wanted = {**{f"tests/{rel}": source for rel, source in tests.items()}, "pytest.ini": "[pytest]\n"}
    if not all(_holds(root / rel, source) for rel, source in wanted.items()):
        shutil.rmtree(root, ignore_errors=True)
        _write_tree(root / "tests", tests)  # tests/ itself gets no __init__.py, as when it was written per run
        (root / "pytest.ini").write_text(wanted["pytest.ini"], encoding="utf-8")
    for cache in (root / "tests").rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    return root


def _holds(path: Path, source: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == source
    except (OSError, UnicodeDecodeError):
        return False


_rewritten: dict[tuple[str, bytes], object] = {}


def _memoise_rewriting() -> None:
    """Reuse pytest's assertion rewriting of a test file this process has rewritten before (same path, same
    bytes): rewriting a long hidden test file costs ~50 ms per check in Pyodide, compiling ~3 ms.

    Called before any learner code runs (the worker's tamper baseline already holds the memoised function).
    """
    from _pytest.assertion import rewrite

    original = rewrite._rewrite_test
    if getattr(original, "_tl_memo", False):
        return

    def _rewrite_test(fn, config):
        key = (str(fn), hashlib.sha256(fn.read_bytes()).digest())
        code = _rewritten.get(key)
        if code is None:
            code = _rewritten[key] = original(fn, config)[1]
        return fn.stat(), code

    _rewrite_test._tl_memo = True
    rewrite._rewrite_test = _rewrite_test


def prepare() -> None:
    """Import pytest and install the judge's speed-ups; the worker calls this before taking its tamper baseline."""
    import pytest  # noqa: F401

    _memoise_rewriting()


def _write_tree(root: Path, files: Mapping[str, str]) -> None:
    # Learner files always go to a fresh folder: a new sys.path entry gets a new finder, so no
    # importlib.invalidate_caches(), which in Pyodide rereads the standard library's zip index for every
    # zipimporter (~140 ms). A reused suite folder always holds the same file names, so finders stay right.
    for rel, source in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source, encoding="utf-8")
        parent = target.parent
        while parent != root:  # make every folder a regular package, so imports do not depend on cwd
            (parent / "__init__.py").touch(exist_ok=True)
            parent = parent.parent


def _display_names(root: Path, rels: Iterable[str]) -> dict[str, str]:
    """Path on disk (as written and as resolved) -> the path under `root` a learner or author knows it by."""
    names = {str(root / rel): rel for rel in rels}
    names.update({str((root / rel).resolve()): rel for rel in rels})
    return names


def _module_name(rel: str) -> str:
    return rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def check(*, tests: Mapping[str, str], files: Mapping[str, str], learner: str, workdir: str,
          names: Iterable[str] = (), time_limit: float | None = None, only: Iterable[str] = ()) -> dict:
    """Run the hidden tests against learner files.

    tests:   test file name -> source (the hidden suite; never shown to the learner)
    files:   path under the import root -> source; the learner's file and any dependency files
    learner: which of `files` is the learner's own file (imported first, to report a clean error)
    names:   the catalogue's test names, in order: every one appears in the result, run or not
    only:    restrict the run to these test names (used by validation to re-check one mutant quickly)
    """
    import pytest

    prepare()
    run_dir = Path(workdir) / f"run-{os.getpid()}-{next(_counter)}"
    src = run_dir / "src"
    suite = test_dir = None
    names = list(names)
    result: dict = {"status": "error", "tests": [], "stdout": "", "traceback": ""}
    tops = {rel.split("/", 1)[0].removesuffix(".py") for rel in files}
    test_mods = {Path(t).stem for t in tests}
    out = CappedStream()
    saved = sys.stdout, sys.stderr, list(sys.path), dict(builtins.__dict__)
    try:
        _write_tree(src, files)
        suite = _suite_dir(Path(workdir), tests)
        test_dir = suite / "tests"
        display = _display_names(src, files)
        _purge(tops | test_mods)
        if integrity.armed():
            baseline = None  # the worker recorded it before any learner code ran
            changed = integrity.changes()
            if changed:
                return _tampered(result, names, changed, "before")
        else:
            baseline = integrity.snapshot()
        sys.path.insert(0, str(src))
        sys.stdout = sys.stderr = out
        try:
            with _alarm(time_limit):  # code at the top level of the learner's file runs here
                importlib.import_module(_module_name(learner))
        except BaseException as exc:  # noqa: BLE001 - any failure of learner code is a result, not a crash
            if isinstance(exc, (KeyboardInterrupt, TestTimeout)):
                result["status"] = "timeout"
                stopped = "stopped by the time limit" if isinstance(exc, TestTimeout) else "stopped"
                result["traceback"] = format_traceback(exc, display).rstrip("\n").rsplit("\n", 1)[0] + \
                    f"\n{stopped} while importing your code (an infinite loop at the top level?)\n"
                message = f"your code did not finish importing: {stopped}"
                result["tests"] = [{"name": n, "outcome": "error", "message": message} for n in names]
                return result
            result["traceback"] = format_traceback(exc, display)
            message = "your code did not run: " + _exception_line(exc, display)
            result["tests"] = [{"name": n, "outcome": "error", "message": _short(message)} for n in names]
            return result
        changed = integrity.changes(baseline)
        if changed:
            return _tampered(result, names, changed, "during")
        collector = _Collector(display, _display_names(test_dir, tests), time_limit)
        # Plugins a hidden suite never needs are left out: ~15 ms less set-up per check in Pyodide.
        unused = ("cacheprovider", "faulthandler", "stepwise", "junitxml", "pastebin", "doctest", "debugging",
                  "setuponly", "setupplan", "threadexception", "unraisableexception", "logging")
        args = [str(test_dir), *(a for name in unused for a in ("-p", f"no:{name}")), "--capture=sys", "-q",
                "--no-header", "--tb=no", "-rN", "--import-mode=importlib", "-c", str(suite / "pytest.ini"),
                "--rootdir", str(suite), "-W", "ignore::pytest.PytestWarning"]
        selected = list(only)
        plugins = [collector, _ReportHook(collector), _timeout_plugin(time_limit)]
        if selected:
            plugins.append(_Only(selected))
        sys.stdout = sys.stderr = CappedStream(cap=0)  # pytest's own progress output is not the learner's
        try:
            code = pytest.main(args, plugins=plugins)
        except BaseException as exc:  # noqa: BLE001 - learner code can break pytest itself; still a result
            code = None
            collector.collect_errors.append(_exception_line(exc, display))
        sys.stdout = sys.stderr = out
        changed = integrity.changes(baseline)
        if changed:
            return _tampered(result, names, changed, "during")
        if collector.collect_errors and not collector.results:
            problem = _clean(collector.collect_errors[-1], src, test_dir)
            result["traceback"] = f"The hidden tests could not start against your code:\n{problem}\n"
            result["tests"] = [{"name": n, "outcome": "error", "message": _short(f"not run: {problem}")} for n in names]
            return result
        # How long each test's body ran, for authors and the benchmark (bench/run.py): the floor of a check.
        result["durations"] = {n: round(ms, 1) for n, ms in collector.durations.items()}
        order = names or list(collector.results)
        for n in order:
            if selected and n not in selected:
                continue
            result["tests"].append(collector.results.get(
                n, {"name": n, "outcome": "error", "message": "not run" + (" (stopped)" if collector.interrupted else "")}))
        if collector.interrupted or code == pytest.ExitCode.INTERRUPTED:
            result["status"] = "timeout"
        elif all(t["outcome"] == "passed" for t in result["tests"]) and result["tests"]:
            result["status"] = "passed"
        else:
            result["status"] = "failed"
        return result
    finally:
        sys.stdout, sys.stderr = saved[0], saved[1]
        sys.path[:] = saved[2]
        _restore_builtins(saved[3])
        result["stdout"] = out.getvalue()
        _purge(tops | test_mods, run_dir, *([suite] if suite else []))
        shutil.rmtree(run_dir, ignore_errors=True)


class _Only:
    """Deselect every test whose function name is not in `names` (exact names; `-k` would match substrings)."""

    def __init__(self, names: Iterable[str]):
        self.names = set(names)

    def pytest_collection_modifyitems(self, config, items):
        keep = [i for i in items if (getattr(i, "originalname", None) or i.name) in self.names]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep


class _ReportHook:
    """Forwards pytest's makereport hook to the collector (a separate object so pytest is imported lazily)."""

    def __init__(self, collector: _Collector):
        import pytest

        def hook(item, call):
            yield
            collector.makereport(item, call)

        self.pytest_runtest_makereport = pytest.hookimpl(hookwrapper=True)(hook)


def _restore_builtins(saved: dict) -> None:
    """Undo any change learner code made to builtins (a redefined `print`, `len`, `__import__`)."""
    current = builtins.__dict__
    for key in [k for k in current if k not in saved]:
        del current[key]
    current.update(saved)


def run(code: str, filename: str, *, files: Mapping[str, str] | None = None, workdir: str | None = None,
        on_write: Callable[[str], None] | None = None) -> dict:
    """Execute learner code as a script (the Run button), capturing output with a cap.

    `files` (path under the import root -> source) are importable while the code runs: the dependencies a
    module's code imports (M07.6 imports M07.1's sampling module). Returns
    {"status": "ok" | "error" | "timeout", "stdout": str, "traceback": str}; KeyboardInterrupt (the browser's
    Stop and time limit) is reported as "timeout".
    """
    out = CappedStream(on_write=on_write)
    saved = sys.stdout, sys.stderr, list(sys.path), dict(builtins.__dict__)
    result = {"status": "ok", "stdout": "", "traceback": ""}
    files = dict(files or {})
    root = Path(workdir or "/tmp") / f"script-{os.getpid()}-{next(_counter)}"
    tops = {rel.split("/", 1)[0].removesuffix(".py") for rel in files}
    names = {filename: filename, **_display_names(root, files)}
    try:
        _write_tree(root, files)
        _purge(tops, root)
        sys.path.insert(0, str(root))
        sys.stdout = sys.stderr = out
        # Register the source so tracebacks can quote the learner's lines, as they would for a file on disk.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        compiled = compile(code, filename, "exec", dont_inherit=True)
        exec(compiled, {"__name__": "__main__", "__file__": filename})
    except (KeyboardInterrupt, TestTimeout):
        result["status"] = "timeout"
    except SystemExit as exc:
        if exc.code not in (None, 0):
            result["status"] = "error"
            result["traceback"] = f"SystemExit: {exc.code}\n"
        else:
            out.write("\n[your code called sys.exit(): it stopped there, without an error]\n")
    except BaseException as exc:  # noqa: BLE001 - learner errors are results
        result["status"] = "error"
        result["traceback"] = format_traceback(exc, names)
    finally:
        sys.stdout, sys.stderr = saved[0], saved[1]
        sys.path[:] = saved[2]
        _restore_builtins(saved[3])
        result["stdout"] = out.getvalue()
        _purge(tops, root)
        shutil.rmtree(root, ignore_errors=True)
    # Tampering during a run is not looked for here (it costs more than the run itself in the browser): the next
    # check compares against the baseline first, and the worker retries it on a clean interpreter.
    return result
