"""Exercise validation: prove every exercise folder consistent before anything ships.

For each exercise: every file compiles, the reference passes every hidden test (in several fresh processes, with
the same outcome each time), the starter does not, every mutant fails the test it names, every numeric prompt's
answer equals what the reference code computes, and the suite fits its time limit in the browser. Problems are
reported as one line each, `path:line: message`, so an editor can jump to them; nothing here prints a traceback.

Why fresh processes: a hidden test that draws from an unseeded generator (or depends on hash order, or on state
left by an earlier run) passes or fails by luck; only runs that share nothing show that, and a lucky pass must
never be cached. Exercises are validated in parallel, each run in its own interpreter, because the judge changes
process-wide state (sys.path, sys.modules) and is not thread-safe; the threads here only wait for children.
Validating more than one exercise, the children are forked by fork servers (forkserver.py) that have imported
numpy and pytest already, which saves each run the interpreter's start-up and keeps what makes it fresh.

The same module runs inside Pyodide (tests/pyodide), where there are no subprocesses: there everything runs
in this process, one exercise after another.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from checker import diagnosis, isolation, judge
from checker.isolation import purge, top_modules, write_tree
from course import known, manifest, numeric
from course.exercises import Course
from course.known import DEFAULT_RUNS, IN_PYODIDE
from course.manifest import Exercise, ManifestError, Mutant, rel

from . import forkserver

DEFAULT_FACTOR = 2.5                   # browser time / CPython time when nothing was measured (README: 2-2.5x)
FACTOR_FILE = manifest.cache_folder() / "pyodide-factor.json"  # written by tests/pyodide
BOOT_LIMIT = 60.0  # seconds a child may take beyond its tests' time limits (start-up on a loaded machine)


@dataclass
class Report:
    """What validation found for one exercise; `outcomes` records every verdict for parity checks.

    `failing` holds the reference's failed tests (test name -> error line) apart from `errors` until the runs
    are compared: a test that fails in some runs only is reported as flaky instead.
    """

    slug: str
    id: str = ""
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    outcomes: dict[str, dict[str, str]] = field(default_factory=dict)
    durations: dict[str, float] = field(default_factory=dict)  # ms per test of the reference's first run
    suite_runs: list[float] = field(default_factory=list)      # ms of the whole reference suite, per run
    failing: dict[str, str] = field(default_factory=dict)
    estimate: float | None = None                              # seconds the suite takes in the browser
    cached: bool = False
    # How each mutant fails the whole suite (checker/diagnosis.py): mutant name -> fingerprint, or None when
    # its failure cannot be diagnosed (a time limit ended a test).
    prints: dict[str, list[str] | None] = field(default_factory=dict)
    undiagnosed: dict[str, str] = field(default_factory=dict)  # mutant -> why its failure has no fingerprint

    @property
    def suite_ms(self) -> float | None:
        """The reference suite's time on this Python: the median of its runs (one slow run is noise)."""
        return statistics.median(self.suite_runs) if self.suite_runs else None

    def timing(self) -> str:
        """What the reference's hidden suite costs: learners wait for it on every Check, slower in the browser."""
        if self.suite_ms is None:
            return ""
        runs = len(self.suite_runs)
        text = f"; reference suite {self.suite_ms:.0f} ms" + (f" (median of {runs} runs)" if runs > 1 else "")
        if self.durations:
            slowest = max(self.durations, key=self.durations.get)
            text += f", slowest {slowest} {self.durations[slowest]:.0f} ms"
        if self.estimate is not None:
            text += f"; ~{_duration(self.estimate)} in the browser"
        return text

    def finish(self) -> "Report":
        """Move the reference's failures into `errors` (once every run has been compared)."""
        self.errors[:0] = self.failing.values()
        self.failing = {}
        return self


def _seconds(value: float) -> str:
    return f"{value:.1f}" if value >= 1 else f"{value:.2f}"


def _duration(seconds: float) -> str:
    return f"{seconds:.1f} s" if seconds >= 1 else f"{seconds * 1000:.0f} ms"


# ---- where things are -------------------------------------------------------------------------------------------

def apply_mutant(reference: str, mutant: Mutant) -> str:
    """The reference with the mutant's edits applied; each `find` must occur exactly once."""
    text = reference
    for i, edit in enumerate(mutant.edits):
        count = text.count(edit.find)
        if count != 1:
            where = f"{rel(mutant.path)}:{manifest.line_of_field(mutant.path, f'edit[{i}].find')}"
            raise ManifestError(f"{where}: edit[{i}].find occurs {count} times in the reference (needs exactly 1)")
        text = text.replace(edit.find, edit.replace)
    return text


def mutant_syntax_error(reference: str, mutant: Mutant, filename: str) -> str:
    """'' when the mutated reference compiles, else one line at the `replace` that broke it.

    The edits are applied in order and the first one after which the code no longer compiles is blamed: the
    author's mistake is in that edit's `replace` (or in the `find` it cut short).
    """
    try:
        compile(apply_mutant(reference, mutant), filename, "exec", dont_inherit=True)
        return ""
    except SyntaxError:
        pass
    text = reference
    for i, edit in enumerate(mutant.edits):
        text = text.replace(edit.find, edit.replace)
        try:
            compile(text, filename, "exec", dont_inherit=True)
        except SyntaxError as exc:
            shown = (text.splitlines()[exc.lineno - 1].strip() if exc.lineno and
                     exc.lineno <= len(text.splitlines()) else "")
            where = f"{rel(mutant.path)}:{manifest.line_of_field(mutant.path, f'edit[{i}].replace')}"
            return (f"{where}: mutant {mutant.name} does not compile: {exc.msg} at line {exc.lineno} of the "
                    f"reference after edit[{i}]" + (f": {shown!r}" if shown else ""))
    return ""


