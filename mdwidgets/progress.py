"""`/// progress`: the learner's progress, with export, import and reset."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from mdwidgets.base import TLBlock


class Progress(TLBlock):
    """The progress overview with export, import and reset (filled in by web/src/page/progress.js)."""

    NAME = "progress"
    ARGUMENT = None

    def create(self, parent: etree.Element) -> etree.Element:
        el = etree.SubElement(parent, "div", {"class": "tl-progress"})
        etree.SubElement(el, "p", {"class": "tl-fallback"}).text = "Your progress appears here when JavaScript runs."
        return el
