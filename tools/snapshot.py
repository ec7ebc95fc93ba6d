"""Build (or take from the cache) what lets the worker start fast: numpy repacked with its bytecode, the judge's
wheels as one pack (tools/pack.py), and the Pyodide memory snapshot it restores instead of a cold start; and,
so that less must arrive before ready (issue 30), the standard library and numpy each in two parts: what start-up
imports, and the rest, which the worker fetches after ready (checker/later.py makes an import wait for it).

All depend only on Pyodide's files, numpy's wheel, the judge's wheels, the judge itself, the modules the course
imports (course_modules) and the scripts that make them (tools/numpy_archive.mjs, tools/snapshot.mjs,
web/src/shared/build-outputs.js, tools/pack.py, this file), so they are cached under .cache/snapshot/ by a hash of
exactly those; a build that changes none of them reuses them.
"""
from __future__ import annotations

import ast
import hashlib
import io
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

from tools import build_outputs, pack

REPO = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).with_name("snapshot.mjs")
NUMPY_SCRIPT = Path(__file__).with_name("numpy_archive.mjs")
OUTPUTS_JS = REPO / "web" / "src" / "shared" / "build-outputs.js"  # the Node scripts read the wheels list through it
DELTA_JS = REPO / "web" / "src" / "shared" / "snapshot-delta.js"  # the snapshot's delta (snapshot.mjs, the worker)
NUMPY_JSON = "numpy.json"  # numpy_archive.mjs: {stdlib, dynlibs, later} (see there)
KEEP = 3  # snapshots kept in the cache
DELTA_JSON = "delta.json"  # snapshot.mjs: {bytes, sum} of the initial memory the snapshot is a delta against
LATER_JSON = "later.json"  # the module names of the parts that arrive after ready, for the wheels list
NUMPY_FIRST = "numpy-first.txt"  # the length of the first frame of numpy's start-up pack


class SnapshotError(RuntimeError):
    """The snapshot could not be made; the message says why."""


def run_node(script: Path, *args: Path, error: type[Exception] = SnapshotError) -> None:
    """Run one of the build's Node.js scripts; `error` (naming the script and the end of its stderr) if it fails."""
    proc = subprocess.run(["node", str(script), *map(str, args)], cwd=REPO, capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        raise error(f"{script.relative_to(REPO)} failed:\n{proc.stderr[-2000:]}")


def _head(path: Path, size: int = 16) -> bytes:
    """The first bytes of a file (a zstd frame's header), without reading the rest."""
    with path.open("rb") as f:
        return f.read(size)


def course_modules(exercises: Path | None) -> list[str]:
    """Every module the course's exercise files import (the hidden tests', the references', the starters'), by
    its dotted name: numpy's start-up part and the snapshot include what these pull in, so that a first check
    waits for nothing that arrives after ready (tools/numpy_archive.mjs). Names of the learner's own packages
    are listed too; they are found nowhere at build time and skipped there."""
    found: set[str] = set()
    for path in sorted(exercises.rglob("*.py")) if exercises else []:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue  # a mutant or starter may not parse; the judge says so in the browser
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
    return sorted(found)


def split_stdlib(whole: Path, start_files: list[str], start: Path) -> tuple[bytes, list[str]]:
    """Write the start-up zip (the files `start_files` lists, with their folders) to `start`; return the rest as a
    zstd frame, and the module names the rest holds. Both zips are stored, not deflated: each travels as one zstd
    frame (a quarter smaller than Pyodide's deflated zip), and Python then reads its modules without inflating."""
    wanted = set(start_files)
    rest = io.BytesIO()
    names = []
    with zipfile.ZipFile(whole) as src, zipfile.ZipFile(start, "w", zipfile.ZIP_STORED) as a, \
            zipfile.ZipFile(rest, "w", zipfile.ZIP_STORED) as b:
        folders = {name.rsplit("/", 1)[0] + "/" for name in wanted if "/" in name}
        for info in src.infolist():
            data = src.read(info)
            fixed = lambda: zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))  # noqa: E731 - one each
            if info.filename in wanted or info.filename in folders:
                a.writestr(fixed(), data)
            if info.filename not in wanted:
                b.writestr(fixed(), data)
                if info.filename.endswith(".py"):
                    names.append(info.filename.removesuffix(".py").removesuffix("/__init__").replace("/", "."))
    missing = wanted - set(zipfile.ZipFile(start).namelist())
    if missing:
        raise SnapshotError(f"{whole.name}: start-up imports files it lacks: {sorted(missing)[:5]}")
    return pack.compress(rest.getvalue()), sorted(names)


