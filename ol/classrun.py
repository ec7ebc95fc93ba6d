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
import hashlib
import os
import re
import stat
import sys
import tempfile
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from checker import sandbox
from course.exercises import Course

from . import checkrun, classroom, exchange
from .report import FAILED, OlError, say, shown
from .workspace import build_info, check_request, load_exercises

JOBS_MAX = 4  # checks at a time at most: each is a Python process with numpy and pytest


def columns_of(exercises: Course) -> list[classroom.Column]:
    """The course's exercises as the class table's columns, in slug order (the site's exercise index's)."""
    return [classroom.Column(ex.slug, ex.id, ex.title, tuple(d.slug for d in exercises.dependencies(ex)),
                             tuple(p.id for p in ex.prompts)) for ex in exercises.values()]


FOLDER_MAX = 10_000  # entries of the class folder looked at; past them, one line
NOT_FILES = ((stat.S_ISLNK, "it is a symbolic link; ol class reads only the files themselves, so it was not "
                            "followed (copy the file itself into the folder)"),
             (stat.S_ISDIR, ""), (stat.S_ISFIFO, "it is a named pipe (FIFO), not a file"),
             (stat.S_ISCHR, "it is a device, not a file"), (stat.S_ISBLK, "it is a device, not a file"),
             (stat.S_ISSOCK, "it is a socket, not a file"))
OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) \
    | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def name_of(entry: os.DirEntry) -> str:
    """A file's name as text that can be printed and written (an undecodable byte as U+FFFD)."""
    return exchange.well_formed(entry.name)


def not_a_file(info: os.stat_result) -> str | None:
    """Why a folder entry is not read, from its own lstat (a link is never followed): "" for a folder (left out
    with a note), None for a regular file."""
    for test, why in NOT_FILES:
        if test(info.st_mode):
            return why
    return None if stat.S_ISREG(info.st_mode) else "it is not a regular file"


def open_file(path: Path, seen: os.stat_result) -> BinaryIO:
    """A regular file opened for reading, never through a link and never waiting (a FIFO or device put in its
    place after it was looked at is refused, not read: OSError says why)."""
    fd = os.open(path, OPEN_FLAGS)
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or (info.st_dev, info.st_ino) != (seen.st_dev, seen.st_ino):
        os.close(fd)
        raise OSError("it changed while it was being read")
    return os.fdopen(fd, "rb")


def feed(name: str, f: BinaryIO, size: int, gatherer: classroom.Gatherer) -> None:
    """One opened file into the class: a zip entry by entry, else its bytes, each read with its cap."""
    if classroom.is_zip(f.read(4)):
        if size > classroom.ZIP_CAP:
            return gatherer.refuse(name, classroom.ZIP_TOO_LARGE)
        for inner, data, why in classroom.entries(name, f):
            if data is None:
                gatherer.refuse(inner, why)
            else:
                gatherer.add(inner, data)
        return None
    if size > classroom.FILE_CAP:
        return gatherer.refuse(name, classroom.TOO_LARGE)
    f.seek(0)
    gatherer.add(name, f.read(classroom.FILE_CAP + 1))
    return None


def read_folder(folder: Path, leave_out: set[Path], gatherer: classroom.Gatherer) -> list[str]:
    """Every file directly in `folder` (not hidden ones, nor `leave_out`: what this run writes) into `gatherer`,
    one at a time; anything that is not a regular file refused unread. The notes to print (folders left out)."""
    notes = []
    with os.scandir(folder) as found:
        for n, entry in enumerate(found):
            path = Path(entry.path)
            if entry.name.startswith(".") or Path(os.path.realpath(path)) in leave_out:  # realpath: no loop raises
                continue
            if n >= FOLDER_MAX:
                gatherer.refuse(shown(folder), f"it holds more than {FOLDER_MAX} files; the rest were not read")
                break
            try:
                info = entry.stat(follow_symlinks=False)
                why = not_a_file(info)
                if why == "":
                    notes.append(f"note: the folder {name_of(entry)} was left out (ol class reads the files "
                                 f"directly in {shown(folder)})")
                elif why is not None:
                    gatherer.refuse(name_of(entry), why)
                else:
                    with open_file(path, info) as f:
                        feed(name_of(entry), f, info.st_size, gatherer)
            except OSError as exc:
                gatherer.refuse(name_of(entry), f"it cannot be read ({exc.strerror or exc})")
            except Exception as exc:  # noqa: BLE001 - whatever one file does, the others are read
                gatherer.refuse(name_of(entry), f"it could not be read ({type(exc).__name__})")
    return sorted(notes)


@dataclass(frozen=True)
class Spooled:
    """The code of a claimed pass, kept on disk (Spool): `text()` reads it back."""

    path: Path

    def text(self) -> str:
        return self.path.read_bytes().decode("utf-8", "surrogatepass")


class Spool:
    """Where `ol class` keeps the code of every claimed pass while it grades: a temporary folder, one file per
    distinct code, so that a class of large exports is not held in memory (classroom.Gatherer's `keep`)."""

    def __init__(self, folder: Path):
        self.folder = folder

    def __call__(self, code: str) -> Spooled:
        data = code.encode("utf-8", "surrogatepass")
        path = self.folder / hashlib.sha256(data).hexdigest()
        if not path.exists():
            path.write_bytes(data)
        return Spooled(path)


