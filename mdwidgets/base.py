"""What every widget block shares: the base classes `TLBlock` and `_Widget`, the manifests and chapters loaded
once per build (`reset_cache` forgets them), and the helpers that write a block's JSON data and render a manifest's
Markdown."""
from __future__ import annotations

import json
import xml.etree.ElementTree as etree
from functools import lru_cache
from pathlib import Path

import markdown
from markdown.util import AtomicString
from pymdownx.blocks.block import Block

from course import chapters as chapter_defs
from course import manifest
from mdwidgets.page import PageState, normal, state


@lru_cache(maxsize=4)
def _loaded(root: str) -> tuple[manifest.Course, dict[str, str]]:
    """The exercises that load, and for each folder that does not, its first error (by slug): one broken manifest
    breaks only the widgets that name its exercise, not every page of the course."""
    errors: list[str] = []
    course = manifest.load_all(Path(root), errors)
    broken = {}
    for folder in sorted(p.parent.name for p in Path(root).glob("*/exercise.toml")):
        if folder not in course:
            broken[folder] = next((e for e in errors if f"/{folder}/" in f"/{e}"), f"{folder} did not load")
    return course, broken


def _exercises(root: str) -> manifest.Course:
    return _loaded(root)[0]


@lru_cache(maxsize=4)
def _chapters(root: str) -> dict[str, chapter_defs.Chapter]:
    return chapter_defs.load_chapters(Path(root), _exercises(root))


def reset_cache() -> None:
    """Forget loaded manifests and chapters (a live preview reloads them on each build)."""
    _loaded.cache_clear()
    _chapters.cache_clear()


def _json_script(parent: etree.Element, data: dict) -> None:
    script = etree.SubElement(parent, "script", {"type": "application/json", "class": "tl-data"})
    # "<" escaped so no string in the data can close the script element.
    script.text = AtomicString(json.dumps(data, ensure_ascii=False).replace("<", "\\u003c"))


@lru_cache(maxsize=1)
def _explain_md() -> markdown.Markdown:
    return markdown.Markdown(extensions=["pymdownx.arithmatex"],
                             extension_configs={"pymdownx.arithmatex": {"generic": True}})


def _render(text: str) -> str:
    """Markdown (with math) of a manifest string, e.g. a prompt's worked answer."""
    return _explain_md().reset().convert(text)


class _Failure(Exception):
    """Raised inside a block to abandon it; the block renders an error box and the page's state keeps the line."""


class TLBlock(Block):
    """Base of every widget block: knows its own file and line, and turns a failure into an error box.

    Subclasses implement `check()` (read the argument and options; fail early), `create(parent)` and optionally
    `add(block)` / `end(block)`, and call `self.fail(problem)` for any mistake of the author's.
    """

    ARGUMENT = True
    OPTIONS = {}

    @property
    def page(self) -> PageState:
        return state(self.md)

    def header(self) -> str:
        return f"{self.NAME} | {self.argument}" if self.argument else self.NAME

    def fail(self, problem: str) -> _Failure:
        return _Failure(f"{self.where}: `/// {normal(self.header())}`: {problem}")

    def exercises(self) -> dict[str, manifest.Exercise]:
        """Every exercise that loads (one that does not is named by the widgets that use it: `find`)."""
        return _exercises(self.config["exercises"])

    def find(self, key: str, option: str = "") -> manifest.Exercise:
        """The exercise `key` names (id or slug; `option`: the option it was given in); fails with its manifest's own
        error when it does not load, or with what is known when there is no such exercise."""
        broken = _loaded(self.config["exercises"])[1].get(manifest.slug_of(key))
        if broken:
            raise self.fail(broken)
        try:
            return manifest.find(key, self.exercises())
        except (KeyError, ValueError) as exc:
            raise self.fail(f"{option}: " * bool(option) + str(exc).strip("'\"")) from None

    def chapters(self) -> dict[str, chapter_defs.Chapter]:
        try:
            return _chapters(self.config["exercises"])
        except manifest.ManifestError as exc:
            raise self.fail(str(exc)) from None

    def check(self) -> None:
        """Validate the argument and options; raise self.fail(...) on a mistake."""

    def create(self, parent: etree.Element) -> etree.Element:
        raise NotImplementedError

    def on_validate(self, parent: etree.Element) -> bool:
        self.where = self.page.claim(self.header())
        self.error = ""
        try:
            self.check()
        except _Failure as exc:
            self.error = str(exc)
        return True

    def on_create(self, parent: etree.Element) -> etree.Element:
        if not self.error:
            size = len(parent)
            try:
                root = self.create(parent)
                # What kind of page this is, for the page budgets and the one-page-per-kind checks
                # (authoring/page_kinds.py): the blocks on it, marked where each one starts.
                root.set("data-tl-block", self.NAME)
                return root
            except _Failure as exc:
                self.error = str(exc)
                for child in list(parent)[size:]:
                    parent.remove(child)
        self.page.errors.append(self.error)
        box = etree.SubElement(parent, "div", {"class": "tl-widget-error", "role": "alert"})
        etree.SubElement(box, "p").text = AtomicString(self.error)
        return box

    def on_add(self, block: etree.Element) -> etree.Element:
        return block if self.error else self.add(block)

    def add(self, block: etree.Element) -> etree.Element:
        return block

    def on_end(self, block: etree.Element) -> None:
        if not self.error:
            try:
                self.end(block)
            except _Failure as exc:
                self.page.errors.append(str(exc))
                block.clear()
                block.set("class", "tl-widget-error")
                block.set("role", "alert")
                etree.SubElement(block, "p").text = AtomicString(str(exc))

    def end(self, block: etree.Element) -> None:
        """After the body was parsed."""


class _Widget(TLBlock):
    """Shared parsing of `EXERCISE [ITEM]` arguments."""

    ITEM = True

    def check(self) -> None:
        parts = self.argument.split()
        if len(parts) != (2 if self.ITEM else 1):
            want = "EXERCISE ITEM, like `E7.3 residual`" if self.ITEM else "an exercise id, like `E7.3`"
            raise self.fail(f"expected {want}")
        self.exercise = self.find(parts[0])
        self.item = parts[1] if self.ITEM else None

    def root(self, parent: etree.Element, cls: str, **attrs: str) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": f"tl-widget {cls}",
                                                "data-exercise": self.exercise.slug, **attrs})
