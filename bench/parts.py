"""What a first visit downloads before Python is ready, part by part, read from a built site's files.

    python -m bench.parts SITE [SITE ...] [--lesson e7/rejection-correction/] [--json]

Bytes are deterministic, so this needs no browser: each part is the file (or files) the worker fetches by design,
as the site's wheels list names them (tools/build_outputs.py), and the lesson page with what it links. "raw" is a
part's size once decoded (a zip's or a pack's files, the snapshot's memory); "sent" is what travels, and "sent,
fast" what travelled on a line the worker measured fast in builds that still had LZ4 copies (before issue 41;
since, the same as "sent": bench/README.md, "One copy for every line").
The parts that arrive after ready (the rest of the standard library and of numpy, issue 30) are listed apart;
in a build that has them, "standard library" and "numpy pack" are their start-up parts.
Older builds, whose wheels list lacks the newer fields, are read as they were. bench/versions.py prints the table
for its two builds; the network benchmark's `sent_before_ready` (per path) is the measured check of it.
"""
from __future__ import annotations

import argparse
import json
import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from tools import pack

LESSON = "e7/rejection-correction/"
ZST = ".zst"


@dataclass(frozen=True)
class Part:
    name: str
    raw: int
    sent: int        # what travels (on a slow line, in builds that still had LZ4 copies)
    sent_fast: int   # on a fast line in those builds (their LZ4 copies); since issue 41 the same as `sent`
    after_ready: bool = False


def _size(path: Path) -> int:
    return path.stat().st_size if path.is_file() else 0


def _zip_raw(path: Path) -> int:
    if not path.is_file():
        return 0
    data = path.read_bytes()
    if data.startswith(pack.ZSTD_MAGIC):
        import io

        data = pack.decompress(data)
        return sum(i.file_size for i in zipfile.ZipFile(io.BytesIO(data)).infolist())
    return sum(i.file_size for i in zipfile.ZipFile(path).infolist())


def _pack_raw(path: Path) -> int:
    """The bytes a pack holds, over all its zstd frames (numpy's is two back to back: issue 41, sixth step)."""
    import zstandard

    if not path.is_file():
        return 0
    data, total = path.read_bytes(), 0
    while data:
        reader = zstandard.ZstdDecompressor().decompressobj()
        total += len(reader.decompress(data))
        data = reader.unused_data
    return total


def _compact(folder: Path, name: str) -> tuple[int, int]:
    """(sent on a slow line, sent on a fast one) for a file that may have a compact copy beside it."""
    plain = _size(folder / name)
    small = _size(folder / (name + ZST))
    return (small or plain), plain


def _packed(folder: Path, title: str, name: str, after: bool = False) -> Part | None:
    if not name:
        return None
    slow, fast = _compact(folder, name)
    source = folder / (name + ZST) if (folder / (name + ZST)).is_file() else folder / name
    return Part(title, _pack_raw(source), slow, fast, after)


def _page_files(site: Path, lesson: str) -> list[Path]:
    """The lesson's HTML, the scripts and styles it links, and the Python worker's script."""
    html_path = site / lesson / "index.html"
    html = html_path.read_text(encoding="utf-8")
    found = [html_path, site / "assets" / "tl" / "tl-worker.js"]
    for ref in re.findall(r'(?:src|href)="([^"]+\.(?:js|css))"', html):
        path = (html_path.parent / ref).resolve()
        if path.is_file() and path not in found:
            found.append(path)
    return found


