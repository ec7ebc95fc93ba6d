"""Write the site's service worker: web/src/sw/sw.js plus the list of files to precache, their groups and a version.

The version is a hash of every precached file, so any change to the site changes sw.js, which is how browsers
learn that an update exists (they compare sw.js byte for byte on navigation).

The files are grouped so that a first visit does not pull the whole course onto a phone (issue 34): the offline
copy fills with what the learner uses. `groups` sorts every listed file into one of three:

- the platform: what every page needs, whatever the course holds (Python and the judge, the scripts, styles and
  fonts, the search index, the home page, the progress page and the "not found" page);
- the units: a chapter (its overview, its lessons' pages and their exercise bundles) or a module (its page and
  bundle), each with the pages and bundles of every exercise its own build on, and the optional packages
  (matplotlib) that the code on any of those pages imports;
- the rest, which only "Save the whole course" (or opening it) brings: other pages (the module maps, the author's
  course check), the optional packages no unit's code imports, and `ol`'s package index.

After a page's first visit, its idle-time fill downloads the platform and the page's unit (sw.js `scopeOf`); the
explicit "Save the whole course for offline use" downloads everything, and shows its size first (each file's
bytes are in the list).
"""
from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from course import chapters as chapter_defs
from course import manifest
from tools import build_outputs, precompress

SOURCE = Path(__file__).resolve().parent.parent / "web" / "src" / "sw" / "sw.js"
SKIP_SUFFIXES = (".map",)
SKIP_NAMES = {"sw.js", "sitemap.xml.gz"}  # the snapshot and the packs are precached: offline starts stay fast
# The author's course check reads these (tools/bundle.py write_authoring); learners never need them offline.
SKIP_FOLDERS = (f"assets/tl/{build_outputs.AUTHORING_DIR}/",)
BUNDLES = "assets/tl/exercises/"  # an exercise's bundle: <slug>.json (tools/bundle.py)
PACKAGE_INDEX = "simple/"         # `ol`'s package index (tools/ol_wheel.py): every exercise again, for pip


def _unused_assets(site: Path) -> set[str]:
    """Files the worker never requests once the build has packed them (tools/snapshot.py): numpy's wheel and the
    judge's wheels, the whole standard library (its two parts replace it: the start-up part, and the rest, which
    the worker fetches after ready and the offline copy keeps as it keeps every file); and the core and its
    loader, which it fetches compressed (tools/precompress.py). They stay on the site for Pyodide's own
    loadPackage (the benchmark's bare page uses them)."""
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
    return {f"assets/pyodide/{name}" for name in unused}


HASH_CHARS = 16  # of each file's sha256 in the list: enough to tell versions apart, short enough for 1,000 files


def _listed(site: Path) -> tuple[list[tuple[str, str, int]], str]:
    """([(URL relative to the site root, sha256 prefix of its bytes, size)], version) of every file worth having
    offline."""
    h = hashlib.sha256()
    files = []
    unused = _unused_assets(site)
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        if rel.endswith(SKIP_SUFFIXES) or rel in SKIP_NAMES or rel in unused or rel.startswith(SKIP_FOLDERS):
            continue
        data = path.read_bytes()
        digest = hashlib.sha256(data)
        h.update(rel.encode() + b"\0" + digest.digest())
        # Pages are requested by their folder URL (use_directory_urls), so cache them under that URL.
        url = rel[: -len("index.html")] if rel == "index.html" or rel.endswith("/index.html") else rel
        files.append((url, digest.hexdigest()[:HASH_CHARS], len(data)))
    return files, h.hexdigest()[:16]


def precache_list(site: Path) -> tuple[list[list[str]], str]:
    """([URL relative to the site root, sha256 prefix of its bytes], version) for every file worth having
    offline. The service worker keeps a file only when its bytes have that hash."""
    files, version = _listed(site)
    return [[url, digest] for url, digest, _size in files], version


# ---- groups -----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Unit:
    """What a visit of one of `pages` saves beyond the platform: `files`, the unit's own pages and bundles, those
    of every exercise they build on, and the optional packages the code on any of those pages imports."""

    name: str
    pages: tuple[str, ...]
    files: tuple[str, ...]


@dataclass(frozen=True)
class Groups:
    """The listed files by group (URLs as in the list): `platform`, `units`; every other listed file is saved only
    by "Save the whole course" or by being opened (`rest`)."""

    platform: tuple[str, ...]
    units: tuple[Unit, ...]
    rest: tuple[str, ...]


def page_url(page: str) -> str:
    """The URL, relative to the site's root, of a page under docs/ (MkDocs' directory URLs):
    `t1/fixture-lesson.md` -> `t1/fixture-lesson/`, `t1/index.md` -> `t1/`, `index.md` -> ``."""
    stem = page.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        return stem.removesuffix("index")
    return stem + "/"


def is_page(url: str) -> bool:
    """A page of the site, requested by its folder URL (the "not found" page is a file like any other)."""
    return url == "" or url.endswith("/")


def platform_pages(site: Path) -> set[str]:
    """The pages every visit keeps: the home page and the progress page (assets/tl/build.json names it)."""
    try:
        progress = json.loads((site / "assets" / "tl" / "build.json").read_text(encoding="utf-8")).get("progress")
    except (OSError, ValueError):
        progress = None
    return {""} | ({progress} if isinstance(progress, str) and progress else set())


