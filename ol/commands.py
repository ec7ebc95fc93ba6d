"""The `ol` commands, one function each (`cmd_start`, `cmd_check`, ...): what each does with the learner's folder
and the judge. The parser (ol/cli.py) routes to them; what they print is ol/report.py's; the exercises, the
folder and its record come from ol/workspace.py. Nothing here decides pass or fail: `checker.judge` does, in a
fresh interpreter (ol/checkrun.py), exactly as the site's worker does in Pyodide.
"""
from __future__ import annotations

import argparse
import difflib
import json
import os
import sys
from pathlib import Path

from checker import diagnosis
from course.exercises import Course
from course.model import Exercise

from . import checkrun, exchange
from .progress import CHANGED, NOT_STARTED, PASSED, STATE_DIR, Progress, ProgressError, backup, ensure_state_dir, \
    sha256_of
from .report import FAILED, OlError, place, plain, print_diagnosis, print_output, print_tests, learner_paths, say, \
    shown, stopped_message, width
from .workspace import build_info, check_request, count_failure, known_mistakes, load_exercises, lookup, \
    make_packages, progress, read_learner, update_progress, workspace

IMPORTED = "imported.json"  # under .ol/: what an import brought that ol does not use itself (answers, prefs)


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


# ---- ol check and ol trace --------------------------------------------------------------------------------------

def missing_dependency(ex: Exercise, exercises: Course, folder: Path, record: Progress) -> str:
    """'' when every dependency passed with its current file here; else the gating message.

    Direct requirements are named before transitive ones: M07.6 asks for M07.1, and M07.1's own check will then
    ask for M06.3. A dependency edited since it passed counts as not passed: its new version was never judged.
    """
    for dep in exercises.check_order(ex):
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


def dependency_files(ex: Exercise, exercises: Course, folder: Path,
                     ref_deps: bool) -> tuple[list[Exercise], dict[str, str]]:
    """The exercises `ex` builds on, and their files as it imports them (by import path): the learner's, once
    passed (else OlError naming the first that has not), or with `ref_deps` the references. `ol check` and
    `ol trace` both run with these."""
    deps = exercises.dependencies(ex)
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
    outcome = checkrun.judge_in_child(check_request(ex, files), tests=len(ex.catalogue))
    if outcome.stopped:
        say(stopped_message(ex, outcome))
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


def report(ex: Exercise, exercises: Course, result: dict, folder: Path, data: bytes,
           ref_deps: bool) -> int:
    """Print the judge's verdict; record a pass. Returns the exit code."""
    tests = result.get("tests", [])
    traceback_text = learner_paths(result.get("traceback", ""), exercises).rstrip()
    phase = result.get("phase")  # where the check ended (checker/judge.py)
    if phase == "import":
        if result["status"] == "timeout":
            say(f"{ex.id}: stopped after {ex.time_limit:g} s while importing {ex.learner_path}, so no test ran. "
                f"It was here:")
        else:
            say(f"{ex.id}: your file {ex.learner_path} did not run, so none of the {len(tests)} hidden tests "
                f"could. Python says:")
        print(traceback_text)
        print_output(result.get("stdout", ""))
        count_failure(ex, folder, result)
        return FAILED
    if phase == "collect":
        last = [line for line in traceback_text.splitlines() if line.strip()][-1:] or ["no result"]
        say(f"{ex.id}: the hidden tests could not be loaded against your file: {last[0]}")
        count_failure(ex, folder, result)
        return FAILED
    print_tests(result, exercises)
    if phase == "tampered":  # nothing was judged: say why
        print(traceback_text)
    print_output(result.get("stdout", ""))
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
    mistakes = known_mistakes(ex, exercises)
    record = count_failure(ex, folder, result, exchange.pitfall_labels(diagnosis.diagnose(result, mistakes)))
    if record.settings.get("diagnoses") is not False:
        print_diagnosis(ex, result, mistakes)
    hints = (f" `ol hint {ex.id}` gives a hint ({record.help_of(ex.id)['hints']} of {len(ex.hints)} seen)."
             if record.help_of(ex.id)["hints"] < len(ex.hints) else "")
    say(f"\n{ex.id}: not passed yet ({', '.join(parts)} of {len(tests)}). Start with {first}; "
        f"`ol tests {ex.id}` says what each test checks.{hints}")
    return FAILED


