"""Course widgets: a chapter's lessons, a lesson's place in its chapter, shared chapter sections, module maps.

    /// chapter | E7              the chapter's lessons in order; written ones linked, with the learner's status
    The chapter's introduction, in Markdown.
    ///

    /// lesson | E7.3             "E7.3 · Lesson 3 of 6 · Chapter E7, Speculative decoding", at the top of a lesson
    ///

    /// chapter-section | E7 reference   the chapter's shared section `reference`, written once
    ///

    /// module-map | MS-P6        the milestone's modules, what they need and what builds on them, and the gate
    The gate's description, in Markdown.
    ///

Everything is derived, never typed twice: a chapter's lessons (written or planned) and its shared sections come
from its definition, `exercises/chapters/<chapter>.toml` (course.chapters); a lesson is written when an exercise
folder has its id; a map's modules are the exercises whose `milestone` is the argument, everything they require,
anything written that requires them, and the `used_by` entries that are not written yet ("not yet available").
The HTML is complete without JavaScript (an ordered list, and an SVG with a text alternative); web/src/page/course.js
only fills in each status from this browser's saved work.

Each block is a module of its own (chapter.py, lesson.py, chapter_section.py, module_map.py); this one holds what
they share: the base class with their links and chapter lookup, and the element helper.
"""
from __future__ import annotations

import posixpath
import xml.etree.ElementTree as etree

from course.chapters import CHAPTER_RE, Chapter as ChapterDef
from mdwidgets.base import TLBlock

NOT_STARTED = "not started"  # what a status reads before the page's script has looked at saved work


def _sub(parent: etree.Element, tag: str, text: str = "", tail: str = "", **attrs: str) -> etree.Element:
    """A child element; `class_`, `data_x` and `aria_x` keywords become `class`, `data-x` and `aria-x`."""
    el = etree.SubElement(parent, tag, {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()})
    el.text = text or None
    el.tail = tail or None
    return el


class _CourseBlock(TLBlock):
    """Links from the page being converted to another page (MkDocs rewrites and checks them)."""

    def href(self, page: str) -> str:
        here = self.page.source.uri
        return posixpath.relpath(page, posixpath.dirname(here) or ".")

    def chapter_def(self, ident: str) -> ChapterDef:
        if not CHAPTER_RE.match(ident):
            raise self.fail("expected a chapter id, like `E7`")
        chapters = self.chapters()
        if ident not in chapters:
            known = ", ".join(sorted(chapters)) or "none"
            raise self.fail(f"no chapter {ident} (define it in exercises/chapters/{ident.lower()}.toml; "
                            f"known: {known})")
        return chapters[ident]
