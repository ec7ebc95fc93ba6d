"""The second generator without the generator: how the widgets learn the current page from Zensical's rendering
context (mdwidgets/page.py `generator_source`), and the project folder tools/zensical_build.py derives from
mkdocs.yml. Zensical itself is not imported: a stand-in registers the preprocessor Zensical 0.0.x registers
(`rendering_context`, with `page.path` under the docs folder and the project's `config`), so these run in the
production venv. `make build-zensical` runs the real thing.
"""
from __future__ import annotations

import sys
from pathlib import Path

import markdown
import pytest
import yaml
from markdown.extensions import Extension
from markdown.preprocessors import Preprocessor

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

import mdwidgets  # noqa: E402
from mdwidgets.page import _PENDING, generator_source  # noqa: E402
from tools import zensical_build  # noqa: E402

FIXTURE = REPO / "tests" / "fixtures" / "course"
LESSON = FIXTURE / "docs" / "t1" / "fixture-lesson.md"


class _Page:
    def __init__(self, path: str):
        self.path, self.url = path, path.removesuffix(".md") + "/"


class _Context(Preprocessor):
    """What zensical.extensions.context registers: the page and the config, and lines passed through."""

    def __init__(self, md, page, config):
        super().__init__(md)
        self.page, self.config = page, config

    def run(self, lines):
        return lines


class _ContextExtension(Extension):
    def __init__(self, page, config):
        super().__init__()
        self.page, self.config = page, config

    def extendMarkdown(self, md):  # noqa: N802 - Python-Markdown's name
        md.preprocessors.register(_Context(md, self.page, self.config), "rendering_context", 0)


@pytest.fixture(autouse=True)
def _fresh():
    mdwidgets.reset_cache()
    _PENDING.clear()
    yield
    _PENDING.clear()
    mdwidgets.reset_cache()


def project(tmp_path: Path, pages: dict[str, Path | str]) -> Path:
    """A Zensical-like project folder: docs/ holding links to existing files, or files with the given text."""
    for uri, target in pages.items():
        path = tmp_path / "docs" / uri
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(target, Path):
            path.symlink_to(target)
        else:
            path.write_text(target, encoding="utf-8")
    return tmp_path


def convert(root: Path, uri: str, context: bool = True) -> markdown.Markdown:
    """Convert a page as Zensical does: front matter stripped, with (or without) its rendering context."""
    raw = (root / "docs" / uri).read_text(encoding="utf-8")
    text = raw.split("---\n", 2)[2].lstrip("\n") if raw.startswith("---\n") else raw
    extensions = [_ContextExtension(_Page(uri), {"root_dir": str(root), "docs_dir": "docs"})] if context else []
    md = markdown.Markdown(extensions=extensions + ["mdwidgets"],
                           extension_configs={"mdwidgets": {"exercises": str(FIXTURE / "exercises"),
                                                            "errors": "collect"}})
    md.html = md.convert(text)
    return md


def test_a_nested_page_is_known_by_its_file_and_links_relative_to_itself(tmp_path):
    root = project(tmp_path, {"t1/fixture-lesson.md": LESSON})
    md = convert(root, "t1/fixture-lesson.md")
    assert md.tl_page.source.name == "tests/fixtures/course/docs/t1/fixture-lesson.md"  # through the link
    assert md.tl_page.source.uri == "t1/fixture-lesson.md"
    assert md.tl_page.errors == []  # `/// lesson | T1.2` is on T1.2's own page
    assert 'href="index.md"' in md.html  # the chapter overview, t1/index.md, from t1/


def test_without_the_context_the_page_is_unknown(tmp_path):
    root = project(tmp_path, {"t1/fixture-lesson.md": LESSON})
    md = convert(root, "t1/fixture-lesson.md", context=False)
    assert md.tl_page.source.name == "<markdown>"
    assert 'href="t1/index.md"' in md.html  # from the docs root: why the widgets need the page


def test_errors_name_the_file_and_its_line_counting_the_front_matter(tmp_path):
    page = "---\ntitle: Broken\n---\n\n# Broken\n\n/// numeric | T1.2 nosuch\nWhat?\n///\n"
    root = project(tmp_path, {"deep/er/broken.md": page})
    md = convert(root, "deep/er/broken.md")
    where = (tmp_path / "docs" / "deep" / "er" / "broken.md").resolve()
    assert len(md.tl_page.errors) == 1
    assert md.tl_page.errors[0].startswith(f"{where}:7: `/// numeric | T1.2 nosuch`: ")


def test_the_hook_still_decides_when_it_named_the_page(tmp_path):
    root = project(tmp_path, {"t1/fixture-lesson.md": LESSON})
    mdwidgets.set_source("docs/named.md", "x", uri="t1/fixture-lesson.md")
    md = convert(root, "t1/fixture-lesson.md")
    assert md.tl_page.source.name == "docs/named.md"


def test_an_odd_context_is_ignored():
    md = markdown.Markdown(extensions=[_ContextExtension(_Page(""), {"root_dir": "/nowhere"})])
    assert generator_source(md, "text").name == "<markdown>"
    md = markdown.Markdown(extensions=[_ContextExtension(_Page("a.md"), None)])
    assert generator_source(md, "text").name == "<markdown>"


def test_the_derived_config_and_the_linked_pages(tmp_path):
    source = REPO / "mkdocs.yml"
    config = yaml.safe_load(source.read_text(encoding="utf-8"))
    derived = zensical_build.derived_config(config, source, tmp_path)
    assert "hooks" not in derived and (derived["docs_dir"], derived["site_dir"]) == ("docs", "site")
    assert derived["theme"]["variant"] == "classic"
    assert Path(derived["theme"]["custom_dir"]) == REPO / "overrides"
    options = {name: opts for item in derived["markdown_extensions"] if isinstance(item, dict)
               for name, opts in item.items()}
    assert options["mdwidgets"] == {"errors": "log", "exercises": str(REPO / "exercises")}
    assert options["pymdownx.snippets"]["base_path"] == [str(REPO)]
    assert derived["watch"] == [str(REPO / "exercises")]
    assert [e if isinstance(e, str) else next(iter(e)) for e in derived["markdown_extensions"]] == \
        [e if isinstance(e, str) else next(iter(e)) for e in config["markdown_extensions"]]
    assert derived["nav"] == config["nav"]
    count = zensical_build.link_pages(FIXTURE / "docs", tmp_path / "docs")
    files = sorted(p.relative_to(FIXTURE / "docs") for p in (FIXTURE / "docs").rglob("*") if p.is_file())
    assert count == len(files) and (tmp_path / "docs" / "t1").is_dir() and not (tmp_path / "docs" / "t1").is_symlink()
    assert all((tmp_path / "docs" / f).resolve() == (FIXTURE / "docs" / f).resolve() for f in files)
