"""The one judge: run an exercise's hidden pytest suite against learner files and return a plain-data result.

This module is imported unchanged by CPython (validation, `ol`) and by Pyodide (the browser worker), so it
depends on nothing but the standard library and pytest, and it never reads exercise manifests: callers pass the
test sources and the learner's files as strings.

`check` is a coordinator of named stages, each returning a verdict (the check ends there) or None (go on):
stage the files (`_staged`), refuse machinery changed by earlier code, import the learner's module
(`_import_learner`), refuse machinery changed by it, run the suite (`_run_suite`) and read its verdict
(`_suite_verdict`). Everything learner code can change (stdout and stderr, sys.path, the learner's and the
tests' entries in sys.modules, builtins) is saved and restored in one place, checker/isolation.py's
`isolated`; learner-facing text comes from checker/messages.py. A failure of the judge's own steps is turned
into a verdict too (`_failure`), so a result is data, never an exception:

    {"status": "passed" | "failed" | "error" | "timeout",
     "tests": [{"name", "outcome": "passed" | "failed" | "error", "message", "where"?, "case"?}],
     "stdout": str, "traceback": str,
     "phase": "import" | "collect" | "tests" | "tampered" | "timeout",
     "tainted"?: "before" | "during", "durations"?: {test name: ms}}

`phase` says where the check ended, for callers that must not read English (web/src/shared/protocol.js, `ol`):
  import    the learner's module did not import, so every test errors: it raised (status "error"), or the
            time limit stopped its top-level code (status "timeout")
  collect   the hidden tests could not be collected against it (a name they import is missing, say)
  tests     the suite ran; the rows say how each test went
  tampered  learner code replaced part of the machinery (checker/integrity.py): nothing was judged; `tainted`
            says whether code run earlier ("before") or this code ("during") did it
  timeout   a time limit stopped the suite while it ran (the browser's interrupt, Stop, Ctrl-C)
`where` is the failing line, `file:line`, for authors; `case` how a test that ran failed, in terms learner code
cannot change (messages.case: the hidden tests' lines and the exception's type), which checker/diagnosis.py
compares with the mutants'; `durations` the ms each test's body ran.
A failed `pytest.raises` ("DID NOT RAISE") is a failure, not an error: the code under test returned instead of
refusing, it did not crash.
"""
from __future__ import annotations

import contextlib
import hashlib
import importlib
import itertools
import linecache
import os
import shutil
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Mapping

from . import integrity

if TYPE_CHECKING:
    from . import separated
from .isolation import CappedStream, TestTimeout, alarm, isolated, module_name, top_modules, write_tree
from .messages import REMOTE, case, describe_failure, exception_line, format_traceback, frames, location, short

_counter = itertools.count(1)


# ---- pytest plugins -------------------------------------------------------------------------------------------

class _Collector:
    """pytest plugin: one outcome and message per test function, aggregated over parametrisations."""

    def __init__(self, names: Mapping[str, str], test_files: Mapping[str, str], time_limit: float | None):
        self.names, self.test_files, self.time_limit = names, test_files, time_limit
        self.results: dict[str, dict[str, str]] = {}
        self.durations: dict[str, float] = {}  # ms in the call phase, summed over parametrisations
        self.collect_errors: list[str] = []
        self.interrupted = False

    def _record(self, name: str, outcome: str, message: str, where: str = "", case: str = "") -> None:
        prev = self.results.get(name)
        if prev is None or prev["outcome"] == "passed":
            self.results[name] = {"name": name, "outcome": outcome, "message": message}
            if where:
                self.results[name]["where"] = where
            if case:
                self.results[name]["case"] = case

    def pytest_collectreport(self, report):  # noqa: D401 (pytest hook)
        if report.failed:
            self.collect_errors.append(str(report.longrepr))

    def pytest_keyboard_interrupt(self, excinfo):
        self.interrupted = True

    def pytest_collection_modifyitems(self, items):
        # pytest renders a long report of every failing test (its traceback, source and all), which the judge
        # never reads: `makereport` writes each test's message from the exception itself. Not rendering it took
        # E7.5's starter check (14 failing tests) from about 47 to about 44 ms on CPython.
        for item in items:
            item.repr_failure = _unrendered

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
        outcome, message = describe_failure(exc, self.names, self.time_limit, self.test_files)
        if call.when != "call":
            outcome, message = "error", f"could not set the test up: {message}"
        if isinstance(exc, KeyboardInterrupt):
            self.interrupted = True
        param = item.name[len(name):] if item.name.startswith(name + "[") else ""
        self._record(name, outcome, message, location(exc, self.names) or location(exc, self.test_files),
                     case(exc, self.test_files, param, call.when))


