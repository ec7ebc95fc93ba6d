"""`ol`: the learner's local workflow on the site's own exercises, hidden tests and judge.

    ol start M07.6      put the starter at python/tinyllm/prob/rejection.py in your folder
    ol tests M07.6      the catalogue of hidden tests: what each checks and why it matters
    ol check M07.6      run the hidden tests on your file; the exit code is the verdict
    ol diff  M07.6      after a pass (or as the exercise allows): your code against the reference
    ol hint  M07.6      the next hint, once a check has failed
    ol diagnoses off    stop naming the known mistake a failing check looks like (on: name it again)
    ol list             every exercise and its status in this folder
    ol export FILE      your code and passes as the site's progress file (the progress page imports it)
    ol import FILE      the site's progress export: its code into python/..., nothing counted as passed

Nothing here decides pass or fail: `checker.judge` does, in a fresh interpreter (`ol.checkrun`), exactly as the
site's worker does in Pyodide. Exercises come from $TL_EXERCISES, else from the course data packed in the
`tinyllm-ol` wheel (checker/course/, tools/ol_wheel.py), else from the `exercises/` folder of the checkout this
package lives in. Every problem ends as a short message and a non-zero exit, never as a traceback of `ol`.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import shutil
import sys
import textwrap
from pathlib import Path

from checker import diagnosis
from course import manifest
from course.manifest import Exercise, ManifestError

from . import checkrun, exchange
from .progress import CHANGED, NOT_STARTED, PASSED, STATE_DIR, Progress, ProgressError, backup, build_order, \
    ensure_state_dir, find_workspace, sha256_of

ENV_EXERCISES = "TL_EXERCISES"
PACKAGED = Path(__file__).resolve().parent / "course"  # present in the tinyllm-ol wheel only
IMPORTED = "imported.json"  # under .ol/: what an import brought that ol does not use itself (answers, prefs)
MISTAKES = "mistakes.json"  # beside an exercise's manifest in the wheel: its known mistakes (tools/ol_wheel.py)
WIDTH = 100
OUTPUT_LINES = 40  # lines of the learner's own printed output shown after a check

# Exit codes: 0 success; 1 the check ran and did not pass, or ol refused (would overwrite, diff before a pass,
# a dependency not passed); 2 the request could not be carried out (unknown id, missing file, bad manifest).
FAILED, BAD_INPUT = 1, 2


class OlError(Exception):
    """A message for the learner and the exit code that goes with it."""

    def __init__(self, message: str, code: int = BAD_INPUT):
        super().__init__(message)
        self.code = code


def width() -> int:
    """Terminal width, at most WIDTH columns, so text stays readable in a wide window too."""
    return max(60, min(WIDTH, shutil.get_terminal_size((WIDTH, 24)).columns))


def say(text: str = "", *, indent: str = "", hang: int = 0, file=None) -> None:
    """Print `text` wrapped to the terminal, keeping its own line breaks; `hang` indents continuation lines."""
    out = file or sys.stdout
    # A command in backticks is one unit: keep it on one line so it can be copied.
    glued = re.sub(r"`[^`\n]*`", lambda m: m.group(0).replace(" ", "\0"), text)
    for line in glued.split("\n"):
        wrapped = textwrap.wrap(line, width(), initial_indent=indent, subsequent_indent=indent + " " * hang,
                                break_long_words=False, break_on_hyphens=False)
        for part in wrapped or [""]:
            print(part.rstrip().replace("\0", " "), file=out)


def shown(path: Path) -> str:
    """`path` relative to the current directory when it is below it, else absolute."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve())) or "."
    except ValueError:
        return str(path)


def place(folder: Path) -> str:
    """A folder as a sentence can name it: "this folder" for the current one."""
    where = shown(folder)
    return "this folder" if where == "." else where


# ---- exercises and folders ----------------------------------------------------------------------------------------

def build_info() -> dict:
    """{"course", "version", "site"} of the wheel ol came from; a checkout's version is "checkout"."""
    try:
        info = json.loads((PACKAGED / "build.json").read_text(encoding="utf-8"))
        if isinstance(info, dict):
            return {"course": str(info.get("course") or exchange.COURSE), "version": str(info.get("version", "")),
                    "site": str(info.get("site", ""))}
    except (OSError, ValueError):
        pass
    return {"course": exchange.COURSE, "version": "checkout", "site": ""}


def exercises_root() -> Path:
    """$TL_EXERCISES, else the exercises packed in the wheel, else the `exercises/` folder of the checkout."""
    env = os.environ.get(ENV_EXERCISES)
    packaged = PACKAGED / "exercises"
    root = Path(env).expanduser().resolve() if env else packaged if packaged.is_dir() else manifest.EXERCISES
    if not root.is_dir():
        where = f"${ENV_EXERCISES} points at {root}" if env else f"ol looks for exercises in {root}"
        raise OlError(f"{where}, and there is no such folder. Install ol from the course site (`pip install "
                      f"--extra-index-url <the site>/simple/ tinyllm-ol`), or set {ENV_EXERCISES} to an "
                      f"exercises/ folder.")
    return root


