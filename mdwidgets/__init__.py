"""Markdown widgets for lesson pages: a pymdown-extensions Blocks extension.

Each widget is a `/// name | argument` block that emits a placeholder element plus its data as JSON in a
`<script type="application/json">`; the front end (web/src) turns placeholders into live widgets. All data comes
from the exercise manifests (course.manifest), so the page and the exercise folder cannot disagree:

    /// numeric | E7.3 residual        a numeric prompt; the body is the question
    /// choice | E7.3 check            a multiple-choice check (or a predict-first question)
    /// reveal | E7.3 predict          content hidden until the predict-first question is committed
    /// exercise | E7.3                the code cell with hidden tests; the body is shown above the editor
    /// tests | M07.6                  the test catalogue as a table that fills in with results
    /// mutants | M07.6                every mutant, what it gets wrong and the test that catches it
    /// progress                       the learner's progress, with export, import and reset
    /// ol-install [| M07.6]           how to install `ol` from this site (and an exercise's first steps)
    /// pycell                         a runnable example (Run only); executed at build time, must not raise
    /// chapter | E7                   a chapter's lessons in order, with the learner's status (mdwidgets.course)
    /// lesson | E7.3                  a lesson's "E7.3 · Lesson 3 of 6 · Chapter E7" line (mdwidgets.course)
    /// chapter-section | E7 reference a chapter's shared section, written once (mdwidgets.course, .page)
    /// module-map | MS-P6             a milestone's modules as a dependency map, and its gate (mdwidgets.course)

Portable on purpose: only Python-Markdown and pymdown-extensions, no MkDocs API. MkDocs glue lives in
tools/mkdocs_hooks.py and only tells this module which file it is converting (mdwidgets.page.set_source), so
messages name the file and line. A mistake renders an error box in place of the widget and is reported at the
end of the page (the `errors` option), one `file:line: message` each.
"""
from __future__ import annotations

import hashlib
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

from course import chapters as chapter_defs
from course import manifest, records
from mdwidgets import examples
from mdwidgets.page import ErrorTreeprocessor, PageState, SourcePreprocessor, WidgetError, normal, set_source, state

__all__ = ["WidgetError", "set_source", "reset_cache", "makeExtension"]


@lru_cache(maxsize=4)
def _exercises(root: str) -> dict[str, manifest.Exercise]:
    return manifest.load_all(Path(root))


@lru_cache(maxsize=4)
def _chapters(root: str) -> dict[str, chapter_defs.Chapter]:
    return chapter_defs.load_chapters(Path(root), _exercises(root))


def reset_cache() -> None:
    """Forget loaded manifests and chapters (a live preview reloads them on each build)."""
    _exercises.cache_clear()
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
        try:
            return _exercises(self.config["exercises"])
        except manifest.ManifestError as exc:
            raise self.fail(str(exc)) from None

    def chapters(self) -> dict[str, chapter_defs.Chapter]:
        exercises = self.exercises()  # noqa: F841 - its errors first
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
                return self.create(parent)
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
        try:
            self.exercise = manifest.find(parts[0], self.exercises())
        except KeyError as exc:
            raise self.fail(str(exc).strip("'\"")) from None
        self.item = parts[1] if self.ITEM else None

    def root(self, parent: etree.Element, cls: str, **attrs: str) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": f"tl-widget {cls}",
                                                "data-exercise": self.exercise.slug, **attrs})


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


class Reveal(_Widget):
    """Content shown only once the named predict-first question has been committed."""

    NAME = "reveal"

    def create(self, parent: etree.Element) -> etree.Element:
        if not any(c.id == self.item and c.kind == "predict" for c in self.exercise.choices):
            raise self.fail(f"{self.exercise.id} has no predict question {self.item!r}")
        el = self.root(parent, "tl-reveal", **{"data-after": self.item})
        note = etree.SubElement(el, "p", {"class": "tl-reveal-note"})
        note.text = "Commit a prediction above to read on."
        self.body = etree.SubElement(el, "div", {"class": "tl-reveal-body"})
        return el

    def add(self, block: etree.Element) -> etree.Element:
        return self.body