def _unrendered(excinfo) -> str:
    """A failing test's report text for pytest, which the judge does not read (see `_Collector`)."""
    return "failed"


def _timeout_plugin(time_limit: float | None):
    """pytest plugin applying the time limit to each test's call phase."""
    import pytest

    class Timeout:
        @pytest.hookimpl(hookwrapper=True)
        def pytest_runtest_call(self, item):
            with alarm(time_limit):
                yield

    return Timeout()


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


# ---- files -------------------------------------------------------------------------------------------------

def _display_names(root: Path, rels: Iterable[str]) -> dict[str, str]:
    """Path on disk (as written and as resolved) -> the path under `root` a learner or author knows it by."""
    names = {str(root / rel): rel for rel in rels}
    names.update({str((root / rel).resolve()): rel for rel in rels})
    return names


def suite_root(workdir: Path, tests: Mapping[str, str]) -> Path:
    """Where a check writes this hidden suite: the same folder for the same suite, so that the rewriting memo
    applies, and so that the build can rewrite the suite ahead for this very path (tools/rewriting.py)."""
    digest = hashlib.sha256()
    for name in sorted(tests):
        digest.update(name.encode() + b"\0" + tests[name].encode() + b"\0")
    return workdir / f"suite-{digest.hexdigest()[:16]}"


def rewriting_tag() -> str:
    """What a rewritten test module's code object depends on: the bytecode's magic number and pytest's version."""
    import importlib.util

    import pytest

    return f"{importlib.util.MAGIC_NUMBER.hex()}-pytest-{pytest.__version__}"


def adopt_rewriting(workdir: Path, tests: Mapping[str, str], rewritten: Mapping | None) -> int:
    """Take the build's assertion rewriting of these test files into the memo, so that the first check of an
    exercise does not pay for it (~0.3 s for a 170-line file in the browser): `rewritten` is
    {"tag": rewriting_tag(), "tests": {name: base64 of the zlib-compressed marshalled code object}}, made by
    pytest's own
    `_rewrite_test` at build time, in the same Pyodide, for the path `suite_root` gives (tools/rewriting.py).

    Only an optimisation: anything that does not fit (another interpreter or pytest, another path, a file name
    the suite does not have, bytes that do not load) is left out, and pytest rewrites that file itself.
    Returns how many files were taken."""
    if not isinstance(rewritten, Mapping) or rewritten.get("tag") != rewriting_tag():
        return 0
    import base64
    import binascii
    import marshal
    import types
    import zlib

    root = suite_root(workdir, tests) / "tests"
    taken = 0
    for name, encoded in dict(rewritten.get("tests") or {}).items():
        if name not in tests or not isinstance(encoded, str):
            continue
        fn = root / name
        key = (str(fn), hashlib.sha256(tests[name].encode("utf-8")).digest())
        if key in _rewritten:
            continue
        try:
            code = marshal.loads(zlib.decompress(base64.b64decode(encoded, validate=True)))
        except (binascii.Error, zlib.error, ValueError, EOFError, TypeError):
            continue
        if isinstance(code, types.CodeType) and code.co_filename == str(fn):
            _rewritten[key] = code
            taken += 1
    return taken


