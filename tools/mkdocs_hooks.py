"""The thin MkDocs glue: which course is built, what each page is, and when the build steps run.

Everything substantial lives elsewhere (checker/, mdwidgets/, tools/site_steps.py, authoring/pages.py), so a successor
of MkDocs that reads the same mkdocs.yml and Markdown extensions needs only this file rewritten. The course is the
config file's folder: its `docs_dir`, and the widgets' `exercises` folder (mkdocs.yml's `mdwidgets` options,
relative to the config file; `exercises` by default), so a fixture course under tests/ builds the same way.
Mistakes are logged as errors, one `file:line: message` each, and `--strict` aborts after listing all of them.
"""
from __future__ import annotations

import logging
import os
from pathlib import Path

from mkdocs.exceptions import PluginError

import mdwidgets
from course.manifest import rel
from authoring import examples, pages
from authoring.preview import PAGES_ONLY

LOG = logging.getLogger("mkdocs.plugins.tl")


def _course(config) -> pages.Course:
    root = Path(config.config_file_path).resolve().parent
    options = config.mdx_configs.setdefault("mdwidgets", {})
    options["exercises"] = str((root / options.get("exercises", "exercises")).resolve())
    return pages.Course(Path(config.config_file_path).resolve(), Path(config.docs_dir).resolve(),
                        Path(options["exercises"]))


def on_config(config):
    _course(config)  # makes the widgets' exercises folder absolute before any page is converted
    examples.install()  # example cells run forked from one server per build
    mdwidgets.reset_cache()
    return config


def on_pre_build(config):
    if os.environ.get(PAGES_ONLY):
        return
    from tools import site_steps  # here, not at the top: the preview's page path needs none of the build's steps

    try:
        errors, warnings = site_steps.pre_build(_course(config))
    except site_steps.StepError as exc:
        raise PluginError(str(exc)) from None
    for warning in warnings:
        LOG.info(warning)  # not LOG.warning: --strict would fail the build on a suite that is only slowish
    if errors:
        raise PluginError("exercise validation failed:\n" + "\n".join(errors))


def on_nav(nav, config, files):
    course = _course(config)
    listed = {page.file.src_uri for page in nav.pages} | pages.outside_nav(config, course.docs)
    for error in pages.structure_errors(course, listed if config.nav is not None else None):
        LOG.error(error)
    return nav


def on_page_markdown(markdown, page, config, files):
    path = Path(page.file.abs_src_path)
    mdwidgets.set_source(rel(path), markdown, raw=path.read_text(encoding="utf-8"), uri=page.file.src_uri)
    return markdown


def on_post_build(config):
    site, course = Path(config["site_dir"]), _course(config)
    if os.environ.get(PAGES_ONLY):  # the preview's page path: the edited pages' maths; the rest is built already
        from tools import formulas

        try:
            warnings = formulas.render(site, course.docs)
        except formulas.FormulaError as exc:
            raise PluginError(str(exc)) from None
    else:
        from tools import site_steps

        try:
            warnings = site_steps.post_build(site, course)
        except site_steps.StepError as exc:
            raise PluginError(str(exc)) from None
    for warning in warnings:
        LOG.warning(warning)  # a formula KaTeX rejects: `--strict` fails the build
