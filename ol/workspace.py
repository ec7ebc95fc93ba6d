"""The learner's side of a command: which exercises there are (the wheel's, $TL_EXERCISES, or the checkout's),
the one asked for, the working folder, the learner's file in it, and the record of passes and help kept there
(ol/progress.py). Every problem is an OlError with a message for the learner.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from course import known, manifest
from course.exercises import Course
from course.model import Exercise, ManifestError

from . import exchange
from .layout import BUILD_INFO, EXERCISES_DIR, PACKAGED
from .progress import Progress, ProgressError, build_order, find_workspace
from .report import OlError, place, say, shown

ENV_EXERCISES = "TL_EXERCISES"


def build_info() -> dict:
    """{"course", "version", "site"} of the wheel ol came from; a checkout's version is "checkout"."""
    try:
        info = json.loads((PACKAGED / BUILD_INFO).read_text(encoding="utf-8"))
        if isinstance(info, dict):
            return {"course": str(info.get("course") or exchange.COURSE), "version": str(info.get("version", "")),
                    "site": str(info.get("site", ""))}
    except (OSError, ValueError):
        pass
    return {"course": exchange.COURSE, "version": "checkout", "site": ""}


def exercises_root() -> Path:
    """$TL_EXERCISES, else the exercises packed in the wheel, else the `exercises/` folder of the checkout."""
    env = os.environ.get(ENV_EXERCISES)
    packaged = PACKAGED / EXERCISES_DIR
    root = Path(env).expanduser().resolve() if env else packaged if packaged.is_dir() else manifest.EXERCISES
    if not root.is_dir():
        where = f"${ENV_EXERCISES} points at {root}" if env else f"ol looks for exercises in {root}"
        raise OlError(f"{where}, and there is no such folder. Install ol from the course site (`pip install "
                      f"--extra-index-url <the site>/simple/ tinyllm-ol`), or set {ENV_EXERCISES} to an "
                      f"exercises/ folder.")
    return root



def load_exercises() -> Course:
    """Every exercise, or an OlError that names the broken manifest and field."""
    root = exercises_root()
    try:
        found = manifest.load_all(root)
    except ManifestError as exc:
        raise OlError(f"the exercise data is broken, so ol cannot continue: {exc}") from None
    if not found:
        raise OlError(f"no exercises found in {root} (each lives in <id>/exercise.toml)")
    return found


def lookup(key: str, exercises: Course) -> Exercise:
    """The exercise named `key` in any case and spelling (M07.6, m07.6, m07-6), or a message listing them all."""
    try:
        return exercises.find(key)
    except KeyError:
        known_ids = ", ".join(sorted(exercises.by_id))
        raise OlError(f"there is no exercise {key!r}. Exercise ids look like E7.3 or M07.6 (any case, '.' or '-'); "
                      f"the ones available are: {known_ids}. `ol list` shows them with their status.") from None


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


def update_progress(folder: Path, change) -> Progress:
    """Load the record afresh, apply `change(record)`, save; a record that cannot be written is a warning."""
    record = Progress(folder, {})
    try:
        record = Progress.load(folder)
        change(record)
        record.save()
    except ProgressError as exc:
        say(f"warning: {exc}", file=sys.stderr)
    return record


def count_failure(ex: Exercise, folder: Path, result: dict, pitfalls: list[str] = ()) -> Progress:
    """Count a failed check (the judge looked at the code and it did not pass): hints and a reveal follow it.
    `pitfalls`: the known mistakes its diagnosis named, kept with the help taken (a teacher's class view counts
    them, ol/classroom.py)."""
    def count(record: Progress) -> None:
        help_ = record.help_of(ex.id)
        record.help[ex.id] = {**help_, "failed": help_["failed"] + 1}
        named = exchange.merge_pitfalls(help_.get("pitfalls"), list(pitfalls))
        if named:
            record.help[ex.id]["pitfalls"] = named
    if result.get("status") in ("failed", "error") and result.get("phase") != "tampered":
        return update_progress(folder, count)
    try:
        return Progress.load(folder)
    except ProgressError:
        return Progress(folder, {})



def known_mistakes(ex: Exercise, exercises: Course) -> list[dict]:
    """The exercise's known mistakes (course/known.py `of`: the wheel's, else the checkout's validation of its
    files as they are now)."""
    return known.of(ex, exercises)


def check_request(ex: Exercise, files: dict[str, str]) -> dict:
    """What `ol check`, `ol export` and `ol class` send the judge (checkrun.judge_in_child): `ex`'s hidden tests
    against `files` (its learner's file and each dependency's, by import path)."""
    return {"tests": {ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")}, "files": files,
            "learner": ex.import_path, "names": ex.test_names(), "time_limit": ex.time_limit}