def _setup_line(ex: Exercise, lineno: int) -> int:
    """The manifest line of line `lineno` of `prompt_setup` (a TOML string that starts on its key's line)."""
    key = manifest.line_of_field(ex.manifest, "prompt_setup")
    first = ex.manifest.read_text(encoding="utf-8").splitlines()[key - 1]
    starts_below = re.search(r"=\s*(\"\"\"|''')\s*$", first) is not None  # TOML drops that first newline
    return key + lineno - (0 if starts_below else 1)


def syntax_errors(ex: Exercise) -> dict[str, str]:
    """Which of the exercise's Python sources do not compile: role -> one `path:line:` error."""
    found = {}
    for role, what, path in (("starter", "the starter does", ex.starter),
                             ("reference", "the reference does", ex.reference),
                             ("tests", "the hidden tests do", ex.tests_file)):
        try:
            compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
        except SyntaxError as exc:
            found[role] = f"{rel(path)}:{exc.lineno or 1}: {what} not compile: {type(exc).__name__}: {exc.msg}"
        except ValueError as exc:  # source with NUL bytes
            found[role] = f"{rel(path)}:1: {what} not compile: {exc}"
    if ex.prompt_setup:
        try:
            compile(ex.prompt_setup, "prompt_setup", "exec", dont_inherit=True)
        except SyntaxError as exc:
            found["prompt_setup"] = (f"{rel(ex.manifest)}:{_setup_line(ex, exc.lineno or 1)}: prompt_setup does "
                                     f"not compile: {type(exc).__name__}: {exc.msg}")
    return found


def dependency_files(ex: Exercise, exercises: dict[str, Exercise]) -> dict[str, str]:
    """Reference code of every exercise `ex` requires, transitively, keyed by import path."""
    return {path: file.read_text(encoding="utf-8") for path, file in dependency_paths(ex, exercises).items()}


def dependency_paths(ex: Exercise, exercises: dict[str, Exercise]) -> dict[str, Path]:
    """The reference file of every exercise `ex` requires, transitively, keyed by import path."""
    return {dep.import_path: dep.reference for dep in Course.of(exercises).dependencies(ex)}


