"""Markdown widgets for lesson pages: a pymdown-extensions Blocks extension.

Each widget is a `/// name | argument` block that emits a placeholder element plus its data as JSON in a
`<script type="application/json">`; the front end (web/src) turns placeholders into live widgets. All data comes
from the exercise manifests (course.manifest), so the page and the exercise folder cannot disagree:

    /// numeric | E7.3 residual        a numeric prompt; the body is the question (numeric.py)
    /// choice | E7.3 check            a multiple-choice check or a predict-first question (choice.py)
    /// reveal | E7.3 predict          content hidden until the predict-first question is committed (reveal.py)
    /// exercise | E7.3                the code cell with hidden tests; the body is shown above the editor (exercise.py)
    /// tests | M07.6                  the test catalogue as a table that fills in with results (catalogue.py)
    /// mutants | M07.6                every mutant, what it gets wrong and the test that catches it (mutants.py)
    /// progress                       the learner's progress, with export, import and reset (progress.py)
    /// class                          a teacher's class view of many progress files, passes checked again (class_view.py)
    /// ol-install [| M07.6]           how to install `ol` from this site, and an exercise's first steps (ol_install.py)
    /// pycell                         a runnable example (Run only); executed at build time, must not raise (pycell.py)
    /// chapter | E7                   a chapter's lessons in order, with the learner's status (chapter.py)
    /// lesson | E7.3                  a lesson's "E7.3 · Lesson 3 of 6 · Chapter E7" line (lesson.py)
    /// chapter-section | E7 reference a chapter's shared section, written once (chapter_section.py, page.py)
    /// module-map | MS-P6             a milestone's modules as a dependency map, and its gate (module_map.py)
    /// course-check                   the author's check of every exercise in this browser (course_check.py)

One module per block, as named above. What they all share (the base classes, the manifests loaded once) is in
base.py, what the course blocks share in course.py; this module only registers them, and none of them imports it.

Portable on purpose: only Python-Markdown and pymdown-extensions, no MkDocs API. MkDocs glue lives in
tools/mkdocs_hooks.py and only tells this module which file it is converting (mdwidgets.page.set_source), so
messages name the file and line. A mistake renders an error box in place of the widget and is reported at the
end of the page (the `errors` option), one `file:line: message` each.
"""
from __future__ import annotations

from pathlib import Path

from pymdownx.blocks import BlocksExtension

from course import manifest
from mdwidgets.base import _chapters, reset_cache
from mdwidgets.catalogue import Catalogue
from mdwidgets.chapter import Chapter
from mdwidgets.chapter_section import ChapterSection
from mdwidgets.class_view import ClassView
from mdwidgets.choice import ChoiceWidget
from mdwidgets.course_check import CourseCheck
from mdwidgets.exercise import ExerciseBlock
from mdwidgets.lesson import LessonHeader
from mdwidgets.module_map import ModuleMap
from mdwidgets.mutants import Mutants
from mdwidgets.numeric import Numeric
from mdwidgets.ol_install import OlInstall
from mdwidgets.page import ErrorTreeprocessor, SourcePreprocessor, WidgetError, set_source
from mdwidgets.progress import Progress
from mdwidgets.pycell import PyCell
from mdwidgets.reveal import Reveal

__all__ = ["WidgetError", "set_source", "reset_cache", "makeExtension"]

BLOCKS = (Numeric, ChoiceWidget, Reveal, ExerciseBlock, Catalogue, Mutants, OlInstall, Progress, ClassView, PyCell,
          Chapter, ModuleMap, LessonHeader, ChapterSection, CourseCheck)


class WidgetsExtension(BlocksExtension):
    """Registers every widget block."""

    def __init__(self, *args, **kwargs):
        self.config = {
            "exercises": [str(manifest.EXERCISES), "folder holding one folder per exercise (and chapters/)"],
            "errors": ["raise", "what to do with the page's widget errors: raise, log or collect"],
        }
        super().__init__(*args, **kwargs)

    def extendMarkdownBlocks(self, md, block_mgr) -> None:  # noqa: N802 - Python-Markdown's name
        config = self.getConfigs()
        md.preprocessors.register(SourcePreprocessor(md, lambda arg: _section_file(config["exercises"], arg)),
                                  "tl-source", 105)
        md.treeprocessors.register(ErrorTreeprocessor(md, config["errors"]), "tl-errors", 1)
        for block in BLOCKS:
            block_mgr.register(block, config)


def _section_file(root: str, argument: str) -> Path | None:
    """The Markdown of a shared chapter section named `CHAPTER SECTION`, or None (the block then reports why)."""
    parts = argument.split()
    if len(parts) != 2:
        return None
    try:
        chapter = _chapters(root).get(parts[0])
    except manifest.ManifestError:
        return None
    section = chapter.section(parts[1]) if chapter else None
    return section.path if section else None


def makeExtension(**kwargs) -> WidgetsExtension:  # noqa: N802 - Python-Markdown's entry point name
    """Entry point used by `markdown_extensions: - mdwidgets` in mkdocs.yml."""
    return WidgetsExtension(**kwargs)
