"""`/// chapter | E7`: a chapter's lessons in order, with the learner's status; the body is its introduction."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from pymdownx.blocks.block import type_any

from course import manifest, records
from mdwidgets.base import _json_script
from mdwidgets.course import NOT_STARTED, _CourseBlock, _sub


class Chapter(_CourseBlock):
    """A chapter's lessons in order: the written ones linked with a status, the others "not yet written"."""

    NAME = "chapter"
    OPTIONS = {"lessons": (None, type_any)}  # no longer used: reported, so an old page is not silently wrong

    def check(self) -> None:
        if self.options["lessons"] is not None:
            raise self.fail("remove the option `lessons:`: the chapter's lessons are listed in "
                            f"exercises/chapters/{self.argument.strip().lower()}.toml")
        self.chapter = self.chapter_def(self.argument.strip())

    def create(self, parent: etree.Element) -> etree.Element:
        chapter = self.chapter
        by_id = manifest.Course.of(self.exercises()).by_id
        written = [by_id.get(lesson) for lesson in chapter.lessons]
        root = _sub(parent, "div", class_="tl-chapter", data_chapter=chapter.id)
        self.intro = _sub(root, "div", class_="tl-chapter-intro")
        count = sum(ex is not None for ex in written)
        total = len(chapter.lessons)
        _sub(root, "p", f"{total} lesson{'s' if total != 1 else ''}, "
                        f"{'all' if count == total else count} written so far.", class_="tl-chapter-count")
        items = _sub(root, "ol", class_="tl-lessons")
        for n, (lesson, ex) in enumerate(zip(chapter.lessons, written), 1):
            if ex is None:
                item = _sub(items, "li", class_="tl-lesson tl-unwritten", data_lesson=str(n), data_id=lesson)
                _sub(item, "span", f"Lesson {n}", ": ", class_="tl-lesson-number")
                _sub(item, "span", "not yet written", class_="tl-lesson-state")
                continue
            item = _sub(items, "li", class_="tl-lesson", data_lesson=str(n), data_id=lesson, data_exercise=ex.slug,
                        data_status="not-started")
            _sub(item, "span", f"Lesson {n}", ": ", class_="tl-lesson-number")
            _sub(item, "a", f"{ex.id} {ex.title}", " · ", href=self.href(ex.page))
            _sub(item, "span", NOT_STARTED, class_="tl-course-status")
        _json_script(root, {"chapter": chapter.id, "lessons": [records.status(ex) for ex in written if ex is not None]})
        return root

    def add(self, block: etree.Element) -> etree.Element:
        return self.intro