def _suite_dir(workdir: Path, tests: Mapping[str, str]) -> Path:
    """The folder holding this hidden suite (`suite_root`), written unless it already holds exactly the suite.

    Files whose content is not exactly the suite's (edited by code under test, say) are written afresh, and
    pytest's bytecode cache next to them is never trusted: code under test could have written it.
    """
    root = suite_root(workdir, tests)
    wanted = {**{f"tests/{rel}": source for rel, source in tests.items()}, "pytest.ini": "[pytest]\n"}
    if not all(_holds(root / rel, source) for rel, source in wanted.items()):
        shutil.rmtree(root, ignore_errors=True)
        write_tree(root / "tests", tests)  # tests/ itself gets no __init__.py, as when it was written per run
        (root / "pytest.ini").write_text(wanted["pytest.ini"], encoding="utf-8")
    for cache in (root / "tests").rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)
    return root


def _holds(path: Path, source: str) -> bool:
    try:
        return path.read_text(encoding="utf-8") == source
    except (OSError, UnicodeDecodeError):
        return False


def _clean(longrepr: str, src: Path, test_dir: Path) -> str:
    """The last error line of a pytest collection report, without temporary paths or hidden test source."""
    lines = [ln[1:].strip() for ln in longrepr.splitlines() if ln.startswith("E ")]
    text = lines[-1] if lines else longrepr.strip().splitlines()[-1] if longrepr.strip() else "unknown error"
    for folder, shown in ((src, ""), (src.resolve(), ""), (test_dir, "tests/"), (test_dir.resolve(), "tests/")):
        text = text.replace(str(folder) + "/", shown)
    return text


# ---- check: the stages --------------------------------------------------------------------------------------------

@dataclass
class _Job:
    """One check: what it was asked, where its files are, and how far it got (`phase`, for a failure's verdict)."""

    tests: Mapping[str, str]
    files: Mapping[str, str]
    learner: str
    workdir: Path
    names: list[str]
    time_limit: float | None
    only: list[str]
    run_dir: Path = field(init=False)
    suite: Path | None = None
    display: dict[str, str] = field(default_factory=dict)
    baseline: dict | None = None
    phase: str = "import"
    apart: separated.Learner | None = None  # the learner's own interpreter, when the check is separated

    def __post_init__(self) -> None:
        self.run_dir = self.workdir / f"run-{os.getpid()}-{next(_counter)}"

    @property
    def src(self) -> Path:
        return self.run_dir / "src"

    @property
    def test_dir(self) -> Path:
        return self.suite / "tests" if self.suite else self.workdir

    @property
    def modules(self) -> set[str]:
        """What the check imports under names an earlier check may have used: the learner's and the tests'."""
        return top_modules(self.files) | {Path(t).stem for t in self.tests}


def _verdict(job: _Job, phase: str, status: str, *, message: str = "", traceback: str = "",
             tests: list[dict] | None = None, **extra) -> dict:
    """A result. Without `tests`, every catalogue test is an error with `message`: nothing was judged."""
    if tests is None:
        tests = [{"name": n, "outcome": "error", "message": short(message)} for n in job.names]
    return {"status": status, "tests": tests, "stdout": "", "traceback": traceback, "phase": phase, **extra}


@contextlib.contextmanager
def _staged(job: _Job) -> Iterator[None]:
    """Stage the files: the learner's under a fresh folder, the suite under its reused one; the fresh one is
    removed after."""
    try:
        if job.apart is None:
            write_tree(job.src, job.files)
            job.display = _display_names(job.src, job.files)
        else:  # the learner's files exist only in the learner's interpreter; its frames come named
            job.display = {REMOTE + rel: rel for rel in job.files}
        job.suite = _suite_dir(job.workdir, job.tests)
        yield
    finally:
        shutil.rmtree(job.run_dir, ignore_errors=True)


