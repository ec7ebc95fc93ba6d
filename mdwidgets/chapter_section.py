"""`/// chapter-section | E7 reference`: a chapter's shared section, written once (expanded by mdwidgets/page.py)."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from mdwidgets.course import _CourseBlock, _sub


class ChapterSection(_CourseBlock):
    """A chapter's shared section: the Markdown of `exercises/chapters/...`, expanded in place by
    mdwidgets.page before the page is parsed, so it is written once and identical on every lesson."""

    NAME = "chapter-section"

    def check(self) -> None:
        parts = self.argument.split()
        if len(parts) != 2:
            raise self.fail("expected CHAPTER SECTION, like `E7 reference`")
        self.chapter = self.chapter_def(parts[0])
        self.section = self.chapter.section(parts[1])
        if self.section is None:
            known = ", ".join(s.id for s in self.chapter.shared) or "none"
            raise self.fail(f"{self.chapter.id} has no shared section {parts[1]!r} (known: {known})")

    def create(self, parent: etree.Element) -> etree.Element:
        key = f"{self.chapter.id}/{self.section.id}"
        self.page.sections.append(key)
        return _sub(parent, "div", class_="tl-chapter-section", data_section=key)