class ExerciseBlock(_Widget):
    """The code cell: editor with the starter, Run / Check / Stop / Reset, and per-test results."""

    NAME = "exercise"
    ITEM = False

    def create(self, parent: etree.Element) -> etree.Element:
        ex = self.exercise
        el = etree.SubElement(parent, "div", {"class": "tl-cell", "data-exercise": ex.slug,
                                              "data-kind": "exercise"})
        self.intro = etree.SubElement(el, "div", {"class": "tl-intro"})
        # Shown without JavaScript; the highlighter rewrites <pre>, so the marker class sits on a wrapper.
        fallback = etree.SubElement(etree.SubElement(el, "div", {"class": "tl-fallback"}), "pre")
        code = etree.SubElement(fallback, "code")
        code.text = AtomicString(ex.starter.read_text(encoding="utf-8"))
        _json_script(el, records.cell(ex, _exercises(self.config["exercises"])))
        # The hints, rendered now (maths too, by the build's formulas step) and hidden until the learner asks
        # for one (web/src/cell/help-view.js copies each in).
        for i, hint in enumerate(ex.hints, 1):
            source = etree.SubElement(el, "div", {"class": "tl-hint-source", "hidden": "hidden",
                                                  "data-hint-source": str(i)})
            source.text = self.md.htmlStash.store(_render(hint))
        return el

    def add(self, block: etree.Element) -> etree.Element:
        return self.intro


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


class Mutants(_Widget):
    """Every mutant of an exercise, what it gets wrong and the hidden test that catches it, from mutants/*.toml,
    so the list on the page grows with the folder and never names a mutant that does not exist."""

    NAME = "mutants"
    ITEM = False

    def create(self, parent: etree.Element) -> etree.Element:
        ex = self.exercise
        if not ex.mutants:
            raise self.fail(f"{ex.id} has no mutants (add mutants/<name>.toml files)")
        wrapper = etree.SubElement(parent, "div", {"class": "tl-mutants", "data-exercise": ex.slug})
        count = etree.SubElement(wrapper, "p", {"class": "tl-mutant-count"})
        count.text = (f"{len(ex.mutants)} mutant{'s' if len(ex.mutants) != 1 else ''}, each a broken copy of the "
                      "reference that the build proves its named test fails on.")
        table = etree.SubElement(wrapper, "table")
        head = etree.SubElement(etree.SubElement(table, "thead"), "tr")
        for title in ("Mutant", "What it gets wrong", "Caught by"):
            etree.SubElement(head, "th").text = title
        body = etree.SubElement(table, "tbody")
        for m in ex.mutants:
            row = etree.SubElement(body, "tr", {"data-mutant": m.name})
            etree.SubElement(etree.SubElement(row, "td"), "code").text = AtomicString(m.name)
            etree.SubElement(row, "td").text = AtomicString(m.description)
            link = etree.SubElement(etree.SubElement(row, "td"), "a", {"href": f"#{m.fails}"})
            etree.SubElement(link, "code").text = AtomicString(m.fails)
        return wrapper


class OlInstall(TLBlock):
    """How to get `ol` from this very site: the pip command (the site's address is filled in by the page, since the
    site can be hosted anywhere; without JavaScript a placeholder shows) and, given an exercise, its first steps."""

    NAME = "ol-install"
    ARGUMENT = None

    def check(self) -> None:
        self.exercise = None
        if self.argument:
            try:
                self.exercise = manifest.find(self.argument, self.exercises())
            except KeyError as exc:
                raise self.fail(str(exc).strip("'\"")) from None

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


class Progress(TLBlock):
    """The progress overview with export, import and reset (filled in by web/src/progress.js)."""

    NAME = "progress"
    ARGUMENT = None

    def create(self, parent: etree.Element) -> etree.Element:
        el = etree.SubElement(parent, "div", {"class": "tl-progress"})
        etree.SubElement(el, "p", {"class": "tl-fallback"}).text = "Your progress appears here when JavaScript runs."
        return el


class PyCell(TLBlock):
    """A runnable example. It runs on CPython at build time and the build fails if it raises.

    `uses: E7.3` lets it import that exercise's module as the learner has written it (the page sends the saved
    code, and its dependencies' passed code or their references, with each run). At build time it then runs
    twice, against the reference and against the starter, whose stubs it must handle without raising. matplotlib
    draws nothing at build time (its Agg backend); in the browser the figures appear in the output.
    """

    NAME = "pycell"
    ARGUMENT = None
    OPTIONS = {"title": ("", type_string), "uses": ("", type_string)}

    def on_markdown(self) -> str:
        return "raw"

    def create(self, parent: etree.Element) -> etree.Element:
        self.el = etree.SubElement(parent, "div", {"class": "tl-cell", "data-kind": "example"})
        self.pre = etree.SubElement(etree.SubElement(self.el, "div", {"class": "tl-fallback"}), "pre")
        return self.pre

    def end(self, block: etree.Element) -> None:
        raw = self.dedent(self.pre.text or "")
        code = raw.strip("\n") + "\n"
        self.pre.text = None
        etree.SubElement(self.pre, "code").text = AtomicString(code)
        data = {"code": code, "title": self.options["title"]}
        try:
            uses = self._uses()
        except _Failure as exc:
            self.page.errors.append(str(exc))
            uses = None
        if uses is not None:
            data["uses"] = uses.slug
        for against, files in _example_files(uses, self.exercises() if uses else {}):
            proc = _run_example(code, files)
            if proc.returncode != 0:
                problem, line = _exception(proc.stderr)
                where = self.where
                if line:  # the example's line k sits k lines below the header, after any blank lines stripped
                    name, header = self.where.rsplit(":", 1)
                    skipped = len(raw) - len(raw.lstrip("\n"))
                    where = f"{name}:{int(header) + skipped + line}"
                self.page.errors.append(f"{where}: `/// pycell`: the example fails on CPython{against}: {problem}")
        _json_script(self.el, data)

    def _uses(self) -> manifest.Exercise | None:
        if not self.options["uses"]:
            return None
        try:
            return manifest.find(self.options["uses"], self.exercises())
        except (KeyError, ValueError, manifest.ManifestError) as exc:
            raise self.fail(f"uses: {exc.args[0] if exc.args else exc}") from None


