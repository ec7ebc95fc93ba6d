"""`/// pycell`: a runnable example (Run only), executed on CPython at build time, where it must not raise. The runs
themselves are mdwidgets/examples.py's; a run that succeeded is remembered here, so a build runs each example once."""
from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as etree
from pathlib import Path

from markdown.util import AtomicString
from pymdownx.blocks.block import type_string

from course import manifest, records
from mdwidgets import examples
from mdwidgets.base import TLBlock, _Failure, _json_script


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
        return self.find(self.options["uses"], "uses")


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
