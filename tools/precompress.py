"""Compressed copies of the two largest start-up files Pyodide's loader would otherwise fetch as they are.

`pyodide.asm.wasm` (9.6 MB, 3.5 MB gzipped) and `pyodide.asm.mjs` (1.2 MB, 0.26 MB) are written beside the
originals as `.gz` (build_outputs.CORE_GZ, LOADER_GZ). The worker fetches those and inflates them with the
browser's own DecompressionStream, the core straight into WebAssembly.compileStreaming, so a first visit costs
7 MB less on any static host, compressing or not; it falls back to the originals when a copy cannot be read.
The originals stay on the site (the benchmark's bare page and a worker without DecompressionStream use them) but
out of the service worker's offline copy (tools/offline.py), which keeps what the worker fetches.

The core and the loader also have a zstd copy (build_outputs.CORE_ZST, LOADER_ZST, level 19: the core 2.9 MB
against 3.5 MB gzipped, the loader 0.22 against 0.26 MB), which the worker fetches first and decodes with zstd's own decoder in WebAssembly (web/src/worker/zstd.js: as fast as the
browser's gzip, where no browser's DecompressionStream reads zstd, issue 30); the gzipped copies are then their
fallbacks only, out of the offline copy too (`fallbacks`).

gzip at level 9 takes a second for the core, zstd at level 19 several, so each copy is kept in
.cache/precompress/ under the sha256 of its original.
"""
from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

from tools import build_outputs

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache" / "precompress"
ORIGINALS = {build_outputs.CORE_GZ: "pyodide.asm.wasm", build_outputs.LOADER_GZ: "pyodide.asm.mjs",
             build_outputs.CORE_ZST: "pyodide.asm.wasm", build_outputs.LOADER_ZST: "pyodide.asm.mjs"}


def _compressed(name: str, data: bytes) -> bytes:
    if name.endswith(".zst"):
        import zstandard

        return zstandard.ZstdCompressor(level=19, threads=-1).compress(data)
    return gzip.compress(data, compresslevel=9, mtime=0)


def write(pyodide_dir: Path, cache: Path = CACHE) -> list[Path]:
    """Write every compressed copy into `pyodide_dir` (assets/pyodide/); returns their paths."""
    written = []
    for name, original in ORIGINALS.items():
        data = (pyodide_dir / original).read_bytes()
        cached = cache / f"{hashlib.sha256(data).hexdigest()}{Path(name).suffix}"
        if not cached.is_file():
            cache.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(".partial")
            partial.write_bytes(_compressed(name, data))
            partial.replace(cached)
        shutil.copyfile(cached, pyodide_dir / name)
        written.append(pyodide_dir / name)
    return written


def replaced(pyodide_dir: Path) -> set[str]:
    """The originals a compressed copy stands in for, in `pyodide_dir`: the worker never fetches them."""
    return {original for name, original in ORIGINALS.items() if (pyodide_dir / name).is_file()}


def fallbacks(pyodide_dir: Path) -> set[str]:
    """The copies the worker fetches only when a better one fails: a gzipped copy beside a zstd one."""
    pairs = ((build_outputs.CORE_ZST, build_outputs.CORE_GZ), (build_outputs.LOADER_ZST, build_outputs.LOADER_GZ))
    return {gz for zst, gz in pairs if (pyodide_dir / zst).is_file() and (pyodide_dir / gz).is_file()}
