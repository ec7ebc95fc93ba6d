"""tools/precompress.py: the gzipped copies of Pyodide's core and loader, and what they keep out of the offline copy."""
from __future__ import annotations

import gzip
import json

import zstandard

from tools import build_outputs, offline, precompress


def test_gzipped_copies_inflate_to_the_originals_and_are_cached_by_content(tmp_path):
    pyodide = tmp_path / "site" / "assets" / "pyodide"
    pyodide.mkdir(parents=True)
    (pyodide / "pyodide.asm.wasm").write_bytes(b"\0asm" + bytes(range(256)) * 50)
    (pyodide / "pyodide.asm.mjs").write_text("export default async function _createPyodideModule() {}\n" * 40)
    cache = tmp_path / "cache"
    written = precompress.write(pyodide, cache)
    assert {p.name for p in written} == {build_outputs.CORE_GZ, build_outputs.LOADER_GZ, build_outputs.CORE_ZST,
                                         build_outputs.LOADER_ZST}
    for name, original in precompress.ORIGINALS.items():
        data = (pyodide / name).read_bytes()
        inflated = zstandard.ZstdDecompressor().decompress(data) if name.endswith(".zst") else gzip.decompress(data)
        assert inflated == (pyodide / original).read_bytes()
        assert len(data) < (pyodide / original).stat().st_size
    assert len(list(cache.glob("*.gz"))) == 2 and len(list(cache.glob("*.zst"))) == 2
    (pyodide / "pyodide.asm.mjs").write_text("changed")
    precompress.write(pyodide, cache)
    assert gzip.decompress((pyodide / build_outputs.LOADER_GZ).read_bytes()) == b"changed"
    assert len(list(cache.glob("*.gz"))) == 3, "a changed original gets its own cached copy"
    assert zstandard.ZstdDecompressor().decompress((pyodide / build_outputs.LOADER_ZST).read_bytes()) == b"changed"


def test_the_offline_copy_keeps_the_gzipped_copies_instead_of_the_originals(tmp_path):
    site = tmp_path / "site"
    pyodide = site / "assets" / "pyodide"
    pyodide.mkdir(parents=True)
    (pyodide / "pyodide.asm.wasm").write_bytes(b"\0asm")
    (pyodide / "pyodide.asm.mjs").write_text("x")
    lock = {"packages": {"numpy": {"file_name": "numpy-2.0.2-x.whl", "version": "2.0.2"}}}
    (pyodide / "pyodide-lock.json").write_text(json.dumps(lock))
    build_outputs.write_wheels_list(pyodide, build_outputs.WheelsList("0.27.7", ()))
    urls = [u for u, _h in offline.precache_list(site)[0]]
    assert "assets/pyodide/pyodide.asm.wasm" in urls, "no copies yet: the originals are what the worker fetches"
    precompress.write(pyodide, tmp_path / "cache")
    urls = [u for u, _h in offline.precache_list(site)[0]]
    assert "assets/pyodide/pyodide.asm.wasm" not in urls and "assets/pyodide/pyodide.asm.mjs" not in urls
    assert {f"assets/pyodide/{build_outputs.CORE_ZST}", f"assets/pyodide/{build_outputs.LOADER_ZST}"} <= set(urls)
    assert f"assets/pyodide/{build_outputs.CORE_GZ}" not in urls, "the zstd copy's fallback only"
    assert f"assets/pyodide/{build_outputs.LOADER_GZ}" not in urls
