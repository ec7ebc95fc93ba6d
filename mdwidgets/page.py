"""Per-page state of the widgets: which file and line each block came from, and the page's widget errors.

The state lives on the Markdown instance (`md.tl_page`), created afresh by a preprocessor at the start of every
conversion, so nothing leaks from one page to the next. A site generator tells the widgets which file is being
converted with `set_source()` just before the conversion (MkDocs: tools/mkdocs_hooks.py). A generator that runs
no hook of ours is asked instead, through what it leaves on the Markdown instance (`generator_source`: Zensical's
rendering context); with neither, messages name `<markdown>` and links are relative to the docs root. Two things
need the file's own text:

- **Lines**: a generator strips the front matter before converting, so the converted text starts some lines into
  the file; `set_source(..., raw=<the file's text>)` measures that offset, and every message names the line of
  the file as the author sees it.
- **Shared chapter sections**: `/// chapter-section | E7 reference` with an empty body is expanded, before any
  block is parsed, into the Markdown of the chapter's shared section, wrapped in a longer fence so the section's
  own blocks nest. Each line of the result remembers where it came from, so an error inside a shared section
  names the shared file and its line.

Errors are collected, not raised mid-page: a bad widget renders an error box in its place and the rest of the
page still converts. At the end of the conversion the extension's `errors` option decides: "raise" (default)
raises a WidgetError listing them, "log" logs each one as an error (MkDocs prints one line per mistake and
`--strict` aborts), "collect" leaves them in `md.tl_page.errors` for the caller.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path

from markdown.preprocessors import Preprocessor
from markdown.treeprocessors import Treeprocessor

LOG = logging.getLogger("mkdocs.plugins.tl-widgets")
SECTION_RE = re.compile(r"^(/{3,})\s*chapter-section\s*\|\s*(.*?)\s*$")
FENCE_RE = re.compile(r"^(/{3,})\s*$")
HEADER_RE = re.compile(r"^\s*/{3,}\s*\S")


class WidgetError(ValueError):
    """A widget block names something that does not exist. Each line starts with `file:line: `."""


@dataclass(frozen=True)
class Source:
    """The file being converted: its name in messages, its path under docs/ for links, and the front matter's
    length in lines."""

    name: str = "<markdown>"
    uri: str = ""
    offset: int = 0


@dataclass
class PageState:
    """Everything the widgets know about the page being converted."""

    source: Source
    origins: list[tuple[str, int]] = field(default_factory=list)  # per converted line: (file, line)
    headers: list[tuple[int, str]] = field(default_factory=list)  # (converted line index, normalised header)
    claimed: set[int] = field(default_factory=set)
    errors: list[str] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)  # "E7/reference" for each shared section rendered

    def claim(self, header: str) -> str:
        """`file:line` of the next unclaimed block with this header (blocks are parsed in document order)."""
        want = normal(header)
        for index, text in self.headers:
            if text == want and index not in self.claimed:
                self.claimed.add(index)
                name, line = self.origins[index]
                return f"{name}:{line}"
        return f"{self.source.name}:1"


_PENDING: list[Source] = []


def set_source(name: str, text: str = "", raw: str | None = None, uri: str | None = None) -> None:
    """Name the file the next conversion reads. `text` is what will be converted, `raw` the whole file (front
    matter included) and `uri` its path under docs/ (used for relative links; defaults to `name` without
    `docs/`)."""
    offset = 0
    if raw is not None and text and raw.endswith(text):
        offset = raw[: len(raw) - len(text)].count("\n")
    _PENDING[:] = [Source(name, uri if uri is not None else name.removeprefix("docs/"), offset)]


def generator_source(md, text: str) -> Source:
    """The page being converted, as the generator running the conversion records it on the Markdown instance, for
    generators that call no hook of ours (a `Source()` naming `<markdown>` when none does). `text` is what is
    being converted, to measure the front matter against the file.

    Zensical (0.0.x) registers a preprocessor named `rendering_context` whose `page.path` is the page's path under
    the docs folder and whose `config` has the project's `root_dir` and `docs_dir`. The file is resolved through
    symbolic links, so a build that links the pages into a folder of its own names the author's files."""
    context = md.preprocessors["rendering_context"] if "rendering_context" in md.preprocessors else None
    uri = getattr(getattr(context, "page", None), "path", None)
    config = getattr(context, "config", None)
    if not isinstance(uri, str) or not uri or not isinstance(config, dict):
        return Source()
    uri = uri.replace("\\", "/")
    path = Path(config.get("root_dir") or ".", config.get("docs_dir") or "docs", uri).resolve()
    try:
        raw = path.read_text(encoding="utf-8")
    except OSError:
        return Source(_rel(path), uri)
    return Source(_rel(path), uri, _offset(text, raw))


