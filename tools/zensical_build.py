"""The site built by Zensical, the successor of MkDocs, from the same mkdocs.yml, docs/ and widgets (`make
build-zensical`). mkdocs-material stays the production build; this one proves the course does not depend on it.

Runs in Zensical's own virtual environment (.venv-zensical, requirements-zensical.txt), with this checkout on
PYTHONPATH for the widgets. Zensical runs Python-Markdown extensions but no MkDocs hook, so the steps around it
are the Makefile's, in the production venv: `python -m authoring validate` before (exercises and pages), and
`python -m tools.site_steps post-build` after. This module does the middle step:

1. A project folder of its own, `build/zensical/`, because Zensical keeps its page cache in `.cache/` next to the
   config file (the repository's holds the validation and snapshot caches, which `zensical build --clean` would
   delete) and has no `--site-dir`: a derived `mkdocs.yml`, `docs/` as a tree of symbolic links to the course's
   pages (Zensical wants the docs folder inside the project's; the widgets resolve the links, so messages name
   the author's files), its cache, and the site in `build/zensical/site/`. The cache is emptied before every
   build: a cached page is not converted again, so its widget errors would go unreported.
2. The derived config is mkdocs.yml with what Zensical reads differently: no `hooks` (it runs none), the classic
   theme variant (the look mkdocs-material has, whose contrast the accessibility audit checks; Zensical's
   default "modern" variant differs), absolute paths for the theme overrides, the snippets and the widgets'
   exercises (relative to the original config's folder, as the MkDocs hook makes them), the widgets' errors
   logged, and `watch:` on the exercises folder (data the pages are built from, for anyone running `zensical
   serve` on it; that server lacks the post-build assets).
3. The build, in this process, with the widgets' error log collected: every widget error of every page is
   printed, one `file:line: message` each, and the build fails, as `mkdocs build --strict` does.
"""
from __future__ import annotations

import argparse
import logging
import os
import shutil
import sys
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
OUT = REPO / "build" / "zensical"


class _Collect(logging.Handler):
    """Keeps the widgets' error lines instead of printing them as they come."""

    def __init__(self):
        super().__init__(logging.ERROR)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(record.getMessage())


def derived_config(config: dict, source: Path, out: Path) -> dict:
    """mkdocs.yml as Zensical is to read it from `out` (see the module's docstring, 2)."""
    root = source.parent.resolve()
    derived = dict(config, docs_dir="docs", site_dir="site")
    derived.pop("hooks", None)
    theme = dict(derived.get("theme") or {})
    if theme.get("custom_dir"):
        theme["custom_dir"] = str((root / theme["custom_dir"]).resolve())
    theme["variant"] = "classic"
    derived["theme"] = theme
    extensions, exercises = [], root / "exercises"
    for item in derived.get("markdown_extensions") or []:
        name, options = (item, {}) if isinstance(item, str) else next(iter(item.items()))
        options = dict(options or {})
        if name == "mdwidgets":
            exercises = (root / options.get("exercises", "exercises")).resolve()
            options.update(exercises=str(exercises), errors="log")
        if name == "pymdownx.snippets":
            options["base_path"] = [str((root / p).resolve()) for p in options.get("base_path", ["."])]
        extensions.append({name: options} if options else name)
    derived["markdown_extensions"] = extensions
    derived["watch"] = [str(exercises)]
    return derived


def link_pages(docs: Path, target: Path) -> int:
    """`target` as a tree of real folders holding a symbolic link to every file of `docs`; the number of files."""
    if target.is_symlink() or target.is_file():
        target.unlink()
    elif target.exists():
        shutil.rmtree(target)
    count = 0
    for path in sorted(docs.rglob("*")):
        if path.is_file():
            link = target / path.relative_to(docs)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(os.path.relpath(path.resolve(), link.parent))
            count += 1
    return count


def prepare(source: Path, out: Path) -> Path:
    """The project folder of step 1 with the derived config; returns the config's path."""
    config = yaml.safe_load(source.read_text(encoding="utf-8"))
    out.mkdir(parents=True, exist_ok=True)
    for own in (out / ".cache", out / "site"):
        shutil.rmtree(own, ignore_errors=True)
    link_pages((source.parent / config.get("docs_dir", "docs")).resolve(), out / "docs")
    derived = out / "mkdocs.yml"
    derived.write_text(f"# Written by tools/zensical_build.py from {os.path.relpath(source, out)}; do not edit.\n"
                       + yaml.safe_dump(derived_config(config, source, out), sort_keys=False, allow_unicode=True),
                       encoding="utf-8")
    return derived


def build(source: Path, out: Path) -> list[str]:
    """Build the site into `out`/site; the problems, one line each (empty when the build succeeded)."""
    import zensical

    from authoring import examples
    from mdwidgets.page import LOG

    examples.install()
    config = prepare(source, out)
    collect, propagate = _Collect(), LOG.propagate
    LOG.addHandler(collect)
    LOG.propagate = False  # printed once, at the end
    try:  # never clean=True: see the module's docstring, 1
        zensical.build(str(config), {"clean": False, "strict": bool(yaml.safe_load(config.read_text()).get("strict"))})
    except Exception as exc:  # noqa: BLE001 - Zensical reports its own failures as RuntimeError("Python error: ...")
        return collect.lines + [str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__]
    finally:
        LOG.removeHandler(collect)
        LOG.propagate = propagate
    if not (out / "site" / "index.html").is_file():
        return collect.lines + [f"{os.path.relpath(out / 'site', REPO)}/index.html: Zensical wrote no home page"]
    return collect.lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m tools.zensical_build", description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", type=Path, default=REPO / "mkdocs.yml", help="the MkDocs config to derive from")
    parser.add_argument("--out", type=Path, default=OUT, help="the project folder (the site goes into OUT/site)")
    args = parser.parse_args(argv)
    problems = build(args.config.resolve(), args.out.resolve())
    for line in problems:
        print(line, file=sys.stderr)
    if problems:
        print(f"zensical build failed: {len(problems)} problem{'s' if len(problems) != 1 else ''}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
