"""`ol class FOLDER`: a teacher's class view in a terminal, the site's class page without a browser.

Every file in FOLDER (a learner's progress export, or a zip of them) is read by ol/classroom.py's rules; every
claimed pass is checked again by the course's judge in a fresh interpreter, as `ol check` checks one
(ol/checkrun.py `judge_in_child`: the time limit per test, the output cap, a watchdog for what a time limit
cannot stop), several at a time; then the table, the summary per exercise, and with --csv the CSV a gradebook
imports, byte for byte the class page's for the same files.

Each pass is checked on the separated path (checker/separated.py): the hidden tests and the verdict in the check's
process, the learner's code in a process of its own that the operating system sandboxes where it can
(checker/sandbox.py: on Linux no file written outside its folder, no read of the course's files, no network, no
new process), and the installed package is compared with its wheel's hashes before and after every check
(ol/installed.py). What held is said after the checks (`sandbox_note`).
"""
from __future__ import annotations

import argparse
import os
import sys
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from pathlib import Path

from checker import sandbox
from course.exercises import Course

from . import checkrun, classroom
from .report import FAILED, OlError, say, shown
from .workspace import build_info, check_request, load_exercises

JOBS_MAX = 4  # checks at a time at most: each is a Python process with numpy and pytest


def columns_of(exercises: Course) -> list[classroom.Column]:
    """The course's exercises as the class table's columns, in slug order (the site's exercise index's)."""
    return [classroom.Column(ex.slug, ex.id, ex.title, tuple(d.slug for d in exercises.dependencies(ex)),
                             tuple(p.id for p in ex.prompts)) for ex in exercises.values()]


def read_folder(folder: Path, leave_out: set[Path]) -> list[tuple[str, bytes]]:
    """Every file directly in `folder` (not hidden ones, nor `leave_out`: what this run writes) with its bytes;
    a file larger than the largest zip is read only as far as it takes to refuse it."""
    files = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.resolve() in leave_out:
            continue
        if path.is_dir():
            say(f"note: the folder {path.name} was left out (ol class reads the files directly in "
                f"{shown(folder)})", file=sys.stderr)
            continue
        with open(path, "rb") as f:
            files.append((path.name, f.read(classroom.ZIP_CAP + 1)))
    return files


def request_of(ex, learner: classroom.Learner, column: classroom.Column, sources: dict[str, str],
               exercises: Course) -> dict:
    """What `ol check` would send the judge for this learner's passed code, with each dependency's file: the
    learner's own when its pass held, else the reference (classroom.dependency_sources)."""
    files = {exercises[dep].import_path: (learner.work[dep].code if how == "own"
                                          else exercises[dep].reference.read_text(encoding="utf-8"))
             for dep, how in sources.items()}
    files[ex.import_path] = learner.work[column.slug].code
    return check_request(ex, files)


def judged(request: dict, tests: int) -> dict:
    """The judge's result for one request, or a result standing for why there is none."""
    outcome = checkrun.judge_in_child(request, tests=tests, separate=True)
    if outcome.result is not None:
        return outcome.result
    if outcome.stopped:
        return {"status": "timeout", "tests": [], "phase": outcome.stopped}
    return {"status": "error", "tests": [], "phase": "crash"}


def check_again(learners: list[classroom.Learner], columns: list[classroom.Column], exercises: Course,
                jobs: int) -> tuple[dict[str, dict[str, str]], dict[str, dict[str, dict]]]:
    """Every claimed pass checked again, `jobs` at a time, each after the dependencies it waits for; the
    verdicts and the results, by learner key and slug."""
    tasks = classroom.plan(learners, columns)
    verdicts: dict[str, dict[str, str]] = {l.key: {} for l in learners}
    results: dict[str, dict[str, dict]] = {l.key: {} for l in learners}
    running: dict[Future, tuple[classroom.Learner, classroom.Column]] = {}
    done = 0
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        while tasks or running:
            ready = [t for t in tasks if all(d in verdicts[t[0].key] for d in classroom.waits_for(*t))]
            for learner, column in ready[: jobs - len(running)]:
                tasks.remove((learner, column))
                ex = exercises[column.slug]
                sources = classroom.dependency_sources(column, verdicts[learner.key])
                request = request_of(ex, learner, column, sources, exercises)
                running[pool.submit(judged, request, len(ex.catalogue))] = (learner, column)
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                learner, column = running.pop(future)
                result = future.result()
                results[learner.key][column.slug] = result
                verdicts[learner.key][column.slug] = classroom.verdict(learner.work[column.slug], result)
                done += 1
                _progress(learner, column, result, verdicts, done, done + len(tasks) + len(running))
    return verdicts, results


def _progress(learner, column, result: dict, verdicts, done: int, total: int) -> None:
    if verdicts[learner.key][column.slug] == "not-reproduced":
        say(f"{learner.name} {column.id}: the claimed pass did not hold: {', '.join(classroom.not_held(result))}",
            indent="  ", hang=4)
    if sys.stderr.isatty():
        print(f"\rchecked {done} of {total} passes", end="" if done < total else "\n", file=sys.stderr,
              flush=True)


