"""`/// mutants | M07.6`: every mutant, what it gets wrong and the test that catches it."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown.util import AtomicString

from mdwidgets.base import _Widget


class Mutants(_Widget):
    """Every mutant of an exercise, what it gets wrong and the hidden test that catches it, from mutants/*.toml,
    so the list on the page grows with the folder and never names a mutant that does not exist."""

    NAME = "mutants"
    ITEM = False

    def create(self, parent: etree.Element) -> etree.Element:
        ex = self.exercise
        if not ex.mutants:
            raise self.fail(f"{ex.id} has no mutants (add mutants/<name>.toml files)")
        wrapper = etree.SubElement(parent, "div", {"class": "tl-mutants", "data-exercise": ex.slug})
        count = etree.SubElement(wrapper, "p", {"class": "tl-mutant-count"})
        count.text = (f"{len(ex.mutants)} mutant{'s' if len(ex.mutants) != 1 else ''}, each a broken copy of the "
                      "reference that the build proves its named test fails on.")
        table = etree.SubElement(wrapper, "table")
        head = etree.SubElement(etree.SubElement(table, "thead"), "tr")
        for title in ("Mutant", "What it gets wrong", "Caught by"):
            etree.SubElement(head, "th").text = title
        body = etree.SubElement(table, "tbody")
        for m in ex.mutants:
            row = etree.SubElement(body, "tr", {"data-mutant": m.name})
            etree.SubElement(etree.SubElement(row, "td"), "code").text = AtomicString(m.name)
            etree.SubElement(row, "td").text = AtomicString(m.description)
            link = etree.SubElement(etree.SubElement(row, "td"), "a", {"href": f"#{m.fails}"})
            etree.SubElement(link, "code").text = AtomicString(m.fails)
        return wrapper