def run_solution(ex: Exercise, source: str, deps: dict[str, str], workdir: str, only=(), separate=None) -> dict:
    """Judge `source` as the learner's file of `ex`, with `deps` as the other files (`separate`: judge.check's)."""
    return judge.check(
        tests={ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")},
        files={**deps, ex.import_path: source}, learner=ex.import_path, workdir=workdir,
        names=ex.test_names(), time_limit=ex.time_limit, only=only, separate=separate)


def _file_of(ex: Exercise, files: dict[str, Path], shown: str) -> Path | None:
    """The repository file behind a name the judge uses in `where` and tracebacks (import path or test file)."""
    if shown in files:
        return files[shown]
    if shown == ex.tests_file.name:
        return ex.tests_file
    return None


def _test_location(ex: Exercise, test: dict, files: dict[str, Path]) -> str:
    """`path:line` where a reference test failed: the judge's `where`, else the test's def."""
    name, _, line = test.get("where", "").rpartition(":")
    path = _file_of(ex, files, name)
    if path and line.isdigit():
        return f"{rel(path)}:{line}"
    return f"{rel(ex.tests_file)}:{manifest.test_definitions(ex.tests_file).get(test['name'], 1)}"


def _reference_errors(ex: Exercise, result: dict, files: dict[str, Path], report: Report) -> None:
    """One line for a reference that does not import or whose tests do not start; one per failed test."""
    if result["status"] == "passed":
        return
    trace = result.get("traceback", "")
    if result.get("phase") in ("import", "tampered"):
        frames = [(f, int(n)) for f, n in re.findall(r'File "([^"]+)", line (\d+)', trace)
                  if _file_of(ex, files, f)]
        path, line = (_file_of(ex, files, frames[-1][0]), frames[-1][1]) if frames else (ex.reference, 1)
        last = ([ln.strip() for ln in trace.splitlines() if ln.strip()] or ["(no traceback)"])[-1]
        what = "does not finish importing" if result["status"] == "timeout" else "does not run"
        report.errors.append(f"{rel(path)}:{line}: the reference {what}: {last}")
        return
    if result.get("phase") == "collect":
        problem = trace.splitlines()[1] if len(trace.splitlines()) > 1 else trace
        line = 1
        name = re.search(r"cannot import name '(\w+)'", problem)
        if name:  # the import line of the missing name
            source = ex.tests_file.read_text(encoding="utf-8").splitlines()
            line = next((n for n, text in enumerate(source, 1) if "import" in text and name.group(1) in text), 1)
        report.errors.append(f"{rel(ex.tests_file)}:{line}: the hidden tests do not start against the reference: "
                             f"{problem}")
        return
    for t in result["tests"]:
        if t["outcome"] != "passed":
            report.failing[t["name"]] = (f"{_test_location(ex, t, files)}: the reference fails {t['name']}: "
                                         f"{t['message']}")


# ---- prompts ------------------------------------------------------------------------------------------------------

def _numbers(value) -> list[float] | None:
    """A scalar, list or array as a list of floats; None when it is not numeric."""
    items = value.tolist() if hasattr(value, "tolist") else value
    items = items if isinstance(items, (list, tuple)) else [items]
    try:
        return [float(v) for v in items]
    except (TypeError, ValueError):
        return None


def _close(got, want: tuple[float, ...], tol: float) -> bool:
    """Whether the reference's value counts as the author's answer by the rule the page grades learners by."""
    values = _numbers(got)
    return values is not None and numeric.all_close(values, want, tol)


def check_prompts(ex: Exercise, deps: dict[str, str], report: Report) -> None:
    """Evaluate each numeric prompt's `expr` against the reference and compare with its `answer`."""
    if not ex.prompts:
        return
    namespace: dict = {"__name__": "prompt_check"}
    with tempfile.TemporaryDirectory() as tmp:
        write_tree(Path(tmp), deps)
        sys.path.insert(0, tmp)
        stage = "the reference"
        try:
            exec(compile(ex.reference.read_text(encoding="utf-8"), str(ex.reference), "exec"), namespace)
            stage = "prompt_setup"
            exec(compile(ex.prompt_setup, "prompt_setup", "exec"), namespace)
            for prompt in ex.prompts:
                field_path = f"prompts[{prompt.index}]"
                try:
                    got = eval(prompt.expr, namespace)  # noqa: S307 - author-written expressions
                except Exception as exc:  # noqa: BLE001
                    where = f"{rel(ex.manifest)}:{manifest.line_of_field(ex.manifest, field_path + '.expr')}"
                    report.errors.append(f"{where}: {field_path}.expr: {prompt.expr!r} raised {exc!r}")
                    continue
                if not _close(got, prompt.answer, prompt.tolerance):
                    where = f"{rel(ex.manifest)}:{manifest.line_of_field(ex.manifest, field_path + '.answer')}"
                    report.errors.append(
                        f"{where}: {field_path}.answer: {ex.manifest.name} says {list(prompt.answer)} but the "
                        f"reference computes {prompt.expr} = {got!r}")
                report.outcomes[f"prompt:{prompt.id}"] = {"value": repr(got)}
        except Exception as exc:  # noqa: BLE001 - the prompts' namespace could not be built; say where
            line = 1
            for frame in reversed(traceback.extract_tb(exc.__traceback__)):
                if frame.filename in (str(ex.reference), "prompt_setup"):
                    line = frame.lineno if frame.filename == str(ex.reference) else _setup_line(ex, frame.lineno)
                    break
            path = ex.reference if stage == "the reference" else ex.manifest
            report.errors.append(f"{rel(path)}:{line}: the prompts cannot be checked: {stage} raised "
                                 f"{type(exc).__name__}: {exc}")
        finally:
            sys.path.remove(tmp)
            purge(top_modules(deps))


# ---- one exercise, one process ------------------------------------------------------------------------------------

def validate(ex: Exercise, exercises: dict[str, Exercise]) -> Report:
    """Validate one exercise in this process, with one run of the reference; never raises for its problems."""
    return _validate(ex, dependency_paths(ex, exercises)).finish()


def _validate(ex: Exercise, dep_paths: dict[str, Path], mutants: list[str] | None = None, gate: bool = False) -> Report:
    """The full validation of `ex`, its mutants limited to the names in `mutants` when given (the others then
    run in `_mutants_only` jobs of their own, on another core). With `gate`, only what decides whether the exercise
    is consistent, fast: each mutant runs only the test it must fail (the first mutant, by name, the whole suite,
    so one fingerprint is still compared), and the corpus is left to the full validation."""
    report = Report(ex.slug, ex.id)
    broken = syntax_errors(ex)
    report.errors += broken.values()
    if "reference" in broken or "tests" in broken:
        return report  # nothing can run
    deps = {path: file.read_text(encoding="utf-8") for path, file in dep_paths.items()}
    files = {**dep_paths, ex.import_path: ex.reference}
    reference = ex.reference.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory() as workdir:
        ref = run_solution(ex, reference, deps, workdir)
        _record_run(report, ref)
        report.durations = ref.get("durations", {})
        _reference_errors(ex, ref, files, report)
        if "durations" not in ref:
            return report  # the reference does not even run: the starter, mutants and prompts prove nothing
        if "starter" not in broken:
            start = run_solution(ex, ex.starter.read_text(encoding="utf-8"), deps, workdir)
            report.outcomes["starter"] = {t["name"]: t["outcome"] for t in start["tests"]}
            if start["status"] == "passed":
                report.errors.append(f"{rel(ex.starter)}:1: the starter passes every hidden test; it should not")
        _run_mutants(ex, reference, deps, workdir, mutants, report, gate)
    if "prompt_setup" not in broken:
        check_prompts(ex, deps, report)
    return report


def _run_mutants(ex: Exercise, reference: str, deps: dict[str, str], workdir: str, names: list[str] | None,
                 report: Report, gate: bool = False) -> None:
    """Run each mutant (those in `names`, or all) against the test it must fail; record it, and any survivor.
    `gate`: the test it must fail only, but for the first mutant by name (see `_validate`)."""
    first = min((m.name for m in ex.mutants), default="")
    for mutant in ex.mutants:
        if names is not None and mutant.name not in names:
            continue
        try:
            source = apply_mutant(reference, mutant)
        except ManifestError as exc:
            report.errors.append(str(exc))
            continue
        problem = mutant_syntax_error(reference, mutant, str(ex.reference))
        if problem:
            report.errors.append(problem)
            continue
        # The whole suite, not only the named test: how the mutant fails all of it is the known mistake a
        # learner's failing check is compared with (checker/diagnosis.py).
        only = [mutant.fails] if gate and mutant.name != first else []
        got = run_solution(ex, source, deps, workdir, only=only)
        found = None if only else diagnosis.fingerprint(got)
        if not only and found is None and got.get("status") != "passed":
            # A time limit that ended one of its tests may be the machine's load (CI validates beside apt-get):
            # once more before it is taken as the mutant's own, with no known mistake for learners to be told.
            got = run_solution(ex, source, deps, workdir)
            found = diagnosis.fingerprint(got)
        outcome = next((t["outcome"] for t in got["tests"] if t["name"] == mutant.fails), "missing")
        report.outcomes[f"mutant:{mutant.name}"] = {mutant.fails: outcome}
        if not only:
            report.prints[mutant.name] = found
            if found is None:
                report.undiagnosed[mutant.name] = _why_undiagnosed(got)
        if outcome == "passed":
            report.errors.append(f"{rel(mutant.path)}:{manifest.line_of_field(mutant.path, 'fails')}: mutant "
                                 f"{mutant.name} survives: {mutant.fails} passes on it ({mutant.description})")


def _why_undiagnosed(got: dict) -> str:
    """Why a mutant's run has no fingerprint, in a few words: the tests a time limit ended, or the phase."""
    ended = [t["name"] for t in got.get("tests") or () if diagnosis.ended_by_time_limit(t)]
    if ended:
        return "a time limit ended " + ", ".join(ended)
    return f"the suite did not run on it (phase {got.get('phase')}, status {got.get('status')}: " \
           f"{str(got.get('message', ''))[:200]})"


def _run_corpus(ex: Exercise, deps: dict[str, str], workdir: str, report: Report) -> None:
    """The diagnosis corpus (authoring/corpus.py), as validation's gate sees it: it loads cleanly and covers every
    mutant, each alternative passes every hidden test, and each injected mistake fails one: the test of the mutant
    it mirrors first, the whole suite only when that one passes. How the diagnosis fares on it is measured apart
    (`python -m authoring.corpus --diagnose`, `make diagnosis-report`), not at every validation. Then the careful
    learners (authoring/careful.py), each of whom must pass every hidden test too."""
    from . import corpus  # corpus.py judges through this module

    found = corpus.load(ex)
    report.errors += found.errors
    for alt in found.alternatives:
        got = run_solution(ex, alt.source, deps, workdir)
        report.outcomes[f"alternative:{alt.name}"] = {t["name"]: t["outcome"] for t in got["tests"]}
        report.errors += corpus._failures(ex, alt, got)
    for injected in found.injected:
        source = corpus.apply_edits(next(a for a in found.alternatives if a.name == injected.alternative), injected)
        got = run_solution(ex, source, deps, workdir, only=[injected.mirrors.fails])
        if got.get("status") == "passed":
            got = run_solution(ex, source, deps, workdir)
        report.outcomes[f"injected:{injected.label}"] = {"status": got.get("status", "")}
        if got.get("status") == "passed":
            where = f"{rel(injected.path)}:{manifest.line_of_field(injected.path, 'edit')}"
            report.errors.append(f"{where}: injected mistake {injected.label} survives: every hidden test passes on "
                                 f"it ({injected.description})")
    _run_careful(ex, deps, workdir, report)


def _run_careful(ex: Exercise, deps: dict[str, str], workdir: str, report: Report) -> None:
    """Every careful learner through the whole hidden suite: a test one fails is a rule its page leaves unsaid."""
    from . import careful

    found, problems = careful.load(ex)
    report.errors += problems
    for learner in found:
        try:
            source = careful.source(ex, learner)
        except ManifestError as exc:
            report.errors += exc.lines
            continue
        got = run_solution(ex, source, deps, workdir)
        report.outcomes[f"careful:{learner.name}"] = {t["name"]: t["outcome"] for t in got.get("tests", [])}
        report.errors += careful.failures(ex, learner, got)


def _corpus_only(ex: Exercise, dep_paths: dict[str, Path]) -> Report:
    """The diagnosis corpus alone (`_run_corpus`), for the full job's report to take in."""
    report = Report(ex.slug, ex.id)
    deps = {path: file.read_text(encoding="utf-8") for path, file in dep_paths.items()}
    with tempfile.TemporaryDirectory() as workdir:
        _run_corpus(ex, deps, workdir, report)
    return report


def _mutants_only(ex: Exercise, dep_paths: dict[str, Path], names: list[str], gate: bool = False) -> Report:
    """The mutants in `names` alone: their outcomes and survivors, for the full job's report to take in."""
    report = Report(ex.slug, ex.id)
    deps = {path: file.read_text(encoding="utf-8") for path, file in dep_paths.items()}
    with tempfile.TemporaryDirectory() as workdir:
        _run_mutants(ex, ex.reference.read_text(encoding="utf-8"), deps, workdir, names, report, gate)
    return report


def _record_run(report: Report, result: dict) -> None:
    report.outcomes["reference"] = {t["name"]: t["outcome"] for t in result["tests"]}
    if result.get("durations"):
        report.suite_runs.append(round(sum(result["durations"].values()), 1))


def _reference_run(ex: Exercise, dep_paths: dict[str, Path], separate: bool = False) -> dict:
    """One more run of the reference suite alone: its outcomes and per-test times. `separate`: on the separated
    path (checker/separated.py: the hidden tests here, the reference in a process of its own), as the class view
    and `ol class` judge, with each failure's message."""
    from checker import learnerproc

    deps = {path: file.read_text(encoding="utf-8") for path, file in dep_paths.items()}
    with tempfile.TemporaryDirectory() as workdir:
        result = run_solution(ex, ex.reference.read_text(encoding="utf-8"), deps, workdir,
                              separate=learnerproc.connector(workdir) if separate else None)
    out = {"outcomes": {t["name"]: t["outcome"] for t in result["tests"]}, "durations": result.get("durations", {})}
    if separate:
        out.update(separated=True, messages={t["name"]: t["message"] for t in result["tests"]})
    return out


def armed_like_the_browser() -> None:
    """Take the tamper baseline (checker/integrity.py) once, before any author's code runs, as the browser's worker
    does (checker/bridge.py `numpy_ready`, `judge_ready`). Every check of the job then compares the machinery with
    it, as in the browser, instead of snapshotting it afresh (an injected mistake's check: 37.6 -> 27.8 ms here);
    and code that replaced part of it is refused by every later check of the job, as the browser refuses it until
    Python restarts, instead of being judged by a changed machinery."""
    from checker import bridge

    judge.prepare()  # first: pytest is already imported here (the fork server's preload), and its speed-ups
    bridge.numpy_ready()  # replace a function of it, which the baseline must take as it will stay
    bridge.judge_ready()


def _job(spec: dict) -> dict:
    """Do one unit of work (`full` validation or one `reference` run) and return it as JSON-ready data."""
    armed_like_the_browser()
    ex = manifest.load(Path(spec["folder"]))
    dep_paths = {path: Path(file) for path, file in spec["deps"].items()}
    if spec["kind"] == "full":
        return dataclasses.asdict(_validate(ex, dep_paths, spec.get("mutants"), spec.get("gate", False)))
    if spec["kind"] == "mutants":
        return dataclasses.asdict(_mutants_only(ex, dep_paths, spec["mutants"], spec.get("gate", False)))
    if spec["kind"] == "corpus":
        return dataclasses.asdict(_corpus_only(ex, dep_paths))
    return _reference_run(ex, dep_paths, spec.get("separate", False))


def _child(folder: str) -> int:
    """Child entry point: run FOLDER/job.json's job and write FOLDER/result.json."""
    spec = json.loads(Path(folder, "job.json").read_text(encoding="utf-8"))
    result = _job(spec)
    tmp = Path(folder, "result.tmp")
    tmp.write_text(json.dumps(result), encoding="utf-8")
    os.replace(tmp, Path(folder, "result.json"))
    return 0


_CHILD = ("import os, sys; from authoring.validate import _child; code = _child(sys.argv[1]); "
          "sys.stdout.flush(); os._exit(code)")  # _exit: threads the reference left running must not hang it
def _child_env() -> dict[str, str]:
    # The folder holding `checker` (the tests use checker.stats) and these packages; no installed pytest plugins,
    # as in `ol check` and the browser (checker.isolation.child_environment).
    return isolation.child_environment([str(Path(__file__).resolve().parent.parent)])


def _spawn(spec: dict, timeout: float, server: forkserver.Server | None = None, child: str = _CHILD) -> dict:
    """Run one job in a fresh interpreter (forked by `server` when there is one, else started afresh by the code
    `child`, which runs the job of its folder: this module's by default, authoring/corpus.py's for the corpus);
    a child that dies or hangs gives {"crash": why}, never an exception."""
    with tempfile.TemporaryDirectory(prefix="tl-validate-", ignore_cleanup_errors=True) as tmp:
        Path(tmp, "job.json").write_text(json.dumps(spec), encoding="utf-8")
        code, stderr = None, b""
        if server:
            try:
                code = server.run(tmp, timeout)
            except forkserver.ServerGone:
                server = None
        if not server:
            try:
                proc = subprocess.run([sys.executable, "-c", child, tmp], cwd=tmp, env=_child_env(),
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                      timeout=timeout)
                code, stderr = proc.returncode, proc.stderr
            except subprocess.TimeoutExpired:
                pass
        elif Path(tmp, "stderr.txt").exists():
            stderr = Path(tmp, "stderr.txt").read_bytes()
        if code is None:
            return {"crash": f"did not finish within {timeout:.0f} s"}
        result = Path(tmp, "result.json")
        if result.exists():
            return json.loads(result.read_text(encoding="utf-8"))
        said = [ln for ln in stderr.decode("utf-8", "replace").splitlines()
                if ln.strip() and not ln[:1].isspace() and not ln.startswith("Traceback")]
        return {"crash": f"ended with exit code {code}" + (f": {said[-1]}" if said else "")}


# What every job imports: a fork server imports it once for all its children (forkserver.py).
PRELOAD = ["numpy", "numpy.random", "numpy.linalg", "pytest", "authoring.validate"]
JOB = "authoring.validate:_child"


def _execute(tasks: list[tuple[dict, float, int]], jobs: int, servers: int = 0) -> list[dict]:
    """Results of every (job, timeout, run index), in order: in child processes, `jobs` at a time; in Pyodide,
    here. With `servers` > 0 (and a system that can fork), the children are forked by that many fork servers,
    run i of an exercise by server i mod `servers`, so that its runs see different hash seeds."""
    if IN_PYODIDE:
        return [_job(spec) for spec, _, _ in tasks]
    if servers and forkserver.AVAILABLE:
        with tempfile.TemporaryDirectory(prefix="tl-forkserver-") as cwd, \
                forkserver.Pool(servers, JOB, _child_env(), PRELOAD, cwd) as pool, ThreadPoolExecutor(jobs) as threads:
            return list(threads.map(lambda task: _spawn(task[0], task[1], pool.server(task[2])), tasks))
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return list(pool.map(lambda task: _spawn(task[0], task[1]), tasks))


# ---- across runs: flakiness and time budgets ------------------------------------------------------------------------

def flaky_tests(ex: Exercise, runs: list[dict[str, str]]) -> dict[str, str]:
    """Tests whose outcome differs between runs of the same reference -> one error line each."""
    found = {}
    defined = manifest.test_definitions(ex.tests_file)
    for name in ex.test_names():
        seen = [run.get(name, "missing") for run in runs]
        if len(set(seen)) > 1:
            found[name] = (f"{rel(ex.tests_file)}:{defined.get(name, 1)}: {name} is flaky: it passed "
                           f"{seen.count('passed')} of {len(seen)} runs against the reference; seed every random "
                           f"generator (np.random.default_rng(SEED))")
    return found


def apart_differences(ex: Exercise, singles: list[dict[str, str]], apart: dict) -> dict[str, str]:
    """Test name -> an error line, for each test whose outcome against the reference is the same in every run in
    one interpreter but another on the separated path (the class view's: the code in an interpreter of its own)."""
    defined = manifest.test_definitions(ex.tests_file)
    found = {}
    for name in ex.test_names():
        seen = {run.get(name, "missing") for run in singles}
        there = apart["outcomes"].get(name, "missing")
        if len(seen) == 1 and there not in seen:
            found[name] = (f"{rel(ex.tests_file)}:{defined.get(name, 1)}: {name} {there} against the reference with "
                           f"its code in an interpreter of its own (as the class view checks it) but {seen.pop()} in "
                           f"one: {apart['messages'].get(name, '')!r}; see AUTHORING.md, \"What a hidden test may "
                           f"pass to learner code\"")
    return found


def _combine(ex: Exercise, full: dict, reruns: list[dict], parts: list[dict] = ()) -> Report:
    """The first (full) run's report, with the mutants run apart (`parts`) taken in and the other runs of the
    reference compared with it."""
    if "crash" in full:
        return Report(ex.slug, ex.id, errors=[f"{rel(ex.folder)}: validation {full['crash']}"])
    report = Report(**full)
    for part in parts if report.suite_runs else ():  # a reference that does not run makes mutants prove nothing
        if "crash" in part:
            report.errors.append(f"{rel(ex.folder)}: a job of its validation (mutants, or the corpus) {part['crash']}")
        else:
            report.outcomes.update(part["outcomes"])
            report.prints.update(part.get("prints", {}))
            report.undiagnosed.update(part.get("undiagnosed", {}))
            report.errors += part["errors"]
    runs = [report.outcomes["reference"]] if "reference" in report.outcomes else []
    apart = None
    for i, rerun in enumerate(reruns, 2):
        if "crash" in rerun:
            report.errors.append(f"{rel(ex.folder)}: reference run {i} {rerun['crash']}")
            continue
        runs.append(rerun["outcomes"])
        if rerun.get("separated"):
            apart = rerun
        if rerun["durations"]:
            report.suite_runs.append(round(sum(rerun["durations"].values()), 1))
    # a test steady in one interpreter that goes another way on the separated path is not flaky: it is that
    singles = [r for r in runs if apart is None or r is not apart["outcomes"]]
    differs = apart_differences(ex, singles, apart) if apart and singles else {}
    flaky = {k: v for k, v in (flaky_tests(ex, runs) if len(runs) > 1 else {}).items() if k not in differs}
    report.errors += differs.values()
    for name in flaky:
        report.failing.pop(name, None)
    report.errors[:0] = flaky.values()
    return report.finish()


@dataclass(frozen=True)
class Factor:
    """How much slower the browser runs a suite than CPython here, and where that number comes from."""

    value: float
    source: str


def browser_factor(path: Path = FACTOR_FILE) -> Factor:
    """The factor measured by the Pyodide tier (`write_factor`), or the default when it never ran."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        value = float(data["factor"])
        worst = data.get("worst", "")
        return Factor(value, f"measured {value:.2f}× by `make test-pyodide`" + (f" (largest: {worst})" if worst else ""))
    except FileNotFoundError:
        return Factor(DEFAULT_FACTOR, f"default {DEFAULT_FACTOR}×: run `make test-pyodide` to measure")
    except (OSError, ValueError, KeyError, TypeError):
        return Factor(DEFAULT_FACTOR, f"default {DEFAULT_FACTOR}×: {rel(path)} is unreadable; run `make test-pyodide`")


# A suite shorter than this on CPython says little about the ratio (E7.4's 6 ms took 25 ms in Pyodide: 4.4x, where
# the suites that can come near a time limit run 1.1-3.1x); it cannot set the factor while a longer one can.
FACTOR_MIN_MS = 50.0


def write_factor(cpython_ms: dict[str, float], pyodide_ms: dict[str, float], path: Path = FACTOR_FILE) -> dict:
    """Record each exercise's suite time in both runtimes and the factor validation uses: the largest ratio among
    the suites of FACTOR_MIN_MS or more on CPython (of all of them when none is that long)."""
    exercises = {slug: {"cpython_ms": round(cpython_ms[slug], 1), "pyodide_ms": round(pyodide_ms[slug], 1),
                        "ratio": round(pyodide_ms[slug] / cpython_ms[slug], 3)}
                 for slug in sorted(set(cpython_ms) & set(pyodide_ms)) if cpython_ms[slug] > 0}
    if not exercises:
        raise ValueError("no exercise has a suite time in both CPython and Pyodide")
    timed = [slug for slug in exercises if cpython_ms[slug] >= FACTOR_MIN_MS] or list(exercises)
    worst = max(timed, key=lambda slug: exercises[slug]["ratio"])
    data = {"factor": exercises[worst]["ratio"], "worst": worst, "exercises": exercises}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return data


def budget(ex: Exercise, suite_ms: float, factor: Factor) -> tuple[float, str, str]:
    """(seconds in the browser, error, warning): an error above the time limit, a warning above half of it."""
    estimate = suite_ms / 1000 * factor.value
    where = f"{rel(ex.manifest)}:{manifest.line_of_field(ex.manifest, 'time_limit')}"
    said = (f"{ex.id}'s suite takes ~{_seconds(estimate)} s in the browser, over {{}} of "
            f"{ex.time_limit:g} s ({suite_ms / 1000:.2f} s on CPython × {factor.value:g})")
    if estimate > ex.time_limit:
        return estimate, f"{where}: {said.format('its time_limit')}", ""
    if estimate > ex.time_limit / 2:
        return estimate, "", f"warning: {where}: {said.format('half its time_limit')}"
    return estimate, "", ""


# ---- every exercise ---------------------------------------------------------------------------------------------

def _choose(keys: list[str] | None, exercises: dict[str, Exercise], root: Path,
            load_errors: list[str]) -> tuple[list[Exercise], list[str]]:
    """The exercises asked for, and the load errors that concern them (all of them when none was named)."""
    if not keys:
        return sorted(exercises.values(), key=lambda e: e.slug), load_errors
    chosen, errors = {}, []
    for key in keys:
        slug = manifest.slug_of(key)
        if slug in exercises:
            chosen[slug] = exercises[slug]
        elif (root / slug / "exercise.toml").is_file():  # it exists but did not load: say why
            prefix = rel(root / slug) + "/"
            errors += [e for e in load_errors if e.startswith(prefix) and e not in errors]
        else:
            errors.append(str(unknown(key, exercises)).strip("'\""))
    return [chosen[s] for s in sorted(chosen)], errors


def unknown(key: str, exercises: dict[str, Exercise]) -> KeyError | None:
    """The KeyError of an id or slug that names no exercise (None when it names one)."""
    try:
        manifest.find(key, exercises)
    except KeyError as exc:
        return exc
    return None


SHARE_FROM = 8  # mutants an exercise needs before they are shared out over the cores


def _share_mutants(fulls: list[tuple[Exercise, dict, float, int]], jobs: int) -> list[tuple[Exercise, dict, float, int]]:
    """Give each full job every `jobs`-th mutant, and return the jobs that run the others."""
    parts = []
    for ex, spec, _, _ in fulls:
        names = [m.name for m in ex.mutants]
        if len(names) < SHARE_FROM:
            continue
        spec["mutants"] = names[0::jobs]
        for k in range(1, jobs):
            share = names[k::jobs]
            parts.append((ex, {"kind": "mutants", "folder": spec["folder"], "deps": spec["deps"], "mutants": share,
                               "gate": spec.get("gate", False)},
                          BOOT_LIMIT + ex.time_limit * (len(share) + 1), k))
    return parts


def validate_all(keys: list[str] | None = None, cache: Path | None = None, *, root: Path | None = None,
                 jobs: int | None = None, runs: int | None = None, factor_file: Path = FACTOR_FILE,
                 gate: bool = False) -> tuple[list[Report], list[str]]:
    """Validate the chosen exercises (all by default), sorted by slug. Returns the reports and all their errors;
    warnings are on the reports.

    Each exercise whose fingerprint has no clean cached result is validated once in full, and its reference
    suite `runs` times in all (each run in a fresh process, `jobs` processes at a time). A failing, flaky or
    over-budget result is never cached; a cached one still has its time budget checked against today's factor.

    `gate`: only what decides whether each exercise is consistent (`_validate`), in one run, with no corpus and
    no cache: the answer an author waits for after an edit, before the fingerprints of a full validation.
    """
    root = Path(root) if root else manifest.EXERCISES
    runs = 1 if gate else max(1, runs or DEFAULT_RUNS)
    cache = None if gate else cache
    jobs = 1 if IN_PYODIDE else max(1, jobs or os.cpu_count() or 1)
    load_errors: list[str] = []
    exercises = manifest.load_all(root, load_errors)
    chosen, errors = _choose(keys, exercises, root, load_errors)
    factor = browser_factor(factor_file)
    reports: dict[str, Report] = {}
    stamps: dict[str, Path] = {}
    fulls: list[tuple[Exercise, dict, float, int]] = []
    reruns: list[tuple[Exercise, dict, float, int]] = []
    corpora: list[tuple[Exercise, dict, float, int]] = []
    for ex in chosen:
        if cache:
            stamps[ex.slug] = known.stamp_path(cache, ex, Course.of(exercises), runs)
            data = json.loads(stamps[ex.slug].read_text(encoding="utf-8")) if stamps[ex.slug].exists() else {}
            # A mutant kept with no fingerprint is run again: a time limit may have been the machine's load (CI
            # validates beside apt-get); the build meanwhile uses the other mutants' fingerprints.
            if data and None not in data.get("prints", {}).values():
                reports[ex.slug] = Report(ex.slug, ex.id, outcomes=data["outcomes"], durations=data["durations"],
                                          suite_runs=data["suite_runs"], prints=data.get("prints", {}),
                                          cached=True)
                continue
        deps = {path: str(file) for path, file in dependency_paths(ex, exercises).items()}
        fulls.append((ex, {"kind": "full", "folder": str(ex.folder), "deps": deps, "gate": gate},
                      BOOT_LIMIT + ex.time_limit * (len(ex.catalogue) + len(ex.mutants) + 2), 0))
        broken = syntax_errors(ex)
        corpus_folders = ("alternatives", "careful")  # authoring/corpus.py, careful.py
        if not gate and any((ex.folder / f).is_dir() for f in corpus_folders) and "reference" not in broken:
            corpora.append((ex, {"kind": "corpus", "folder": str(ex.folder), "deps": deps},
                            BOOT_LIMIT + ex.time_limit * 4 * (len(ex.catalogue) + len(ex.mutants)), 0))
        if "reference" not in broken and "tests" not in broken:  # else there is nothing to run again
            # the last run on the separated path, where one interpreter cannot hold two (not in Pyodide)
            reruns += [(ex, {"kind": "reference", "folder": str(ex.folder), "deps": deps,
                             "separate": i == runs - 1 and not IN_PYODIDE},
                        BOOT_LIMIT + ex.time_limit * (len(ex.catalogue) + 1), i) for i in range(1, runs)]
    # With fewer exercises than cores, the mutants of each are shared out: the full job keeps a share, and
    # jobs of their own run the rest on the other cores.
    parts = _share_mutants(fulls, jobs) if len(fulls) < jobs else []
    # The longest jobs first and the short reruns last, so that every core stays busy to the end.
    tasks = sorted(fulls, key=lambda task: -len(task[0].mutants)) + parts + corpora + reruns
    # Fork servers (a fresh process without its start-up) pay off from two exercises on; one exercise's runs
    # cost as much either way.
    servers = runs if len(fulls) > 1 else 0
    results = _execute([(spec, timeout, i) for _, spec, timeout, i in tasks], jobs, servers)
    done: dict[str, dict[str, list[dict]]] = {}
    for (ex, spec, _, _), result in zip(tasks, results):
        done.setdefault(ex.slug, {"full": [], "mutants": [], "reference": [], "corpus": []})[spec["kind"]].append(result)
    for ex in chosen:
        if ex.slug in done:
            got = done[ex.slug]
            reports[ex.slug] = _combine(ex, got["full"][0], got["reference"], got["mutants"] + got["corpus"])
    for ex in chosen:
        _conclude(ex, reports[ex.slug], factor, stamps.get(ex.slug))
        errors += reports[ex.slug].errors
    return [reports[ex.slug] for ex in chosen], errors


def _conclude(ex: Exercise, report: Report, factor: Factor, stamp: Path | None) -> None:
    """The checks made on the combined report (the time budget, the known mistakes), then its cache stamp when
    it is clean: what validation found, the mutants' fingerprints included (course/known.py `recorded` reads them)."""
    if report.suite_ms is not None:
        report.estimate, over, warning = budget(ex, report.suite_ms, factor)
        report.errors += [over] if over else []
        report.warnings += [warning] if warning else []
    report.warnings += mistake_warnings(ex, report.prints, report.undiagnosed)
    if stamp is not None and not report.cached and not report.errors:
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(json.dumps({"outcomes": report.outcomes, "durations": report.durations,
                                     "suite_runs": report.suite_runs, "prints": report.prints}), encoding="utf-8")


# ---- known mistakes: how each mutant fails, for the diagnosis of a learner's failing check ----------------------

def told_apart(prints: dict[str, list[str] | None]) -> int:
    """How many mutants fail in a way no other mutant does (a fingerprint of their own)."""
    seen = [tuple(p) for p in prints.values() if p]
    return sum(1 for p in seen if seen.count(p) == 1)


def mistake_warnings(ex: Exercise, prints: dict[str, list[str] | None],
                     why: dict[str, str] | None = None) -> list[str]:
    """A warning for each mutant whose failure cannot be diagnosed (`why`: the reason, when known), and for each
    pair that fails exactly alike but stands for different pitfalls, unless the author accepted it (the mutant's
    `alike`)."""
    found = []
    by_name = {m.name: m for m in ex.mutants}
    for m in ex.mutants:
        if m.name in prints and prints[m.name] is None:
            reason = (why or {}).get(m.name) or "a time limit ended one of its tests, or the suite did not run on it"
            found.append(f"warning: {rel(m.path)}:1: mutant {m.name} cannot be diagnosed ({reason}, run twice); "
                         f"learners making this mistake are not told")
    for a, b in diagnosis.collisions(known.from_prints(ex, prints)):
        if a in by_name[b].alike or b in by_name[a].alike:
            continue
        found.append(f"warning: {rel(by_name[b].path)}:{manifest.line_of_field(by_name[b].path, 'pitfall')}: "
                     f"mutants {a} and {b} fail every test alike but stand for different pitfalls, so a learner "
                     f"making either mistake is shown both; separate them with a test, or accept it with "
                     f"alike = [\"{a}\"] in {b}.toml")
    return found


# ---- the command line -------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of `python -m authoring validate` (authoring/__main__.py builds the parser)."""
    parser.add_argument("ids", nargs="*", metavar="ID", help="exercises to validate, by id or folder name "
                        "(E7.3, e7-3); default: all")
    parser.add_argument("--json", action="store_true", help="print the outcomes, timings and problems as JSON")
    parser.add_argument("--cache", type=Path, metavar="DIR", nargs="?", const=manifest.cache_folder(),
                        help="skip exercises whose files validated cleanly before (a content-hash cache); "
                        "without DIR, the checkout's (course/store.py cache_folder: $TL_VALIDATE_CACHE, else "
                        ".cache/validate), which the build uses")
    parser.add_argument("--jobs", type=int, metavar="N", help="processes at a time (default: one per CPU core)")
    parser.add_argument("--runs", type=int, metavar="N", default=DEFAULT_RUNS, help="runs of each reference "
                        f"suite, each in a fresh process, to find flaky tests (default: {DEFAULT_RUNS})")
    parser.add_argument("--gate", action="store_true", help="only what decides whether each exercise is "
                        "consistent, fast: reference, starter, each mutant's own test, prompts (no corpus, no "
                        "fingerprints but the first mutant's, one run, no cache)")
    parser.add_argument("--gate-first", action="store_true", help="say the gate's verdict first, then validate in "
                        "full (the author's edit loop: `make validate EX=...`)")
    parser.add_argument("--root", type=Path, metavar="DIR", help="the folder holding one folder per exercise "
                        f"(default: {rel(manifest.EXERCISES)})")


def main(args: argparse.Namespace) -> int:
    """Run validation for parsed arguments: 0 when clean, 1 on problems, 2 for an unknown exercise."""
    root = args.root or manifest.EXERCISES
    if not root.is_dir():
        print(f"{root}: no such folder (--root names the folder holding one folder per exercise)", file=sys.stderr)
        return 2
    exercises = manifest.load_all(root, [])
    for key in args.ids:  # a folder that exists but does not load is validated, so that its errors are shown
        problem = unknown(key, exercises)
        if problem and not (root / manifest.slug_of(key) / "exercise.toml").is_file():
            print(str(problem).strip("'\""), file=sys.stderr)
            return 2
    if args.gate_first and not args.gate:
        started = time.monotonic()
        _, gate_errors = validate_all(args.ids or None, root=root, jobs=args.jobs, gate=True)
        print(f"gate: {'FAILED' if gate_errors else 'ok'} in {time.monotonic() - started:.1f} s (reference, "
              f"starter, each mutant's own test, prompts); the full validation follows", flush=True)
        gate_errors = list(dict.fromkeys(gate_errors))
        for line in gate_errors:
            print(line, file=sys.stderr, flush=True)
        args.reported = set(gate_errors)
        if gate_errors:
            return 1
    reports, errors = validate_all(args.ids or None, args.cache, root=root, jobs=args.jobs, runs=args.runs,
                                   gate=args.gate)
    errors = list(dict.fromkeys(errors))  # each mistake once, however many checks met it
    args.reported = getattr(args, "reported", set()) | set(errors)
    warnings = [w for r in reports for w in r.warnings]
    factor = browser_factor()
    if args.json:
        print(json.dumps({"errors": errors, "warnings": warnings, "factor": dataclasses.asdict(factor),
                          "outcomes": {r.slug: r.outcomes for r in reports},
                          "timings": {r.slug: {"suite_ms": r.suite_ms, "runs": r.suite_runs, "browser_s": r.estimate}
                                      for r in reports}}, indent=1, sort_keys=True))
    else:
        for r in reports:
            mutants = sum(1 for k in r.outcomes if k.startswith("mutant:"))
            status = "FAILED" if r.errors else "ok, cached" if r.cached else "ok"
            apart = f", {told_apart(r.prints)} told apart" if r.prints and not args.gate else ""
            print(f"{r.slug}: {status} ({len(r.outcomes.get('reference', {}))} tests, {mutants} mutants{apart}"
                  f"{r.timing()})")
        if any(r.estimate is not None for r in reports):
            print(f"browser time = CPython suite time × {factor.value:g} ({factor.source})")
        for line in warnings + errors:
            print(line, file=sys.stderr)
    return 1 if errors else 0
