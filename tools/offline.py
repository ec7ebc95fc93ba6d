"""Write the site's service worker: web/src/sw/sw.js plus the list of files to precache and a version.

The version is a hash of every precached file, so any change to the site changes sw.js, which is how browsers
learn that an update exists (they compare sw.js byte for byte on navigation).
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tools import build_outputs, precompress

SOURCE = Path(__file__).resolve().parent.parent / "web" / "src" / "sw" / "sw.js"
SKIP_SUFFIXES = (".map",)
SKIP_NAMES = {"sw.js", "sitemap.xml.gz"}  # the snapshot and the packs are precached: offline starts stay fast


def _unused_assets(site: Path) -> set[str]:
    """Files the worker never requests once the build has packed them (tools/snapshot.py): numpy's wheel and the
    judge's wheels, the whole standard library (its two parts replace it: the start-up part, and the rest, which
    the worker fetches after ready and the offline copy keeps as it keeps every file); and the core and its loader, which it fetches gzipped (tools/precompress.py). They stay on the
    site for Pyodide's own loadPackage (the benchmark's bare page uses them). Also the compact copies of the
    snapshot and the packs, which a first visit on a slower line fetches instead of the LZ4 files."""
    pyodide = site / "assets" / "pyodide"
    try:
        info = build_outputs.read_wheels_list(pyodide)
        numpy_wheel = build_outputs.numpy_wheel(pyodide)[0]
    except (OSError, ValueError, KeyError):
        return set()
    unused = [numpy_wheel] if info.numpy else []
    unused += list(info.wheels) if info.wheels_pack else []
    # The worker fetches the standard library's two parts instead, the start-up one as its zstd frame.
    unused += [build_outputs.STDLIB, build_outputs.STDLIB_START] if info.stdlib else []
    unused += [build_outputs.PYODIDE_LOCK] if info.lock else []  # the worker has the part it needs in the list
    unused += sorted(precompress.replaced(pyodide))  # the worker fetches their compressed copies
    unused += sorted(precompress.fallbacks(pyodide))  # and the core's gzipped copy only when its zstd one fails
    unused += sorted(info.compact_files())  # fetched on slower lines only: the offline copy keeps the LZ4 files
    return {f"assets/pyodide/{name}" for name in unused}


HASH_CHARS = 16  # of each file's sha256 in the list: enough to tell versions apart, short enough for 1,000 files


def precache_list(site: Path) -> tuple[list[list[str]], str]:
    """([URL relative to the site root, sha256 prefix of its bytes], version) for every file worth having
    offline. The service worker keeps a file only when its bytes have that hash."""
    h = hashlib.sha256()
    files = []
    unused = _unused_assets(site)
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if rel.endswith(SKIP_SUFFIXES) or rel in SKIP_NAMES or rel in unused:
            continue
        digest = hashlib.sha256(path.read_bytes())
        h.update(rel.encode() + b"\0" + digest.digest())
        # Pages are requested by their folder URL (use_directory_urls), so cache them under that URL.
        url = rel[: -len("index.html")] if rel == "index.html" or rel.endswith("/index.html") else rel
        files.append([url, digest.hexdigest()[:HASH_CHARS]])
    return files, h.hexdigest()[:16]


def write(site: Path) -> str:
    """Write site/sw.js; returns the version."""
    urls, version = precache_list(site)
    head = (f"const PRECACHE = {json.dumps({'version': version, 'files': urls})};\n"
            f"const HANDOFF = {json.dumps(build_outputs.RUNTIME['handoffCache'])}; // the Python worker's downloads\n"
            f"const HASH = {json.dumps(build_outputs.RUNTIME['hashHeader'])}; // each stored file's hash, in this header\n")
    (site / "sw.js").write_text(head + SOURCE.read_text(encoding="utf-8"), encoding="utf-8")
    return version