def print_table(rows: list[dict], columns: list[classroom.Column]) -> None:
    """The class as a plain table: a learner per line, a verdict per exercise."""
    head = ["learner", *(c.id for c in columns), "passed"]
    lines = [[r["learner"], *(r["cells"][c.id]["verdict"] for c in columns), str(r["passed"])] for r in rows]
    widths = [max(len(line[i]) for line in [head, *lines]) for i in range(len(head))]
    for line in [head, *lines]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())


def cmd_class(args: argparse.Namespace) -> int:
    folder = Path(args.folder).expanduser()
    if not folder.is_dir():
        raise OlError(f"{shown(folder)} is not a folder; give the folder that holds the learners' progress files")
    exercises = load_exercises()
    columns = columns_of(exercises)
    outputs = {Path(p).expanduser().resolve() for p in (args.csv, args.summary) if p}
    files, rejected = classroom.expand(read_folder(folder, outputs))
    found = classroom.gather(files, columns, build_info()["course"])
    for file, why in rejected + found.rejected:
        say(f"refused {file}: {why}", file=sys.stderr, hang=2)
    if not found.learners:
        say(f"No progress file in {shown(folder)} could be read, so there is no class to show.")
        return FAILED
    jobs = max(1, args.jobs or min(os.cpu_count() or 1, JOBS_MAX))
    tasks = len(classroom.plan(found.learners, columns))
    say(f"{len(found.learners)} learners. Checking their {tasks} claimed passes again with the course's judge, "
        f"{jobs} at a time, each learner's code in a process of its own...")
    verdicts, results = check_again(found.learners, columns, exercises, jobs)
    note = sandbox_note(results)
    if note:
        say(note)
    rows = [classroom.row(l, columns, {c.slug: verdicts[l.key].get(c.slug) or classroom.verdict(l.work[c.slug], None)
                                       for c in columns}, results[l.key]) for l in found.learners]
    print()
    print_table(rows, columns)
    text = classroom.summary_text(rows, columns)
    print()
    print(text, end="")
    for path, content, what in ((args.csv, classroom.csv_text(rows, columns), "the CSV"),
                                (args.summary, text, "the summary")):
        if path:
            target = Path(path).expanduser()
            target.write_bytes(content.encode("utf-8"))
            say(f"Wrote {what} to {shown(target)} ({len(rows)} learners, one row each)." if what == "the CSV"
                else f"Wrote {what} to {shown(target)}.")
    return 0


LAYERS = {"landlock": "no file written outside its own folder and none of the course's files read (Landlock {})",
          "seccomp": "no network socket, no new process, no signal to another process (seccomp)",
          "netns": "a network namespace of its own, without even loopback",
          "memory": f"at most {sandbox.MEMORY_CAP >> 20} MB of memory",
          "quota": f"a folder of its own of at most {sandbox.FOLDER_BYTES >> 20} MB and {sandbox.FOLDER_FILES} files "
                   f"(a tmpfs; elsewhere its folder is counted from outside and the process ended past that)"}


def sandbox_note(results: dict[str, dict[str, dict]]) -> str:
    """What the operating system took away from the learners' code in these checks, or a warning of what it
    could not: the layers reported by checker/sandbox.py with each result."""
    held = {layer for per in results.values() for r in per.values() for layer in r.get("sandbox") or ()}
    if not any("sandbox" in r for per in results.values() for r in per.values()):
        return ""
    said = [text.format(name.partition("-")[2]) for key, text in LAYERS.items()
            for name in sorted(held) if name.partition("-")[0] == key]
    text = "Learner code ran apart from the judge, in processes with " + ("; ".join(said) or "no OS sandbox") + "."
    if not any(h.startswith("landlock") for h in held) or "seccomp" not in held:
        text += (" This system does not offer the rest (Linux's Landlock and seccomp): the code could still reach "
                 "this computer's files or network. Grade files you do not trust on the class page instead, where "
                 "the browser is the sandbox.")
    return text


def add_parser(command) -> None:
    """`ol class`'s arguments, on the parser ol/cli.py makes with `command(...)`."""
    p = command("class", "a teacher's class view: every learner's progress file, every pass checked again",
                "Read every learner's progress file in FOLDER (exports of the site's progress page or of\n"
                "`ol export`, or zips of them), merge the files of each learner (the newer attempt wins), check\n"
                "every claimed pass again with the course's judge, and print a table and a summary per exercise.\n"
                "A pass that does not hold again is marked not-reproduced. Files that cannot be used get a line\n"
                "each. The learners' code runs on this machine: use it for files you trust (the site's class\n"
                "page runs it in the browser's sandbox).", cmd_class, parents=())
    p.add_argument("folder", metavar="FOLDER", help="the folder holding the progress files")
    p.add_argument("--csv", metavar="OUT.csv", help="write the table as CSV, one row per learner (a gradebook "
                                                   "imports it; the class page writes the same bytes)")
    p.add_argument("--summary", metavar="OUT.txt", help="write the summary per exercise as text")
    p.add_argument("--jobs", type=int, metavar="N", help=f"checks at a time (default: the cores, at most "
                                                        f"{JOBS_MAX})")