def _offset(text: str, raw: str) -> int:
    """Lines of `raw` (the whole file) before the converted `text` starts: the front matter and the blank lines
    a generator strips with it, wherever it stops stripping."""
    if text and raw.endswith(text):
        return raw[: len(raw) - len(text)].count("\n")
    body = text.lstrip("\n")
    start = raw.find(body.rstrip()) if body.strip() else -1
    return max(raw[:start].count("\n") - (len(text) - len(body)), 0) if start >= 0 else 0


def state(md) -> PageState:
    """The current page's state (a fresh one when no conversion has started, e.g. in a unit test)."""
    if not hasattr(md, "tl_page"):
        md.tl_page = PageState(Source())
    return md.tl_page


def normal(header: str) -> str:
    """A block header with its spacing normalised, so source lines and parsed headers compare equal."""
    return re.sub(r"\s*\|\s*", " | ", re.sub(r"\s+", " ", header.strip().lstrip("/").strip()))


class SourcePreprocessor(Preprocessor):
    """Starts the page's state, expands shared chapter sections and records where every line came from."""

    def __init__(self, md, find_section):
        super().__init__(md)
        self.find_section = find_section  # "E7 reference" -> Path of the shared Markdown, or None

    def run(self, lines: list[str]) -> list[str]:
        source = _PENDING.pop() if _PENDING else generator_source(self.md, "\n".join(lines))
        page = md_state = PageState(source)
        self.md.tl_page = md_state
        out: list[str] = []
        i = 0
        while i < len(lines):
            line = lines[i]
            match = SECTION_RE.match(line)
            closing = i + 1 < len(lines) and FENCE_RE.match(lines[i + 1])
            path = self.find_section(match.group(2)) if match and closing else None
            if path is None:
                out.append(line)
                page.origins.append((source.name, source.offset + i + 1))
                i += 1
                continue
            body = path.read_text(encoding="utf-8").splitlines()
            fence = "/" * max([len(m.group(1)) + 1 for m in map(FENCE_RE.match, body) if m] + [4, len(match.group(1))])
            name = _rel(path)
            out.append(f"{fence} chapter-section | {match.group(2)}")
            page.origins.append((source.name, source.offset + i + 1))
            for n, text in enumerate(body, 1):
                out.append(text)
                page.origins.append((name, n))
            out.append(fence)
            page.origins.append((source.name, source.offset + i + 2))
            i += 2
        page.headers = [(n, normal(t)) for n, t in enumerate(out) if HEADER_RE.match(t) and normal(t)]
        return out


class ErrorTreeprocessor(Treeprocessor):
    """Once the page is parsed, hands its widget errors to whoever asked for them. (A tree processor, not a
    postprocessor: the toc extension runs postprocessors again for every heading.)"""

    def __init__(self, md, mode: str):
        super().__init__(md)
        self.mode = mode

    def run(self, root):
        errors = state(self.md).errors
        if errors and self.mode == "raise":
            raise WidgetError("\n".join(errors))
        if self.mode == "log":
            for error in errors:
                LOG.error(error)
        return None


def _rel(path: Path) -> str:
    from course.manifest import rel

    return rel(path)
