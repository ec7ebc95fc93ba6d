"""Modules that arrive after Python is ready: the rest of the standard library and of numpy (issue 30).

The browser's worker starts with only the modules start-up imports (a start-up standard library zip, numpy's
start-up part) and fetches the rest once Python is ready: the rest of the standard library as a zip, numpy's rest
as files written into site-packages beside its start-up part. An import must never fail because its module has not
arrived yet: `expect` puts a finder first in `sys.meta_path` that knows every module name of the later parts. An
import of one of them before they have arrived asks the worker for them at once (`now`, a synchronous call into
JavaScript, which writes them and calls `arrived`), then lets the module be found where its part put it. First,
not last: a package whose folder the start-up part already has (the judge's wheels' `_pytest`, with a module or a
data file of it there) would otherwise be found as an empty namespace package before its `__init__.py` arrives.
Names that are in no part (a module Pyodide does not ship, a try-import of something optional) never wait.

The rest of the standard library is not put on sys.path: the judge puts sys.path back after every check
(checker/isolation.py), and a package split between the two zips (`encodings`) has its path in the start-up zip
only. This finder serves those modules from the rest zip itself, as a sys.path entry would. State lives in one
object whose attributes change, never in rebound module globals, which the tamper check would see as replaced
(checker/integrity.py).
"""
from __future__ import annotations

import importlib.machinery
import json
import sys
from typing import Callable


class Later:
    """The finder: `parts` is [{"root": a zip or folder, "modules": [dotted names]}, ...]; `now()` makes the parts
    arrive (and calls `arrived`) or raises."""

    def __init__(self, parts: list[dict], now: Callable[[], object]):
        self.roots = {}
        for part in parts:
            for name in part["modules"]:
                self.roots[name] = part["root"]
        self.dirs = [p["root"] for p in parts if not p["root"].endswith(".zip")]
        self.now = now
        self.here = False
        self.failed = ""

    def find_spec(self, fullname: str, path=None, target=None):
        root = self.roots.get(fullname)
        if root is None:
            return None
        if not self.here:
            try:
                self.now()
            except Exception as exc:  # noqa: BLE001 - offline with no copy: the import fails as a missing module
                self.failed = str(exc)
                return None
            self.arrived()
        if not root.endswith(".zip"):
            return None  # written beside the start-up part: the finders after this one find it now
        package = fullname.rpartition(".")[0]
        where = root + ("/" + package.replace(".", "/") if package else "")
        return importlib.machinery.PathFinder.find_spec(fullname, [where], target)

    def arrived(self) -> None:
        """The parts are written: forget what the folders' finders listed before they were."""
        if self.here:
            return
        self.here = True
        forget_listings(self.dirs)


def forget_listings(dirs: list[str]) -> None:
    """Files were written under these folders after Python's finders listed them: let them list them again."""
    for key, finder in list(sys.path_importer_cache.items()):
        if finder is not None and any(str(key).startswith(d) for d in dirs):
            finder.invalidate_caches()


_finder: list[Later] = []  # one at most; a list, so that installing it rebinds no global


def expect(parts_json: str, now: Callable[[], object]) -> None:
    """Install the finder for the later parts (the wheels list's `later`, as JSON); `now` as for Later."""
    for old in _finder:
        if old in sys.meta_path:
            sys.meta_path.remove(old)
    _finder[:] = [Later(json.loads(parts_json), now)]
    sys.meta_path.insert(0, _finder[0])


def arrived() -> None:
    """The worker has written the later parts (fetched after ready)."""
    for finder in _finder:
        finder.arrived()
