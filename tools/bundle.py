"""What the browser fetches besides Pyodide: one JSON bundle per exercise and the judge as a zip.

The bundles carry the hidden tests (the browser must run them), the reference (for the diff after a pass and
for "use reference dependencies"), and the catalogue. Learners who read them are only cheating themselves;
the docs present Check as self-assessment.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

from checker import manifest

# The judge's files as the worker imports them (judge.py and the checker modules it imports, and stats.py, which
# hidden tests import); manifest/validate/ol are CPython-side tools.
JUDGE_FILES = ("__init__.py", "judge.py", "isolation.py", "messages.py", "integrity.py", "stats.py")


def exercise_bundle(ex: manifest.Exercise, exercises: dict[str, manifest.Exercise]) -> dict:
    """The browser's view of one exercise."""
    by_id = {e.id: e for e in exercises.values()}
    return {
        "slug": ex.slug, "id": ex.id, "title": ex.title, "kind": ex.kind, "page": ex.page,
        "path": ex.learner_path, "importPath": ex.import_path, "timeLimit": ex.time_limit,
        "requires": [d.slug for d in manifest.dependency_order(ex, by_id)],
        "directRequires": [by_id[r].slug for r in ex.requires],
        "starter": ex.starter.read_text(encoding="utf-8"),
        "reference": ex.reference.read_text(encoding="utf-8"),
        "tests": {ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")},
        "names": ex.test_names(),
    }


def write(dest: Path, root: Path = manifest.EXERCISES) -> list[str]:
    """Write `exercises/<slug>.json`, `exercises/index.json` and `checker.zip` under `dest`, for the exercise
    folders under `root`."""
    exercises = manifest.load_all(root)
    out = dest / "exercises"
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for ex in exercises.values():
        bundle = exercise_bundle(ex, exercises)
        (out / f"{ex.slug}.json").write_text(json.dumps(bundle, ensure_ascii=False), encoding="utf-8")
        entry = {k: bundle[k] for k in ("slug", "id", "title", "kind", "page", "requires", "directRequires", "names")}
        entry["prompts"] = [p.id for p in ex.prompts]
        entry["choices"] = [{"id": c.id, "kind": c.kind} for c in ex.choices]
        # The course around the exercise (manifest fields): its milestone gate, and what builds on it later.
        entry["milestone"] = ex.milestone
        entry["usedBy"] = [{"id": u.id, "how": u.how} for u in ex.used_by]
        index.append(entry)
    (out / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    checker = Path(manifest.__file__).parent
    with zipfile.ZipFile(dest / "checker.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for name in JUDGE_FILES:
            # A fixed date makes the zip depend on the sources only, so the snapshot cache can key on it.
            info = zipfile.ZipInfo(f"checker/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, (checker / name).read_bytes())
    return sorted(exercises)
