"""`/// lesson | E7.3`: a lesson's "E7.3 · Lesson 3 of 6 · Chapter E7" line, at the top of its page."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from course import manifest
from mdwidgets.course import _CourseBlock, _sub


class LessonHeader(_CourseBlock):
    """A lesson's place in its chapter, derived from the chapter definition: `E7.3 · Lesson 3 of 6 · Chapter E7`."""

    NAME = "lesson"

    def check(self) -> None:
        self.exercise = self.find(self.argument)
        ex = self.exercise
        if ex.kind != "lesson":
            raise self.fail(f"{ex.id} is a {ex.kind}, not a lesson")
        if self.page.source.uri and ex.page != self.page.source.uri:
            raise self.fail(f"{ex.id}'s page is {ex.page} ({manifest.rel(ex.manifest)}), not this page")
        self.chapter = next(c for c in self.chapters().values() if ex.id in c.lessons)

    def create(self, parent: etree.Element) -> etree.Element:
        ex, chapter = self.exercise, self.chapter
        el = _sub(parent, "p", class_="tl-eyebrow", data_exercise=ex.slug, data_chapter=chapter.id)
        _sub(el, "strong", ex.id, f" · Lesson {chapter.number(ex.id)} of {len(chapter.lessons)} · ")
        _sub(el, "a", f"Chapter {chapter.id}, {chapter.title}", href=self.href(chapter.page))
        return el