def parts(site: Path, lesson: str = LESSON) -> list[Part]:
    """Every part of a first visit of `lesson`, before ready and (flagged) after it."""
    py = site / "assets" / "pyodide"
    info = json.loads((py / "wheels.json").read_text(encoding="utf-8"))
    out: list[Part] = []
    core_sent = next(_size(py / n) for n in ("pyodide.asm.wasm.zst", "pyodide.asm.wasm.gz", "pyodide.asm.wasm")
                     if _size(py / n) or n.endswith(".wasm"))
    out.append(Part("pyodide.asm.wasm", _size(py / "pyodide.asm.wasm"), core_sent, core_sent))
    snap = info.get("snapshot") or []
    out.append(Part("memory snapshot", int(info.get("snapshot_size") or 0),
                    int(info.get("snapshot_compact_bytes") or 0) or int(info.get("snapshot_bytes") or 0),
                    int(info.get("snapshot_bytes") or 0)) if snap else Part("memory snapshot", 0, 0, 0))
    stdlib = info.get("stdlib") or "python_stdlib.zip"
    slow, fast = _compact(py, stdlib)
    fast = slow if info.get("stdlib") else fast  # the start-up part always travels as its zstd frame
    # Since issue 41's fifth step (the list says `stdlib_bytes`) a start restored from the snapshot fetches the
    # start-up part after ready (web/src/worker/boot/later.js deferStdlib).
    out.append(Part("standard library", _zip_raw(py / stdlib), slow, fast, bool(snap and info.get("stdlib_bytes"))))
    out.extend(p for p in (_packed(py, "numpy pack", info.get("numpy", "")),
                           _packed(py, "judge wheels pack", info.get("wheels_pack", ""))) if p)
    loader = "pyodide.asm.mjs.zst" if (py / "pyodide.asm.mjs.zst").is_file() else "pyodide.asm.mjs.gz"
    rest = [py / n for n in (loader, "pyodide.mjs", "wheels.json")]
    rest.append(site / "assets" / "tl" / "checker.zip")
    if not info.get("lock"):  # a build that passes no lock file contents: Pyodide fetches its own
        rest.append(py / "pyodide-lock.json")
    page = _page_files(site, lesson)
    small = sum(_size(p) for p in rest + page)
    out.append(Part("loader, judge, lock, page", small, small, small))
    if info.get("stdlib_rest"):
        slow, fast = _compact(py, info["stdlib_rest"])
        out.append(Part("standard library, the rest", _zip_raw(py / info["stdlib_rest"]), slow, fast, True))
    for title, key in (("numpy pack, the rest", "numpy_rest"), ("judge wheels, the rest", "wheels_rest")):
        later = _packed(py, title, info.get(key, ""), True)
        if later:
            out.append(later)
    return out


def _mb(n: int) -> str:
    return f"{n / 1e6:.2f} MB"


def table(sites: dict[str, Path], lesson: str = LESSON) -> str:
    """A markdown table of every part of each build, side by side, with the totals before ready."""
    found = {label: parts(site, lesson) for label, site in sites.items()}
    labels = list(found)
    names: list[str] = []
    for rows in found.values():
        names += [p.name for p in rows if p.name not in names]
    head = "| part | " + " | ".join(f"{label}: raw | {label}: sent (slow line) | {label}: sent (fast line)"
                                    for label in labels)
    lines = [head + " |", "|---|" + "---:|" * (3 * len(labels))]

    def row(name: str, pick) -> str:
        cells = []
        for label in labels:
            part = next((p for p in found[label] if p.name == name), None)
            cells += ["–"] * 3 if part is None else [_mb(part.raw), _mb(part.sent), _mb(part.sent_fast)]
        return f"| {pick(name)} | " + " | ".join(cells) + " |"

    for name in names:
        lines.append(row(name, lambda n: n + (" *(after ready)*" if any(
            p.name == n and p.after_ready for rows in found.values() for p in rows) else "")))
    totals = []
    for label in labels:
        before = [p for p in found[label] if not p.after_ready]
        totals += [_mb(sum(p.raw for p in before)), _mb(sum(p.sent for p in before)),
                   _mb(sum(p.sent_fast for p in before))]
    lines.append("| **before ready, total** | " + " | ".join(totals) + " |")
    if len(labels) == 2:
        a, b = (sum(p.sent for p in found[label] if not p.after_ready) for label in labels)
        lines.append("")
        lines.append(f"Sent before ready on a slow line: {labels[1]} {b / a:.2f}× {labels[0]} ({_mb(a - b)} less).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sites", nargs="+", type=Path, help="built sites (label=DIR or DIR)")
    parser.add_argument("--lesson", default=LESSON)
    parser.add_argument("--json", action="store_true", help="print every part as JSON instead of the table")
    args = parser.parse_args(argv)
    sites = {}
    for entry in map(str, args.sites):
        label, _, folder = entry.rpartition("=")
        sites[label or Path(folder).name] = Path(folder)
    if args.json:
        print(json.dumps({label: [p.__dict__ for p in parts(site, args.lesson)] for label, site in sites.items()},
                         indent=1))
    else:
        print(table(sites, args.lesson))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
