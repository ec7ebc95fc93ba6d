"""Known mistakes: how each mutant of an exercise fails the hidden suite, for the diagnosis of a learner's failing
check (checker/diagnosis.py), built here and nowhere else.

Validation runs every mutant through the whole suite and writes the fingerprints into its cache stamp, a file
named by the content hash of everything the result depends on (`stamp_path`): so a stamp is never read for files
that changed since. The build ships the known mistakes in each exercise's bundle and, as `MISTAKES_FILE`, beside
each exercise of the `ol` wheel. `of` is the one lookup: the wheel's file, else, in a checkout, the stamp of the
exercise's files as they are now, else none.
"""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import checker
from checker import diagnosis
from course.exercises import Course
from course.model import Exercise
from course.store import REPO, cache_folder

IN_PYODIDE = sys.platform == "emscripten"
DEFAULT_RUNS = 1 if IN_PYODIDE else 5  # validation's reference runs per exercise, each in a fresh process
MISTAKES_FILE = "mistakes.json"  # beside an exercise's manifest in the ol wheel (tools/ol_wheel.py writes it)
VALIDATION = REPO / "authoring"  # the validation's code, part of what a stamp depends on


def content_hash(ex: Exercise, course: Course, runs: int = DEFAULT_RUNS) -> str:
    """Hash of everything a validation result depends on: the folders, their dependencies, the judge (checker/)
    and the validation (authoring/), the Python, numpy and pytest that run them, the number of runs (five clean
    runs prove more than one)."""
    h = hashlib.sha256(f"runs={runs}\0{sys.version}\0{_versions()}\0".encode())
    folders = [ex.folder] + [d.folder for d in course.dependencies(ex)]
    sources = [(f"{f.name}/{p.relative_to(f)}", p) for f in folders for p in sorted(f.rglob("*"))
               if p.is_file() and "__pycache__" not in p.parts]
    for package in (Path(checker.__file__).parent, VALIDATION):
        sources += [(f"{package.name}/{p.name}", p) for p in sorted(package.glob("*.py"))]
    for name, path in sources:
        h.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def _versions() -> str:
    """The releases of numpy and pytest installed here (without importing numpy in this process)."""
    from importlib import metadata

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "none"

    return " ".join(f"{name}=={version(name)}" for name in ("numpy", "pytest"))


def stamp_path(cache: Path, ex: Exercise, course: Course, runs: int = DEFAULT_RUNS) -> Path:
    """The cache stamp of a clean validation of `ex` as its files are now."""
    return cache / f"{ex.slug}-{content_hash(ex, course, runs)}.ok"


def from_prints(ex: Exercise, prints: dict[str, list[str] | None]) -> list[dict]:
    """Every mutant of `ex` that has a fingerprint, as checker/diagnosis.py's known mistake, in mutant order."""
    return [diagnosis.known(m.name, m.pitfall, prints[m.name]) for m in ex.mutants if prints.get(m.name)]


def recorded(ex: Exercise, course: Course, cache: Path | None = None) -> list[dict] | None:
    """The known mistakes of `ex` from the clean validation of its files as they are now, or None when `cache`
    (default: the checkout's, course/store.py cache_folder) holds none."""
    try:
        data = json.loads(stamp_path(cache or cache_folder(), ex, course).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    prints = data.get("prints") if isinstance(data, dict) else None
    return from_prints(ex, prints) if isinstance(prints, dict) else None


def packaged(ex: Exercise) -> list[dict] | None:
    """The known mistakes shipped beside the exercise's manifest (the ol wheel), or None without the file."""
    try:
        data = json.loads((ex.folder / MISTAKES_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        return []
    return [m for m in data if isinstance(m, dict)] if isinstance(data, list) else []


def of(ex: Exercise, course: Course) -> list[dict]:
    """The exercise's known mistakes: the wheel's file, else the checkout's validation of its files as they are
    now; [] when neither has them (then no diagnosis is offered, rather than a stale one)."""
    found = packaged(ex)
    if found is None:
        found = recorded(ex, course)
    return found or []
