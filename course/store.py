"""What loading an exercise folder remembers, in this process and between processes (course/manifest.py `load`).

A build loads every exercise several times (validation, the page checks, the widgets), which at a hundred
exercises cost seconds each time. A folder whose files have not changed (same paths, sizes and modification
times: `signature`) gives the same Exercise without being read again; across processes it is kept on disk
(`disk_path`), with the signature and the loading code it was made with.
"""
from __future__ import annotations

import hashlib
import os
import pickle
from pathlib import Path

from course.model import Exercise

REPO = Path(__file__).resolve().parent.parent


def signature(folder: Path) -> tuple:
    """What `manifest.load` read, as the file system describes it: every file's path, size and modification time."""
    out = []
    root = str(folder)
    for top, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        base = os.path.relpath(top, root).replace(os.sep, "/")
        for name in files:
            stat = os.stat(os.path.join(top, name))
            out.append((name if base == "." else f"{base}/{name}", stat.st_size, stat.st_mtime_ns))
    return tuple(sorted(out))


def cache_folder() -> Path:
    """The folder of what validation and the build remember between runs: TL_VALIDATE_CACHE, else
    .cache/validate in this checkout."""
    return Path(os.environ.get("TL_VALIDATE_CACHE") or REPO / ".cache" / "validate")


def disk_path(folder: Path) -> Path | None:
    """Where `folder`'s exercise is kept between processes, with what it was loaded from: in the validation
    cache when TL_VALIDATE_CACHE names one, or for the checkout's own exercises once it has a .cache; None
    elsewhere (an installed `ol`, a folder of a test)."""
    if not os.environ.get("TL_VALIDATE_CACHE") and not ((REPO / ".cache").is_dir() and folder.is_relative_to(REPO)):
        return None
    return cache_folder() / "manifests" / f"{hashlib.sha256(str(folder).encode()).hexdigest()[:32]}.pickle"


def read_stored(path: Path | None, stamp: tuple) -> Exercise | None:
    """The stored exercise when it was loaded from the files as they are now, by this code; else None."""
    try:
        kept, exercise = pickle.loads(path.read_bytes()) if path else (None, None)
    except Exception:  # noqa: BLE001 - unreadable, cut short, from another version: load the folder instead
        return None
    return exercise if kept == stamp and isinstance(exercise, Exercise) else None


def store(path: Path | None, stamp: tuple, exercise: Exercise) -> None:
    if path is None:
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_bytes(pickle.dumps((stamp, exercise)))
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache only costs the next process a load

