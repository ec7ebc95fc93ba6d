"""What the browser fetches besides Pyodide: one JSON bundle per exercise and the judge as a zip.

The bundles carry the hidden tests (the browser must run them), the reference (for the diff after a pass and
for "use reference dependencies"), and the catalogue. Learners who read them are only cheating themselves;
the docs present Check as self-assessment.
"""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

from checker import manifest, views
from tools import build_outputs

# The judge's files as the worker imports them: bridge.py (the worker's entry points), judge.py and the checker
# modules they import, and stats.py, which hidden tests import. manifest/validate/ol are CPython-side tools.
JUDGE_FILES = ("__init__.py", "judge.py", "isolation.py", "messages.py", "integrity.py", "bridge.py", "stats.py",
               "figures.py", "mpl_backend.py")


def write(dest: Path, root: Path = manifest.EXERCISES) -> list[str]:
    """Write `exercises/<slug>.json`, `exercises/index.json` and the judge's zip (tools/build_outputs.py JUDGE_ZIP)
    under `dest`, for the exercise folders under `root`. The JSON is checker/views.py's, the one serialiser of an
    exercise's browser view."""
    exercises = manifest.load_all(root)
    out = dest / "exercises"
    out.mkdir(parents=True, exist_ok=True)
    for ex in exercises.values():
        (out / f"{ex.slug}.json").write_text(json.dumps(views.bundle(ex, exercises), ensure_ascii=False),
                                             encoding="utf-8")
    index = [views.index_entry(ex, exercises) for ex in exercises.values()]
    (out / "index.json").write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    checker = Path(manifest.__file__).parent
    with zipfile.ZipFile(dest / build_outputs.JUDGE_ZIP, "w", zipfile.ZIP_DEFLATED) as zf:
        for name in JUDGE_FILES:
            # A fixed date makes the zip depend on the sources only, so the snapshot cache can key on it.
            info = zipfile.ZipInfo(f"checker/{name}", date_time=(2020, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, (checker / name).read_bytes())
    return sorted(exercises)
