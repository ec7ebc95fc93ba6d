"""The worker's big files: file packs, and the LZ4 container they and the memory snapshot travel in.

Unpacking a wheel or zip inside Pyodide runs Python's zipfile in WebAssembly, member by member: ~320 ms for
numpy in the browser. A pack holds many files back to back; the worker copies each one into Pyodide's file
system from JavaScript (web/src/worker/pack.js reads it).

Compression: gzip through the browser's DecompressionStream took ~320 ms for the 30 MB snapshot on the worker's
thread, on the critical path of start-up. LZ4 (high-compression mode) is ~10% larger and decodes several times
faster in plain JavaScript (web/src/worker/lz4.js), so both the snapshot and the packs are LZ4 containers. Each also has
a compact copy (`compact`), a zstd frame of the same bytes: 35-45% smaller (the snapshot 8.3 -> 5.5 MB, numpy's
pack 4.6 -> 2.6 MB) but were 0.2-0.6 s slower to decode in the browser with a JavaScript decoder (fzstd; since issue 30
zstd's own in WebAssembly, web/src/worker/zstd.js). Since issue 41 the worker fetches the compact copies on every line
(web/src/worker/boot/line.js compactCopies); the LZ4 containers are read only by a worker forced to (`tl-start` =
snapshot), as the tests of their decoder are.

Pack, uncompressed:
    b"TLPK1\n"
    header length, 4 bytes little-endian
    header: UTF-8 JSON {"files": [[relative path, size in bytes], ...]}
    every file's bytes, in header order

LZ4 container:
    b"TLZ41\n"
    uncompressed size, 4 bytes little-endian
    one LZ4 block (the raw block format, no frame) holding all of it
"""
from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path
from typing import Iterable

MAGIC = b"TLPK1\n"
LZ4_MAGIC = b"TLZ41\n"


def compress(raw: bytes) -> bytes:
    """`raw` in an LZ4 container (a few seconds for the 30 MB snapshot; the build caches the result)."""
    import lz4.block

    block = lz4.block.compress(raw, mode="high_compression", compression=9, store_size=False)
    return LZ4_MAGIC + struct.pack("<I", len(raw)) + block


def split(raw: bytes, parts: int, slice_bytes: int = 1 << 18) -> list[bytes]:
    """`raw` as `parts` LZ4 containers of consecutive stretches of it, of about the same compressed size, so that
    downloaded side by side they arrive together (the snapshot compresses unevenly: cut into equal stretches, the
    largest part was 2.5x the smallest). The cuts fall between `slice_bytes` slices, weighed by compressing each;
    a stretch is empty when `raw` has fewer slices than parts."""
    if parts < 1:
        raise ValueError("split: at least one part")
    weights = [len(compress(raw[i:i + slice_bytes])) for i in range(0, len(raw), slice_bytes)]
    total, cuts, seen = sum(weights), [0], 0
    for index, weight in enumerate(weights[:-1]):
        seen += weight
        if len(cuts) < parts and seen >= total * len(cuts) / parts:
            cuts.append((index + 1) * slice_bytes)
    cuts += [len(raw)] * (parts + 1 - len(cuts))
    return [compress(raw[a:b]) for a, b in zip(cuts, cuts[1:])]


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
COMPACT_LEVEL = 19


def compact(container: bytes) -> bytes:
    """The compact copy of an LZ4 container: its bytes as one zstd frame (with its size, which the browser's
    decoder uses to allocate once)."""
    return compact_raw(decompress(container))


def compact_raw(raw: bytes) -> bytes:
    """`raw` as one zstd frame at the compact copies' level (with its size)."""
    import zstandard

    return zstandard.ZstdCompressor(level=COMPACT_LEVEL, threads=-1).compress(raw)


def cut(frame: bytes, parts: int) -> list[bytes]:
    """`frame` cut into `parts` consecutive pieces of the same size (the last may be shorter or empty): the
    snapshot's compact copy is one zstd frame of the whole memory, 5% smaller than a frame per part (matches reach
    across the cuts: 4.38 against 4.61 MB for the site's snapshot), and travels in pieces all the same, downloaded
    side by side (web/src/worker/boot/downloads.js fetchSnapshot decodes them joined)."""
    if parts < 1:
        raise ValueError("cut: at least one piece")
    size = -(-len(frame) // parts)
    return [frame[i * size:(i + 1) * size] for i in range(parts)]


def contained_size(data: bytes) -> int:
    """How many bytes an LZ4 container holds (its header says; `data` may be just the first 10 bytes)."""
    if not data.startswith(LZ4_MAGIC) or len(data) < len(LZ4_MAGIC) + 4:
        raise ValueError("not a TLZ41 container")
    return struct.unpack_from("<I", data, len(LZ4_MAGIC))[0]


def decompress(data: bytes) -> bytes:
    """The bytes an LZ4 container or a compact copy holds."""
    import lz4.block

    if data.startswith(ZSTD_MAGIC):
        import zstandard

        return zstandard.ZstdDecompressor().decompress(data)
    return lz4.block.decompress(data[len(LZ4_MAGIC) + 4:], uncompressed_size=contained_size(data))


def pack(files: Iterable[tuple[str, bytes]]) -> bytes:
    """The compressed pack of (relative path, content) pairs; paths must be relative and unique."""
    entries, blobs, seen = [], [], set()
    for path, data in files:
        if path.startswith("/") or ".." in path.split("/") or not path or path in seen:
            raise ValueError(f"pack: bad or repeated path {path!r}")
        seen.add(path)
        entries.append([path, len(data)])
        blobs.append(data)
    header = json.dumps({"files": entries}, separators=(",", ":")).encode()
    return compress(MAGIC + struct.pack("<I", len(header)) + header + b"".join(blobs))


def unpack(data: bytes) -> dict[str, bytes]:
    """Read a pack back (for tests and tools; the browser has its own reader)."""
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
