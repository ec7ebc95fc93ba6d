"""A built page's kind, and its size: what the checks that take one page of each kind, and the page budgets, read.

A page's kind is the set of widget blocks on it (`/// numeric`, `/// exercise`, …), and nothing else: the build
marks where each block starts (`data-tl-block`, mdwidgets/base.py). Two lessons with the same widgets are one
kind, however long their prose, so the number of kinds grows with the platform's widgets, not with the course:
a check that opens one page of each kind in a browser (the axe audit, the Lighthouse benchmark) costs the same
for a course of six lessons or of a hundred. A page with no block (the theme's 404 page) is the kind `()`.

A page's size is what its built HTML holds: bytes, and elements (every start tag, MathML's included), counted
from the file, so a count is the same on every machine and no script on the page can change it.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path

BLOCK = re.compile(r'\bdata-tl-block="([a-z-]+)"')
# The package index `ol` installs from (tools/ol_wheel.py) is pages of links, not the course's.
NOT_PAGES = ("assets", "simple", "search")


def blocks(html: str) -> tuple[str, ...]:
    """The widget blocks a built page holds, sorted, each once: its kind."""
    return tuple(sorted(set(BLOCK.findall(html))))


class _Counter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.elements = 0

    def handle_starttag(self, tag, attrs) -> None:
        self.elements += 1

    def handle_startendtag(self, tag, attrs) -> None:
        self.elements += 1


def element_count(html: str) -> int:
    """How many elements a page's HTML holds as built (the browser adds the widgets' own)."""
    counter = _Counter()
    counter.feed(html)
    counter.close()
    return counter.elements


@dataclass(frozen=True)
class BuiltPage:
    """One page of a built site: its address below the site's root (`e7/`, `""` the home page, `404.html`)."""

    path: str
    file: Path

    @property
    def html(self) -> str:
        return self.file.read_text(encoding="utf-8")

    @property
    def kind(self) -> tuple[str, ...]:
        return blocks(self.html)


def built_pages(site: Path) -> list[BuiltPage]:
    """Every page of a built site, in the order of their addresses: each folder's index.html, and 404.html."""
    found = []
    for file in sorted(site.rglob("index.html")):
        folder = file.parent.relative_to(site)
        if folder.parts and folder.parts[0] in NOT_PAGES:
            continue
        found.append(BuiltPage("" if folder == Path(".") else folder.as_posix() + "/", file))
    if (site / "404.html").is_file():
        found.append(BuiltPage("404.html", site / "404.html"))
    return found


def by_kind(pages: list[BuiltPage]) -> dict[tuple[str, ...], list[BuiltPage]]:
    """The pages of each kind, each list in the order given."""
    kinds: dict[tuple[str, ...], list[BuiltPage]] = {}
    for page in pages:
        kinds.setdefault(page.kind, []).append(page)
    return kinds


def largest_of_each_kind(pages: list[BuiltPage]) -> dict[tuple[str, ...], BuiltPage]:
    """Each kind's largest page by its HTML's bytes (the first of equals): where a page of that kind costs most."""
    return {kind: max(group, key=lambda p: (p.file.stat().st_size, -group.index(p)))
            for kind, group in by_kind(pages).items()}


def describe(kind: tuple[str, ...]) -> str:
    """A kind as a person reads it: its blocks joined, or 'no widgets'."""
    return " + ".join(kind) if kind else "no widgets"


# What one built page may hold, whatever its kind: written once, here, and held by tests/content (every page of
# the built course) and tests/unit (the rule itself). The largest page at issue 51 was M07.6's, 3,739 elements and
# 161 kB once its formulas were MathML alone; Lighthouse's phone audit of it is in bench/README.md ("Each kind of
# page on a phone"). A page over budget is a page a phone lays out slowly: split it, or move what only some
# readers want into a reveal, rather than raise the numbers.
BUDGET = {"elements": 4_000, "bytes": 180_000}


def over_budget(page: BuiltPage, budget: dict[str, int] = BUDGET) -> list[str]:
    """What of `budget` a built page exceeds, one sentence each with its figure; [] when it fits."""
    html = page.html
    found = {"elements": element_count(html), "bytes": len(html.encode("utf-8"))}
    return [f"/{page.path}: {found[what]:,} {what} as built, over the budget of {limit:,} (authoring/page_kinds.py)"
            for what, limit in budget.items() if found[what] > limit]