def load_exercises() -> dict[str, Exercise]:
    """Every exercise, or an OlError that names the broken manifest and field."""
    root = exercises_root()
    try:
        found = manifest.load_all(root)
    except ManifestError as exc:
        raise OlError(f"the exercise data is broken, so ol cannot continue: {exc}") from None
    if not found:
        raise OlError(f"no exercises found in {root} (each lives in <id>/exercise.toml)")
    return found


def lookup(key: str, exercises: dict[str, Exercise]) -> Exercise:
    """The exercise named `key` in any case and spelling (M07.6, m07.6, m07-6), or a message listing them all."""
    try:
        return manifest.find(key, exercises)
    except KeyError:
        known = ", ".join(sorted(e.id for e in exercises.values()))
        raise OlError(f"there is no exercise {key!r}. Exercise ids look like E7.3 or M07.6 (any case, '.' or '-'); "
                      f"the ones available are: {known}. `ol list` shows them with their status.") from None


def by_id(exercises: dict[str, Exercise]) -> dict[str, Exercise]:
    return {e.id: e for e in exercises.values()}


def workspace(args: argparse.Namespace) -> Path:
    folder = find_workspace(Path(args.dir) if getattr(args, "dir", None) else None, Path.cwd())
    if not folder.is_dir():
        raise OlError(f"the working folder {folder} does not exist (from --dir)")
    return folder


def progress(folder: Path) -> Progress:
    try:
        record = Progress.load(folder)
    except ProgressError as exc:
        raise OlError(str(exc)) from None
    mine = build_order(build_info()["version"])
    newer = sorted(i for i, p in record.passes.items() if mine and build_order(p.build) > mine)
    if newer:
        say(f"note: this ol ({build_info()['version']}) is older than the one that recorded the pass of "
            f"{', '.join(newer)} in {shown(record.path)}; its exercises may have changed since. Update it: "
            f"`pip install -U --extra-index-url <the site>/simple/ tinyllm-ol`.", file=sys.stderr)
    return record


def read_learner(ex: Exercise, folder: Path) -> bytes:
    """The bytes of the learner's file for `ex`, or a message saying how to create it."""
    path = folder / ex.learner_path
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise OlError(f"{ex.id}: your file {ex.learner_path} is not in {place(folder)}. Run `ol start {ex.id}` "
                      f"there to create it from the starter, or pass --dir with the folder that holds your "
                      f"python/ directory.") from None
    except OSError as exc:
        raise OlError(f"{ex.id}: cannot read {shown(path)}: {exc.strerror or exc}") from None
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise OlError(f"{ex.id}: {shown(path)} is not UTF-8 text (byte {exc.start} cannot be decoded). Save it "
                      f"as UTF-8 in your editor and run ol again.") from None
    return data


# ---- ol start ---------------------------------------------------------------------------------------------------

def cmd_start(args: argparse.Namespace) -> int:
    ex = lookup(args.id, load_exercises())
    folder = workspace(args)
    target = folder / ex.learner_path
    starter = ex.starter.read_bytes()
    note = ""
    if target.exists():
        if target.read_bytes() == starter:
            say(f"{ex.id}: {shown(target)} is already there, unchanged from the starter.")
            return 0
        if not args.force:
            raise OlError(f"{ex.id}: {shown(target)} already exists and differs from the starter, so it holds "
                          f"your work; ol start never overwrites it. To start over, run `ol start {ex.id} "
                          f"--force`: your file is first copied to {shown(folder / '.ol' / 'backups')}/.",
                          FAILED)
        note = f"Your previous file is saved as {shown(backup(folder, ex.learner_path))}\n"
    ensure_state_dir(folder)
    made = make_packages(folder, ex.learner_path)
    target.write_bytes(starter)
    also = f" (and {', '.join(shown(m) for m in made)}, so python/ imports as a package)" if made else ""
    say(f"{note}{ex.id} {ex.title}: wrote the starter to {shown(target)}{also}")
    needs = ", ".join(ex.requires)
    say(f"Next: `ol tests {ex.id}` to read what the hidden tests check, then `ol check {ex.id}`."
        + (f" It builds on {needs}: pass that first, or add --ref-deps to use the reference." if needs else ""))
    return 0


def make_packages(folder: Path, learner_path: str) -> list[Path]:
    """Create the folders of `learner_path` and an empty `__init__.py` in each package folder below python/
    that lacks one (never touching an existing file). Returns the files created."""
    made = []
    parts = Path(learner_path).parts  # ("python", "tinyllm", "prob", "rejection.py")
    for depth in range(2, len(parts)):
        package = folder.joinpath(*parts[:depth])
        package.mkdir(parents=True, exist_ok=True)
        init = package / "__init__.py"
        if not init.exists():
            init.write_text("", encoding="utf-8")
            made.append(init)
    return made


# ---- ol tests ---------------------------------------------------------------------------------------------------

def cmd_tests(args: argparse.Namespace) -> int:
    ex = lookup(args.id, load_exercises())
    needs = f"; builds on {', '.join(ex.requires)}" if ex.requires else ""
    say(f"{ex.id} {ex.title} ({ex.kind}{needs}): {len(ex.catalogue)} hidden tests, up to {ex.time_limit:g} s "
        f"each, run on {ex.learner_path}")
    for i, test in enumerate(ex.catalogue, 1):
        print()
        say(f"{i:2}. {test.name}  [{test.kind}]")
        say(f"checks: {test.checks}", indent="    ", hang=8)
        say(f"why:    {test.why}", indent="    ", hang=8)
    return 0