def _key(assets: Path, checker_zip: Path, info: build_outputs.WheelsList, numpy_wheel: str, course: list[str],
         cache: Path) -> Path:
    """The cache folder of everything the snapshot and the packs depend on."""
    inputs = [assets / n for n in ("pyodide.asm.wasm", "pyodide.asm.mjs", build_outputs.STDLIB,
                                   build_outputs.PYODIDE_LOCK)]
    inputs += [assets / numpy_wheel] + [assets / w for w in info.wheels]
    inputs += [checker_zip, SCRIPT, NUMPY_SCRIPT, OUTPUTS_JS, DELTA_JS, Path(pack.__file__), Path(__file__)]
    h = hashlib.sha256(json.dumps(course).encode())
    for path in inputs:
        h.update(path.name.encode() + b"\0" + hashlib.sha256(path.read_bytes()).digest())
    return cache / h.hexdigest()[:24]


def _make(assets: Path, checker_zip: Path, info: build_outputs.WheelsList, course: list[str], tmp: Path,
          names: dict[str, str]) -> None:
    """Make every output into `tmp` (see build)."""
    (tmp / "course.json").write_text(json.dumps(course), encoding="utf-8")
    run_node(NUMPY_SCRIPT, assets, tmp / "course.json", tmp)
    run_node(SCRIPT, "measure", assets, checker_zip, tmp / NUMPY_JSON, tmp / "stdlib-start.json")
    measured = json.loads((tmp / "stdlib-start.json").read_text(encoding="utf-8"))
    rest, later_stdlib = split_stdlib(assets / build_outputs.STDLIB, measured["stdlib"], tmp / build_outputs.STDLIB_START)
    (tmp / build_outputs.STDLIB_REST).write_bytes(rest)
    (tmp / (build_outputs.STDLIB_START + build_outputs.COMPACT_SUFFIX)).write_bytes(
        pack.compress((tmp / build_outputs.STDLIB_START).read_bytes()))
    run_node(SCRIPT, "make", assets, checker_zip, tmp / NUMPY_JSON, tmp / build_outputs.STDLIB_START,
             tmp / "snapshot.bin", tmp / DELTA_JSON)
    parts = build_outputs.snapshot_parts()
    # One zstd frame of the whole snapshot, cut into pieces downloaded side by side (pack.cut).
    for name, piece in zip(parts, pack.cut(pack.compress((tmp / "snapshot.bin").read_bytes()), len(parts)),
                           strict=True):
        (tmp / name).write_bytes(piece)
    (tmp / "snapshot.bin").unlink()
    # numpy's start-up pack in two frames, back to back in one file: what `import numpy` loads, then the rest of
    # start-up (tools/numpy_archive.mjs); the wheels list says where the second begins.
    first, more = (pack.from_zips([tmp / f"numpy-start{part}.zip"]) for part in ("", "-more"))
    (tmp / names["numpy"]).write_bytes(first + more)
    (tmp / NUMPY_FIRST).write_text(str(len(first)))
    (tmp / names["numpy_rest"]).write_bytes(pack.from_zips([tmp / "numpy-rest.zip"]))
    for leftover in ("numpy-start.zip", "numpy-start-more.zip", "numpy-rest.zip", "course.json", "stdlib-start.json"):
        (tmp / leftover).unlink()
    start, later, later_wheels = split_wheels([assets / w for w in info.wheels], set(measured["wheels"]))
    (tmp / names["wheels_pack"]).write_bytes(pack.pack(start))
    (tmp / names["wheels_rest"]).write_bytes(pack.pack(later))
    numpy = json.loads((tmp / NUMPY_JSON).read_text(encoding="utf-8"))
    (tmp / LATER_JSON).write_text(json.dumps({"later_stdlib": later_stdlib, "later_numpy": numpy["later"],
                                              "later_wheels": later_wheels}))


