"""Chapter definitions: `exercises/chapters/<chapter>.toml`, the one place a chapter's lessons are listed.

A chapter's lessons, in order, written or only planned, are listed once; everything else is derived from that list:
a lesson's "Lesson 3 of 6" line, the chapter overview, the check that every lesson exercise belongs to a chapter,
and the chapter's shared sections (Markdown written once and rendered on every lesson of the chapter):

    id = "E7"
    title = "Speculative decoding"
    page = "e7/index.md"                         # the chapter overview page, under docs/
    lessons = ["E7.1", "E7.2", "E7.3", "E7.4", "E7.5", "E7.6"]

    [[shared]]                                   # optional, any number
    id = "reference"
    file = "e7/reference.md"                     # under exercises/chapters/

A listed lesson is "written" when an exercise folder of kind "lesson" has its id; the others are planned.
Mistakes are reported as `path:line: field: problem`, like course.manifest's.
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .exercises import Course
from .manifest import ID_RE, NAME_RE, Exercise, ManifestError, rel

CHAPTER_RE = re.compile(r"^[A-Z]+[0-9]+$")
FOLDER = "chapters"  # under the exercises root


@dataclass(frozen=True)
class SharedSection:
    """Markdown written once for a chapter and rendered on each of its lessons (`/// chapter-section`)."""

    id: str
    path: Path


@dataclass(frozen=True)
class Chapter:
    """A loaded chapter definition; `lessons` are ids in reading order, written or planned."""

    id: str
    title: str
    page: str
    lessons: tuple[str, ...]
    shared: tuple[SharedSection, ...]
    path: Path

    def number(self, lesson: str) -> int:
        """1-based position of a lesson in the chapter."""
        return self.lessons.index(lesson) + 1

    def section(self, ident: str) -> SharedSection | None:
        return next((s for s in self.shared if s.id == ident), None)


def _line(path: Path, key: str, table: tuple[str, int] | None = None) -> int:
    """Line of the first `key = ...` in a TOML file, or in the `index`-th `[[name]]` table when `table` is
    (name, index); 1 when absent."""
    lines = path.read_text(encoding="utf-8").splitlines()
    start = 0
    if table is not None:
        headers = [n for n, text in enumerate(lines) if re.match(rf"^\s*\[\[\s*{re.escape(table[0])}\s*\]\]", text)]
        if table[1] >= len(headers):
            return 1
        start = headers[table[1]]
    pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
    for number in range(start, len(lines)):
        if pattern.match(lines[number]):
            return number + 1
    return start + 1 if table is not None else 1


def _fail(path: Path, field: str, problem: str) -> ManifestError:
    """`path:line: field: problem`, the line found from the field (`lessons[2]`, `shared[0].file`, `id`)."""
    match = re.match(r"^(\w+)\[(\d+)\]\.(\w+)$", field)
    if match:
        line = _line(path, match.group(3), (match.group(1), int(match.group(2))))
    else:
        line = _line(path, field.split("[")[0])
    return ManifestError(f"{rel(path)}:{line}: {field}: {problem}")


def load_chapter(path: Path) -> Chapter:
    """Load one chapter definition; raises ManifestError naming the file, line and field."""
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        match = re.search(r"at line (\d+)", str(exc))
        raise ManifestError(f"{rel(path)}:{match.group(1) if match else 1}: invalid TOML: {exc}") from None
    allowed = {"id", "title", "page", "lessons", "shared"}
    for key in table:
        if key not in allowed:
            raise _fail(path, key, f"unknown field (allowed: {', '.join(sorted(allowed))})")
    for key in ("id", "title", "page"):
        if not isinstance(table.get(key), str) or not table[key].strip():
            raise _fail(path, key, "missing" if key not in table else "expected a non-empty string")
    ident = table["id"]
    if not CHAPTER_RE.match(ident):
        raise _fail(path, "id", f"expected a chapter id like 'E7', got {ident!r}")
    if path.stem != ident.lower():
        raise _fail(path, "id", f"{ident!r} does not match the file name {path.name!r} ({ident} lives in "
                                f"{ident.lower()}.toml)")
    lessons = table.get("lessons")
    if not isinstance(lessons, list) or not lessons or not all(isinstance(x, str) for x in lessons):
        raise _fail(path, "lessons", "expected a non-empty list of lesson ids, like [\"E7.1\", \"E7.2\"]")
    for i, lesson in enumerate(lessons):
        if not ID_RE.match(lesson) or not lesson.startswith(ident + "."):
            raise _fail(path, f"lessons[{i}]", f"{lesson!r} is not a lesson id of {ident} (like {ident}.1)")
    dupes = sorted({x for x in lessons if lessons.count(x) > 1})
    if dupes:
        raise _fail(path, "lessons", f"listed twice: {', '.join(dupes)}")
    shared = []
    items = table.get("shared", [])
    if not isinstance(items, list) or not all(isinstance(s, dict) for s in items):
        raise _fail(path, "shared", "expected an array of tables ([[shared]])")
    for i, item in enumerate(items):
        for key in item:
            if key not in ("id", "file"):
                raise _fail(path, f"shared[{i}].{key}", "unknown field (allowed: file, id)")
        sid, file = item.get("id"), item.get("file")
        if not isinstance(sid, str) or not NAME_RE.match(sid):
            raise _fail(path, f"shared[{i}].id", f"expected a kebab-case id, got {sid!r}")
        if not isinstance(file, str) or not file.endswith(".md"):
            raise _fail(path, f"shared[{i}].file", f"expected a Markdown file name, got {file!r}")
        source = (path.parent / file).resolve()
        if not source.is_file():
            raise _fail(path, f"shared[{i}].file", f"file not found: {rel(source)}")
        shared.append(SharedSection(sid, source))
    ids = [s.id for s in shared]
    dupes = sorted({x for x in ids if ids.count(x) > 1})
    if dupes:
        raise _fail(path, "shared", f"ids listed twice: {', '.join(dupes)}")
    return Chapter(ident, table["title"].strip(), table["page"], tuple(lessons), tuple(shared), path.resolve())


def load_chapters(root: Path, exercises: dict[str, Exercise]) -> dict[str, Chapter]:
    """Every chapter under `root/chapters/`, keyed by id, checked against the exercises.

    Every exercise of kind "lesson" must be listed by exactly one chapter, and a listed id that is written must be
    a lesson, so "Lesson N of M" is always defined and never contradicts an exercise folder.
    """
    chapters = {c.id: c for c in (load_chapter(p) for p in sorted((root / FOLDER).glob("*.toml")))}
    by_id = Course.of(exercises).by_id
    for chapter in chapters.values():
        for i, lesson in enumerate(chapter.lessons):
            ex = by_id.get(lesson)
            if ex is not None and ex.kind != "lesson":
                raise _fail(chapter.path, f"lessons[{i}]", f"{lesson} is an exercise of kind {ex.kind!r}, "
                                                          "not a lesson")
    for ex in sorted(exercises.values(), key=lambda e: e.id):
        if ex.kind != "lesson":
            continue
        owners = [c for c in chapters.values() if ex.id in c.lessons]
        if not owners:
            head = ex.id.split(".", 1)[0]
            where = f"{rel(root / FOLDER / (head.lower() + '.toml'))}"
            hint = (f"add {ex.id!r} to `lessons` in {where}" if head in chapters
                    else f"create {where} listing the chapter's lessons")
            raise ManifestError(f"{rel(ex.manifest)}:{_line(ex.manifest, 'id')}: id: lesson {ex.id} belongs to no "
                                f"chapter: {hint}")
    return chapters


def chapter_of(lesson: str, chapters: dict[str, Chapter]) -> Chapter | None:
    """The chapter that lists `lesson`, if any."""
    return next((c for c in chapters.values() if lesson in c.lessons), None)