def _example_files(uses: manifest.Exercise | None, exercises: dict[str, manifest.Exercise]):
    """(what the example runs against, the files importable meanwhile) for each build-time run of an example:
    once alone, or, when it uses an exercise, against its reference and against its starter (its dependencies'
    references beside both)."""
    if uses is None:
        yield "", {}
        return
    deps = {exercises[s].import_path: exercises[s].reference.read_text(encoding="utf-8")
            for s in records._requires(uses, exercises)}
    for against, source in ((uses.reference, "reference"), (uses.starter, "starter")):
        yield f" with {uses.id}'s {source}", {**deps, uses.import_path: against.read_text(encoding="utf-8")}


def _example_cache() -> Path:
    """Where examples that ran cleanly are remembered: beside the validation cache."""
    return manifest.cache_folder() / "examples"


def _run_example(code: str, files: dict[str, str]) -> subprocess.CompletedProcess:
    """Run an example on CPython with `files` (path under the import root -> source) importable, as the browser
    does; matplotlib, when the example plots, with its Agg backend (no window, nothing shown).

    A run that succeeded is remembered under a hash of the code, the files and the interpreter, so a build
    runs each example once, not on every build and page check (a second or more each, at a hundred pages that
    was minutes); a failure is never remembered, so it shows again until it is fixed."""
    key = hashlib.sha256(json.dumps([sys.version, code, sorted(files.items())]).encode()).hexdigest()
    marker = _example_cache() / key
    if marker.is_file():
        return subprocess.CompletedProcess([sys.executable, "-c", code], 0, "", "")
    proc = examples.run(code, files)
    if proc.returncode == 0:
        try:
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text("ok\n", encoding="utf-8")
        except OSError:
            pass  # a read-only cache only costs the next build a run
    return proc


def _exception(stderr: str) -> tuple[str, int]:
    """The exception line of a traceback and the example's line it was raised at (0 when unknown)."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    found = [int(m.group(1)) for line in lines for m in [re.search(r'File "<string>", line (\d+)', line)] if m]
    return (lines[-1].strip() if lines else "it exited with an error"), (found[-1] if found else 0)


class WidgetsExtension(BlocksExtension):
    """Registers every widget block."""

    def __init__(self, *args, **kwargs):
        self.config = {
            "exercises": [str(manifest.EXERCISES), "folder holding one folder per exercise (and chapters/)"],
            "errors": ["raise", "what to do with the page's widget errors: raise, log or collect"],
        }
        super().__init__(*args, **kwargs)

    def extendMarkdownBlocks(self, md, block_mgr) -> None:  # noqa: N802 - Python-Markdown's name
        from mdwidgets.course import Chapter, ModuleMap  # imports this module's helpers, so not at the top

        from mdwidgets.course import ChapterSection, LessonHeader

        config = self.getConfigs()
        md.preprocessors.register(SourcePreprocessor(md, lambda arg: _section_file(config["exercises"], arg)),
                                  "tl-source", 105)
        md.treeprocessors.register(ErrorTreeprocessor(md, config["errors"]), "tl-errors", 1)
        for block in (Numeric, ChoiceWidget, Reveal, ExerciseBlock, Catalogue, Mutants, OlInstall, Progress, PyCell, Chapter, ModuleMap,
                      LessonHeader, ChapterSection):
            block_mgr.register(block, config)


def _section_file(root: str, argument: str) -> Path | None:
    """The Markdown of a shared chapter section named `CHAPTER SECTION`, or None (the block then reports why)."""
    parts = argument.split()
    if len(parts) != 2:
        return None
    try:
        chapter = _chapters(root).get(parts[0])
    except manifest.ManifestError:
        return None
    section = chapter.section(parts[1]) if chapter else None
    return section.path if section else None


def makeExtension(**kwargs) -> WidgetsExtension:  # noqa: N802 - Python-Markdown's entry point name
    """Entry point used by `markdown_extensions: - mdwidgets` in mkdocs.yml."""
    return WidgetsExtension(**kwargs)
