"""The build steps around the page generator, callable from any generator's glue or from the command line.

    pre_build(course)        validate every exercise (cached by content hash); returns the errors
    post_build(site, course) the pages' maths and their font, the pages in folds (page_html), the front end,
                             exercise bundles and index, Pyodide assets, snapshot, the tinyllm-ol wheel and its
                             package index under simple/, the theme's search worker put behind the page's word,
                             then sw.js;
                             returns the warnings (a formula KaTeX rejects)

`python -m tools.site_steps post-build SITE [--config mkdocs.yml]` runs the second on a site another generator
wrote. tools/mkdocs_hooks.py calls both for MkDocs.
"""
from __future__ import annotations

import argparse
import json
import shutil
import sys
from pathlib import Path

from authoring import validate
from course import manifest
from tools import (bundle, build_outputs, formulas, math_font, offline, ol_wheel, page_html, precompress,
                   pyodide_assets, rewriting, search_later, snapshot)
from authoring.pages import Course, course_of

REPO = Path(__file__).resolve().parent.parent
WEB_BUILD = REPO / "build" / "web"
WEB_FILES = ("tl.js", "tl-worker.js", "tl.css", build_outputs.ZSTD_WASM)


class StepError(Exception):
    """A build step cannot run; the message names the missing or broken file."""


def pre_build(course: Course) -> tuple[list[str], list[str]]:
    """Check the front end is bundled and validate every exercise of the course: (errors, warnings).

    Warnings (a suite over half its time budget) must not stop a `--strict` build, so callers show them as
    information, not as the generator's warnings."""
    missing = [name for name in WEB_FILES if not (WEB_BUILD / name).is_file()]
    if missing:
        raise StepError(f"build/web/{missing[0]}: missing; bundle the front end first (`make bundle`)")
    extra = {} if course.exercises == manifest.EXERCISES else {"root": course.exercises}
    reports, errors = validate.validate_all(cache=manifest.cache_folder(), **extra)
    return errors, [w for r in reports for w in r.warnings]


def post_build(site: Path, course: Course) -> list[str]:
    """The pages' maths rendered, everything the built pages load besides themselves, then the service worker
    (last: it hashes the rest); returns the warnings, one `file:line: message` each."""
    try:
        warnings = formulas.render(site, course.docs)
    except formulas.FormulaError as exc:
        raise StepError(str(exc)) from None
    target = site / "assets" / "tl"
    shutil.copytree(WEB_BUILD, target, dirs_exist_ok=True)
    try:
        math_font.write(site)  # after the formulas: the font holds what they draw
    except math_font.MathFontError as exc:
        raise StepError(str(exc)) from None
    page_html.write(site)  # folds, tables wrapped, the theme's components and script the page mounts itself
    try:
        mistakes = bundle.known_mistakes(course.exercises, manifest.cache_folder())
    except LookupError as exc:
        raise StepError(str(exc)) from None
    bundle.write(target, course.exercises, mistakes)
    bundle.write_authoring(target, course.exercises)  # the author's course check: each first mutant
    try:
        pyodide_assets.gather(site / "assets" / "pyodide")
        precompress.write(site / "assets" / "pyodide")
        snapshot.build(site / "assets" / "pyodide", target / "checker.zip", exercises=course.exercises)
        rewriting.build(site / "assets" / "pyodide", target / "exercises", target / "checker.zip")
    except (pyodide_assets.AssetError, snapshot.SnapshotError, rewriting.RewritingError) as exc:
        raise StepError(str(exc)) from None
    # `pip install --extra-index-url <site>/simple/ tinyllm-ol`
    wheel = ol_wheel.write_index(site, course.exercises, mistakes)
    # The build's version, which the progress page writes into its exports (`ol` reads it back).
    (target / "build.json").write_text(json.dumps({"course": ol_wheel.COURSE,
                                                   "version": ol_wheel.wheel_version(wheel.name),
                                                   "progress": progress_page(course.docs)}) + "\n")
    search_later.write(site)  # the theme's search index is built once Python is ready, not while it starts
    offline.write(site, course.exercises)  # grouped by the course: what a first visit saves (issue 34)
    return warnings


def progress_page(docs: Path) -> str:
    """The URL path, relative to the site's root, of the page holding the progress widget (`/// progress`), which
    the pages point learners to for Export (web/src/page/keep.js); "" when the course has none."""
    for path in sorted(docs.rglob("*.md")):
        if any(line.strip().startswith("/// progress") for line in path.read_text(encoding="utf-8").splitlines()):
            stem = path.relative_to(docs).as_posix().removesuffix(".md")
            return "" if stem == "index" else stem.removesuffix("/index").removesuffix("index") + "/"
    return ""


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.site_steps", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    post = sub.add_parser("post-build", help="write the assets and sw.js into a site another generator built")
    post.add_argument("site", type=Path)
    post.add_argument("--config", type=Path, default=REPO / "mkdocs.yml")
    args = parser.parse_args(argv)
    try:
        warnings = post_build(args.site, course_of(args.config))
    except StepError as exc:
        print(exc, file=sys.stderr)
        return 1
    for warning in warnings:
        print(f"WARNING: {warning}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