# ---- help: hints, diagnoses, the reference on the author's terms ------------------------------------------------

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
    update_progress(folder, lambda r: r.help.__setitem__(ex.id, {**r.help_of(ex.id), "hints": n}))
    say(f"{ex.id}, hint {n} of {total}:")
    say(plain(ex.hints[n - 1]), indent="  ")
    if n < total:
        say(f"\nStill stuck? `ol hint {ex.id}` again gives the next one.")
    return 0


def cmd_diagnoses(args: argparse.Namespace) -> int:
    folder = workspace(args)
    ensure_state_dir(folder)
    on = args.state == "on"
    update_progress(folder, lambda record: record.settings.__setitem__("diagnoses", on))
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
    update_progress(folder, lambda r: r.help.__setitem__(ex.id, {**r.help_of(ex.id),
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


# ---- ol export / ol import --------------------------------------------------------------------------------------

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
        if entry is not None and entry.sha256 == sha256_of(raw) and _holds_apart(ex, exercises, folder, raw, entry):
            data[f"elsewhere:{ex.slug}"] = {"status": "passed", "by": "ol", "sha256": entry.sha256,
                                            "when": entry.when, "build": entry.build, "refDeps": entry.ref_deps}
            passed += 1
    data.update({f"settings:{k}": v for k, v in record.settings.items()})
    learner = _learner(args, folder, record)
    text = exchange.render(data, course=info["course"], build=info["version"], origin="ol", learner=learner)
    tmp = target.with_name(target.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, target)
    said = f" under the name {learner!r}" if learner else ""
    say(f"Exported the code of {written} exercise{'s' if written != 1 else ''} ({passed} passed here) to "
        f"{shown(target)}{said}. On the site, open Your progress and choose Import: the code appears in each "
        f"editor, and each pass counts there once the page has checked it.")
    return 0


def _holds_apart(ex, exercises, folder: Path, raw: bytes, entry) -> bool:
    """A pass goes into an export only once it has held on the separated path: the hidden tests in one process,
    the code in a sandboxed one of its own (ol/checkrun.py), as a teacher's `ol class` checks it."""
    try:
        _deps, files = dependency_files(ex, exercises, folder, entry.ref_deps and bool(exercises.dependencies(ex)))
    except OlError as exc:  # a dependency's pass no longer stands
        say(f"{ex.id}: not exported as a pass: {exc}")
        return False
    files[ex.import_path] = raw.decode("utf-8")
    outcome = checkrun.judge_in_child(check_request(ex, files), tests=len(ex.catalogue), separate=True)
    held = outcome.result is not None and outcome.result.get("status") == "passed"
    if not held:
        say(f"{ex.id}: the pass recorded here did not hold when checked again with your code in a process of its "
            f"own, so it is exported as code only (run ol check {ex.id} to see why).")
    return held


def _learner(args: argparse.Namespace, folder: Path, record: Progress) -> str:
    """The name an export carries: --name (remembered), else the one remembered in .ol/, else asked once in a
    terminal (remembered, even when none is given); without a terminal and never asked, none."""
    if args.name is not None:
        name = exchange.learner_name(args.name)
    elif record.learner is not None:
        return record.learner
    elif sys.stdin.isatty():
        try:
            name = exchange.learner_name(input("Your name as a teacher's class view should show it (Enter for "
                                               "none; asked once, `ol export --name` changes it): "))
        except EOFError:
            name = ""
    else:
        say(f"note: the file carries no name; `ol export {args.file} --name \"Your Name\"` adds one (a teacher's "
            f"class view shows a file without one under its file name).", file=sys.stderr)
        return ""
    update_progress(folder, lambda r: setattr(r, "learner", name))
    return name


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
        update_progress(folder, lambda record: _take_help(record, dump, exercises))
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


def _take_help(record: Progress, dump: exchange.Dump, exercises: Course) -> None:
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
