"""The thin MkDocs glue: validate exercises before the build, name pages for widget errors, copy assets after.

Everything substantial lives elsewhere (checker/, mdwidgets/, tools/bundle.py, tools/pyodide_assets.py), so a
successor of MkDocs that reads the same mkdocs.yml and Markdown extensions needs only this file rewritten.
"""
from __future__ import annotations

import shutil
from pathlib import Path

from mkdocs.exceptions import PluginError

import mdwidgets
from checker import validate
from tools import bundle, offline, pyodide_assets, snapshot

REPO = Path(__file__).resolve().parent.parent
WEB_BUILD = REPO / "build" / "web"
WEB_FILES = ("tl.js", "tl-worker.js", "tl.css")


def on_config(config):
    mdwidgets.reset_cache()
    return config


def on_pre_build(config):
    missing = [name for name in WEB_FILES if not (WEB_BUILD / name).is_file()]
    if missing:
        raise PluginError(f"build/web/{missing[0]}: missing; bundle the front end first (`npm run bundle`)")
    reports, errors = validate.validate_all(cache=REPO / ".cache" / "validate")
    if errors:
        raise PluginError("exercise validation failed:\n" + "\n".join(errors))


def on_page_markdown(markdown, page, config, files):
    mdwidgets.set_source(f"docs/{page.file.src_uri}", markdown)
    return markdown


def on_post_build(config):
    site = Path(config["site_dir"])
    target = site / "assets" / "tl"
    shutil.copytree(WEB_BUILD, target, dirs_exist_ok=True)
    bundle.write(target)
    try:
        pyodide_assets.gather(site / "assets" / "pyodide")
        snapshot.build(site / "assets" / "pyodide", target / "checker.zip")
    except (pyodide_assets.AssetError, snapshot.SnapshotError) as exc:
        raise PluginError(str(exc)) from None
    offline.write(site)  # last: its version hashes every file written above