def request_of(ex, learner: classroom.Learner, column: classroom.Column, sources: dict[str, str],
               exercises: Course) -> dict:
    """What `ol check` would send the judge for this learner's passed code, with each dependency's file: the
    learner's own when its pass held, else the reference (classroom.dependency_sources)."""
    files = {exercises[dep].import_path: (learner.work[dep].code.text() if how == "own"
                                          else exercises[dep].reference.read_text(encoding="utf-8"))
             for dep, how in sources.items()}
    files[ex.import_path] = learner.work[column.slug].code.text()
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


def plain(text: str) -> str:
    """Learner-given text as a terminal may show it: no control characters (a name cannot move the cursor or
    change colours), no lone surrogates."""
    return CONTROL.sub("?", exchange.well_formed(text))


CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def first_message(result: dict) -> str:
    """The first failing test's message, cut short: why a pass did not hold (a MemoryError, a full folder)."""
    for test in result.get("tests") or []:
        if isinstance(test, dict) and test.get("outcome") != "passed" and test.get("message"):
            text = " ".join(str(test["message"]).split())
            return text if len(text) <= MESSAGE_SHOWN else text[:MESSAGE_SHOWN - 1] + "…"
    return ""


MESSAGE_SHOWN = 160  # characters of a failing test's message in the line of a pass that did not hold


def _progress(learner, column, result: dict, verdicts, done: int, total: int) -> None:
    if verdicts[learner.key][column.slug] == "not-reproduced":
        message = first_message(result)
        say(plain(f"{learner.name} {column.id}: the claimed pass did not hold: "
                  f"{', '.join(classroom.not_held(result))}" + (f" ({message})" if message else "")),
            indent="  ", hang=4)
    if sys.stderr.isatty():
        print(f"\rchecked {done} of {total} passes", end="" if done < total else "\n", file=sys.stderr,
              flush=True)


def print_table(rows: list[dict], columns: list[classroom.Column]) -> None:
    """The class as a plain table: a learner per line (with its file when another file names that learner too),
    a verdict per exercise."""
    head = ["learner", *(c.id for c in columns), "passed"]
    lines = [[plain(r["learner"] + (f" ({r['files'][0]})" if r["problem"] else "")),
              *(r["cells"][c.id]["verdict"] for c in columns), str(r["passed"])] for r in rows]
    widths = [max(len(line[i]) for line in [head, *lines]) for i in range(len(head))]
    for line in [head, *lines]:
        print("  ".join(cell.ljust(w) for cell, w in zip(line, widths)).rstrip())


def gathered(folder: Path, outputs: set[Path], columns: list[classroom.Column], spool: Spool) -> classroom.Gathered:
    """The class in `folder`, every file read one at a time, with a line for each that could not be used and for
    each conflict."""
    gatherer = classroom.Gatherer(columns, build_info()["course"], keep=spool)
    for note in read_folder(folder, outputs, gatherer):
        say(note, file=sys.stderr)
    found = gatherer.result()
    for file, why in sorted(found.rejected, key=lambda r: classroom.codepoints(r[0])):
        say(plain(f"refused {file}: {why}"), file=sys.stderr, hang=2)
    for learner in found.learners:
        if learner.problem:
            say(plain(f"conflict {learner.files[0]}: {learner.problem}"), file=sys.stderr, hang=2)
    return found


def write_out(args: argparse.Namespace, rows: list[dict], columns: list[classroom.Column],
              found: classroom.Gathered) -> None:
    """The CSV and the summary, where asked, in the bytes the class page writes."""
    text = classroom.summary_text(rows, columns)
    for path, content, what in ((args.csv, classroom.csv_text(rows, columns, found.rejected), "the CSV"),
                                (args.summary, text, "the summary")):
        if path:
            target = Path(path).expanduser()
            target.write_bytes(classroom.utf8(content))
            say(f"Wrote {what} to {shown(target)} ({len(rows)} learners, one row each, and "
                f"{len(found.rejected)} refused files, a row each)." if what == "the CSV"
                else f"Wrote {what} to {shown(target)}.")


def cmd_class(args: argparse.Namespace) -> int:
    folder = Path(args.folder).expanduser()
    if not folder.is_dir():
        raise OlError(f"{shown(folder)} is not a folder; give the folder that holds the learners' progress files")
    exercises = load_exercises()
    columns = columns_of(exercises)
    outputs = {Path(p).expanduser().resolve() for p in (args.csv, args.summary) if p}
    with tempfile.TemporaryDirectory(prefix="ol-class-") as tmp:
        found = gathered(folder, outputs, columns, Spool(Path(tmp)))
        if not found.learners:
            say(f"No progress file in {shown(folder)} could be read, so there is no class to show.")
            write_out(args, [], columns, found)
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
    print()
    print("\n".join(plain(line) for line in classroom.summary_text(rows, columns).split("\n")), end="")
    write_out(args, rows, columns, found)
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

