"""Unit tests of tools/pack.py (the worker's file packs) and of what the service worker leaves out because of them.

The writer is Python, the reader JavaScript (web/src/worker/pack.js): one test writes a pack here and reads it with the
browser's reader under Node, so the two cannot drift apart.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tools import build_outputs, offline, pack  # noqa: E402

FILES = [("numpy/__init__.py", b"from ._core import *\n"), ("numpy/_core/_x.so", bytes(range(256)) * 4),
         ("numpy-2.0.2.dist-info/RECORD", b"")]


def test_round_trip_keeps_order_and_bytes():
    data = pack.pack(FILES)
    assert data.startswith(pack.ZSTD_MAGIC), "a pack travels as one zstd frame"
    assert list(pack.unpack(data).items()) == FILES


def test_a_frame_says_its_size_and_anything_else_is_refused():
    raw = bytes(range(256)) * 1000 + bytes(100_000)
    data = pack.compress(raw)
    assert len(data) < len(raw) // 20
    assert pack.decompress(data) == raw and pack.content_size(data[:18]) == len(raw)
    with pytest.raises(ValueError, match="not a zstd frame"):
        pack.decompress(b"\x1f\x8b" + data)
    import zstandard
    with pytest.raises(ValueError, match="does not say its size"):
        pack.content_size(zstandard.ZstdCompressor(write_content_size=False).compress(raw))


@pytest.mark.parametrize("path", ["/etc/passwd", "a/../../b", "", "numpy/__init__.py"])
def test_bad_or_repeated_paths_are_refused(path):
    with pytest.raises(ValueError, match="bad or repeated path"):
        pack.pack(FILES + [(path, b"x")])


def test_trailing_bytes_and_other_formats_are_refused():
    raw = pack.decompress(pack.pack(FILES))
    with pytest.raises(ValueError, match="3 bytes after the last file"):
        pack.unpack(pack.compress(raw + b"abc"))
    with pytest.raises(ValueError, match="not a TLPK1 pack"):
        pack.unpack(pack.compress(b"PK\x03\x04" + raw))


def test_two_frames_back_to_back_read_as_one_pack_given_where_the_second_begins():
    first, second = pack.pack(FILES[:1]), pack.pack(FILES[1:])
    assert pack.unpack(first + second, first=len(first)) == dict(FILES)
    with pytest.raises(ValueError, match="bytes after it"):
        pack.unpack(first + second)  # not silently the first frame alone
    with pytest.raises(ValueError, match="not one whole zstd frame"):
        pack.unpack(first + second, first=len(first) - 1)  # the first frame cut short


def test_from_zips_merges_archives_without_folders(tmp_path):
    for name, members in (("a.whl", {"pkg/__init__.py": b"A", "pkg/": b""}), ("b.zip", {"other/x.txt": b"B"})):
        with zipfile.ZipFile(tmp_path / name, "w") as zf:
            for member, data in members.items():
                zf.writestr(member, data)
    got = pack.unpack(pack.from_zips([tmp_path / "a.whl", tmp_path / "b.zip"]))
    assert got == {"pkg/__init__.py": b"A", "other/x.txt": b"B"}


@pytest.mark.skipif(not shutil.which("node"), reason="node is needed to run the browser's reader")
def test_the_browsers_reader_reads_what_python_writes(tmp_path):
    files = FILES + [("big/blob.bin", bytes(range(256)) * 3000 + b"tail")]  # long matches and literal runs
    (tmp_path / "p.pack").write_bytes(pack.pack(files))
    script = f"""
        import {{ unwrap, entries }} from {json.dumps((REPO / 'web/src/worker/pack.js').as_uri())};
        import {{ zstdReady }} from {json.dumps((REPO / 'web/src/worker/zstd.js').as_uri())};
        import {{ zstdWasm }} from {json.dumps((REPO / 'web/zstd-wasm.mjs').as_uri())};
        await zstdReady(zstdWasm());
        import {{ readFileSync }} from "node:fs";
        const raw = await unwrap(new Uint8Array(readFileSync({json.dumps(str(tmp_path / 'p.pack'))})));
        console.log(JSON.stringify(entries(raw).map(([p, b]) => [p, b.length, b.reduce((s, x) => s + x, 0)])));
    """
    out = subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == [[p, len(d), sum(d)] for p, d in files]


def test_the_snapshot_travels_as_one_frame_cut_into_pieces_and_the_worker_joins_them(tmp_path):
    """The snapshot is one zstd frame of the whole memory, cut into as many pieces as there are parts (pack.cut),
    which the worker downloads side by side and decodes joined (downloads.js fetchSnapshot). A piece that is
    damaged, or a size that is not the one the build gave, is no snapshot (null: Python starts cold), never a
    wrong memory."""
    raw = bytes(range(256)) * 2000 + b"the end of the memory"
    frame = pack.compress(raw)
    pieces = pack.cut(frame, 3)
    assert len(pieces) == 3 and b"".join(pieces) == frame and pieces[1] and not pieces[1].startswith(pack.ZSTD_MAGIC)
    assert [len(p) for p in pack.cut(b"abcdefg", 3)] == [3, 3, 1] and pack.cut(b"ab", 3)[2] == b""
    for name, parts in (("zst", pieces), ("damaged", [pieces[0], pieces[1][:-5], pieces[2]])):
        for i, part in enumerate(parts):
            (tmp_path / f"{name}-{i}").write_bytes(part)
    script = f"""
        import {{ fetchSnapshot, noneArrived }} from {json.dumps((REPO / 'web/src/worker/boot/downloads.js').as_uri())};
        import {{ zstdReady }} from {json.dumps((REPO / 'web/src/worker/zstd.js').as_uri())};
        import {{ zstdWasm }} from {json.dumps((REPO / 'web/zstd-wasm.mjs').as_uri())};
        import {{ readFileSync }} from "node:fs";
        await zstdReady(zstdWasm());  // the worker fetches it as it starts (core.js)
        globalThis.fetch = async (url) => new Response(readFileSync({json.dumps(str(tmp_path))} + "/" + url));
        const ctx = {{ post: () => {{}}, t0: 0, loading: noneArrived() }};
        const sum = (b) => (b ? [b.length, b.reduce((s, x) => (s * 31 + x) % 1000003, 0)] : null);
        const out = {{}};
        for (const [name, count] of [["zst", 3], ["damaged", 3]]) {{
          const urls = Array.from({{ length: count }}, (_, i) => `${{name}}-${{i}}`);
          out[name] = sum(await fetchSnapshot(ctx, urls));
          out[name + " into"] = sum(await fetchSnapshot(ctx, urls, new Uint8Array({len(raw)})));
          out[name + " too small"] = sum(await fetchSnapshot(ctx, urls, new Uint8Array({len(raw) - 1})));
        }}
        console.log(JSON.stringify(out));
    """
    out = json.loads(subprocess.run(["node", "--input-type=module", "-e", script], capture_output=True, text=True,
                                    check=True).stdout)
    whole = [len(raw), 0]
    for x in raw:
        whole[1] = (whole[1] * 31 + x) % 1000003
    assert out["zst"] == whole and out["zst into"] == whole
    assert out["zst too small"] is None
    assert out["damaged"] is None and out["damaged into"] is None


def test_service_worker_skips_the_wheels_the_packs_replace(tmp_path):
    assets = tmp_path / "assets" / "pyodide"
    assets.mkdir(parents=True)
    lock = {"packages": {"numpy": {"file_name": "numpy-2.0.2-x.whl", "version": "2.0.2"}}}
    (assets / "pyodide-lock.json").write_text(json.dumps(lock))
    for name in ("numpy-2.0.2-x.whl", "pytest-8.whl", "numpy-2.0.2-tl.pack", "judge-wheels.pack"):
        (assets / name).write_bytes(b"x")
    info = build_outputs.WheelsList("0.27.7", ("pytest-8.whl",))
    build_outputs.write_wheels_list(assets, info)
    assert "assets/pyodide/numpy-2.0.2-x.whl" in urls_of(tmp_path), "no packs: wheels are used"
    build_outputs.write_wheels_list(assets, info.packed(snapshot=(), numpy="numpy-2.0.2-tl.pack",
                                                        wheels_pack="judge-wheels.pack"))
    urls = urls_of(tmp_path)
    assert "assets/pyodide/numpy-2.0.2-x.whl" not in urls and "assets/pyodide/pytest-8.whl" not in urls
    assert {"assets/pyodide/numpy-2.0.2-tl.pack", "assets/pyodide/judge-wheels.pack"} <= set(urls)


def test_the_offline_copy_keeps_the_snapshot_and_the_packs(tmp_path):
    """The worker fetches the snapshot's pieces and the packs on every line; the offline copy keeps them, so a
    repeat visit restores from them and no file of the start travels twice."""
    assets = tmp_path / "assets" / "pyodide"
    assets.mkdir(parents=True)
    lock = {"packages": {"numpy": {"file_name": "numpy-2.0.2-x.whl", "version": "2.0.2"}}}
    (assets / "pyodide-lock.json").write_text(json.dumps(lock))
    packed = (*build_outputs.snapshot_parts(2), build_outputs.numpy_pack("2.0.2"), build_outputs.WHEELS_PACK)
    for name in (*packed, "numpy-2.0.2-x.whl"):
        (assets / name).write_bytes(b"zstd")
    info = build_outputs.WheelsList("0.27.7", ("pytest-8.whl",)).packed(
        snapshot=packed[:2], numpy=packed[2], wheels_pack=packed[3])
    build_outputs.write_wheels_list(assets, info)
    urls = set(urls_of(tmp_path))
    assert {f"assets/pyodide/{name}" for name in packed} <= urls
    assert "assets/pyodide/numpy-2.0.2-x.whl" not in urls, "the pack replaces numpy's wheel"


def urls_of(site):
    return [url for url, _hash in offline.precache_list(site)[0]]


def test_the_worker_reads_the_snapshot_name_and_size_from_the_wheels_list():
    """The worker's start-up (web/src/worker/boot/) requests the snapshot under the name the wheels list gives, once it
    has weighed its size against the line's speed, and names no build output itself."""
    worker = "".join(p.read_text() for p in sorted((REPO / "web" / "src" / "worker" / "boot").glob("*.js")))
    assert "snapshotWorthIt(ctx, list.snapshotBytes)" in worker
    assert "fetchSnapshot(ctx, list.snapshot.map(named), await memory)" in worker
    assert '"snapshot.bin' not in worker and "wheels.json" not in worker.replace("OUTPUTS.wheelsList", "")


def test_every_file_of_the_offline_copy_is_listed_with_the_hash_of_its_bytes(tmp_path):
    import hashlib
    (tmp_path / "e7").mkdir()
    (tmp_path / "e7" / "index.html").write_text("<p>lesson</p>")
    (tmp_path / "tl.js").write_text("x")
    files, version = offline.precache_list(tmp_path)
    listed = dict(files)
    assert listed["e7/"] == hashlib.sha256(b"<p>lesson</p>").hexdigest()[:offline.HASH_CHARS]
    assert listed["tl.js"] == hashlib.sha256(b"x").hexdigest()[:offline.HASH_CHARS]
    (tmp_path / "tl.js").write_text("y")
    changed, new_version = offline.precache_list(tmp_path)
    assert new_version != version and dict(changed)["e7/"] == listed["e7/"] and dict(changed)["tl.js"] != listed["tl.js"]
