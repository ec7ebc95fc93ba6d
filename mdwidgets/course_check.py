"""`/// course-check`: the author's check of the whole course in the browser the page is opened in."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from mdwidgets.base import TLBlock


class CourseCheck(TLBlock):
    """Runs every exercise's reference, starter and first mutant, one after another in one Python worker, and
    reports a table of failures (filled in by web/src/page/course-check.js). For authors: it is how a course is
    checked in a browser no CI here has (Safari on a Mac or an iPhone); its page is left out of the nav."""

    NAME = "course-check"
    ARGUMENT = None

    def create(self, parent: etree.Element) -> etree.Element:
        el = etree.SubElement(parent, "div", {"class": "tl-course-check", "data-course-check": ""})
        etree.SubElement(el, "p", {"class": "tl-fallback"}).text = (
            "The course check runs here when JavaScript runs.")
        return el