# ---- ol check ---------------------------------------------------------------------------------------------------

def missing_dependency(ex: Exercise, exercises: dict[str, Exercise], folder: Path, record: Progress) -> str:
    """'' when every dependency passed with its current file here; else the gating message.

    Direct requirements are named before transitive ones: M07.6 asks for M07.1, and M07.1's own check will then
    ask for M06.3. A dependency edited since it passed counts as not passed: its new version was never judged.
    """
    for dep in manifest.check_order(ex, by_id(exercises)):
        status = record.status(dep.id, folder / dep.learner_path)
        if status == PASSED:
            continue
        why = {NOT_STARTED: f"you have not started {dep.id} in this folder; `ol start {dep.id}`, then pass "
                            f"`ol check {dep.id}`",
               CHANGED: f"your {dep.learner_path} changed since {dep.id} passed, so it must pass again: "
                        f"`ol check {dep.id}`"}.get(status, f"{dep.id} has not passed in this folder yet: "
                                                             f"`ol check {dep.id}`")
        via = "" if dep.id in ex.requires else f" (through {', '.join(ex.requires)})"
        return (f"{ex.id} needs {dep.id}{via}: {why}. Or run `ol check {ex.id} --ref-deps` to use the "
                f"reference implementation of every exercise it builds on.")
    return ""


def _learner_paths(text: str, exercises: dict[str, Exercise]) -> str:
    """Show files under the names the learner knows (python/tinyllm/...), not the judge's import paths."""
    for e in exercises.values():
        text = re.sub(r'(File "|of )' + re.escape(e.import_path) + r'\b', r"\g<1>" + e.learner_path, text)
    return text


def _stopped_message(ex: Exercise, outcome: checkrun.Outcome) -> str:
    limit = f"{ex.time_limit:g} s"
    seconds = f"stopped after {outcome.elapsed:.0f} s"
    why = ("and could not be interrupted: for example a long call into C code (numpy on a huge array), or a "
           "loop that catches every exception, even the one that stops it.")
    if outcome.stopped == "import":
        return (f"{ex.id}: {seconds} while importing {ex.learner_path}: the code at the top level of your file "
                f"ran past the {limit} limit {why}")
    if outcome.stopped == "test":
        return (f"{ex.id}: {seconds} in {outcome.test}: it ran past the {limit} limit per test {why} "
                f"The remaining tests did not run.")
    if outcome.stopped == "collect":
        return (f"{ex.id}: {seconds} while the hidden tests were loading (they import your module's names) "
                f"{why}")
    if outcome.stopped == "boot":
        return f"{ex.id}: {seconds}: the checker's Python did not start (is the machine very busy?)."
    return f"{ex.id}: {seconds}: the check as a whole took far longer than {limit} per test {why}"


def _print_tests(result: dict, exercises: dict[str, Exercise]) -> None:
    for test in result["tests"]:
        label = {"passed": "passed", "failed": "FAILED"}.get(test["outcome"], "ERROR")
        say(f"  {label:7} {test['name']}")
        if test["outcome"] != "passed" and test.get("message"):
            say(_learner_paths(test["message"], exercises), indent=" " * 10)


def _print_output(stdout: str) -> None:
    lines = stdout.rstrip("\n").splitlines()
    if not lines:
        return
    print("\nYour code printed:")
    for line in lines[:OUTPUT_LINES]:
        print("  | " + line)
    if len(lines) > OUTPUT_LINES:
        print(f"  | ... {len(lines) - OUTPUT_LINES} more lines")


def dependency_files(ex: Exercise, exercises: dict[str, Exercise], folder: Path,
                     ref_deps: bool) -> tuple[list[Exercise], dict[str, str]]:
    """The exercises `ex` builds on, and their files as it imports them (by import path): the learner's, once
    passed (else OlError naming the first that has not), or with `ref_deps` the references. `ol check` and
    `ol trace` both run with these."""
    deps = manifest.dependency_order(ex, by_id(exercises))
    if not ref_deps:
        gate = missing_dependency(ex, exercises, folder, progress(folder))
        if gate:
            raise OlError(gate, FAILED)
    elif not deps:
        say(f"note: {ex.id} has no dependencies; --ref-deps changes nothing.", file=sys.stderr)
    files = {d.import_path: (d.reference if ref_deps else folder / d.learner_path).read_text(encoding="utf-8")
             for d in deps}
    return deps, files


