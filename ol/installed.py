"""The installed `tinyllm-ol` package against its wheel's own record of every file's sha256.

The judge, the hidden tests and the course's data are files on the learner's or teacher's disk. A check runs
learner code; were it to rewrite one of those files (a hidden test emptied, the judge changed), every later check
would judge wrong code right. The sandbox forbids it where the OS has one (checker/sandbox.py); this module
notices it anywhere: `ol/checkrun.py` calls `verify` before and after every check, and a file that differs from
the wheel's RECORD stops the grading with its name.

A checkout (`pip install -e .`, the project's own venv) has no such record of its sources: nothing to verify.
"""
from __future__ import annotations

import base64
import hashlib
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from .errors import FAILED, OlError

DISTRIBUTION = "tinyllm-ol"
PACKAGES = ("checker/", "course/", "ol/")


class Changed(OlError):
    """A file of the installed package is not what its wheel installed."""

    def __init__(self, path: Path, how: str):
        super().__init__(f"{path} {how} since tinyllm-ol was installed. The judge, the hidden tests and the course's "
                         f"data must be exactly the wheel's for a verdict to mean anything, so the grading stops "
                         f"here. Reinstall it (pip install --force-reinstall tinyllm-ol) and grade again; a "
                         f"submission you graded just before may have changed it.", FAILED)
        self.path = path


@lru_cache(maxsize=1)
def recorded() -> tuple[tuple[Path, str, str], ...]:
    """(file, "sha256", urlsafe base64 digest) of every installed file of the judge, the command line and the
    course, from the wheel's RECORD; empty for a checkout."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return ()
    out = []
    for file in dist.files or ():
        if file.hash is None or not str(file).startswith(PACKAGES):
            continue
        out.append((Path(file.locate()).resolve(), file.hash.mode, file.hash.value))
    here = Path(__file__).resolve()
    return tuple(out) if any(path == here for path, _, _ in out) else ()  # this very file: not another copy's


def verify() -> None:
    """Raise Changed for the first installed file that is missing or differs from the wheel's record."""
    for path, mode, value in recorded():
        try:
            data = path.read_bytes()
        except OSError:
            raise Changed(path, "is missing") from None
        digest = base64.urlsafe_b64encode(hashlib.new(mode, data).digest()).rstrip(b"=").decode()
        if digest != value:
            raise Changed(path, "was changed")
