"""`/// numeric | E7.3 residual`: a numeric prompt; the body is the question."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from mdwidgets.base import _json_script, _render, _Widget


class Numeric(_Widget):
    """A numeric prompt, checked in the browser against the manifest's answer within its tolerance."""

    NAME = "numeric"

    def create(self, parent: etree.Element) -> etree.Element:
        prompt = next((p for p in self.exercise.prompts if p.id == self.item), None)
        if prompt is None:
            known = ", ".join(p.id for p in self.exercise.prompts) or "none"
            raise self.fail(f"{self.exercise.id} has no numeric prompt {self.item!r} (known: {known})")
        el = self.root(parent, "tl-numeric", **{"data-prompt": prompt.id})
        question = etree.SubElement(el, "div", {"class": "tl-question"})
        _json_script(el, {
            "exercise": self.exercise.slug, "prompt": prompt.id, "answer": list(prompt.answer),
            "tolerance": prompt.tolerance,
            "feedback": [{"answer": list(f.answer), "message": f.message} for f in prompt.feedback],
        })
        explain = etree.SubElement(el, "div", {"class": "tl-explain", "hidden": "hidden"})
        explain.text = self.md.htmlStash.store(_render(prompt.explain))
        self.question = question
        return el

    def add(self, block: etree.Element) -> etree.Element:
        return self.question
