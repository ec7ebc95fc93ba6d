"""`/// tests | M07.6`: the test catalogue as a table that fills in with results."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown.util import AtomicString

from mdwidgets.base import _Widget


class Catalogue(_Widget):
    """The hidden-test catalogue as a table whose last column shows this learner's latest result."""

    NAME = "tests"
    ITEM = False

    def create(self, parent: etree.Element) -> etree.Element:
        ex = self.exercise
        # The class sits on a wrapper: mkdocs-material styles only tables without a class of their own.
        wrapper = etree.SubElement(parent, "div", {"class": "tl-catalogue", "data-exercise": ex.slug})
        table = etree.SubElement(wrapper, "table")
        head = etree.SubElement(etree.SubElement(table, "thead"), "tr")
        for title in ("Test", "Kind", "Checks", "Why it matters", "Your result"):
            etree.SubElement(head, "th").text = title
        body = etree.SubElement(table, "tbody")
        for t in ex.catalogue:
            # The row's id lets prose link to a test: [the theorem](#test_speculative_output_is_exactly_p).
            row = etree.SubElement(body, "tr", {"id": t.name, "data-test": t.name, "data-outcome": "not-run"})
            name = etree.SubElement(etree.SubElement(row, "td"), "code")
            name.text = AtomicString(t.name)
            for text in (t.kind, t.checks, t.why):
                etree.SubElement(row, "td").text = AtomicString(text)
            etree.SubElement(row, "td", {"class": "tl-result"}).text = "not run"
        return wrapper
