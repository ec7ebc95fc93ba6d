"""The worker's big files: file packs, and the zstd frames they and the memory snapshot travel in.

Unpacking a wheel or zip inside Pyodide runs Python's zipfile in WebAssembly, member by member: ~320 ms for
numpy in the browser. A pack holds many files back to back; the worker copies each one into Pyodide's file
system from JavaScript (web/src/worker/pack.js reads it).

Compression: every pack, and the snapshot, travels as one zstd frame at level 19 that says its size, decoded in the
worker by zstd's own decoder in WebAssembly (web/src/worker/zstd.js), as fast as the browser's gzip and 35-45%
smaller than the LZ4 containers used before issue 41 (which the build no longer makes: bench/README.md, "One copy
for every line"). The snapshot's frame is cut into pieces (`cut`), downloaded side by side.

Pack, uncompressed:
    b"TLPK1\n"
    header length, 4 bytes little-endian
    header: UTF-8 JSON {"files": [[relative path, size in bytes], ...]}
    every file's bytes, in header order
"""
from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Iterable

MAGIC = b"TLPK1\n"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
LEVEL = 19


def compress(raw: bytes) -> bytes:
    """`raw` as one zstd frame at level LEVEL, with its size (which the browser's decoder checks)."""
    import zstandard

    return zstandard.ZstdCompressor(level=LEVEL, threads=-1).compress(raw)


def cut(frame: bytes, parts: int) -> list[bytes]:
    """`frame` cut into `parts` consecutive pieces of the same size (the last may be shorter or empty): the
    snapshot is one zstd frame of the whole memory, 5% smaller than a frame per part (matches reach across the
    cuts: 4.38 against 4.61 MB for the site's snapshot), and travels in pieces all the same, downloaded side by
    side (web/src/worker/boot/downloads.js fetchSnapshot decodes them joined)."""
    if parts < 1:
        raise ValueError("cut: at least one piece")
    size = -(-len(frame) // parts)
    return [frame[i * size:(i + 1) * size] for i in range(parts)]


def content_size(frame: bytes) -> int:
    """The size a zstd frame says it holds (`frame` may be just its first bytes); ValueError if it says none."""
    import zstandard

    size = zstandard.frame_content_size(frame[:18])
    if size < 0:
        raise ValueError("a zstd frame that does not say its size")
    return size


def decompress(data: bytes) -> bytes:
    """The bytes a zstd frame holds; ValueError when `data` is not exactly one frame."""
    import zstandard

    if not data.startswith(ZSTD_MAGIC):
        raise ValueError("not a zstd frame")
    reader = zstandard.ZstdDecompressor().decompressobj()
    raw = reader.decompress(data)
    if not reader.eof or reader.unused_data:
        raise ValueError(f"not one whole zstd frame ({len(reader.unused_data)} bytes after it)")
    return raw


def pack(files: Iterable[tuple[str, bytes]]) -> bytes:
    """The pack of (relative path, content) pairs as one zstd frame; paths must be relative and unique."""
    entries, blobs, seen = [], [], set()
    for path, data in files:
        if path.startswith("/") or ".." in path.split("/") or not path or path in seen:
            raise ValueError(f"pack: bad or repeated path {path!r}")
        seen.add(path)
        entries.append([path, len(data)])
        blobs.append(data)
    header = json.dumps({"files": entries}, separators=(",", ":")).encode()
    return compress(MAGIC + struct.pack("<I", len(header)) + header + b"".join(blobs))


def unpack(data: bytes, first: int = 0) -> dict[str, bytes]:
    """Read a pack back (for tests and tools; the browser has its own reader); `first`: the length of its first
    frame when it has two (numpy's, the wheels list's numpy_first_bytes), each a pack of its own."""
    if first:
        return {**unpack(data[:first]), **unpack(data[first:])}
    raw = decompress(data)
    if not raw.startswith(MAGIC):
        raise ValueError("pack: not a TLPK1 pack")
    (size,) = struct.unpack_from("<I", raw, len(MAGIC))
    start = len(MAGIC) + 4
    header = json.loads(raw[start:start + size])
    out, offset = {}, start + size
    for path, length in header["files"]:
        out[path] = raw[offset:offset + length]
        offset += length
    if offset != len(raw):
        raise ValueError(f"pack: {len(raw) - offset} bytes after the last file")
    return out


def from_zips(paths: Iterable[Path]) -> bytes:
    """One pack of every file of these zip archives (wheels included), as they would be extracted."""
    def members():
        for path in paths:
            with zipfile.ZipFile(path) as zf:
                for info in zf.infolist():
                    if not info.is_dir():
                        yield info.filename, zf.read(info)
    return pack(members())
