"""`/// ol-install [| M07.6]`: how to install `ol` from this site (and an exercise's first steps)."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from markdown.util import AtomicString

from mdwidgets.base import TLBlock


class OlInstall(TLBlock):
    """How to get `ol` from this very site: the pip command (the site's address is filled in by the page, since the
    site can be hosted anywhere; without JavaScript a placeholder shows) and, given an exercise, its first steps."""

    NAME = "ol-install"
    ARGUMENT = None

    def check(self) -> None:
        self.exercise = None
        if self.argument:
            self.exercise = self.find(self.argument)

    def create(self, parent: etree.Element) -> etree.Element:
        el = etree.SubElement(parent, "div", {"class": "tl-ol-install"})
        etree.SubElement(el, "p").text = ("Install it once, in any virtual environment with Python 3.11 or newer "
                                          "(numpy and pytest come from the usual package index):")
        # Stashed as HTML: a highlighter (pymdownx.highlight) re-renders every <pre><code> it finds in the tree,
        # which would drop the class and the span the page fills in.
        etree.SubElement(el, "div").text = self.md.htmlStash.store(
            '<pre><code class="tl-ol-command">pip install --extra-index-url <span class="tl-site-root">'
            'https://&lt;this site&gt;/</span>simple/ tinyllm-ol</code></pre>')
        self.body = etree.SubElement(el, "div", {"class": "tl-ol-body"})
        ex = self.exercise
        if ex is not None:
            steps = [f"ol start {ex.id}", f"ol tests {ex.id}", f"ol check {ex.id}"]
            steps += [f"ol check {ex.id} --ref-deps"] if ex.requires else []
            steps += [f"ol diff  {ex.id}", "ol export progress.json"]
            etree.SubElement(el, "p").text = AtomicString(f"Then, in the folder of your own repository (ol "
                                                          f"writes {ex.learner_path} there):")
            etree.SubElement(etree.SubElement(el, "pre"), "code").text = AtomicString("\n".join(steps))
        note = etree.SubElement(el, "p")
        first = etree.SubElement(note, "code")
        first.text = "ol export"
        first.tail = " writes a file that the Your progress page imports, and "
        second = etree.SubElement(note, "code")
        second.text = "ol import"
        second.tail = (" reads the page's export, so work done in the terminal and in the browser meets in one "
                       "place. A pass counts on each side once that side has checked the code itself.")
        return el

    def add(self, block: etree.Element) -> etree.Element:
        return self.body