def _tampered(job: _Job, changed: list[str], when: str) -> dict:
    """The verdict on a tampered environment; `when` is "before" (code run earlier) or "during" (this code)."""
    shown = ", ".join(changed[:6]) + (f" and {len(changed) - 6} more" if len(changed) > 6 else "")
    origin = "Code you ran earlier" if when == "before" else "Your code"
    return _verdict(job, "tampered", "error", tainted=when,
                    message="not judged: the checking machinery was modified",
                    traceback=f"{origin} replaced parts of the checking machinery ({shown}). The hidden tests only "
                              f"count when they run against the real ones, so nothing was judged. Python restarts "
                              f"to undo the change; check again.\n")


def _untouched_before(job: _Job) -> dict | None:
    """Refuse to judge when code run earlier changed the machinery (the worker's baseline); without a baseline
    (CPython), take one now."""
    if not integrity.armed():
        job.baseline = integrity.snapshot()
        return None
    changed = integrity.changes()
    return _tampered(job, changed, "before") if changed else None


def _untouched_during(job: _Job) -> dict | None:
    changed = integrity.changes(job.baseline)
    return _tampered(job, changed, "during") if changed else None


def _import_learner(job: _Job) -> dict | None:
    """Import the learner's module (its top-level code runs here, under the time limit); a verdict if it fails."""
    try:
        with alarm(job.time_limit):
            importlib.import_module(module_name(job.learner))
    except (KeyboardInterrupt, TestTimeout) as exc:
        stopped = "stopped by the time limit" if isinstance(exc, TestTimeout) else "stopped"
        return _verdict(job, "import", "timeout", message=f"your code did not finish importing: {stopped}",
                        traceback=frames(exc, job.display)
                        + f"{stopped} while importing your code (an infinite loop at the top level?)\n")
    except BaseException as exc:  # noqa: BLE001 - any failure of learner code is a result, not a crash
        return _verdict(job, "import", "error", message="your code did not run: " + exception_line(exc, job.display),
                        traceback=format_traceback(exc, job.display))
    return None


# Plugins a hidden suite never needs are left out: ~15 ms less set-up per check in Pyodide.
_UNUSED_PLUGINS = ("cacheprovider", "faulthandler", "stepwise", "junitxml", "pastebin", "doctest", "debugging",
                   "setuponly", "setupplan", "threadexception", "unraisableexception", "logging")


def _run_suite(job: _Job) -> tuple[_Collector, object]:
    """Run the hidden suite under pytest: (what each test did, pytest's exit code or None if pytest itself broke)."""
    import pytest

    collector = _Collector(job.display, _display_names(job.test_dir, job.tests), job.time_limit)
    args = [str(job.test_dir), *(a for name in _UNUSED_PLUGINS for a in ("-p", f"no:{name}")), "--capture=sys",
            "-q", "--no-header", "--tb=no", "-rN", "--import-mode=importlib", "-c", str(job.suite / "pytest.ini"),
            "--rootdir", str(job.suite), "-W", "ignore::pytest.PytestWarning"]
    plugins = [collector, _ReportHook(collector), _timeout_plugin(job.time_limit)]
    if job.only:
        plugins.append(_Only(job.only))
    quiet = CappedStream(cap=0)  # pytest's own progress output is not the learner's
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        try:
            code = pytest.main(args, plugins=plugins)
        except BaseException as exc:  # noqa: BLE001 - learner code can break pytest itself; still a result
            code = None
            collector.collect_errors.append(exception_line(exc, job.display))
    return collector, code


