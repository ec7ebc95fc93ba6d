"""`/// choice | E7.3 check`: a multiple-choice check (or a predict-first question)."""
from __future__ import annotations

import xml.etree.ElementTree as etree

from mdwidgets.base import _json_script, _Widget


class ChoiceWidget(_Widget):
    """A multiple-choice check or a predict-first question; options rendered as buttons, feedback as data."""

    NAME = "choice"

    def create(self, parent: etree.Element) -> etree.Element:
        choice = next((c for c in self.exercise.choices if c.id == self.item), None)
        if choice is None:
            known = ", ".join(c.id for c in self.exercise.choices) or "none"
            raise self.fail(f"{self.exercise.id} has no choice question {self.item!r} (known: {known})")
        attrs = {"data-prompt": choice.id, "data-kind": choice.kind}
        if choice.shows_prediction:
            attrs["data-shows-prediction"] = choice.shows_prediction
        el = self.root(parent, f"tl-choice tl-{choice.kind}", **attrs)
        self.question = etree.SubElement(el, "div", {"class": "tl-question"})
        group = etree.SubElement(el, "div", {"class": "tl-options", "role": "group"})
        for option in choice.options:
            button = etree.SubElement(group, "button", {"type": "button", "class": "tl-option",
                                                        "data-key": option.key, "disabled": "disabled"})
            key = etree.SubElement(button, "span", {"class": "tl-key"})
            key.text = option.key
            key.tail = " " + option.text
        _json_script(el, {
            "exercise": self.exercise.slug, "prompt": choice.id, "kind": choice.kind,
            "showsPrediction": choice.shows_prediction,
            "options": [{"key": o.key, "text": o.text, "correct": o.correct, "feedback": o.feedback}
                        for o in choice.options],
        })
        return el

    def add(self, block: etree.Element) -> etree.Element:
        return self.question
