"""Build (or take from the cache) what lets the worker start fast: numpy repacked with its bytecode, the judge's
wheels as one pack (tools/pack.py), and the Pyodide memory snapshot it restores instead of a cold start.

All three depend only on Pyodide's files, numpy's wheel, the judge's wheels, the judge itself and the scripts
that make them (tools/numpy_archive.mjs, tools/snapshot.mjs, web/src/shared/build-outputs.js, tools/pack.py), so they
are cached under .cache/snapshot/ by a hash of exactly those; a build that changes none of them reuses them.
"""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

from tools import build_outputs, pack

REPO = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).with_name("snapshot.mjs")
NUMPY_SCRIPT = Path(__file__).with_name("numpy_archive.mjs")
OUTPUTS_JS = REPO / "web" / "src" / "shared" / "build-outputs.js"  # the Node scripts read the wheels list through it
DYNLIBS = "numpy-dynlibs.json"  # numpy_archive.mjs: the extension modules numpy's first imports load, in order


class SnapshotError(RuntimeError):
    """The snapshot could not be made; the message says why."""


def run_node(script: Path, *args: Path, error: type[Exception] = SnapshotError) -> None:
    """Run one of the build's Node.js scripts; `error` (naming the script and the end of its stderr) if it fails."""
    proc = subprocess.run(["node", str(script), *map(str, args)], cwd=REPO, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        raise error(f"{script.relative_to(REPO)} failed:\n{proc.stderr[-2000:]}")


def _head(path: Path, size: int = 16) -> bytes:
    """The first bytes of a file (an LZ4 container's header), without reading the rest."""
    with path.open("rb") as f:
        return f.read(size)


def build(assets: Path, checker_zip: Path, cache: Path = REPO / ".cache" / "snapshot") -> tuple[str, ...]:
    """Put the snapshot, numpy's pack and the wheels' pack into `assets` (site/assets/pyodide) and name them in
    the wheels list (tools/build_outputs.py); returns the file names of the snapshot's parts."""
    info = build_outputs.read_wheels_list(assets)
    numpy_wheel, numpy_version = build_outputs.numpy_wheel(assets)
    archive_name = build_outputs.numpy_pack(numpy_version)
    parts, wheels_name = build_outputs.snapshot_parts(), build_outputs.WHEELS_PACK
    inputs = [assets / n for n in ("pyodide.asm.wasm", "pyodide.asm.mjs", "python_stdlib.zip",
                                   build_outputs.PYODIDE_LOCK)]
    inputs += [assets / numpy_wheel] + [assets / w for w in info.wheels]
    inputs += [checker_zip, SCRIPT, NUMPY_SCRIPT, OUTPUTS_JS, Path(pack.__file__)]
    h = hashlib.sha256()
    for path in inputs:
        h.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    key = cache / h.hexdigest()[:24]
    packed = (*parts, archive_name, wheels_name)
    names = (*packed, *(name + build_outputs.COMPACT_SUFFIX for name in packed))
    outputs = {name: key / name for name in names}
    if not all(p.is_file() for p in [*outputs.values(), key / DYNLIBS]):
        tmp = key.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        run_node(NUMPY_SCRIPT, assets, tmp / "numpy.zip", tmp / "numpy-stdlib.json", tmp / DYNLIBS)
        run_node(SCRIPT, assets, checker_zip, tmp / "numpy-stdlib.json", tmp / "snapshot.bin")
        for name, data in zip(parts, pack.split((tmp / "snapshot.bin").read_bytes(), len(parts)), strict=True):
            (tmp / name).write_bytes(data)
        (tmp / "snapshot.bin").unlink()
        (tmp / archive_name).write_bytes(pack.from_zips([tmp / "numpy.zip"]))
        (tmp / "numpy.zip").unlink()
        (tmp / wheels_name).write_bytes(pack.from_zips(assets / w for w in info.wheels))
        for name in packed:
            (tmp / (name + build_outputs.COMPACT_SUFFIX)).write_bytes(pack.compact((tmp / name).read_bytes()))
        for old in cache.iterdir():  # keep the cache from growing without bound
            if old != tmp:
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        tmp.replace(key)
    for name, path in outputs.items():
        shutil.copyfile(path, assets / name)
    build_outputs.write_wheels_list(assets, info.packed(
        snapshot=parts, numpy=archive_name, wheels_pack=wheels_name,
        snapshot_bytes=sum((assets / name).stat().st_size for name in parts),
        snapshot_size=sum(pack.contained_size(_head(assets / name)) for name in parts), compact=True,
        snapshot_compact_bytes=sum((assets / (name + build_outputs.COMPACT_SUFFIX)).stat().st_size for name in parts),
        numpy_dynlibs=tuple(json.loads((key / DYNLIBS).read_text(encoding="utf-8"))),
        **start_sizes(assets, checker_zip, packed)))
    return parts


def start_sizes(assets: Path, checker_zip: Path, packed: tuple[str, ...]) -> dict[str, int]:
    """What a start that restores the snapshot downloads, in bytes, with the LZ4 files and with the compact copies
    (the worker's progress bar: web/src/worker/boot/downloads.js)."""
    size = lambda name: (assets / name).stat().st_size if (assets / name).is_file() else 0  # noqa: E731
    common = sum(size(n) for n in (build_outputs.CORE_GZ, build_outputs.LOADER_GZ, "python_stdlib.zip"))
    common += checker_zip.stat().st_size
    return {"start_bytes": common + sum(size(n) for n in packed),
            "start_compact_bytes": common + sum(size(n + build_outputs.COMPACT_SUFFIX) for n in packed)}