def cmd_check(args: argparse.Namespace) -> int:
    exercises = load_exercises()
    ex = lookup(args.id, exercises)
    folder = workspace(args)
    data = read_learner(ex, folder)
    deps, files = dependency_files(ex, exercises, folder, args.ref_deps)
    files[ex.import_path] = data.decode("utf-8")
    used = (" with the reference " if args.ref_deps else " with your ") + ", ".join(d.id for d in deps) if deps else ""
    say(f"{ex.id} {ex.title}: checking {shown(folder / ex.learner_path)}{used} against {len(ex.catalogue)} "
        f"hidden tests (up to {ex.time_limit:g} s each)...")
    sys.stdout.flush()
    request = {"tests": {ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")}, "files": files,
               "learner": ex.import_path, "names": ex.test_names(), "time_limit": ex.time_limit}
    outcome = checkrun.judge_in_child(request, tests=len(ex.catalogue))
    if outcome.stopped:
        say(_stopped_message(ex, outcome))
        return FAILED
    if outcome.result is None:
        say(f"{ex.id}: the check process {outcome.crash.splitlines()[0]}, so there is no verdict. Code that "
            f"calls os._exit() or crashes the interpreter (a segfault in C code) does this.")
        for line in outcome.crash.splitlines()[1:]:
            print("  | " + line)
        return FAILED
    return report(ex, exercises, outcome.result, folder, data, args.ref_deps)


def cmd_trace(args: argparse.Namespace) -> int:
    """One call of your function, line by line: the site's Trace, as text."""
    from checker import trace

    from . import tracerun
    exercises = load_exercises()
    ex = lookup(args.id, exercises)
    folder = workspace(args)
    code = read_learner(ex, folder).decode("utf-8")
    _deps, files = dependency_files(ex, exercises, folder, args.ref_deps)
    result = tracerun.trace_in_child({"code": code, "filename": ex.import_path, "files": files, "expr": args.expr,
                                      "time_limit": ex.time_limit})
    if "crash" in result:
        say(f"{ex.id}: the trace process {result['crash']}; no steps to show.")
        return FAILED
    if not result.get("ran"):
        say(f"{ex.id}: your file did not run, so there is nothing to trace:")
        print(result["traceback"].rstrip() or result["status"])
        return FAILED
    print(trace.as_text(result["steps"], code.splitlines()) or "(no line of your file ran in this call)")
    if result["cut"]:
        say(f"cut at {len(result['steps'])} steps: the trace's cap stopped the call.")
    if result["status"] == "timeout":
        say(f"stopped by the time limit ({ex.time_limit:g} s) after {len(result['steps'])} steps.")
    if result["stdout"]:
        print("\nResult and output:\n" + result["stdout"].rstrip())
    if result["status"] == "error":
        print(result["traceback"].rstrip())
        return FAILED
    return 0 if result["status"] == "ok" and not result["cut"] else FAILED


def report(ex: Exercise, exercises: dict[str, Exercise], result: dict, folder: Path, data: bytes,
           ref_deps: bool) -> int:
    """Print the judge's verdict; record a pass. Returns the exit code."""
    tests = result.get("tests", [])
    traceback_text = _learner_paths(result.get("traceback", ""), exercises).rstrip()
    phase = result.get("phase")  # where the check ended (checker/judge.py)
    if phase == "import":
        if result["status"] == "timeout":
            say(f"{ex.id}: stopped after {ex.time_limit:g} s while importing {ex.learner_path}, so no test ran. "
                f"It was here:")
        else:
            say(f"{ex.id}: your file {ex.learner_path} did not run, so none of the {len(tests)} hidden tests "
                f"could. Python says:")
        print(traceback_text)
        _print_output(result.get("stdout", ""))
        _count_failure(ex, folder, result)
        return FAILED
    if phase == "collect":
        last = [line for line in traceback_text.splitlines() if line.strip()][-1:] or ["no result"]
        say(f"{ex.id}: the hidden tests could not be loaded against your file: {last[0]}")
        _count_failure(ex, folder, result)
        return FAILED
    _print_tests(result, exercises)
    if phase == "tampered":  # nothing was judged: say why
        print(traceback_text)
    _print_output(result.get("stdout", ""))
    passed = sum(t["outcome"] == "passed" for t in tests)
    failed = sum(t["outcome"] == "failed" for t in tests)
    errors = len(tests) - passed - failed
    if result["status"] == "passed" and passed == len(tests) == len(ex.catalogue):
        record = Progress(folder, {})
        try:
            record = Progress.load(folder)  # afresh: another ol may have recorded a pass meanwhile
            record.record(ex.id, sha256_of(data), ref_deps, build_info()["version"])
            record.save()
        except ProgressError as exc:
            say(f"warning: the pass could not be recorded: {exc}", file=sys.stderr)
        say(f"\n{ex.id}: {'the test' if passed == 1 else f'all {passed} tests'} passed. Recorded in {shown(record.path)}; `ol diff {ex.id}` now "
            f"shows your code against the reference.")
        return 0
    parts = [f"{passed} passed", f"{failed} failed"] + ([f"{errors} error" + "s" * (errors > 1)] if errors else [])
    first = next(t["name"] for t in tests if t["outcome"] != "passed")
    record = _count_failure(ex, folder, result)
    _print_diagnosis(ex, result, record)
    hints = (f" `ol hint {ex.id}` gives a hint ({record.help_of(ex.id)['hints']} of {len(ex.hints)} seen)."
             if record.help_of(ex.id)["hints"] < len(ex.hints) else "")
    say(f"\n{ex.id}: not passed yet ({', '.join(parts)} of {len(tests)}). Start with {first}; "
        f"`ol tests {ex.id}` says what each test checks.{hints}")
    return FAILED


# ---- help: known mistakes, hints, the reference on the author's terms --------------------------------------------

def known_mistakes(ex: Exercise) -> list[dict]:
    """The exercise's known mistakes (checker/diagnosis.py): from the wheel's mistakes.json, else, in a checkout,
    from the newest clean validation of the exercise (.cache/validate); [] when there are none."""
    try:
        data = json.loads((ex.folder / MISTAKES).read_text(encoding="utf-8"))
    except FileNotFoundError:
        data = _checkout_mistakes(ex)
    except (OSError, ValueError):
        return []
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def _checkout_mistakes(ex: Exercise) -> list[dict]:
    stamps = sorted(manifest.cache_folder().glob(f"{ex.slug}-*.ok"), key=lambda p: p.stat().st_mtime)
    try:
        prints = json.loads(stamps[-1].read_text(encoding="utf-8")).get("prints", {}) if stamps else {}
    except (OSError, ValueError, AttributeError):
        return []
    return [diagnosis.known(m.name, m.pitfall, prints[m.name]) for m in ex.mutants
            if isinstance(prints, dict) and prints.get(m.name)]


def _update_progress(folder: Path, change) -> Progress:
    """Load the record afresh, apply `change(record)`, save; a record that cannot be written is a warning."""
    record = Progress(folder, {})
    try:
        record = Progress.load(folder)
        change(record)
        record.save()
    except ProgressError as exc:
        say(f"warning: {exc}", file=sys.stderr)
    return record


def _count_failure(ex: Exercise, folder: Path, result: dict) -> Progress:
    """Count a failed check (the judge looked at the code and it did not pass): hints and a reveal follow it."""
    def count(record: Progress) -> None:
        help_ = record.help_of(ex.id)
        record.help[ex.id] = {**help_, "failed": help_["failed"] + 1}
    if result.get("status") in ("failed", "error") and result.get("phase") != "tampered":
        return _update_progress(folder, count)
    try:
        return Progress.load(folder)
    except ProgressError:
        return Progress(folder, {})


def _print_diagnosis(ex: Exercise, result: dict, record: Progress) -> None:
    """Under the test list: the known mistakes the failure looks like, as the site shows them."""
    if record.settings.get("diagnoses") is False:
        return
    found = diagnosis.diagnose(result, known_mistakes(ex))
    if not found:
        return
    say("\nThis looks like a known mistake:" if len(found) == 1 else "\nThis looks like one of these known mistakes:")
    for item in found:
        text = "; or: ".join([item["pitfall"], *item.get("also", [])])
        say(f"- pitfall {item['number']}: {text}" if item.get("number") else f"- {text}", indent="  ", hang=2)
    if any(item.get("number") for item in found):
        say(f"(Pitfall numbers are the rows of the Pitfalls table on {ex.id}'s page.)", indent="  ")
    say("(`ol diagnoses off` stops naming known mistakes.)", indent="  ")


_TEX = {r"\le": "≤", r"\ge": "≥", r"\ne": "≠", r"\dots": "…", r"\cdot": "·", r"\,": " ", r"\alpha": "α",
        r"\max": "max", r"\min": "min", r"\sum": "Σ", r"\times": "×", r"\lvert": "|", r"\rvert": "|"}


def plain(markdown: str) -> str:
    r"""A hint's Markdown as terminal text: paragraphs unwrapped (say() wraps them again), maths without its
    dollars and with the few TeX commands hints use as symbols (`$u \le r$` -> `u ≤ r`)."""
    def maths(found: re.Match) -> str:
        text = found.group(1)
        for command, symbol in _TEX.items():
            text = re.sub(re.escape(command) + r"(?![A-Za-z])", symbol, text)
        return re.sub(r"\^\{([^{}]*)\}", r"^\1", text).replace("{", "").replace("}", "")
    text = re.sub(r"\$([^$]+)\$", maths, markdown.strip())
    return "\n\n".join(" ".join(part.split()) for part in re.split(r"\n\s*\n", text))


def cmd_hint(args: argparse.Namespace) -> int:
    ex = lookup(args.id, load_exercises())
    folder = workspace(args)
    record = progress(folder)
    help_ = record.help_of(ex.id)
    total = len(ex.hints)
    if not total:
        say(f"{ex.id} has no hints. `ol tests {ex.id}` says what each hidden test checks and why.")
        return 0
    if help_["hints"] == 0 and help_["failed"] == 0 and ex.id not in record.passes:
        raise OlError(f"{ex.id}: hints are offered once a check has failed; run `ol check {ex.id}` first.", FAILED)
    if help_["hints"] >= total or args.all:
        shown = range(min(help_["hints"], total)) if args.all else range(total)
        if not args.all:
            say(f"{ex.id}: you have seen all {total} hints; here they are again.")
        for i in shown:
            say(f"\nHint {i + 1} of {total}:")
            say(plain(ex.hints[i]), indent="  ")
        return 0
    n = help_["hints"] + 1
    _update_progress(folder, lambda r: r.help.__setitem__(ex.id, {**r.help_of(ex.id), "hints": n}))
    say(f"{ex.id}, hint {n} of {total}:")
    say(plain(ex.hints[n - 1]), indent="  ")
    if n < total:
        say(f"\nStill stuck? `ol hint {ex.id}` again gives the next one.")
    return 0


def cmd_diagnoses(args: argparse.Namespace) -> int:
    folder = workspace(args)
    ensure_state_dir(folder)
    on = args.state == "on"
    _update_progress(folder, lambda record: record.settings.__setitem__("diagnoses", on))
    say("ol check names the known mistake a failing check looks like." if on else
        "ol check no longer names known mistakes (`ol diagnoses on` brings them back).")
    return 0


def _reveal_before_pass(ex: Exercise, folder: Path, record: Progress, yes: bool) -> None:
    """Allow the reference before a pass when the exercise's policy does (`reveal`), confirmed and recorded;
    else an OlError saying what the policy is and what is still missing."""
    help_ = record.help_of(ex.id)
    if help_.get("revealed"):
        return
    if not ex.reveal_after:
        raise OlError(f"{ex.id}: ol diff shows the reference only after your own check has passed, and "
                      f"{ex.id} has not passed in {place(folder)}. Run `ol check {ex.id}` first.", FAILED)
    total = len(ex.hints)
    if help_["failed"] < ex.reveal_after or help_["hints"] < total:
        hints = f" and every hint ({help_['hints']} of {total} so far: `ol hint {ex.id}`)" if total else ""
        raise OlError(f"{ex.id}: the reference is shown before a pass after {ex.reveal_after} failed checks "
                      f"({help_['failed']} so far){hints}.", FAILED)
    question = ("Seeing the reference is recorded in .ol/progress.json and does not count as a pass: your own "
                "code still has to pass. Show it? [y/N] ")
    if not yes and not (sys.stdin.isatty() and _confirm(question)):
        raise OlError(f"{ex.id}: not shown. Run `ol diff {ex.id} --yes` to see the reference before passing "
                      f"(it is recorded).", FAILED)
    _update_progress(folder, lambda r: r.help.__setitem__(ex.id, {**r.help_of(ex.id),
                                                                   "revealed": exchange.now_ms()}))


# ---- ol diff ----------------------------------------------------------------------------------------------------

def cmd_diff(args: argparse.Namespace) -> int:
    ex = lookup(args.id, load_exercises())
    folder = workspace(args)
    record = progress(folder)
    passed = record.passes.get(ex.id)
    if passed is None:
        _reveal_before_pass(ex, folder, record, args.yes)
        say(f"note: {ex.id} has not passed here; you chose to see the reference. Your own code still has to pass "
            f"`ol check {ex.id}`.", file=sys.stderr)
    data = read_learner(ex, folder)
    if passed is not None and sha256_of(data) != passed.sha256:
        say(f"note: {ex.learner_path} changed since it passed ({passed.when}); this is your current file "
            f"against the reference. `ol check {ex.id}` records the new version.", file=sys.stderr)
    mine = data.decode("utf-8").splitlines(keepends=True)
    ref = ex.reference.read_text(encoding="utf-8").splitlines(keepends=True)
    lines = list(difflib.unified_diff(mine, ref, f"yours/{ex.learner_path}", f"reference/{ex.learner_path}"))
    if not lines:
        say(f"{ex.id}: your file is identical to the reference.")
    for line in lines:
        sys.stdout.write(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return 0


# ---- ol list ----------------------------------------------------------------------------------------------------

def cmd_list(args: argparse.Namespace) -> int:
    exercises = load_exercises()
    folder = workspace(args)
    record = progress(folder)
    rows = [("ID", "KIND", "STATUS", "REQUIRES", "TITLE")]
    for ex in sorted(exercises.values(), key=lambda e: e.slug):
        rows.append((ex.id, ex.kind, record.status(ex.id, folder / ex.learner_path),
                     ", ".join(ex.requires) or "-", ex.title))
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        line = "  ".join(cell.ljust(w) for cell, w in zip(row, widths)) + "  " + row[4]
        print(line if len(line) <= width() else line[: width() - 3] + "...")
    done = sum(record.status(e.id, folder / e.learner_path) == PASSED for e in exercises.values())
    say(f"\n{done} of {len(exercises)} passed in {place(folder)}.")
    return 0


# ---- ol export / ol import ----------------------------------------------------------------------------------------

def _imported(folder: Path) -> dict[str, object]:
    """Entries an earlier import brought that ol keeps only to pass them on (answers, predictions, prefs)."""
    try:
        data = json.loads((folder / STATE_DIR / IMPORTED).read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}


def cmd_export(args: argparse.Namespace) -> int:
    exercises = load_exercises()
    folder = workspace(args)
    record = progress(folder)
    target = Path(args.file).expanduser()
    if target.exists() and not args.force:
        raise OlError(f"{shown(target)} exists; ol export never overwrites a file without --force.", FAILED)
    info = build_info()
    data = {k: v for k, v in _imported(folder).items() if k.startswith(("prompt:", "prefs:"))}
    written = passed = 0
    for ex in sorted(exercises.values(), key=lambda e: e.slug):
        path = folder / ex.learner_path
        if not path.is_file():
            continue
        raw = read_learner(ex, folder)
        data[f"code:{ex.slug}"] = {"code": raw.decode("utf-8"), "at": int(path.stat().st_mtime * 1000)}
        written += 1
        entry = record.passes.get(ex.id)
        help_ = record.help_of(ex.id)
        if help_["hints"] or help_["failed"] or help_.get("revealed"):
            data[f"help:{ex.slug}"] = help_
        if entry is not None and entry.sha256 == sha256_of(raw):
            data[f"elsewhere:{ex.slug}"] = {"status": "passed", "by": "ol", "sha256": entry.sha256,
                                            "when": entry.when, "build": entry.build, "refDeps": entry.ref_deps}
            passed += 1
    data.update({f"settings:{k}": v for k, v in record.settings.items()})
    text = exchange.render(data, course=info["course"], build=info["version"], origin="ol")
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    say(f"Exported the code of {written} exercise{'s' if written != 1 else ''} ({passed} passed here) to "
        f"{shown(target)}. On the site, open Your progress and choose Import: the code appears in each editor, "
        f"and each pass counts there once the page has checked it.")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    exercises = load_exercises()
    folder = workspace(args)
    source = Path(args.file).expanduser()
    try:
        text = source.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OlError(f"{shown(source)}: no such file") from None
    except UnicodeDecodeError:
        raise OlError(f"{shown(source)} is not a progress export (it is not text)") from None
    try:
        dump = exchange.parse(text, build_info()["course"])
    except exchange.ExchangeError as exc:
        raise OlError(f"{shown(source)}: {exc}; nothing was imported.") from None
    plan, unknown, same, clash = [], [], [], []
    for slug, code in sorted(dump.code().items()):
        ex = exercises.get(slug)
        if ex is None:
            unknown.append(slug)
            continue
        target = folder / ex.learner_path
        if target.is_file() and target.read_text(encoding="utf-8", errors="replace") == code:
            same.append(ex)
            continue
        if target.exists():
            clash.append(ex)
        plan.append((ex, code))
    if clash and not args.force:
        names = ", ".join(ex.learner_path for ex in clash)
        if not (sys.stdin.isatty() and _confirm(f"Replace your {names} with the imported code? Your files are "
                                                f"backed up in .ol/backups/ first. [y/N] ")):
            raise OlError(f"{names} already exist{'s' if len(clash) == 1 else ''} here and differ from the "
                          f"file; nothing was imported. Run `ol import {args.file} --force` to replace them (a "
                          f"backup of each is kept in .ol/backups/).", FAILED)
    ensure_state_dir(folder)
    for ex, code in plan:
        if (folder / ex.learner_path).exists():
            backup(folder, ex.learner_path)
        make_packages(folder, ex.learner_path)
        (folder / ex.learner_path).write_text(code, encoding="utf-8")
    kept = {**_imported(folder), **{k: v for k, v in dump.data.items() if k.startswith(("prompt:", "prefs:"))}}
    (folder / STATE_DIR / IMPORTED).write_text(json.dumps(kept, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    if any(k.startswith(("help:", "settings:")) for k in dump.data):
        _update_progress(folder, lambda record: _take_help(record, dump, exercises))
    for ex, _code in plan:
        say(f"  wrote {ex.learner_path} ({ex.id})")
    for slug in unknown:
        say(f"  skipped the code of {slug}: no such exercise in this version of the course", file=sys.stderr)
    if same:
        say(f"  unchanged: {', '.join(ex.id for ex in same)} (your file already holds that code)")
    checks = " ".join(f"`ol check {ex.id}`" for ex, _ in plan)
    say(f"Imported {len(plan)} file{'s' if len(plan) != 1 else ''} from {shown(source)}. Nothing counts as "
        f"passed here until ol has judged it" + (f": {checks}." if plan else "."))
    return 0


def _take_help(record: Progress, dump: exchange.Dump, exercises: dict[str, Exercise]) -> None:
    """The help taken and the settings from an imported file, merged into the record: nothing revealed there or
    here is hidden again (exchange.merge_help)."""
    for key, value in dump.data.items():
        if key.startswith("help:") and key[5:] in exercises:
            ident = exercises[key[5:]].id
            record.help[ident] = exchange.merge_help(record.help_of(ident), value)
        elif key.startswith("settings:") and isinstance(value, bool):
            record.settings[key[9:]] = value


def _confirm(question: str) -> bool:
    try:
        return input(question).strip().lower() in ("y", "yes")
    except EOFError:
        return False


# ---- the command line -------------------------------------------------------------------------------------------

EPILOG = """exit codes: 0 success (for check: every hidden test passed); 1 not passed, stopped, or refused;
2 bad input (unknown exercise, missing file, broken exercise data).
Exercise ids are accepted in any case and as E7.3, e7.3 or e7-3. Your folder is --dir, else the nearest folder
at or above the current one that holds .ol/ (ol start creates it), else the current folder.
Exercises are read from $TL_EXERCISES, the tinyllm-ol wheel, or the course checkout ol is installed from."""


def build_parser() -> argparse.ArgumentParser:
    """The argparse tree; `--help` on the command and every subcommand comes from here."""
    parser = argparse.ArgumentParser(
        prog="ol", formatter_class=argparse.RawDescriptionHelpFormatter, epilog=EPILOG,
        description="Work the tinyllm exercises in your own editor: the same starters, hidden tests and judge "
                    "as the site, offline.")
    info = build_info()
    source = info["site"] or ("the tinyllm-ol wheel" if (PACKAGED / "exercises").is_dir() else
                               f"the checkout at {manifest.REPO}")
    parser.add_argument("--version", action="version",
                        version=f"ol {info['version']} ({info['course']} exercises, from {source})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    folder = argparse.ArgumentParser(add_help=False)
    folder.add_argument("--dir", metavar="DIR", help="your working folder (default: see below)")
    ref_deps = argparse.ArgumentParser(add_help=False)
    ref_deps.add_argument("--ref-deps", action="store_true",
                          help="use the reference implementations of every exercise this one builds on")

    def command(name: str, summary: str, detail: str, func, parents=(folder,)) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=summary, description=detail, epilog=EPILOG, parents=list(parents),
                           formatter_class=argparse.RawDescriptionHelpFormatter)
        p.set_defaults(func=func)
        return p

    p = command("start", "put an exercise's starter into your folder",
                "Write the starter of an exercise at its path in your folder (M07.6: python/tinyllm/prob/"
                "rejection.py) and print where.\nExisting work is never overwritten without --force, which first "
                "copies it to .ol/backups/.", cmd_start)
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("--force", action="store_true", help="replace your file with the starter (a backup is kept)")
    p = command("tests", "show the catalogue of hidden tests",
                "List the hidden tests of an exercise: name, kind, what it checks and why it matters.\n"
                "Read it before you start; the tests' source stays hidden.", cmd_tests, parents=())
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p = command("check", "run the hidden tests on your file (exit code 0 = passed)",
                "Run the exercise's hidden tests on your file with the course's judge, in a fresh Python process\n"
                "with a time limit per test, print each outcome, and record a pass in .ol/progress.json.\n"
                "An exercise that builds on others (requires) uses your passed files of those, or with\n"
                "--ref-deps the reference implementations.", cmd_check, parents=(folder, ref_deps))
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p = command("trace", "one call of your function, step by step",
                "Run your file as the site's Run does, then call EXPR (e.g. \"residual_distribution([0.5, 0.5],\n"
                "[0.25, 0.75])\") and print each line of your file it runs, with the call stack and the\n"
                "variables (numpy arrays with shape and dtype; * marks those that changed). Capped at 1000 steps;\n"
                "the exercise's time limit stops it, keeping the steps so far.", cmd_trace, parents=(folder, ref_deps))
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("expr", help="the call to trace, in quotes")
    p = command("diff", "after a pass: your code against the reference",
                "Show a unified diff of your file against the reference solution: after your check has passed,\n"
                "or, where the exercise allows it, after enough failed checks and every hint (recorded; it\n"
                "never counts as a pass).", cmd_diff)
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("--yes", action="store_true", help="before a pass: show the reference without asking")
    p = command("hint", "the next hint of an exercise, once a check has failed",
                "Print the next hint of an exercise (they go from a nudge to the decisive idea) and record it\n"
                "in .ol/progress.json, as the site does; --all prints the ones you have seen.", cmd_hint)
    p.add_argument("id", help="exercise id, e.g. M07.6")
    p.add_argument("--all", action="store_true", help="print every hint seen so far, revealing none")
    p = command("diagnoses", "turn the naming of known mistakes on or off",
                "After a failing check, ol names the known mistake your code looks like (from the course's\n"
                "mutants). `ol diagnoses off` stops that; `ol diagnoses on` brings it back.", cmd_diagnoses)
    p.add_argument("state", choices=["on", "off"])
    command("list", "every exercise and its status in your folder",
            "List every exercise with its kind, what it requires, and its status in your folder:\n"
            "not started, started, passed, or changed since pass.", cmd_list)
    p = command("export", "write your code and passes as the site's progress file",
                "Write the code of every exercise in your folder, and which of them passed here, in the format\n"
                "of the site's progress page, which imports it (each pass counts there once the page has\n"
                "checked the code itself).", cmd_export)
    p.add_argument("file", help="the file to write, e.g. progress.json")
    p.add_argument("--force", action="store_true", help="overwrite the file if it exists")
    p = command("import", "take the site's progress export into your folder",
                "Write the code from the site's progress export into python/... in your folder. Files that\n"
                "exist and differ are replaced only after you confirm (or with --force), each backed up to\n"
                ".ol/backups/ first. Nothing counts as passed until `ol check` has judged it.", cmd_import)
    p.add_argument("file", help="the exported file, e.g. tinyllm-progress-2026-12-01.json")
    p.add_argument("--force", action="store_true", help="replace differing files without asking (backups kept)")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the `ol` console script; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return BAD_INPUT
    try:
        return args.func(args)
    except OlError as exc:
        say(f"ol: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        say("ol: interrupted.", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `ol tests X | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return FAILED
    except OSError as exc:  # a folder that is a file, a full disk, no permission: name the file
        where = f" ({exc.filename})" if exc.filename else ""
        say(f"ol: {exc.strerror or exc}{where}", file=sys.stderr)
        return BAD_INPUT
    except Exception as exc:  # noqa: BLE001 - a learner must never see a traceback of ol itself
        if os.environ.get("OL_DEBUG"):
            raise
        say(f"ol: internal error: {type(exc).__name__}: {exc}. This is a bug in ol, not in your code; please "
            f"report it with the command you ran (set OL_DEBUG=1 to see the traceback).", file=sys.stderr)
        return 3


if __name__ == "__main__":
    sys.exit(main())
