"""The build's outputs that the browser's runtime reads, described once for the build steps (the Python side).

The worker finds what it loads through one file, the wheels list (`assets/pyodide/wheels.json`): the judge's
wheels, and the names of the memory snapshot and of the packs (tools/pack.py) when the build made them. Two build
steps write it (tools/pyodide_assets.py with the wheels, tools/snapshot.py adding the snapshot and the packs) and
one reads it (tools/offline.py, to leave the wheels the packs replace out of the service worker's precache); all
three go through here. The JavaScript side is web/src/shared/build-outputs.js, which the worker and the Node scripts of
the build (tools/snapshot.mjs, tools/suite_times.mjs, tools/numpy_archive.mjs) read through;
tests/unit/test_build_outputs.py checks that the two sides agree.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

WHEELS_LIST = "wheels.json"          # in assets/pyodide/
PYODIDE_LOCK = "pyodide-lock.json"   # in assets/pyodide/: Pyodide's own, copied from node_modules (names numpy's wheel)
COMPACT_SUFFIX = ".zst"              # the start-up standard library's zstd frame: its name plus this
SNAPSHOT_PARTS = 3                   # the snapshot travels in this many parts, downloaded side by side
WHEELS_PACK = "judge-wheels.pack.zst"  # in assets/pyodide/: the files start-up needs (see snapshot.py split_wheels)
WHEELS_REST = "judge-wheels-rest.pack.zst"  # the sources of the modules the snapshot holds, fetched after ready
JUDGE_ZIP = "checker.zip"            # in assets/tl/: the judge's files (tools/bundle.py judge_files: all of checker/)
ZSTD_WASM = "zstd.wasm"              # in assets/tl/: zstd's decoder, beside the worker's script (web/build.mjs)
ZSTD_LICENCE = "zstd.wasm.LICENSE.txt"  # and its licence (BSD), which travels with it
STDLIB = "python_stdlib.zip"          # in assets/pyodide/: Pyodide's standard library, whole (the bare page's)
STDLIB_START = "python_stdlib-start.zip"    # the modules start-up imports, which the worker starts with (issue 30):
                                            # a stored zip, which travels as its zstd frame (+ COMPACT_SUFFIX)
STDLIB_REST = "python_stdlib-rest.zip.zst"  # the rest, a zstd frame of a stored zip, fetched after ready
CORE_GZ = "pyodide.asm.wasm.gz"      # in assets/pyodide/: the core, gzipped (tools/precompress.py)
CORE_ZST = "pyodide.asm.wasm.zst"    # the core as a zstd frame, which the worker fetches first (issue 30)
LOADER_ZST = "pyodide.asm.mjs.zst"   # its loader as a zstd frame, likewise
LOADER_GZ = "pyodide.asm.mjs.gz"     # in assets/pyodide/: its loader module, gzipped
MATH_FONT = "tl-math.woff"           # in assets/tl/: the formulas' font, subset to what they draw (tools/math_font.py),
MATH_FONT_LICENCE = "tl-math.woff.LICENSE.txt"  # which tl.css names (@font-face), and its licence (SIL OFL)
AUTHORING_DIR = "authoring"          # in assets/tl/: <slug>.json per exercise, for the author's course check only
                                     # (tools/bundle.py write_authoring; not in the offline copy: tools/offline.py)

# The settings the runtime shares with the build (web/src/shared/build-outputs.js RUNTIME, the side that reads them):
# HOME, where the judge's zip is unpacked (the snapshot's imports are found there again), where the judge writes a
# check's files (checker/bridge.py WORKDIR, which imports nothing from here: tests/unit/test_build_outputs.py holds
# them equal), and the Cache Storage name of the worker's hand-off to the service worker and the header the service
# worker keeps each file's hash in, both written into sw.js by tools/offline.py.
# `stdlibRest`: where the worker writes the rest of the standard library, which checker/later.py serves imports from.
RUNTIME = {"home": "/home/pyodide", "judgeDir": "/home/pyodide/tl", "workDir": "/tmp/tl",
           "handoffCache": "tinyllm-handoff", "hashHeader": "X-TL-SHA256", "stdlibRest": "/lib/python_stdlib-rest.zip"}


@dataclass(frozen=True)
class OptionalPackage:
    """A package the worker loads only when learner code imports it (matplotlib): Pyodide's `loadPackage` finds
    the files through the lock file, in assets/pyodide/; they are not precached (tools/offline.py).

    name:    the package's name in Pyodide's lock file, what the worker passes to loadPackage
    imports: the top-level modules whose import asks for it (the lock file's `imports`)
    files:   every file loadPackage fetches for it, its dependencies' too, minus what start-up has loaded already
    bytes:   their total size, for the message while they load
    """

    name: str
    imports: tuple[str, ...]
    files: tuple[str, ...]
    bytes: int = 0


def lock_subset(lock: dict, names: list[str]) -> dict:
    """Pyodide's lock file with only `names` and what they depend on (its `info` kept: Pyodide checks the ABI)."""
    keep: list[str] = []
    for name in names:
        keep += [n for n in dependency_closure(lock, name) if n not in keep]
    return {"info": lock["info"], "packages": {n: lock["packages"][n] for n in sorted(keep)}}


def dependency_closure(lock: dict, name: str) -> list[str]:
    """`name` and every package it depends on in Pyodide's lock file (its `packages`), transitively, in the order
    found. ValueError naming the package when the lock file lacks one."""
    packages = lock["packages"]
    found: list[str] = []
    todo = [name]
    while todo:
        current = todo.pop(0)
        if current in found:
            continue
        if current not in packages:
            raise ValueError(f"{PYODIDE_LOCK}: no package {current!r}"
                             + (f" (a dependency of {name})" if current != name else ""))
        found.append(current)
        todo.extend(packages[current].get("depends", []))
    return found


def snapshot_parts(count: int = SNAPSHOT_PARTS) -> tuple[str, ...]:
    """The file names (in assets/pyodide/) of the snapshot's parts, in order; the worker reads them from the list."""
    return tuple(f"snapshot-{i}-of-{count}.zst" for i in range(1, count + 1))


def numpy_pack(version: str) -> str:
    """The file name of numpy `version` repacked with its bytecode (tools/numpy_archive.mjs): its start-up part."""
    return f"numpy-{version}-tl.pack.zst"


def numpy_rest_pack(version: str) -> str:
    """The file name of the rest of numpy `version` (sources, lazily imported modules), which arrives after ready."""
    return f"numpy-{version}-tl-rest.pack.zst"


@dataclass(frozen=True)
class WheelsList:
    """The wheels list. An empty name means the build made no such file; the worker then loads the wheels
    with Pyodide's `loadPackage` and starts Python cold.

    pyodide:     the Pyodide version the files are for
    wheels:      the judge's wheels (pytest and what it needs), file names in assets/pyodide/
    snapshot:    the memory snapshot's parts, in order (one zstd frame of it cut into pieces, tools/pack.py cut):
                 downloaded side by side, then joined and decoded into one buffer
    snapshot_bytes: their total size, which the worker weighs against the line's speed (start cold on a slow line)
    snapshot_size: the snapshot's size once decoded (its frame's header says it): Pyodide's memory is made
                 that size, so the worker can create it while the parts are still downloading
    numpy:       numpy's pack, which replaces its wheel
    numpy_first_bytes: the length of its first zstd frame, when it has two (issue 41): what `import numpy`
                 loads, which the worker imports while the second (numpy.random...) downloads; 0: one frame
    wheels_pack: the judge's wheels as one pack, which replaces `wheels`
    numpy_dynlibs: the extension modules numpy's first imports load, paths under site-packages, in the order
                 they load (tools/numpy_archive.mjs); the worker loads them ahead of the import
    start_bytes: everything a start that restores the snapshot downloads before ready (the core and its loader
                 compressed, the snapshot's parts, the packs, the judge's zip), which the worker shows progress
                 against
    stdlib_bytes: the start-up standard library's zstd frame, which a cold start downloads as well (a start that
                 restores the snapshot, after ready: web/src/worker/boot/later.js deferStdlib)
    optional:    packages loaded only when learner code imports them (OptionalPackage)
    stdlib:      the start-up standard library (STDLIB_START), which the worker starts with, when the build made it
    stdlib_rest, numpy_rest, wheels_rest: the rest of the standard library, of numpy and of the judge's wheels,
                 fetched after ready (issue 30)
    later_stdlib, later_numpy, later_wheels: the module names in them, which an import waits for (checker/later.py)
    snapshot_delta_bytes, snapshot_delta_sum: the snapshot's first bytes of memory are XORed with the core's
                 initial memory of that length and checksum (web/src/shared/snapshot-delta.js); 0: no delta
    lock:        the part of Pyodide's lock file the worker's loadPackage can need (its `info`, numpy and the
                 optional packages with what they depend on), handed to loadPyodide as `lockFileContents`, so
                 that the whole file (114 kB) is not fetched before ready (issue 30); {}: fetch the file
    """

    pyodide: str
    wheels: tuple[str, ...] = field(default_factory=tuple)
    snapshot: tuple[str, ...] = field(default_factory=tuple)
    numpy: str = ""
    wheels_pack: str = ""
    optional: tuple[OptionalPackage, ...] = field(default_factory=tuple)
    snapshot_bytes: int = 0
    snapshot_size: int = 0
    numpy_dynlibs: tuple[str, ...] = field(default_factory=tuple)
    start_bytes: int = 0
    stdlib_bytes: int = 0
    stdlib: str = ""
    stdlib_rest: str = ""
    numpy_rest: str = ""
    later_stdlib: tuple[str, ...] = field(default_factory=tuple)
    later_numpy: tuple[str, ...] = field(default_factory=tuple)
    wheels_rest: str = ""
    later_wheels: tuple[str, ...] = field(default_factory=tuple)
    snapshot_delta_bytes: int = 0
    snapshot_delta_sum: int = 0
    numpy_first_bytes: int = 0
    lock: dict = field(default_factory=dict)

    def optional_files(self) -> set[str]:
        """Every file of the optional packages (in assets/pyodide/): fetched only when code imports them, so the
        offline copy takes them when a page fetched them or in its idle-time fill, never in an eager precache."""
        return {name for package in self.optional for name in package.files}

    def packed(self, *, snapshot: tuple[str, ...], numpy: str, wheels_pack: str,
               snapshot_bytes: int = 0, snapshot_size: int = 0, numpy_dynlibs: tuple[str, ...] = (),
               start_bytes: int = 0, **later: object) -> WheelsList:
        """This list with the snapshot's parts and the packs named (`later`: the fields of issue 30, stdlib,
        stdlib_bytes, stdlib_rest, numpy_rest, later_stdlib, later_numpy, snapshot_delta_bytes,
        snapshot_delta_sum, numpy_first_bytes)."""
        lists = {k: tuple(v) for k, v in later.items() if k.startswith("later_")}  # type: ignore[arg-type]
        return replace(self, snapshot=tuple(snapshot), numpy=numpy, wheels_pack=wheels_pack,
                       snapshot_bytes=snapshot_bytes, snapshot_size=snapshot_size,
                       numpy_dynlibs=tuple(numpy_dynlibs), start_bytes=start_bytes, **{**later, **lists})

    def later_files(self) -> set[str]:
        """The files fetched after ready (the rest of the standard library and of numpy)."""
        return {name for name in (self.stdlib_rest, self.numpy_rest, self.wheels_rest) if name}


def read_wheels_list(assets: Path) -> WheelsList:
    """The wheels list in `assets` (site/assets/pyodide). OSError or ValueError when it is missing or malformed."""
    data = json.loads((assets / WHEELS_LIST).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("wheels"), list):
        raise ValueError(f"{assets / WHEELS_LIST}: no list of wheels")
    names = {k: str(data.get(k) or "") for k in ("numpy", "wheels_pack")}
    parts = data.get("snapshot") or []
    if not (isinstance(parts, list) and all(isinstance(p, str) for p in parts)):
        raise ValueError(f"{assets / WHEELS_LIST}: snapshot is not a list of file names")
    dynlibs = data.get("numpy_dynlibs") or []
    if not (isinstance(dynlibs, list) and all(isinstance(p, str) for p in dynlibs)):
        raise ValueError(f"{assets / WHEELS_LIST}: numpy_dynlibs is not a list of paths")
    optional = tuple(_optional(assets, entry) for entry in data.get("optional") or [])
    later = {}
    for key in ("later_stdlib", "later_numpy", "later_wheels"):
        modules = data.get(key) or []
        if not (isinstance(modules, list) and all(isinstance(n, str) for n in modules)):
            raise ValueError(f"{assets / WHEELS_LIST}: {key} is not a list of module names")
        later[key] = tuple(modules)
    later.update({k: str(data.get(k) or "") for k in ("stdlib", "stdlib_rest", "numpy_rest", "wheels_rest")})
    later.update({k: int(data.get(k) or 0) for k in ("snapshot_delta_bytes", "snapshot_delta_sum", "stdlib_bytes",
                                                  "numpy_first_bytes")})
    lock = data.get("lock") or {}
    if not (isinstance(lock, dict) and (not lock or isinstance(lock.get("packages"), dict))):
        raise ValueError(f"{assets / WHEELS_LIST}: lock is not a lock file's packages")
    later["lock"] = lock
    return WheelsList(str(data.get("pyodide", "")), tuple(map(str, data["wheels"])), snapshot=tuple(parts), **names,
                      optional=optional, snapshot_bytes=int(data.get("snapshot_bytes") or 0),
                      snapshot_size=int(data.get("snapshot_size") or 0),
                      numpy_dynlibs=tuple(dynlibs), start_bytes=int(data.get("start_bytes") or 0), **later)


def _optional(assets: Path, entry: object) -> OptionalPackage:
    if not (isinstance(entry, dict) and isinstance(entry.get("name"), str)
            and all(isinstance(entry.get(k), list) for k in ("imports", "files"))):
        raise ValueError(f"{assets / WHEELS_LIST}: optional: malformed entry {entry!r}")
    return OptionalPackage(entry["name"], tuple(map(str, entry["imports"])), tuple(map(str, entry["files"])),
                           int(entry.get("bytes") or 0))


def write_wheels_list(assets: Path, wheels: WheelsList) -> None:
    """Write `wheels` as the wheels list in `assets`; names the build did not make are left out."""
    data = {k: (list(v) if isinstance(v, tuple) else v) for k, v in asdict(wheels).items() if v or k == "wheels"}
    if "optional" in data:
        data["optional"] = [{k: (list(v) if isinstance(v, tuple) else v) for k, v in o.items()} for o in data["optional"]]
    # Compact: the worker fetches it first, before ready.
    (assets / WHEELS_LIST).write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")


def numpy_wheel(assets: Path) -> tuple[str, str]:
    """(file name, version) of numpy's wheel in Pyodide's lock file in `assets`."""
    numpy = json.loads((assets / PYODIDE_LOCK).read_text(encoding="utf-8"))["packages"]["numpy"]
    return numpy["file_name"], numpy["version"]
