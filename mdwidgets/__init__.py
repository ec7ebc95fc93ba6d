"""Markdown widgets for lesson pages: a pymdown-extensions Blocks extension.

Each widget is a `/// name | argument` block that emits a placeholder element plus its data as JSON in a
`<script type="application/json">`; the front end (web/src) turns placeholders into live widgets. All data comes
from the exercise manifests (checker.manifest), so the page and the exercise folder cannot disagree:

    /// numeric | E7.3 residual        a numeric prompt; the body is the question
    /// choice | E7.3 check            a multiple-choice check (or a predict-first question)
    /// reveal | E7.3 predict          content hidden until the predict-first question is committed
    /// exercise | E7.3                the code cell with hidden tests; the body is shown above the editor
    /// tests | M07.6                  the test catalogue as a table that fills in with results
    /// progress                       the learner's progress, with export, import and reset
    /// pycell                         a runnable example (Run only); executed at build time, must not raise
    /// chapter | E7                   a chapter's lessons in order, with the learner's status (mdwidgets.course)
    /// module-map | MS-P6             a milestone's modules as a dependency map, and its gate (mdwidgets.course)

Portable on purpose: only Python-Markdown and pymdown-extensions, no MkDocs API. MkDocs glue lives in
tools/mkdocs_hooks.py and only tells this module which page it is converting, for error messages.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
import xml.etree.ElementTree as etree
from functools import lru_cache
from pathlib import Path

import markdown
from markdown.util import AtomicString
from pymdownx.blocks import BlocksExtension
from pymdownx.blocks.block import Block, type_string

from checker import manifest

_SOURCE: dict = {"name": "<markdown>", "lines": [], "claimed": set()}


class WidgetError(ValueError):
    """A widget block names something that does not exist. The message starts with `page:line: `."""


def _normal(header: str) -> str:
    """A block header with its spacing normalised, so source lines and parsed headers compare equal."""
    return re.sub(r"\s*\|\s*", " | ", re.sub(r"\s+", " ", header.strip()))


def set_source(name: str, text: str) -> None:
    """Tell the widgets which page is being converted, so errors can name its file and line."""
    _SOURCE["name"] = name
    _SOURCE["lines"] = [(i, _normal(t)) for i, t in enumerate(text.splitlines(), 1) if t.lstrip().startswith("///")]
    _SOURCE["claimed"] = set()


def _claim(header: str) -> int:
    """The source line of the next block with this header (blocks are parsed in document order), or 0."""
    want = _normal(header)
    for line, text in _SOURCE["lines"]:
        if text == want and line not in _SOURCE["claimed"]:
            _SOURCE["claimed"].add(line)
            return line
    return 0


def _fail(header: str, problem: str, line: int) -> WidgetError:
    return WidgetError(f"{_SOURCE['name']}:{line}: `{_normal(header)}`: {problem}")


@lru_cache(maxsize=1)
def _exercises(root: str) -> dict[str, manifest.Exercise]:
    return manifest.load_all(Path(root))


def reset_cache() -> None:
    """Forget loaded manifests (mkdocs serve reloads them on each build)."""
    _exercises.cache_clear()


def _json_script(parent: etree.Element, data: dict) -> None:
    script = etree.SubElement(parent, "script", {"type": "application/json", "class": "tl-data"})
    # "<" escaped so no string in the data can close the script element.
    script.text = AtomicString(json.dumps(data, ensure_ascii=False).replace("<", "\\u003c"))


_EXPLAIN_MD = None


def _render(text: str) -> str:
    """Markdown (with math) of a manifest string, e.g. a prompt's worked answer."""
    global _EXPLAIN_MD
    if _EXPLAIN_MD is None:
        _EXPLAIN_MD = markdown.Markdown(extensions=["pymdownx.arithmatex"],
                                        extension_configs={"pymdownx.arithmatex": {"generic": True}})
    return _EXPLAIN_MD.reset().convert(text)


class _Widget(Block):
    """Shared parsing of `EXERCISE [ITEM]` arguments."""

    ARGUMENT = True
    OPTIONS = {}
    ITEM = True

    def header(self) -> str:
        return f"{'/' * self.length} {self.NAME} | {self.argument}"

    def fail(self, problem: str) -> WidgetError:
        return _fail(self.header(), problem, self.line)

    def on_validate(self, parent: etree.Element) -> bool:
        self.line = _claim(self.header())
        parts = self.argument.split()
        if len(parts) != (2 if self.ITEM else 1):
            want = "EXERCISE ITEM, like `E7.3 residual`" if self.ITEM else "an exercise id, like `E7.3`"
            raise self.fail(f"expected {want}")
        try:
            self.exercise = manifest.find(parts[0], _exercises(self.config["exercises"]))
        except KeyError as exc:
            raise self.fail(str(exc).strip("'\"")) from None
        except manifest.ManifestError as exc:
            raise self.fail(str(exc)) from None
        self.item = parts[1] if self.ITEM else None
        return True

    def root(self, parent: etree.Element, cls: str, **attrs: str) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": f"tl-widget {cls}",
                                                "data-exercise": self.exercise.slug, **attrs})


class Numeric(_Widget):
    """A numeric prompt, checked in the browser against the manifest's answer within its tolerance."""

    NAME = "numeric"

    def on_create(self, parent: etree.Element) -> etree.Element:
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

    def on_add(self, block: etree.Element) -> etree.Element:
        return self.question


