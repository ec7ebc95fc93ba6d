"""`/// reveal | E7.3 predict`: content hidden until the predict-first question is committed."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from mdwidgets.base import _Widget


class Reveal(_Widget):
    """Content shown only once the named predict-first question has been committed."""

    NAME = "reveal"

    def create(self, parent: etree.Element) -> etree.Element:
        if not any(c.id == self.item and c.kind == "predict" for c in self.exercise.choices):
            raise self.fail(f"{self.exercise.id} has no predict question {self.item!r}")
        el = self.root(parent, "tl-reveal", **{"data-after": self.item})
        note = etree.SubElement(el, "p", {"class": "tl-reveal-note"})
        note.text = "Commit a prediction above to read on."
        self.body = etree.SubElement(el, "div", {"class": "tl-reveal-body"})
        return el

    def add(self, block: etree.Element) -> etree.Element:
        return self.body
