"""`/// class`: a teacher's class view of many learners' progress files (filled in by web/src/page/class/)."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from mdwidgets.base import TLBlock


class ClassView(TLBlock):
    """The class table, its checking and its downloads; the page's script mounts it (main.js, class-page.js)."""

    NAME = "class"
    ARGUMENT = None

    def create(self, parent: etree.Element) -> etree.Element:
        el = etree.SubElement(parent, "div", {"class": "tl-class"})
        etree.SubElement(el, "p", {"class": "tl-fallback"}).text = (
            "The class view needs JavaScript: it reads the files and checks the passes in this browser.")
        return el