class ChoiceWidget(_Widget):
    """A multiple-choice check or a predict-first question; options rendered as buttons, feedback as data."""

    NAME = "choice"

    def on_create(self, parent: etree.Element) -> etree.Element:
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

    def on_add(self, block: etree.Element) -> etree.Element:
        return self.question


class Reveal(_Widget):
    """Content shown only once the named predict-first question has been committed."""

    NAME = "reveal"

    def on_create(self, parent: etree.Element) -> etree.Element:
        if not any(c.id == self.item and c.kind == "predict" for c in self.exercise.choices):
            raise self.fail(f"{self.exercise.id} has no predict question {self.item!r}")
        el = self.root(parent, "tl-reveal", **{"data-after": self.item})
        note = etree.SubElement(el, "p", {"class": "tl-reveal-note"})
        note.text = "Commit a prediction above to read on."
        self.body = etree.SubElement(el, "div", {"class": "tl-reveal-body"})
        return el

    def on_add(self, block: etree.Element) -> etree.Element:
        return self.body


class Exercise(_Widget):
    """The code cell: editor with the starter, Run / Check / Stop / Reset, and per-test results."""

    NAME = "exercise"
    ITEM = False

    def on_create(self, parent: etree.Element) -> etree.Element:
        ex = self.exercise
        el = etree.SubElement(parent, "div", {"class": "tl-cell", "data-exercise": ex.slug,
                                              "data-kind": "exercise"})
        self.intro = etree.SubElement(el, "div", {"class": "tl-intro"})
        # Shown without JavaScript; the highlighter rewrites <pre>, so the marker class sits on a wrapper.
        fallback = etree.SubElement(etree.SubElement(el, "div", {"class": "tl-fallback"}), "pre")
        code = etree.SubElement(fallback, "code")
        code.text = AtomicString(ex.starter.read_text(encoding="utf-8"))
        by_id = {e.id: e for e in _exercises(self.config["exercises"]).values()}
        _json_script(el, {
            "slug": ex.slug, "id": ex.id, "title": ex.title, "kind": ex.kind, "path": ex.learner_path,
            "importPath": ex.import_path, "starter": ex.starter.read_text(encoding="utf-8"),
            "timeLimit": ex.time_limit, "requires": [d.slug for d in manifest.dependency_order(ex, by_id)],
            "tests": [{"name": t.name, "kind": t.kind, "checks": t.checks} for t in ex.catalogue],
        })
        return el

    def on_add(self, block: etree.Element) -> etree.Element:
        return self.intro


class Catalogue(_Widget):
    """The hidden-test catalogue as a table whose last column shows this learner's latest result."""

    NAME = "tests"
    ITEM = False

    def on_create(self, parent: etree.Element) -> etree.Element:
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


class Progress(Block):
    """The progress overview with export, import and reset (filled in by web/src/progress.js)."""

    NAME = "progress"
    ARGUMENT = None
    OPTIONS = {}

    def on_create(self, parent: etree.Element) -> etree.Element:
        el = etree.SubElement(parent, "div", {"class": "tl-progress"})
        etree.SubElement(el, "p", {"class": "tl-fallback"}).text = "Your progress appears here when JavaScript runs."
        return el


class PyCell(Block):
    """A runnable example. It runs on CPython at build time and the build fails if it raises."""

    NAME = "pycell"
    ARGUMENT = None
    OPTIONS = {"title": ("", type_string)}

    def on_markdown(self) -> str:
        return "raw"

    def on_create(self, parent: etree.Element) -> etree.Element:
        self.line = _claim(f"{'/' * self.length} pycell")
        self.el = etree.SubElement(parent, "div", {"class": "tl-cell", "data-kind": "example"})
        self.pre = etree.SubElement(etree.SubElement(self.el, "div", {"class": "tl-fallback"}), "pre")
        return self.pre

    def on_end(self, block: etree.Element) -> None:
        code = self.dedent(self.pre.text or "").strip("\n") + "\n"
        self.pre.text = None
        etree.SubElement(self.pre, "code").text = AtomicString(code)
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            raise _fail(f"{'/' * self.length} pycell", "the example fails on CPython:\n" + proc.stderr[-1500:],
                        self.line)
        _json_script(self.el, {"code": code, "title": self.options["title"]})


class WidgetsExtension(BlocksExtension):
    """Registers every widget block."""

    def __init__(self, *args, **kwargs):
        self.config = {"exercises": [str(manifest.EXERCISES), "folder holding one folder per exercise"]}
        super().__init__(*args, **kwargs)

    def extendMarkdownBlocks(self, md, block_mgr) -> None:  # noqa: N802 - Python-Markdown's name
        from mdwidgets.course import Chapter, ModuleMap  # imports this module's helpers, so not at the top

        config = self.getConfigs()
        for block in (Numeric, ChoiceWidget, Reveal, Exercise, Catalogue, Progress, PyCell, Chapter, ModuleMap):
            block_mgr.register(block, config)


def makeExtension(**kwargs) -> WidgetsExtension:  # noqa: N802 - Python-Markdown's entry point name
    """Entry point used by `markdown_extensions: - mdwidgets` in mkdocs.yml."""
    return WidgetsExtension(**kwargs)
