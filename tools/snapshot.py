"""Build (or take from the cache) the Pyodide memory snapshot the worker restores instead of a cold start.

The snapshot depends only on Pyodide's files, the judge's wheels, the judge itself and tools/snapshot.mjs, so it
is cached under .cache/snapshot/ by a hash of exactly those; a build that changes none of them reuses it.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).with_name("snapshot.mjs")
NAME = "snapshot.bin.gz"


class SnapshotError(RuntimeError):
    """The snapshot could not be made; the message says why."""


def build(assets: Path, checker_zip: Path, cache: Path = REPO / ".cache" / "snapshot") -> str:
    """Put the snapshot into `assets` (site/assets/pyodide) and name it in wheels.json; returns its file name."""
    info = json.loads((assets / "wheels.json").read_text())
    inputs = [assets / n for n in ("pyodide.asm.wasm", "pyodide.asm.js", "python_stdlib.zip", "pyodide-lock.json")]
    inputs += [assets / w for w in info["wheels"]] + [checker_zip, SCRIPT]
    h = hashlib.sha256()
    for path in inputs:
        h.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    cached = cache / f"{h.hexdigest()[:24]}.bin.gz"
    if not cached.is_file():
        cache.mkdir(parents=True, exist_ok=True)
        tmp = cached.with_suffix(".tmp")
        proc = subprocess.run(["node", str(SCRIPT), str(assets), str(checker_zip), str(tmp)], cwd=REPO,
                              capture_output=True, text=True, timeout=600)
        if proc.returncode != 0 or not tmp.is_file():
            raise SnapshotError(f"{SCRIPT.relative_to(REPO)}: the Pyodide snapshot failed:\n{proc.stderr[-2000:]}")
        tmp.replace(cached)
        for old in cache.glob("*.bin.gz"):  # keep the cache from growing without bound
            if old != cached:
                old.unlink()
    shutil.copyfile(cached, assets / NAME)
    info["snapshot"] = NAME
    (assets / "wheels.json").write_text(json.dumps(info, indent=1))
    return NAME
