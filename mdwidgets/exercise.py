"""`/// exercise | E7.3`: the code cell with hidden tests; the body is shown above the editor."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown.util import AtomicString

from course import records
from mdwidgets.base import _exercises, _json_script, _render, _Widget


class ExerciseBlock(_Widget):
    """The code cell: editor with the starter, Run / Check / Stop / Reset, and per-test results."""

    NAME = "exercise"
    ITEM = False

    def create(self, parent: etree.Element) -> etree.Element:
        ex = self.exercise
        el = etree.SubElement(parent, "div", {"class": "tl-cell", "data-exercise": ex.slug,
                                              "data-kind": "exercise"})
        self.intro = etree.SubElement(el, "div", {"class": "tl-intro"})
        # Shown without JavaScript; the highlighter rewrites <pre>, so the marker class sits on a wrapper.
        fallback = etree.SubElement(etree.SubElement(el, "div", {"class": "tl-fallback"}), "pre")
        code = etree.SubElement(fallback, "code")
        code.text = AtomicString(ex.starter.read_text(encoding="utf-8"))
        _json_script(el, records.cell(ex, _exercises(self.config["exercises"])))
        # The hints, rendered now (maths too, by the build's formulas step) and hidden until the learner asks
        # for one (web/src/page/cell/help-view.js copies each in).
        for i, hint in enumerate(ex.hints, 1):
            source = etree.SubElement(el, "div", {"class": "tl-hint-source", "hidden": "hidden",
                                                  "data-hint-source": str(i)})
            source.text = self.md.htmlStash.store(_render(hint))
        return el

    def add(self, block: etree.Element) -> etree.Element:
        return self.intro
