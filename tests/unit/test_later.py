"""checker/later.py: an import of a module that arrives after ready waits for it, here on CPython with a zip and a
folder standing in for the rest of the standard library and of numpy."""
from __future__ import annotations

import json
import sys
import zipfile

import pytest

from checker import later


@pytest.fixture
def parts(tmp_path, monkeypatch):
    """A "start-up" package `tlpkg` (on sys.path, imported already), whose submodule `tlpkg.rest` and the module
    `tlrestmod` are in a later zip, and a later folder part where `tlfolder.sub` arrives beside `tlfolder`."""
    start = tmp_path / "start"
    (start / "tlpkg").mkdir(parents=True)
    (start / "tlpkg" / "__init__.py").write_text("X = 1\n")
    (start / "tlfolder").mkdir()
    (start / "tlfolder" / "__init__.py").write_text("")
    (start / "tlns").mkdir()  # a package whose __init__.py arrives later, one of its files there already
    (start / "tlns" / "py.typed").write_text("")
    rest_zip = tmp_path / "rest.zip"
    with zipfile.ZipFile(rest_zip, "w") as z:
        z.writestr("tlrestmod.py", "VALUE = 'from the rest'\n")
        z.writestr("tlpkg/rest.py", "from . import X\nY = X + 1\n")
    monkeypatch.syspath_prepend(str(start))
    calls = []

    def now():
        calls.append("now")
        (start / "tlfolder" / "sub.py").write_text("Z = 3\n")
        (start / "tlns" / "__init__.py").write_text("W = 4\n")
        later.arrived()

    described = [{"root": str(rest_zip), "modules": ["tlrestmod", "tlpkg.rest"]},
                 {"root": str(start), "modules": ["tlfolder.sub", "tlns"]}]
    import tlfolder  # noqa: F401  (imported before its submodule arrives, as numpy is)
    import tlpkg  # noqa: F401
    later.expect(json.dumps(described), now)
    yield calls
    sys.meta_path[:] = [f for f in sys.meta_path if not isinstance(f, later.Later)]
    for name in ("tlrestmod", "tlpkg", "tlpkg.rest", "tlfolder", "tlfolder.sub", "tlns"):
        sys.modules.pop(name, None)


def test_an_import_of_a_later_module_waits_for_it_once(parts):
    import tlrestmod
    import tlpkg.rest
    import tlfolder.sub
    assert (tlrestmod.VALUE, tlpkg.rest.Y, tlfolder.sub.Z) == ("from the rest", 2, 3)
    assert parts == ["now"], "the parts are asked for once"


def test_a_package_split_between_the_parts_finds_its_later_submodule_after_a_check_put_sys_path_back(parts):
    saved = list(sys.path)
    later.arrived()  # the parts came after ready, as usual
    sys.path[:] = saved  # what checker/isolation.py does after every check
    import tlpkg.rest
    assert tlpkg.rest.Y == 2
    assert parts == [], "arrived: nothing asked for"


def test_a_name_in_no_part_fails_as_before_without_asking(parts):
    with pytest.raises(ModuleNotFoundError):
        import tl_not_anywhere  # noqa: F401
    assert parts == []


def test_when_the_parts_cannot_arrive_the_import_fails_as_a_missing_module(parts, monkeypatch):
    finder = later._finder[0]
    monkeypatch.setattr(finder, "now", lambda: (_ for _ in ()).throw(OSError("offline, and no copy")))
    with pytest.raises(ModuleNotFoundError):
        import tlrestmod  # noqa: F401
    assert finder.failed == "offline, and no copy"


def test_a_package_whose_folder_is_there_already_is_not_taken_for_a_namespace_package(parts):
    import tlns
    assert tlns.__file__ is not None and tlns.W == 4
    assert parts == ["now"]


def test_forget_listings_finds_a_module_written_after_its_folder_was_listed(tmp_path, monkeypatch):
    """numpy's second part (numpy.random...) is written after `import numpy` listed numpy's folders
    (checker/bridge.py numpy_ready, late): a folder whose listing is cached, and whose time did not move (the
    file system's clock is coarse), hides a module written since, until its finder forgets the listing."""
    import importlib
    import os

    pkg = tmp_path / "pkg_listed"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "first.py").write_text("X = 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("pkg_listed.first")
    stamp = os.stat(pkg).st_mtime_ns
    (pkg / "second.py").write_text("Y = 2\n")
    os.utime(pkg, ns=(stamp, stamp))  # as if within the same tick of the clock
    try:
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("pkg_listed.second")
        later.forget_listings([str(pkg)])
        assert importlib.import_module("pkg_listed.second").Y == 2
    finally:
        for name in ("pkg_listed", "pkg_listed.first", "pkg_listed.second"):
            sys.modules.pop(name, None)
