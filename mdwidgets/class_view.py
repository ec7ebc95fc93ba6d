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
            "The class view needs JavaScript and the site served from a web address (not opened from a file): it "
            "checks every claimed pass in this browser, apart from the hidden tests. Without them, ol class FOLDER "
            "grades the same folder in a terminal.")
        return el