def _suite_verdict(job: _Job, collector: _Collector, code: object) -> dict:
    """The verdict on a suite that ran: the tests could not be collected, or one row per catalogue test."""
    import pytest

    if collector.collect_errors and not collector.results:
        problem = _clean(collector.collect_errors[-1], job.src, job.test_dir)
        return _verdict(job, "collect", "error", message=f"not run: {problem}",
                        traceback=f"The hidden tests could not start against your code:\n{problem}\n")
    interrupted = collector.interrupted or code == pytest.ExitCode.INTERRUPTED
    missing = {"outcome": "error", "message": "not run" + (" (stopped)" if collector.interrupted else "")}
    tests = [collector.results.get(n, {"name": n, **missing}) for n in job.names or list(collector.results)
             if not job.only or n in job.only]
    status = ("timeout" if interrupted else "passed" if tests and all(t["outcome"] == "passed" for t in tests)
              else "failed")
    # How long each test's body ran, for authors and the benchmark (bench/run.py): the floor of a check.
    durations = {n: round(ms, 1) for n, ms in collector.durations.items()}
    return _verdict(job, "timeout" if interrupted else "tests", status, tests=tests, durations=durations)


def _load_apart(job: _Job) -> dict | None:
    """The separated path's import: the learner's interpreter loads the files, and stand-ins for its modules are
    put where the hidden tests import them; a verdict, in the single path's words, if the import failed."""
    loaded = job.apart.load()
    if loaded["status"] == "timeout":
        stopped = "stopped by the time limit"
        return _verdict(job, "import", "timeout", message=f"your code did not finish importing: {stopped}",
                        traceback=loaded["traceback"]
                        + f"{stopped} while importing your code (an infinite loop at the top level?)\n")
    if loaded["status"] != "ok":
        return _verdict(job, "import", "error", message="your code did not run: " + loaded["message"],
                        traceback=loaded["traceback"])
    job.apart.install(sys.modules)
    return None


def _judge(job: _Job) -> dict:
    """The stages after staging, in order; the first verdict ends the check."""
    if job.apart is not None:  # no learner code runs in this interpreter: nothing to compare with a baseline
        verdict = _load_apart(job)
        if verdict:
            return verdict
        job.phase = "tests"
        return _suite_verdict(job, *_run_suite(job))
    verdict = _untouched_before(job) or _import_learner(job) or _untouched_during(job)
    if verdict:
        return verdict
    job.phase = "tests"
    collector, code = _run_suite(job)
    return _untouched_during(job) or _suite_verdict(job, collector, code)


def _failure(job: _Job, exc: BaseException) -> dict:
    """The verdict when the judge's own steps failed (a full disk, a bug): data, like every other outcome."""
    if isinstance(exc, (KeyboardInterrupt, TestTimeout)):  # Stop or the time limit, between the learner's code
        return _verdict(job, "timeout" if job.phase == "tests" else "import", "timeout",
                        message="not judged: stopped")
    problem = exception_line(exc, {})
    return _verdict(job, job.phase, "error", message=f"not judged: the checker failed ({problem})",
                    traceback="The checker itself failed, so nothing was judged:\n"
                              + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)))