def split_wheels(wheels: list[Path], loaded: set[str]) -> tuple[list, list, list[str]]:
    """The judge's wheels' files in two parts: the start-up one, the files of the modules the snapshot does not
    hold and every metadata file; and the rest, the sources of the modules it holds (read for a traceback, or by a
    cold start, which waits for them: their names are returned for checker/later.py)."""
    start, later, names = [], [], []
    for path in wheels:
        with zipfile.ZipFile(path) as zf:
            for info in zf.infolist():
                if info.is_dir():
                    continue
                if info.filename in loaded:
                    later.append((info.filename, zf.read(info)))
                    names.append(info.filename.removesuffix(".py").removesuffix("/__init__").replace("/", "."))
                else:
                    start.append((info.filename, zf.read(info)))
    return start, later, sorted(names)


def build(assets: Path, checker_zip: Path, cache: Path = REPO / ".cache" / "snapshot",
          exercises: Path | None = None) -> tuple[str, ...]:
    """Put the snapshot, numpy's packs, the wheels' packs and the standard library's two parts into `assets`
    (site/assets/pyodide) and name them in the wheels list (tools/build_outputs.py); returns the file names of the
    snapshot's parts. `exercises`: the course's, whose imports start-up includes (course_modules)."""
    info = build_outputs.read_wheels_list(assets)
    numpy_wheel, numpy_version = build_outputs.numpy_wheel(assets)
    course = course_modules(exercises)
    names = {"numpy": build_outputs.numpy_pack(numpy_version), "numpy_rest": build_outputs.numpy_rest_pack(numpy_version),
             "wheels_pack": build_outputs.WHEELS_PACK, "wheels_rest": build_outputs.WHEELS_REST}
    parts = build_outputs.snapshot_parts()
    packed = (*parts, names["numpy"], names["wheels_pack"])
    outputs = (*packed, names["numpy_rest"], names["wheels_rest"],
               build_outputs.STDLIB_START, build_outputs.STDLIB_START + build_outputs.COMPACT_SUFFIX,
               build_outputs.STDLIB_REST, NUMPY_FIRST, NUMPY_JSON, DELTA_JSON, LATER_JSON)
    key = _key(assets, checker_zip, info, numpy_wheel, course, cache)
    if not all((key / name).is_file() for name in outputs):
        tmp = key.with_suffix(".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        _make(assets, checker_zip, info, course, tmp, names)
        tmp.replace(key)
    key.touch()
    # Keep the cache from growing without bound, but keep a few: two courses (the site's, the tests' fixture
    # course) import different modules, so their snapshots differ and would evict each other.
    for old in sorted((p for p in cache.iterdir() if p != key), key=lambda p: p.stat().st_mtime)[:-(KEEP - 1)]:
        shutil.rmtree(old) if old.is_dir() else old.unlink()
    for name in outputs[:-4]:
        shutil.copyfile(key / name, assets / name)
    later = json.loads((key / LATER_JSON).read_text(encoding="utf-8"))
    delta = json.loads((key / DELTA_JSON).read_text(encoding="utf-8"))
    build_outputs.write_wheels_list(assets, info.packed(
        snapshot=parts, numpy=names["numpy"], wheels_pack=names["wheels_pack"],
        snapshot_bytes=sum((assets / name).stat().st_size for name in parts),
        snapshot_size=pack.content_size(_head(assets / parts[0], 18)),
        numpy_dynlibs=tuple(json.loads((key / NUMPY_JSON).read_text(encoding="utf-8"))["dynlibs"]),
        **start_sizes(assets, checker_zip, packed), stdlib=build_outputs.STDLIB_START,
        stdlib_rest=build_outputs.STDLIB_REST, numpy_rest=names["numpy_rest"], wheels_rest=names["wheels_rest"],
        snapshot_delta_bytes=delta["bytes"], snapshot_delta_sum=delta["sum"],
        numpy_first_bytes=int((key / NUMPY_FIRST).read_text()), **later))
    return parts


def start_sizes(assets: Path, checker_zip: Path, packed: tuple[str, ...]) -> dict[str, int]:
    """What a start that restores the snapshot downloads before ready, and the start-up standard library, which
    a cold start downloads as well (a restored one after ready), in bytes (the worker's progress bar:
    web/src/worker/boot/downloads.js)."""
    size = lambda name: (assets / name).stat().st_size if (assets / name).is_file() else 0  # noqa: E731
    common = sum(size(n) for n in (build_outputs.CORE_ZST, build_outputs.LOADER_ZST))
    common += checker_zip.stat().st_size
    return {"start_bytes": common + sum(size(n) for n in packed),
            "stdlib_bytes": size(build_outputs.STDLIB_START + build_outputs.COMPACT_SUFFIX)}
