"""What the browser fetches besides Pyodide: one JSON bundle per exercise and the judge as a zip.

The bundles carry the hidden tests (the browser must run them), the reference (for the diff after a pass and
for "use reference dependencies"), and the catalogue. Learners who read them are only cheating themselves;
the docs present Check as self-assessment.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Mapping

from authoring import validate
from course import known, manifest, records
from tools import build_outputs

# The judge's files as the worker imports them: bridge.py (the worker's entry points), judge.py and the checker
# modules they import, and stats.py, which hidden tests import. manifest/validate/ol are CPython-side tools.
JUDGE = Path(__file__).resolve().parent.parent / "checker"  # the judge: shipped whole, every module in it


def judge_files() -> list[str]:
    """The judge's modules, by file name: all of checker/ (it imports nothing of the project outside itself,
    tests/unit/test_layers.py)."""
    return sorted(p.name for p in JUDGE.glob("*.py"))


def write(dest: Path, root: Path = manifest.EXERCISES, mistakes: Mapping[str, list[dict]] | None = None) -> list[str]:
    """Write `exercises/<slug>.json`, `exercises/index.json` and the judge's zip (tools/build_outputs.py JUDGE_ZIP)
    under `dest`, for the exercise folders under `root`. The JSON is course/records.py's, the one serialiser of an
    exercise's browser view; `mistakes` (slug -> known mistakes, from validation: `known_mistakes`, course/known.py) go into the
    bundles."""
    exercises = manifest.load_all(root)
    out = dest / "exercises"
    out.mkdir(parents=True, exist_ok=True)
    for ex in exercises.values():
        data = records.bundle(ex, exercises, (mistakes or {}).get(ex.slug))
        (out / f"{ex.slug}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    index = [records.index_entry(ex, exercises) for ex in exercises.values()]
    (out / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    with zipfile.ZipFile(dest / build_outputs.JUDGE_ZIP, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in judge_files():
            # A fixed date makes the zip depend on the sources only, so the snapshot cache can key on it.
            info = zipfile.ZipInfo(f"checker/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, (JUDGE / name).read_bytes())
    return sorted(exercises)


def write_authoring(dest: Path, root: Path = manifest.EXERCISES) -> list[str]:
    """Write `<build_outputs.AUTHORING_DIR>/<slug>.json` under `dest` for every exercise under `root`: its first
    mutant's source (the reference with the mutant's edits) and the test that must fail on it, for the author's
    course check (`/// course-check`, web/src/page/course-check.js), which runs it in whatever browser it is opened
    in. The bundles carry no mutant (learners need none); the offline copy leaves these out (tools/offline.py)."""
    out = dest / build_outputs.AUTHORING_DIR
    out.mkdir(parents=True, exist_ok=True)
    exercises = manifest.load_all(root)
    for ex in exercises.values():
        first = ex.mutants[0] if ex.mutants else None
        mutant = None if first is None else {
            "name": first.name, "fails": first.fails,
            "source": validate.apply_mutant(ex.reference.read_text(encoding="utf-8"), first)}
        data = {"slug": ex.slug, "id": ex.id, "mutant": mutant}
        (out / f"{ex.slug}.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return sorted(exercises)


def known_mistakes(root: Path, cache: Path) -> dict[str, list[dict]]:
    """slug -> the known mistakes of every exercise under `root`, from its clean validation in `cache`; raises
    LookupError naming an exercise that has none (validate first: the build does, tools/site_steps.py)."""
    exercises = manifest.load_all(root)
    found = {}
    for slug, ex in sorted(exercises.items()):
        mistakes = known.recorded(ex, exercises, cache)
        if mistakes is None:
            raise LookupError(f"{manifest.rel(ex.folder)}: no clean validation of its files as they are now in "
                              f"{manifest.rel(cache)}, so its known mistakes are unknown; validate first "
                              f"(`python -m authoring validate --cache`)")
        found[slug] = mistakes
    return found