def _optional_packages(site: Path) -> list[build_outputs.OptionalPackage]:
    try:
        return list(build_outputs.read_wheels_list(site / "assets" / "pyodide").optional)
    except (OSError, ValueError):
        return []


DATA_RE = re.compile(r'<script class="tl-data" type="application/json">(.*?)</script>', re.S)


def page_code(html: str) -> list[str]:
    """Every string of the widgets' data on a built page (a code cell's starter, a runnable example's code)."""
    found: list[str] = []

    def walk(value) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    for match in DATA_RE.finditer(html):
        try:
            walk(json.loads(match.group(1)))
        except ValueError:
            continue
    return found


def imports(code: list[str], modules: tuple[str, ...]) -> bool:
    """Whether any of `code` imports one of `modules` (`import matplotlib.pyplot as plt`, `from pylab import *`)."""
    pattern = re.compile(rf"^\s*(?:import|from)\s+(?:{'|'.join(map(re.escape, modules))})\b", re.M)
    return any(pattern.search(text) for text in code)


def _units(site: Path, exercises_root: Path, listed: set[str]) -> list[tuple[str, list[str], list[str]]]:
    """(name, its own pages, its pages and bundles with those of what it builds on) of every chapter and of every
    exercise no chapter lists (a module), in id order."""
    exercises = manifest.load_all(exercises_root)
    chapters = chapter_defs.load_chapters(exercises_root, exercises)
    by_id = exercises.by_id

    def own(ex) -> list[str]:
        return [url for url in (page_url(ex.page), f"{BUNDLES}{ex.slug}.json") if url in listed]

    def with_dependencies(members) -> list[str]:
        files = [url for ex in members for url in own(ex)]
        deps = [d for ex in members for d in exercises.dependencies(ex)]
        return list(dict.fromkeys(files + [url for d in deps for url in own(d)]))

    found = []
    in_chapter = set()
    for chapter in sorted(chapters.values(), key=lambda c: c.id):
        members = [by_id[i] for i in chapter.lessons if i in by_id]
        in_chapter |= {ex.id for ex in members}
        overview = [url for url in [page_url(chapter.page)] if url in listed]
        pages = overview + [page_url(ex.page) for ex in members if page_url(ex.page) in listed]
        found.append((f"chapter {chapter.id}", pages, list(dict.fromkeys(overview + with_dependencies(members)))))
    for ex in sorted(exercises.values(), key=lambda e: e.id):
        if ex.id not in in_chapter:
            pages = [url for url in [page_url(ex.page)] if url in listed]
            found.append((f"{ex.kind} {ex.id}", pages, with_dependencies([ex])))
    return found


def groups(site: Path, urls: list[str], exercises_root: Path | None) -> Groups:
    """Sort the listed `urls` of a built `site` into the platform, the units and the rest. Without a course
    (`exercises_root` None) every file is the platform's, as before issue 34: the whole site is saved."""
    if exercises_root is None:
        return Groups(tuple(urls), (), ())
    listed = set(urls)
    packages = [(p, [f"assets/pyodide/{name}" for name in p.files]) for p in _optional_packages(site)]
    units = []
    for name, pages, files in _units(site, exercises_root, listed):
        code = [text for url in files if is_page(url) for text in page_code(_html(site, url))]
        extra = [f for package, names in packages if imports(code, package.imports) for f in names if f in listed]
        units.append(Unit(name, tuple(pages), tuple(dict.fromkeys(files + extra))))
    in_units = {url for unit in units for url in unit.files}
    optional = {f for _package, names in packages for f in names}
    keep = platform_pages(site)

    def rest(url: str) -> bool:
        return (url in optional or url.startswith(PACKAGE_INDEX)) or (is_page(url) and url not in keep)

    platform = tuple(url for url in urls if url not in in_units and not rest(url))
    others = tuple(url for url in urls if url not in in_units and rest(url))
    return Groups(platform, tuple(units), others)


def _html(site: Path, url: str) -> str:
    try:
        return (site / url / "index.html").read_text(encoding="utf-8")
    except OSError:
        return ""


def precache(site: Path, exercises_root: Path | None = None) -> dict:
    """PRECACHE as sw.js reads it: `version`, `files` ([url, sha256 prefix, bytes]), `platform` (indices into
    `files`), `units` ([{name, pages, files}], indices) and `bytes`, the whole list's size."""
    files, version = _listed(site)
    urls = [url for url, _digest, _size in files]
    index = {url: i for i, url in enumerate(urls)}
    found = groups(site, urls, exercises_root)
    return {"version": version, "files": [list(f) for f in files],
            "platform": [index[url] for url in found.platform],
            "units": [{"name": u.name, "pages": [index[p] for p in u.pages], "files": [index[f] for f in u.files]}
                      for u in found.units],
            "bytes": sum(size for _url, _digest, size in files)}


def write(site: Path, exercises_root: Path | None = None) -> str:
    """Write site/sw.js, grouping its files by the course under `exercises_root` (none: the whole site is the
    platform's); returns the version."""
    data = precache(site, exercises_root)
    head = (f"const PRECACHE = {json.dumps(data, separators=(',', ':'))};\n"
            f"const HANDOFF = {json.dumps(build_outputs.RUNTIME['handoffCache'])}; // the Python worker's downloads\n"
            f"const HASH = {json.dumps(build_outputs.RUNTIME['hashHeader'])}; // each stored file's hash, in this header\n")
    (site / "sw.js").write_text(head + SOURCE.read_text(encoding="utf-8"), encoding="utf-8")
    return data["version"]
