"""Gzipped copies of the two largest start-up files Pyodide's loader would otherwise fetch as they are.

`pyodide.asm.wasm` (9.6 MB, 3.5 MB gzipped) and `pyodide.asm.mjs` (1.2 MB, 0.26 MB) are written beside the
originals as `.gz` (build_outputs.CORE_GZ, LOADER_GZ). The worker fetches those and inflates them with the
browser's own DecompressionStream, the core straight into WebAssembly.compileStreaming, so a first visit costs
7 MB less on any static host, compressing or not; it falls back to the originals when a copy cannot be read.
The originals stay on the site (the benchmark's bare page and a worker without DecompressionStream use them) but
out of the service worker's offline copy (tools/offline.py), which keeps what the worker fetches.

gzip at level 9 takes a second for the core, so each copy is kept in .cache/precompress/ under the sha256 of
its original.
"""
from __future__ import annotations

import gzip
import hashlib
import shutil
from pathlib import Path

from tools import build_outputs

REPO = Path(__file__).resolve().parent.parent
CACHE = REPO / ".cache" / "precompress"
ORIGINALS = {build_outputs.CORE_GZ: "pyodide.asm.wasm", build_outputs.LOADER_GZ: "pyodide.asm.mjs"}


def write(pyodide_dir: Path, cache: Path = CACHE) -> list[Path]:
    """Write every gzipped copy into `pyodide_dir` (assets/pyodide/); returns their paths."""
    written = []
    for gz_name, original in ORIGINALS.items():
        data = (pyodide_dir / original).read_bytes()
        cached = cache / f"{hashlib.sha256(data).hexdigest()}.gz"
        if not cached.is_file():
            cache.mkdir(parents=True, exist_ok=True)
            partial = cached.with_suffix(".partial")
            partial.write_bytes(gzip.compress(data, compresslevel=9, mtime=0))
            partial.replace(cached)
        shutil.copyfile(cached, pyodide_dir / gz_name)
        written.append(pyodide_dir / gz_name)
    return written


def replaced(pyodide_dir: Path) -> set[str]:
    """The originals a gzipped copy stands in for, in `pyodide_dir`: the worker never fetches them."""
    return {original for gz_name, original in ORIGINALS.items() if (pyodide_dir / gz_name).is_file()}