def check(*, tests: Mapping[str, str], files: Mapping[str, str], learner: str, workdir: str,
          names: Iterable[str] = (), time_limit: float | None = None, only: Iterable[str] = (),
          rewritten: Mapping | None = None, separate: Callable[[], object] | None = None) -> dict:
    """Run the hidden tests against learner files; the result (module docstring) says how it went and where
    it ended (`phase`).

    tests:   test file name -> source (the hidden suite; never shown to the learner)
    files:   path under the import root -> source; the learner's file and any dependency files
    learner: which of `files` is the learner's own file (imported first, to report a clean error)
    names:   the catalogue's test names, in order: every one appears in the result, run or not
    only:    restrict the run to these test names (used by validation to re-check one mutant quickly)
    rewritten: the build's assertion rewriting of `tests` (adopt_rewriting), or None
    separate: None to run the learner's code here, in this interpreter; or a function that starts the learner's
             own interpreter and returns its channel (checker/separated.py): then no learner code runs here,
             and what it printed comes from there
    """
    job = _Job(tests, files, learner, Path(workdir), list(names), time_limit, list(only))
    if separate is not None:  # imported only here: a check in one interpreter (the worker's start) never needs it
        from . import separated

        job.apart = separated.Learner(separate, files, learner, time_limit)
    out = CappedStream()
    try:  # a Stop can land anywhere in here, the set-up included: it is a verdict too
        prepare()
        if rewritten:
            adopt_rewriting(job.workdir, tests, rewritten)
        with _staged(job), isolated(out, job.src, job.modules, (job.run_dir, job.test_dir)):
            result = _judge(job)
    except BaseException as exc:  # noqa: BLE001 - nothing throws across the boundary
        result = _failure(job, exc)
    if job.apart is not None:  # what the OS took away from the learner's interpreter (checker/sandbox.py)
        over = job.apart.over_limit()
        if over:  # past its memory or its folder's quota: not a pass, whatever the tests said
            result = _verdict(job, "tests", "error", message=over)
        result["sandbox"] = list(job.apart.sandbox)
    result["stdout"] = out.getvalue() if job.apart is None else job.apart.finish()
    return result


# ---- run: the Run button ------------------------------------------------------------------------------------------

def _execute(code: str, filename: str, names: Mapping[str, str], out: CappedStream,
             namespace: dict | None = None) -> dict:
    """Execute `code` as a script, in `namespace` when given (the console keeps it: checker/console.py); its
    status and traceback."""
    try:
        # Register the source so tracebacks can quote the learner's lines, as they would for a file on disk.
        linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        scope = namespace if namespace is not None else {}
        scope.update({"__name__": "__main__", "__file__": filename})
        exec(compile(code, filename, "exec", dont_inherit=True), scope)
    except (KeyboardInterrupt, TestTimeout):
        return {"status": "timeout", "traceback": ""}
    except SystemExit as exc:
        if exc.code not in (None, 0):
            return {"status": "error", "traceback": f"SystemExit: {exc.code}\n"}
        out.write("\n[your code called sys.exit(): it stopped there, without an error]\n")
    except BaseException as exc:  # noqa: BLE001 - learner errors are results
        return {"status": "error", "traceback": format_traceback(exc, names)}
    return {"status": "ok", "traceback": ""}


def run(code: str, filename: str, *, files: Mapping[str, str] | None = None, workdir: str | None = None,
        on_write: Callable[[str], None] | None = None, namespace: dict | None = None) -> dict:
    """Execute learner code as a script (the Run button), capturing output with a cap.

    `files` (path under the import root -> source) are importable while the code runs: the dependencies a
    module's code imports (M07.6 imports M07.1's sampling module). Returns
    {"status": "ok" | "error" | "timeout", "stdout": str, "traceback": str}; KeyboardInterrupt (the browser's
    Stop and time limit) is reported as "timeout". `namespace`: the dict the code runs in, kept by the caller
    (checker/console.py), else a fresh one.
    """
    out = CappedStream(on_write=on_write)
    files = dict(files or {})
    root = Path(workdir or "/tmp") / f"script-{os.getpid()}-{next(_counter)}"
    names = {filename: filename, **_display_names(root, files)}
    try:
        write_tree(root, files)
        with isolated(out, root, top_modules(files), (root,)):
            result = _execute(code, filename, names, out, namespace)
    except (KeyboardInterrupt, TestTimeout):
        result = {"status": "timeout", "traceback": ""}
    except BaseException as exc:  # noqa: BLE001 - the files could not be written: still a result
        result = {"status": "error", "traceback": format_traceback(exc, names)}
    finally:
        shutil.rmtree(root, ignore_errors=True)
    # Tampering during a run is not looked for here (it costs more than the run itself in the browser): the next
    # check compares against the baseline first, and the worker retries it on a clean interpreter.
    return {"status": result["status"], "stdout": out.getvalue(), "traceback": result["traceback"]}
